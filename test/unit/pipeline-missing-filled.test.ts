/**
 * A Pipeline that fills every missing value before its model (sweep 11: a public histogram-boosting
 * model behind a median imputer of all 7 columns read as "may have had missing values", and only
 * one tree's leaves were used). test/fixtures/pipeline-inputs/imputed_hgb.py: 600 Stroke rows, 46
 * of them missing bmi, SimpleImputer then HistGradientBoostingClassifier. The model never saw a
 * missing value, so its directions are not read and every tree is used; every proven row still
 * pairs with a distinct true row of the raw CSV. A Pipeline that leaves a column unfilled keeps them.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { checkCertifiedRows } from '../../server/src/evaluate/certified-check';
import { alignTrainingData, readTrainingData } from '../../server/src/evaluate/training-data';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

describe('a Pipeline that fills every missing value before the model', () => {
  it('stroke_imputed_hgb: directions not read, every tree used, every proven row a distinct true row', async () => {
    const file = join(FIXTURES, 'pipeline-inputs', 'stroke_imputed_hgb.joblib');
    const report = await lintFile(file, { keepForest: true });
    const forest = report.forest!;
    assert.ok(forest.trees.every((tree) => !tree.defaultLeft));
    assert.ok(report.notes.some((n) => /fills every missing value before the model/.test(n)), report.notes.join(' | '));
    const result = await reconstruct(forest, { budgetMs: 5_000 });
    assert.notEqual(result.method, 'leaf-regions', result.reason);
    assert.doesNotMatch(result.reason ?? '', /missing values/);
    assert.ok(result.certifiedRows > 0);
    const fit = alignTrainingData(await readTrainingData(join(FIXTURES, 'pipeline-inputs', 'stroke_imputed_hgb.train.csv'), 'stroke'), forest);
    assert.ok(fit.ok, fit.ok ? '' : fit.problem);
    assert.ok(fit.aligned.throughPipeline);
    const proven = result.reconstruction.filter((r) => r.certified || r.certifiedValues?.some((x) => x)).length;
    assert.deepEqual(checkCertifiedRows(forest, result.reconstruction, fit.aligned.rows), { proven, held: proven });
  });

  it('a column the Pipeline leaves unfilled (bmi passed through): the directions stay', async () => {
    const report = await lintFile(join(FIXTURES, 'categorical', 'hgb_cat_pipe.joblib'), { keepForest: true });
    assert.ok(report.forest!.trees.some((tree) => tree.defaultLeft));
    assert.ok(!report.notes.some((n) => /fills every missing value/.test(n)));
  });
});
