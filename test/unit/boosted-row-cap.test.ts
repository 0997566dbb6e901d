/**
 * The engine's row cap (MAX_RECONSTRUCTED_ROWS) reads a boosted model's rows as its first tree
 * states them: two public XGBoost models of 8 and 50 million rows started the reconstruction and
 * ran out of memory (sweep 8), while a scikit-learn model of 1.4 million was skipped in a second.
 * XGBoost's regressor of the fixtures (150 rows, squared error: each cover counts rows) with its
 * covers scaled by 10,000 stands for such a model.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { firstTreeExposesCounts } from '../../server/src/rules/first-tree-exposes-counts';
import { MAX_RECONSTRUCTED_ROWS, reconstruct } from '../../server/src/attacks/reconstruction';
import { completeForest } from '../../server/src/forest/complete';
import { readModel } from '../../server/src/formats';
import { FIXTURES } from '../support/paths';

function scaledRegressor(factor: number) {
  const file = path.join(FIXTURES, 'xgboost-pickle', 'reg_pima.json');
  const read = readModel(fs.readFileSync(file), file);
  if (read.kind !== 'model') throw new Error(read.kind);
  const done = completeForest(read.forest);
  if (!done.ok) throw new Error(done.problem);
  for (const tree of done.forest.trees) tree.boosting!.cover = Array.from(tree.boosting!.cover!, (v) => v * factor);
  return done.forest;
}

test('counts past 2^24 are not called exact: XGBoost stores them as float32 (sweep 8: root 50,178,316, leaves one off)', () => {
  const small = firstTreeExposesCounts.check({ forest: scaledRegressor(1) } as never) as { message: string }[];
  // Its alpha is XGBoost's default, assumed: the labels are said to rest on it (the rows stay exact).
  assert.match(small[0].message, /states, exactly for rows, and for labels under XGBoost's default regularisation \(see below\), how many/);
  assert.match(small[0].message, /Alpha=0 is XGBoost's default, assumed/);
  assert.doesNotMatch(small[0].message, /lambda=2 (and|is)/, 'its lambda of 2 is stated, not a default');
  const large = firstTreeExposesCounts.check({ forest: scaledRegressor(200_000) } as never) as { message: string }[];
  // 30,000,000 rows: float32 steps of 2 there, so good to 1.
  assert.match(large[0].message, /states, to within 1 \(XGBoost stores them as float32, exact only up to 16,777,216\) for rows, and for labels under/);
});

test("a boosted model past the row cap by its first tree's count is skipped, not started", async () => {
  const file = path.join(FIXTURES, 'xgboost-pickle', 'reg_pima.json');
  const read = readModel(fs.readFileSync(file), file);
  assert.equal(read.kind, 'model');
  if (read.kind !== 'model') return;
  const done = completeForest(read.forest);
  assert.ok(done.ok);
  if (!done.ok) return;
  const forest = done.forest;
  assert.equal(forest.training.rows, undefined, 'the file states no N: only the first tree gives it');
  for (const tree of forest.trees) tree.boosting!.cover = Array.from(tree.boosting!.cover!, (v) => v * 10_000);
  const rows = probeFirstTrees(forest).rows!;
  assert.ok(rows > MAX_RECONSTRUCTED_ROWS, `${rows}`);
  const result = await reconstruct(forest, { budgetMs: 5000 });
  assert.equal(result.status, 'skipped');
  assert.match(result.reason ?? '', /1,500,000 training rows: past the 1,000,000/);
});
