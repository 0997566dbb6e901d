/**
 * HistGradientBoostingClassifier(class_weight='balanced') (test/fixtures/class-weights, scikit-learn
 * 1.2.1): the weights scale each row's gradient and hessian, so iteration 0's Newton steps do not
 * count rows of a class; the trees are read as row counts only, and the note names the class
 * weights as the reason (a public model's note said only "not a whole number").
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

test("class_weight='balanced' is named as why a HistGradientBoosting model is read as row counts only", async () => {
  const report = await lintFile(join(FIXTURES, 'class-weights', 'hgb_balanced.joblib'), { keepForest: true });
  assert.equal(report.forest?.task, 'regression', 'read as count trees');
  assert.ok(report.notes.some((n) => /class_weight='balanced', which weighs each row's gradient and hessian\); the trees are read as row counts only/.test(n)), report.notes.join(' | '));
});

test('sample weights the model states (_fitted_with_sw, scikit-learn 1.5+) are named as why, as class weights are', async () => {
  const report = await lintFile(join(FIXTURES, 'class-weights', 'hgb_sample_weight.joblib'), { keepForest: true });
  assert.equal(report.forest?.task, 'regression', 'read as count trees');
  assert.ok(report.notes.some((n) => /the model states it was fitted with sample weights, which weigh each row's gradient and hessian\); the trees are read as row counts only/.test(n)), report.notes.join(' | '));
});
