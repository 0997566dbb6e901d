/**
 * The model summary's training-set size N and where it comes from (`trainingRows`,
 * `trainingRowsSource`, part of the CLI's JSON contract): stated by the file, established by
 * bootstrap replay, or proven by first-tree probing of a boosted model; null when unknown.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { checkReplay } from '../../server/src/attacks/bootstrap-replay';
import { lintFile, trainingRowsOf } from '../../server/src/linter/linter';
import { writeText } from '../../server/src/report/text';
import { firstTreeExposesCounts } from '../../server/src/rules/first-tree-exposes-counts';
import { EXAMPLES, FIXTURES } from '../support/paths';
import { readFixtureForest } from '../support/model-files';

const csvRows = (file: string) => fs.readFileSync(file, 'utf8').trim().split('\n').length - 1;

describe('trainingRows and trainingRowsSource', () => {
  it('XGBoost: first-tree probing gives the true N (the example and fixtures), the same N the finding states', async () => {
    const cases = [
      { model: path.join(EXAMPLES, 'models', 'diabetes_xgb.json'), train: path.join(EXAMPLES, 'data', 'diabetes.csv') },
      { model: path.join(EXAMPLES, 'models', 'diabetes_xgb.dump.txt'), train: path.join(EXAMPLES, 'data', 'diabetes.csv') },
      { model: path.join(FIXTURES, 'xgboost', 'bin_pima.json'), train: path.join(FIXTURES, 'xgboost', 'bin_pima.train.csv') },
      { model: path.join(FIXTURES, 'xgboost-pickle', 'bin_pima.json'), train: path.join(FIXTURES, 'xgboost-pickle', 'bin_pima.train.csv') },
    ];
    for (const { model, train } of cases) {
      const report = await lintFile(model);
      const n = csvRows(train);
      assert.equal(report.model?.trainingRows, n, model);
      assert.equal(report.model?.trainingRowsSource, 'probe', model);
      const finding = report.findings.find((f) => f.rule === 'first-tree-exposes-counts');
      assert.equal(finding?.data?.rows, n, model);
    }
  });

  it('the summary keeps N when the first-tree rule is turned off', async () => {
    const report = await lintFile(path.join(EXAMPLES, 'models', 'diabetes_xgb.json'), { severities: { 'first-tree-exposes-counts': 'off' } });
    assert.equal(report.findings.some((f) => f.rule === 'first-tree-exposes-counts'), false);
    assert.equal(report.model?.trainingRows, 200);
    assert.equal(report.model?.trainingRowsSource, 'probe');
  });

  it('subsample < 1 stated: the first tree counts a draw, so N is not claimed', async () => {
    const report = await lintFile(path.join(FIXTURES, 'xgboost', 'bin_pima_subsample.json'));
    assert.ok(report.findings.some((f) => f.rule === 'first-tree-exposes-counts'), 'the probe still reports the drawn rows');
    assert.equal(report.model?.trainingRows, null);
    assert.equal(report.model?.trainingRowsSource, null);
  });

  it('squared error, subsample not stated but the trees\' roots differ: a draw, so N is not claimed, and the finding says why', async () => {
    const report = await lintFile(path.join(FIXTURES, 'xgboost-counts', 'reg_pima_sub_booster.json'));
    const finding = report.findings.find((f) => f.rule === 'first-tree-exposes-counts');
    assert.ok(finding);
    assert.match(finding.message, /grown on different numbers of rows \(tree 0 on \d+\), so the model was trained with subsample below 1/);
    assert.equal(report.model?.trainingRows, null);
    // The same rows without subsample (every root 150): N claimed from the probe.
    const full = await lintFile(path.join(FIXTURES, 'xgboost-counts', 'reg_pima_deep.json'));
    assert.equal(full.model?.trainingRows, 150);
    assert.equal(full.model?.trainingRowsSource, 'probe');
  });

  it('a forest without bootstrap, and a forest.json, state N themselves (source file)', async () => {
    const forest = await lintFile(path.join(EXAMPLES, 'models', 'diabetes_no_bagging.joblib'));
    assert.equal(forest.model?.bootstrap, false);
    assert.equal(forest.model?.trainingRows, csvRows(path.join(EXAMPLES, 'data', 'diabetes.csv')));
    assert.equal(forest.model?.trainingRowsSource, 'file');
    const stump = await lintFile(path.join(EXAMPLES, 'models', 'private_stump.forest.json'));
    assert.equal(stump.model?.trainingRows, 10);
    assert.equal(stump.model?.trainingRowsSource, 'file');
  });

  it('replay gives N only when it pins one value; a range leaves N unknown', () => {
    // rf_max_samples_40 stores no N (max_samples set); its replay fits a range of N.
    const forest = readFixtureForest(path.join(FIXTURES, 'sklearn'), 'rf_max_samples_40.joblib');
    assert.equal(forest.training.rows, undefined);
    const replay = checkReplay(forest);
    assert.equal(replay.status, 'replayed');
    if (replay.status !== 'replayed') return;
    assert.ok(replay.rowsAtMost !== undefined && replay.rowsAtMost > replay.rows);
    assert.equal(trainingRowsOf(forest, replay, undefined), undefined);
    const pinned = { ...replay, rowsAtMost: undefined };
    assert.deepEqual(trainingRowsOf(forest, pinned, undefined), { rows: replay.rows, source: 'replay' });
  });

  it('the rule reports the probe the linter computed rather than probing again', () => {
    const forest = readFixtureForest(path.join(EXAMPLES, 'models'), 'diabetes_xgb.json');
    const probe = probeFirstTrees(forest);
    const [own] = firstTreeExposesCounts.check({ forest, replay: checkReplay(forest) });
    const [given] = firstTreeExposesCounts.check({ forest, replay: checkReplay(forest), probe: { ...probe, rows: 12345 } });
    assert.equal(own.data?.rows, 200);
    assert.equal(given.data?.rows, 12345, 'the probe in the context is the one reported');
  });

  it('the text output says where N comes from', async () => {
    const xgb = await lintFile(path.join(EXAMPLES, 'models', 'diabetes_xgb.json'));
    const forest = await lintFile(path.join(EXAMPLES, 'models', 'diabetes_no_bagging.joblib'));
    const text = writeText([xgb, forest]);
    assert.match(text, /diabetes_xgb\.json {2}\(xgboost-json, Booster, 20 trees, 200 training rows \(from first-tree probing\)\)/);
    assert.match(text, /diabetes_no_bagging\.joblib {2}\(sklearn-joblib, RandomForestClassifier, \d+ trees, 200 training rows\)/);
  });
});
