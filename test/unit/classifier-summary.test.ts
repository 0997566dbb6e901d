/**
 * Classifiers read as row counts (scikit-learn's gradient boosting, histogram boosting, AdaBoost)
 * are classifiers to the user: the JSON's `model.task` is `classification` and `model.classes` the
 * model's `classes_`. Before stop 33 every such model had `classes: []`, and a
 * GradientBoostingClassifier(loss='exponential') had `task: "regression"` (sweep 7). Fixtures:
 * test/fixtures/estimators/generate.py (scikit-learn 1.2.1).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

const DIR = path.join(FIXTURES, 'estimators');

describe('classifiers read as row counts: task and classes in the summary', () => {
  for (const name of ['gb_clf', 'gb_clf_multi', 'gb_clf_sub', 'gb_clf_exp', 'hgb_clf', 'hgb_clf_multi']) {
    it(`${name}: classification, with scikit-learn's classes_`, async () => {
      const truth = JSON.parse(fs.readFileSync(path.join(DIR, `${name}.truth.json`), 'utf8')) as { classes: (string | number)[] };
      const report = await lintFile(path.join(DIR, `${name}.joblib`));
      assert.equal(report.model?.task, 'classification');
      assert.deepEqual(report.model?.classes, truth.classes);
    });
  }
  it('gb_clf_sub (subsample 0.7): a draw without replacement says so (model.withoutReplacement); gb_clf has no draw', async () => {
    const sub = await lintFile(path.join(DIR, 'gb_clf_sub.joblib'));
    assert.equal(sub.model?.bootstrap, true);
    assert.equal(sub.model?.withoutReplacement, true);
    const whole = await lintFile(path.join(DIR, 'gb_clf.joblib'));
    assert.equal(whole.model?.withoutReplacement, undefined);
    // The reconstruction states the rate the file records; what it does not record is which rows
    // each stage drew (sweep 15: "(subsample), which the file does not record" beside subsample=0.9).
    const reason = (await reconstruct((await lintFile(path.join(DIR, 'gb_clf_sub.joblib'), { keepForest: true })).forest!, { budgetMs: 3_000 })).reason ?? '';
    assert.match(reason, /a draw of 70% of the rows without replacement \(subsample=0\.7\), and which rows each drew is not recorded/);
    assert.doesNotMatch(reason, /which the file does not record/);
  });
  it('ada_clf: classification with its two classes', async () => {
    const report = await lintFile(path.join(DIR, 'ada_clf.joblib'));
    assert.equal(report.model?.task, 'classification');
    assert.deepEqual(report.model?.classes, [0, 1]);
  });
});
