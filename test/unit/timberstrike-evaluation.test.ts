/**
 * TimberStrike's reconstruction accuracy in the evaluation against the true training rows
 * (evaluate/timberstrike-evaluation.ts), and through the CLI's `--training-data` on a real
 * XGBoost 1.7.4 model (test/fixtures/xgboost/bin_pima.json, trained on bin_pima.train.csv), its
 * text dump (no objective stated: read as the objective the probe settled on), and a scikit-learn
 * forest on binary features (the papers' error still defined there).
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { ReconstructedRow } from '../../server/src/attacks/reconstruction/types';
import type { Forest } from '../../server/src/forest/schema';
import { importantFeatures } from '../../server/src/evaluate/reconstruction-accuracy';
import { declaredCategorical, timberstrikeAccuracy, TOP_FEATURES } from '../../server/src/evaluate/timberstrike-evaluation';
import type { EvaluatedRow } from '../../server/src/evaluate/metrics';
import { FIXTURES, REPO_ROOT } from '../support/paths';
import { readFixtureForest } from '../support/model-files';

const DIR = path.join(FIXTURES, 'xgboost');
const CLI = path.join(REPO_ROOT, 'out', 'server', 'src', 'cli.js');

const forestOf = (file: string): Forest => readFixtureForest(DIR, file);

const truthRows: EvaluatedRow[] = fs
  .readFileSync(path.join(DIR, 'bin_pima.train.csv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split(',').map(Number))
  .map((cells) => ({ values: cells.slice(0, -1), label: cells[cells.length - 1] }));

const asRows = (rows: EvaluatedRow[], forest: Forest): ReconstructedRow[] =>
  rows.map((row) => ({ values: [...row.values], intervals: row.values.map(() => null), label: forest.classes[Number(row.label)], certified: false }));

describe('reconstruction accuracy of a reconstruction (timberstrike-evaluation.ts)', () => {
  const forest = forestOf('bin_pima.json');
  const F = forest.features.length;

  it('the true rows themselves, shuffled, score 1 over all features and over the top ones', () => {
    const shuffled = [...truthRows].reverse();
    const result = timberstrikeAccuracy(forest, asRows(shuffled, forest), truthRows);
    assert.ok('figures' in result);
    assert.equal(result.figures.all, 1);
    assert.equal(result.figures.top.accuracy, 1);
    assert.deepEqual(result.figures.top.features, importantFeatures(forest, TOP_FEATURES).map((f) => forest.features[f].name));
    assert.equal(result.figures.top.features.length, TOP_FEATURES);
  });

  it('past 1,000 true rows: a sample, each row against its nearest reconstructed row, said so; the same figures as matching where they agree', () => {
    // 1,200 true rows: the 200 real ones six times, each copy shifted by a whole standard deviation step.
    const big = Array.from({ length: 6 }, (_, k) => truthRows.map((row) => ({ ...row, values: row.values.map((v) => (v as number) + 1000 * k) }))).flat();
    const exact = timberstrikeAccuracy(forest, asRows([...big].reverse(), forest), big);
    assert.ok('figures' in exact, 'problem' in exact ? exact.problem : '');
    assert.equal(exact.figures.matching, 'nearest');
    assert.equal(exact.figures.sampled, 1000);
    assert.equal(exact.figures.all, 1);
    // Half the rows rebuilt, the rest blank: a sampled true row finds its own copy or scores only the label at best.
    const half = asRows(big.slice(0, 600), forest);
    const partial = timberstrikeAccuracy(forest, half, big);
    assert.ok('figures' in partial);
    assert.ok(partial.figures.all > 0.45 && partial.figures.all < 0.75, `${partial.figures.all}`);
    const small = timberstrikeAccuracy(forest, asRows(truthRows, forest), truthRows);
    assert.ok('figures' in small);
    assert.equal(small.figures.matching, 'matched');
    assert.equal(small.figures.sampled, undefined);
  });

  it('many rows sharing few boxes: each distinct row scored once, so the sample stays 1,000 (30,000 rows took 10 s for 666)', () => {
    // 30,000 reconstructed rows, 150 at each of the 200 true rows' values (one shared array each,
    // as a box's rows share theirs), against 1,200 true rows (the 200 and their shifted copies).
    const shared = asRows(truthRows, forest);
    const many = shared.flatMap((row) => Array.from({ length: 150 }, () => row));
    const big = Array.from({ length: 6 }, (_, k) => truthRows.map((row) => ({ ...row, values: row.values.map((v) => (v as number) + 1000 * k) }))).flat();
    const result = timberstrikeAccuracy(forest, many, big);
    assert.ok('figures' in result);
    assert.equal(result.figures.sampled, 1000);
    // The same figure as the 200 distinct rows alone: copies add nothing to a nearest-row score.
    const alone = timberstrikeAccuracy(forest, shared, big);
    assert.ok('figures' in alone);
    assert.equal(result.figures.all, alone.figures.all);
    assert.equal(result.figures.top.accuracy, alone.figures.top.accuracy);
  });

  it('a feature left undetermined in every row costs exactly its share; a wrong label costs the label column', () => {
    const blanked = truthRows.map((row) => ({ ...row, values: row.values.map((v, f) => (f === 2 ? null : v)) }));
    const result = timberstrikeAccuracy(forest, asRows(blanked, forest), truthRows);
    assert.ok('figures' in result);
    assert.ok(Math.abs(result.figures.all - F / (F + 1)) < 1e-12, `${result.figures.all}`);
    const flipped = truthRows.map((row) => ({ ...row, label: 1 - Number(row.label) }));
    const wrongLabels = timberstrikeAccuracy(forest, asRows(flipped, forest), truthRows);
    assert.ok('figures' in wrongLabels);
    assert.ok(Math.abs(wrongLabels.figures.all - F / (F + 1)) < 1e-12, `${wrongLabels.figures.all}`);
  });

  it('numeric values count right within 0.319 standard deviations, not beyond', () => {
    const glucose = forest.features.findIndex((f) => f.name === 'Glucose');
    const values = truthRows.map((row) => row.values[glucose]!);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const std = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
    const shifted = (by: number) => truthRows.map((row) => ({ ...row, values: row.values.map((v, f) => (f === glucose ? v! + by : v)) }));
    const inside = timberstrikeAccuracy(forest, asRows(shifted(0.3 * std), forest), truthRows);
    const outside = timberstrikeAccuracy(forest, asRows(shifted(0.34 * std), forest), truthRows);
    assert.ok('figures' in inside && 'figures' in outside);
    assert.equal(inside.figures.all, 1);
    // The matching may pair a row with a neighbour whose glucose is closer; most rows still lose it.
    assert.ok(outside.figures.all < 1 - 0.5 / (F + 1), `${outside.figures.all}`);
  });

  it('a feature declared categorical must match exactly: a shift within the numeric tolerance then counts as wrong', () => {
    const declared = declaredCategorical(forest, ['Pregnancies', 'no-such-feature']);
    assert.deepEqual([...declared.features], [0]);
    assert.deepEqual(declared.unknown, ['no-such-feature']);
    // Pregnancies' standard deviation is above 3, so +1 is within 0.319 of it as a number.
    const shifted = truthRows.map((row) => ({ ...row, values: row.values.map((v, f) => (f === 0 ? v! + 1 : v)) }));
    const asNumber = timberstrikeAccuracy(forest, asRows(shifted, forest), truthRows);
    const asCategory = timberstrikeAccuracy(forest, asRows(shifted, forest), truthRows, declared.features);
    assert.ok('figures' in asNumber && 'figures' in asCategory);
    assert.equal(asNumber.figures.all, 1);
    assert.deepEqual(asCategory.figures.categorical, ['Pregnancies']);
    assert.ok(asCategory.figures.all < 1 - 0.5 / (F + 1), `${asCategory.figures.all}`);
  });
});

describe("a regressor's target is scored as a number (test/fixtures/soundness/rf_reg_diabetes_sex)", () => {
  it('a target within 0.319 standard deviations counts right, one beyond it wrong (it was matched exactly)', () => {
    const SOUND = path.join(FIXTURES, 'soundness');
    const forest = readFixtureForest(SOUND, 'rf_reg_diabetes_sex.joblib');
    assert.equal(forest.task, 'regression');
    const truth: EvaluatedRow[] = fs.readFileSync(path.join(SOUND, 'rf_reg_diabetes_sex.train.csv'), 'utf8').trim().split('\n').slice(1)
      .map((line) => line.split(',').map(Number)).map((cells) => ({ values: cells.slice(0, -1), label: cells[cells.length - 1] }));
    const targets = truth.map((row) => Number(row.label));
    const mean = targets.reduce((a, b) => a + b, 0) / targets.length;
    const std = Math.sqrt(targets.reduce((a, b) => a + (b - mean) ** 2, 0) / targets.length);
    const F = forest.features.length;
    const shifted = (by: number): ReconstructedRow[] => truth.map((row) => ({ values: [...row.values], label: Number(row.label) + by, certified: false }));
    const inside = timberstrikeAccuracy(forest, shifted(0.3 * std), truth);
    const outside = timberstrikeAccuracy(forest, shifted(0.34 * std), truth);
    assert.ok('figures' in inside && 'figures' in outside);
    assert.equal(inside.figures.all, 1);
    assert.ok(outside.figures.all < 1 - 0.5 / (F + 1), `${outside.figures.all}`);
    assert.ok(!inside.figures.categorical.includes('y'));
  });
});

describe('--training-data reports the reconstruction accuracy (CLI)', () => {
  const run = (model: string) => {
    const cli = spawnSync(process.execPath, [CLI, path.join(DIR, model), '--format', 'json', '--budget', '15', '--training-data', path.join(DIR, 'bin_pima.train.csv'), '--label', 'label', '--fail-on', 'never'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
    assert.equal(cli.status, 0, cli.stderr);
    return JSON.parse(cli.stdout).files[0];
  };

  for (const model of ['bin_pima.json', 'bin_pima.dump.txt']) {
    it(`${model}: accuracy above the first tree's alone, the top features named, no fraction-error on numbers`, () => {
      const file = run(model);
      const e = file.evaluation;
      assert.equal(file.recoverability.method, 'boosting-hessians', file.recoverability.reason);
      assert.ok(e.accuracy, JSON.stringify(e));
      // Measured: about 0.5 after the hessian matching (10 trees of depth 3); a probe-only point reconstruction scores about 0.25.
      assert.ok(e.accuracy.all > 0.35 && e.accuracy.all <= 1, `${e.accuracy.all}`);
      assert.equal(e.accuracy.top.features.length, TOP_FEATURES);
      assert.deepEqual(e.accuracy.categorical, []);
      assert.equal(e.error, null);
      assert.match(e.problem, /reconstruction accuracy/);
      if (model.endsWith('.txt')) assert.match(file.recoverability.reason, /the dump states no objective: binary:logistic with base score 0\.5 assumed/);
    });
  }

  it('--categorical scores the named features as categories, names the unknown ones, and needs --training-data', () => {
    const args = [CLI, path.join(DIR, 'bin_pima.json'), '--format', 'json', '--budget', '5', '--training-data', path.join(DIR, 'bin_pima.train.csv'), '--label', 'label', '--fail-on', 'never'];
    const cli = spawnSync(process.execPath, [...args, '--categorical', 'Pregnancies,nope'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
    assert.equal(cli.status, 0, cli.stderr);
    const e = JSON.parse(cli.stdout).files[0].evaluation;
    assert.deepEqual(e.accuracy.categorical, ['Pregnancies']);
    assert.match(e.problem, /--categorical: this model has no feature 'nope'/);
    const alone = spawnSync(process.execPath, [CLI, path.join(DIR, 'bin_pima.json'), '--categorical', 'Pregnancies'], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.equal(alone.status, 2);
    assert.match(alone.stderr, /--categorical applies to the scoring against --training-data/);
  });

  it('the text report names the accuracy and the top features', () => {
    const cli = spawnSync(process.execPath, [CLI, path.join(DIR, 'bin_pima.json'), '--budget', '10', '--training-data', path.join(DIR, 'bin_pima.train.csv'), '--label', 'label', '--fail-on', 'never'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
    assert.match(cli.stdout, /reconstruction accuracy \d+%, on \w+, \w+, \w+, \w+ and the label \d+%/);
  });
});
