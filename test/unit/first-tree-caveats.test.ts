/**
 * The first-tree finding's caveat on XGBoost 2's estimated base_score: with scale_pos_weight the
 * estimate is the weighted label balance (sweep 8: a public model's base_score 0.5 beside
 * scale_pos_weight 174.09 = negatives / positives, 0.57% positive, read as "reveals the balance").
 * The fixture is XGBoost 1.7.4's (scale_pos_weight 3); its IR is given XGBoost 2's stated base_score.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { completeForest } from '../../server/src/forest/complete';
import { readModel } from '../../server/src/formats';
import { firstTreeExposesCounts } from '../../server/src/rules/first-tree-exposes-counts';
import { FIXTURES } from '../support/paths';
import { positiveShareFromBaseScore } from '../../server/src/attacks/first-tree-probe';

function asXgboost2(file: string) {
  const read = readModel(fs.readFileSync(path.join(FIXTURES, 'xgboost', file)), file);
  if (read.kind !== 'model') throw new Error(read.kind);
  const done = completeForest(read.forest);
  if (!done.ok) throw new Error(done.problem);
  const forest = done.forest;
  forest.boosting = { ...forest.boosting!, libraryVersion: [2, 0, 3], baseScoreStated: true };
  return forest;
}

const messageOf = (file: string) => (firstTreeExposesCounts.check({ forest: asXgboost2(file) } as never) as { message: string }[])[0].message;

test('base_score reveals the balance by itself without scale_pos_weight, and together with it otherwise', () => {
  assert.match(messageOf('bin_pima.json'), /so base_score \([\d.]+\) itself already reveals the label balance/);
  const weighted = messageOf('bin_pima_spw.json');
  assert.doesNotMatch(weighted, /itself already reveals/);
  // This 1.7.4 model's base score was set, not estimated: the share it would imply (25%) is not
  // the first tree's exact count, so no number is given.
  assert.match(weighted, /base_score \(0\.5\) and scale_pos_weight \(3\) together reveal the label balance\./);
  assert.doesNotMatch(weighted, /% positive/);
});

test("the share an XGBoost 2+ base score implies: one Newton step from 0.5, inverted", () => {
  // A public XGBoost 3.3 model: 2,450 of 4,900 rows positive, scale_pos_weight 2.
  assert.ok(Math.abs(positiveShareFromBaseScore(0.66075635, 2)! - 0.5) < 1e-6);
  // Another: 3,434 of 601,261 positive, scale_pos_weight 174.09 (n0 / n1): base 0.5.
  assert.ok(Math.abs(positiveShareFromBaseScore(0.5, 174.09)! - 3_434 / 601_261) < 1e-5);
  assert.equal(positiveShareFromBaseScore(1, 2), undefined);
});

test('without scale_pos_weight the share is stated when the first tree agrees (sweep 15: XGBoost 2.0.3, base_score 0.283 for 75 of 280)', () => {
  // newton_base_pima (XGBoost 1.7.4, 150 rows, 58 positive) trained from the base score XGBoost 2.0
  // estimates, the sigmoid of one Newton step from margin 0, and read as a 2.0 file.
  const file = 'newton_base_pima.json';
  const read = readModel(fs.readFileSync(path.join(FIXTURES, 'xgboost-objectives', file)), file);
  assert.ok(read.kind === 'model');
  const done = completeForest(read.forest);
  assert.ok(done.ok);
  const forest = done.forest;
  forest.boosting = { ...forest.boosting!, libraryVersion: [2, 0, 3], baseScoreStated: true };
  const message = (firstTreeExposesCounts.check({ forest } as never) as { message: string }[])[0].message;
  assert.match(message, /itself already reveals the label balance \(38\.7% positive\)/);
  assert.ok(Math.abs(positiveShareFromBaseScore(0.28321463, 1)! - 75 / 280) < 1e-3);
});
