/**
 * Early stopping (HistGradientBoosting's `early_stopping`, GradientBoosting's `n_iter_no_change`)
 * grows every tree on a training split: the trees' N is not every row given to fit, and the report
 * says so (a public 1,050,306-row HistGradientBoostingClassifier read "All 11 trees were trained on
 * every one of the 1,050,306 training rows" with 1,167,007 given to fit). Fixtures:
 * test/fixtures/estimators/generate.py, scikit-learn's own split of 150 rows.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { heldOutSplit } from '../../server/src/formats/sklearn/validation-split';
import { lintFile } from '../../server/src/linter/linter';
import { writeText } from '../../server/src/report/text';
import { FIXTURES } from '../support/paths';

const DIR = path.join(FIXTURES, 'estimators');
const truthOf = (name: string): { n: number } => JSON.parse(fs.readFileSync(path.join(DIR, `${name}.truth.json`), 'utf8')) as { n: number };

describe('early stopping: the rows held out for validation', () => {
  for (const name of ['gb_clf_es', 'hgb_clf_es']) {
    it(`${name}: N is the training split, the rows given to fit are stated, and no-bootstrap says which`, async () => {
      const { n } = truthOf(name);
      const report = await lintFile(path.join(DIR, `${name}.joblib`));
      const rows = report.model!.trainingRows!;
      assert.ok(rows < n, `${rows} of ${n}`);
      assert.deepEqual(report.model!.heldOut, { fraction: 0.15, fitRows: n });
      const finding = report.findings.find((f) => f.rule === 'no-bootstrap');
      assert.ok(finding, report.findings.map((f) => f.rule).join(', '));
      assert.match(finding.message, new RegExp(`held out validation_fraction=0\\.15 of the rows given to fit \\(${n - rows} of the ${n} rows\\)`));
      assert.match(writeText([report]), new RegExp(`${rows} training rows \\(of ${n} given to fit`));
    });
  }
  it('hgb_reg_es: two sizes leave its split, so the first-tree finding says "about", and no subsample caveat (histogram models draw no rows)', async () => {
    const report = await lintFile(path.join(DIR, 'hgb_reg_es.joblib'));
    assert.equal(report.model!.heldOut?.fitRows, null);
    const finding = report.findings.find((f) => f.rule === 'first-tree-exposes-counts')!;
    assert.match(finding.message, /Early stopping held out validation_fraction=0\.2 of the rows given to fit \(about 120 rows in all\)/);
    assert.doesNotMatch(finding.message, /subsample/);
  });
  it('a model trained without early stopping states no held-out rows', async () => {
    const report = await lintFile(path.join(DIR, 'hgb_clf.joblib'));
    assert.equal(report.model!.heldOut, undefined);
    assert.doesNotMatch(report.findings.map((f) => f.message).join(' '), /Early stopping/);
  });
  it('heldOutSplit: the size train_test_split leaves, when one size leaves it', () => {
    // train_test_split holds out ceil(fraction x n): 1,167,007 rows at 0.1 leave 1,050,306 (the public file), and only they do.
    assert.equal(heldOutSplit(0.1, 1_050_306)?.fitRows, 1_167_007);
    // 120 and 121 rows at 0.2 both leave 96 (24 and 25 held out): no size is stated.
    assert.equal(heldOutSplit(0.2, 96)?.fitRows, undefined);
    // An integer validation_fraction (HistGradientBoosting) is that many rows.
    assert.equal(heldOutSplit(30, 100)?.fitRows, 130);
    assert.equal(heldOutSplit(undefined, 100), undefined);
  });
});
