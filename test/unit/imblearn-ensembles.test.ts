/**
 * imbalanced-learn's ensembles grow each tree on its own resampling of the rows: read as plain
 * trees, a BalancedRandomForestClassifier claimed "no bootstrap" and 198 of 198 rows certified
 * (the true N was 426; sweep 7). They are named as not read. Fixtures: test/fixtures/imblearn/generate.py
 * (imbalanced-learn 0.10.0).
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

const DIR = join(FIXTURES, 'imblearn');

describe("imbalanced-learn's ensembles", () => {
  it('BalancedRandomForestClassifier: one unsupported-model note, no finding from its trees read alone', async () => {
    const report = await lintFile(join(DIR, 'balanced_forest.joblib'));
    assert.deepEqual(report.findings.map((f) => f.rule), ['unsupported-model']);
    assert.match(report.findings[0].message, /not analysed: BalancedRandomForestClassifier \(imbalanced-learn's BalancedRandomForestClassifier is not read yet: each of its trees grew on its own resampling/);
    assert.equal(report.model, null);
  });
  it('BalancedBaggingClassifier of a LogisticRegression holds no tree model', async () => {
    const report = await lintFile(join(DIR, 'balanced_bagging_linear.joblib'));
    assert.deepEqual(report.findings.map((f) => f.rule), ['no-tree-model']);
  });
});
