/**
 * CalibratedClassifierCV's fold models: each counts only the rows outside its fold, so the header
 * says which rows those are and, when the folds partition the rows, how many were given to fit (a
 * public file of 5 XGBClassifiers read "168 of 168 training rows" of 210). Fixtures:
 * test/fixtures/containers/generate.py (scikit-learn 1.2.1, 150 Pima rows).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { lintFile } from '../../server/src/linter/linter';
import { writeText } from '../../server/src/report/text';

const DIR = path.resolve(__dirname, '../../../test/fixtures/containers');
describe('CalibratedClassifierCV fold models', () => {
  it('cv=3 (stratified folds, a partition): every fold model states 3 folds and the 150 rows given to fit', async () => {
    const report = await lintFile(path.join(DIR, 'calibrated.joblib'));
    const all = [report.model!, ...(report.embedded ?? [])];
    assert.equal(all.length, 3);
    for (const m of all) assert.deepEqual(m.crossValidation, { folds: 3, fitRows: 150 });
    // Each fold model grew on the rows outside its fold: 2 of 3 folds, and the N's add up to twice the rows.
    assert.equal(all.reduce((s, m) => s + m.trainingRows!, 0), 2 * 150);
    assert.match(writeText([report]), /training rows \(one of 3 cross-validation fold models, each fitted on the rows outside its fold: 150 rows given to fit\)/);
  });
  it('fold models inside a Pipeline (one level deeper in each fold) are folds too (sweep 11)', async () => {
    const report = await lintFile(path.join(DIR, 'calibrated_pipeline.joblib'));
    const all = [report.model!, ...(report.embedded ?? [])];
    assert.equal(all.length, 3);
    for (const m of all) {
      assert.match(m.location ?? '', /^model\.calibrated_classifiers_\[\d\]\.estimator\.named_steps\["rf"\]$/);
      assert.deepEqual(m.crossValidation, { folds: 3, fitRows: 150 });
    }
  });
  it('ShuffleSplit folds do not partition the rows: the folds are stated, the rows given to fit are not', async () => {
    const report = await lintFile(path.join(DIR, 'calibrated_shuffle.joblib'));
    for (const m of [report.model!, ...(report.embedded ?? [])]) assert.deepEqual(m.crossValidation, { folds: 3, fitRows: null });
  });
  it('ensemble=False: one model fitted on every row, no fold', async () => {
    const report = await lintFile(path.join(DIR, 'calibrated_single.joblib'));
    assert.equal(report.model!.crossValidation, undefined);
    assert.equal(report.embedded, undefined);
  });
});
