/**
 * binary:logistic models trained with missing values (xgboost 1.7.4, 120 Pima rows with 30% of
 * Glucose missing; test/fixtures/xgboost/generate.py, section 8), against their true rows. The
 * hessian reconstruction reads missing values the way boosting-counts does (missing-values.ts):
 * skipped, naming the feature, when a feature's splits send a missing value both ways; otherwise
 * a missing value is read as the end interval its splits send it to, and the reason says so. The
 * probe's caveats say the same.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import { FIXTURES } from '../support/paths';

const DIR = path.join(FIXTURES, 'xgboost');
function forestOf(file: string): Forest {
  const read = readModel(new Uint8Array(fs.readFileSync(path.join(DIR, file))), file);
  assert.equal(read.kind, 'model');
  const completed = completeForest((read as { forest: Forest }).forest);
  assert.ok(completed.ok);
  return completed.forest;
}
const trainingRows = (name: string) =>
  fs.readFileSync(path.join(DIR, `${name}.train.csv`), 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').map((v) => (v === '' ? NaN : Number(v))));

describe('boosting-hessians with missing values', () => {
  it('bin_missing (Glucose missing, sent left at some splits and right at others): skipped, naming Glucose; the probe says so', async () => {
    const forest = forestOf('bin_missing.json');
    assert.ok(trainingRows('bin_missing').some((x) => Number.isNaN(x[1])));
    const result = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(result.status, 'skipped');
    assert.match(result.reason ?? '', /missing values of Glucose/);
    assert.equal(result.reconstruction.length, 0);
    const probe = probeFirstTrees(forest);
    assert.equal(probe.status, 'exact');
    assert.ok(probe.caveats.some((c) => /missing values of Glucose/.test(c)), probe.caveats.join(' | '));
  });

  it('bin_missing_right (sent right at every Glucose split): reconstructed, the reason and the probe say a missing Glucose reads as its highest interval, and tree 0 holds the true rows', async () => {
    const forest = forestOf('bin_missing_right.json');
    const truthRows = trainingRows('bin_missing_right');
    assert.ok(truthRows.some((x) => Number.isNaN(x[1])));
    const result = await reconstruct(forest, { budgetMs: 20_000 });
    assert.equal(result.method, 'boosting-hessians');
    assert.ok(result.status === 'bounded' || result.status === 'timeout', result.reason);
    assert.match(result.reason ?? '', /the highest interval of Glucose also stand for a missing value/);
    assert.equal(result.reconstructedRows, truthRows.length);
    const probe = probeFirstTrees(forest);
    assert.ok(probe.caveats.some((c) => /had missing values.*highest interval of Glucose/.test(c)), probe.caveats.join(' | '));

    // Tree 0 by the reconstructed intervals: each leaf holds the rows and positives the true rows
    // give it when a missing Glucose follows the default direction (right), i.e. a missing Glucose
    // is a row in the highest Glucose interval.
    const tree = forest.trees[0];
    const counts = new Map<number, { rows: number; positives: number }>();
    for (const row of result.reconstruction) {
      let node = 0;
      while (tree.left[node] !== -1) {
        const [lower, upper] = row.intervals![tree.feature[node]]!;
        if (upper !== null && upper <= tree.threshold[node]) node = tree.left[node];
        else if (lower !== null && lower >= tree.threshold[node]) node = tree.right[node];
        else assert.fail(`a reconstructed row straddles tree 0's threshold ${tree.threshold[node]}`);
      }
      const c = counts.get(node) ?? { rows: 0, positives: 0 };
      c.rows++;
      if (Number(row.label) === 1) c.positives++;
      counts.set(node, c);
    }
    const leafTruth = JSON.parse(fs.readFileSync(path.join(DIR, 'bin_missing_right.truth.json'), 'utf8')).firstTrees[0].leaves as Record<string, { rows: number; positives: number }>;
    assert.equal(counts.size, Object.keys(leafTruth).length);
    for (const [node, c] of counts) assert.deepEqual(c, leafTruth[String(tree.boosting?.nodeId?.[node] ?? node)]);
    // What makes the check bite: tree 0 splits on Glucose, so its true counts hold the rows missing
    // Glucose on the right of that split, where the reconstructed rows carry Glucose's upper intervals.
    assert.ok(tree.feature.some((f, n) => tree.left[n] !== -1 && f === 1), 'tree 0 splits on Glucose');
  });
});
