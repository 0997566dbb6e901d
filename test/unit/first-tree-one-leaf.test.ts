/**
 * A boosted model whose first tree is one leaf (test/fixtures/xgboost-one-leaf, written by
 * generate.py with xgboost 1.7.4). The leaf's cover counts every training row, but its region is
 * the whole feature space: rows there without a proven label prove only that they exist. A public
 * booster before XGBoost 1.0 with such a tree read "5,036 rows proven, labels estimated" as an
 * error, its boxes bounding nothing (sweep 18).
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

describe('a first tree of one leaf', () => {
  it('counts the 768 rows, and none is a proven box without its label', async () => {
    const report = await lintFile(join(FIXTURES, 'xgboost-one-leaf', 'one_leaf.json'), { keepForest: true });
    const forest = report.forest!;
    assert.equal(forest.trees[0].left.length, 1, 'tree 0 is a single leaf');
    const probe = probeFirstTrees(forest);
    assert.equal(probe.rows, 768);
    const result = await reconstruct(forest, { budgetMs: 5_000 });
    assert.equal(result.rows, 768);
    assert.equal(result.certifiedWithoutLabel ?? 0, 0, result.reason);
    // Whatever is certified carries its label; a box over everything that proves no label is no proof.
    for (const row of result.reconstruction) {
      if (row.certified) continue;
      assert.ok(!row.certifiedValues?.some((v) => v), 'an unlabelled row of the one leaf is not proven');
    }
    assert.match(result.reason ?? '', /not counted as proven: their leaf's region bounds no feature/);
  });
});
