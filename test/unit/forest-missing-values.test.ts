/**
 * scikit-learn 1.3+ forests trained with missing values (sweep 11: a public 1.5
 * RandomForestClassifier, 109 splits on missing values alone, was "corrupt", then `skipped`):
 *  - a split at +inf sending missing values right is read as the split on missing values alone;
 *  - with bootstrap, and missing values some splits send left and others right, the tree that drew
 *    the most rows certifies its single-class leaves' distinct rows as boxes open where a missing
 *    value reaches them, instead of nothing. Debian's scikit-learn 1.2.1 trains no forest on
 *    missing values, so the directions are set by hand on a real bootstrap forest
 *    (test/fixtures/bootstrap), whose true rows every proven row must still pair with.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { missingValueRouting } from '../../server/src/attacks/missing-values';
import { checkCertifiedRows } from '../../server/src/evaluate/certified-check';
import { alignTrainingData, readTrainingData } from '../../server/src/evaluate/training-data';
import { MISSING_ONLY_THRESHOLD } from '../../server/src/forest/missing-split';
import type { Forest } from '../../server/src/forest/schema';
import { readMissingOnlySplits, type RawTree } from '../../server/src/formats/sklearn/tree-arrays';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

describe('forests trained with missing values', () => {
  it('a split at +inf that sends missing values right is the split on missing values alone; elsewhere +inf stays', () => {
    const f = (values: number[]) => Float64Array.from(values);
    const raw = (missingLeft?: number[]): RawTree => ({ left: f([1, -1, -1]), right: f([2, -1, -1]), feature: f([3, -2, -2]), threshold: f([Infinity, -2, -2]), nodeSamples: f([13, 2, 11]), weighted: f([13, 2, 11]), values: f([13, 2, 11]), nodeCount: 3, ...(missingLeft ? { missingLeft: f(missingLeft) } : {}) });
    const read = raw([0, 0, 0]);
    readMissingOnlySplits(read);
    assert.equal(read.threshold[0], MISSING_ONLY_THRESHOLD);
    for (const kept of [raw([1, 0, 0]), raw()]) {
      readMissingOnlySplits(kept);
      assert.equal(kept.threshold[0], Infinity, 'missing sent left, or no directions: not that split');
    }
  });

  it('bootstrap, missing values sent both ways: the tree that drew the most rows certifies its single-class leaves, each a distinct true row', async () => {
    const dir = join(FIXTURES, 'bootstrap');
    const report = await lintFile(join(dir, 'boot_compas_t15.joblib'), { keepForest: true });
    const real = report.forest!;
    assert.ok(real.training.bootstrap);
    // Every split sends a missing value the way its node's parity says: each feature both ways.
    const forest: Forest = { ...real, trees: real.trees.map((tree) => ({ ...tree, defaultLeft: Array.from(tree.left, (_, n) => n % 2 === 0) })) };
    assert.ok(missingValueRouting(forest).routes.includes('mixed'));
    const result = await reconstruct(forest, { budgetMs: 5_000 });
    assert.equal(result.method, 'leaf-regions', result.reason);
    assert.notEqual(result.status, 'skipped');
    // The tree that drew the most distinct rows, its single-class leaves' distinct rows.
    const best = forest.trees.reduce((b, tree, t) => (tree.distinctRows![0] > forest.trees[b].distinctRows![0] ? t : b), 0);
    const tree = forest.trees[best];
    const k = forest.classes.length;
    let pure = 0;
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] !== -1) continue;
      const classes = Array.from({ length: k }, (_, c) => tree.classWeights[n * k + c]).filter((w) => w > 0).length;
      if (classes === 1) pure += tree.distinctRows![n];
    }
    assert.equal(result.certifiedRows, pure);
    assert.ok(pure > 0 && pure < forest.training.rows!);
    assert.match(result.reason ?? '', new RegExp(`tree ${best}'s leaves hold ${pure} rows`));
    const fit = alignTrainingData(await readTrainingData(join(dir, 'boot_compas_t15.train.csv'), 'recidivate-within-two-years:1'), forest);
    assert.ok(fit.ok, fit.ok ? '' : fit.problem);
    assert.deepEqual(checkCertifiedRows(forest, result.reconstruction, fit.aligned.rows), { proven: pure, held: pure });
  });
});
