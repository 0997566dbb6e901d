/**
 * `--training-data` checks the reconstruction's proofs against the truth (evaluate/certified-check.ts):
 * on real fixtures every proven row is a distinct true row, and a tampered proof (a box moved off
 * its row, two proofs of one row, a wrong label, an end compared the wrong way) is caught.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import type { ReconstructedRow } from '../../server/src/attacks/reconstruction/types';
import { checkCertifiedRows } from '../../server/src/evaluate/certified-check';
import { alignTrainingData, readTrainingData } from '../../server/src/evaluate/training-data';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { readFloat32Rows } from '../support/numeric-truth';
import { DIST, FIXTURES } from '../support/paths';

async function forestOf(path: string): Promise<Forest> {
  const report = await lintFile(path, { keepForest: true });
  assert.ok(report.forest);
  return report.forest;
}

const MODEL = join(FIXTURES, 'numeric', 'pima_t10_d5.joblib');
const TRUTH = join(FIXTURES, 'numeric', 'pima_t10_d5.train.csv');

describe('proven rows against the true training rows', () => {
  it('a real reconstruction: every proven row pairs with a distinct true row; each kind of tampering is caught', async () => {
    const forest = await forestOf(MODEL);
    const truth = readFloat32Rows(TRUTH);
    const result = await reconstruct(forest, { budgetMs: 6_000 });
    const proven = result.reconstruction.filter((r) => r.certified).length;
    assert.ok(proven > 0);
    assert.deepEqual(checkCertifiedRows(forest, result.reconstruction, truth), { proven, held: proven });

    const rows = result.reconstruction.map((r) => ({ ...r, intervals: r.intervals?.map((i) => (i ? ([...i] as [number, number]) : null)) }));
    const first = rows.findIndex((r) => r.certified && r.intervals?.some((i) => i !== null));
    const f = rows[first].intervals!.findIndex((i) => i !== null);
    // A box moved off every true row.
    const moved = rows.map((r, k) => (k === first ? { ...r, intervals: r.intervals!.map((i, g) => (g === f ? ([1e9, 1e9 + 1] as [number, number]) : i)) } : r));
    assert.equal(checkCertifiedRows(forest, moved, truth)?.held, proven - 1);
    // A wrong label.
    const relabelled = rows.map((r, k) => (k === first ? { ...r, label: forest.classes.find((c) => c !== r.label)! } : r));
    assert.ok(checkCertifiedRows(forest, relabelled, truth)!.held! < proven);
    // One true row proven twice: a box around exactly one true row, given to two rows.
    const target = truth[0];
    const exact: ReconstructedRow = { values: [...target.values], intervals: target.values.map((v) => [Math.fround(v) - 1e-3, Math.fround(v)] as [number, number]), label: target.label, certified: true };
    const alone = truth.filter((t) => t.label === target.label && t.values.every((v, g) => v > target.values[g] - 1e-3 && v <= target.values[g])).length;
    assert.equal(alone, 1);
    assert.deepEqual(checkCertifiedRows(forest, [exact, exact], truth), { proven: 2, held: 1 });
  });

  it('a classifier read as row counts (no classes in the IR) compares its text labels as text, its targets as numbers', () => {
    // A Pipeline's GradientBoostingClassifier with labels 'class_a', 'class_b' read "0 of 60 proven
    // rows" held: the check took its labels for regression targets.
    const counts = { splitRule: 'less-or-equal', classes: [], estimator: 'GradientBoostingClassifier' } as unknown as Pick<Forest, 'splitRule' | 'classes' | 'estimator' | 'targetTransform'>;
    const row = (label: string | number): ReconstructedRow => ({ values: [1.5], intervals: [[1, 2]], label, certified: true });
    const truth = [{ values: [1.5], label: 'class_a' }, { values: [1.5], label: 'class_b' }];
    assert.deepEqual(checkCertifiedRows(counts, [row('class_a'), row('class_b')], truth), { proven: 2, held: 2 });
    assert.deepEqual(checkCertifiedRows(counts, [row('class_a'), row('class_a')], truth), { proven: 2, held: 1 });
    // Targets still within their precision.
    assert.deepEqual(checkCertifiedRows(counts, [row(3.00001)], [{ values: [1.5], label: 3 }]), { proven: 1, held: 1 });
  });

  it("compares each end as the model's split rule does, and a proven target to within its float32 precision", () => {
    const row = (interval: [number, number], label: number | string = 1): ReconstructedRow => ({ values: [interval[1]], intervals: [interval], label, certified: true });
    const truth = [{ values: [2], label: 1 }];
    const sklearn = { splitRule: 'less-or-equal', classes: [0, 1], estimator: 'RandomForestClassifier' } as Pick<Forest, 'splitRule' | 'classes' | 'estimator'>;
    const xgboost = { splitRule: 'less', classes: [0, 1], estimator: 'XGBClassifier' } as Pick<Forest, 'splitRule' | 'classes' | 'estimator'>;
    // (1, 2] holds 2; [1, 2) does not; [2, 3) does.
    assert.equal(checkCertifiedRows(sklearn, [row([1, 2])], truth)?.held, 1);
    assert.equal(checkCertifiedRows(xgboost, [row([1, 2])], truth)?.held, 0);
    assert.equal(checkCertifiedRows(xgboost, [row([2, 3])], truth)?.held, 1);
    assert.equal(checkCertifiedRows(sklearn, [row([2, 3])], truth)?.held, 0);
    const regression = { splitRule: 'less-or-equal', classes: [], estimator: 'RandomForestRegressor' } as unknown as Pick<Forest, 'splitRule' | 'classes' | 'estimator' | 'targetTransform'>;
    const house = [{ values: [2], label: '491027.5' }];
    assert.equal(checkCertifiedRows(regression, [row([1, 2], 491027.53)], house)?.held, 1);
    assert.equal(checkCertifiedRows(regression, [row([1, 2], 491100)], house)?.held, 0);
    // HistGradientBoosting compares float64 values with its float64 thresholds: a true value at a
    // threshold exactly lies at or below it, though its float32 cast lies above (a diabetes row).
    const threshold = -0.0010007289644291908;
    assert.ok(Math.fround(threshold) > threshold);
    const atThreshold = [{ values: [threshold], label: 1 }];
    const hgb = { splitRule: 'less-or-equal', classes: [0, 1], estimator: 'HistGradientBoostingClassifier' } as Pick<Forest, 'splitRule' | 'classes' | 'estimator'>;
    assert.equal(checkCertifiedRows(hgb, [row([-1, threshold])], atThreshold)?.held, 1);
    assert.equal(checkCertifiedRows(hgb, [row([threshold, 1])], atThreshold)?.held, 0);
    // A forest casts to float32, as scikit-learn's trees do: the same value lies above.
    assert.equal(checkCertifiedRows(sklearn, [row([-1, threshold])], atThreshold)?.held, 0);
    assert.equal(checkCertifiedRows(sklearn, [row([threshold, 1])], atThreshold)?.held, 1);
    // A TransformedTargetRegressor's regressor proves targets in its own scale (log y): the truth is
    // brought there; a transform the file names only as a fitted transformer leaves the targets out.
    const logTarget = { splitRule: 'less-or-equal', classes: [], estimator: 'RandomForestRegressor', targetTransform: 'numpy.log' } as unknown as Pick<Forest, 'splitRule' | 'classes' | 'estimator' | 'targetTransform'>;
    const prices = [{ values: [2], label: 151 }];
    assert.deepEqual(checkCertifiedRows(logTarget, [row([1, 2], Math.log(151))], prices), { proven: 1, held: 1 });
    assert.equal(checkCertifiedRows(logTarget, [row([1, 2], 151)], prices)?.held, 0);
    assert.equal(checkCertifiedRows({ ...logTarget, targetTransform: undefined }, [row([1, 2], Math.log(151))], prices)?.held, 0);
    const scaled = checkCertifiedRows({ ...logTarget, targetTransform: 'StandardScaler' }, [row([1, 2], -0.37)], prices);
    assert.equal(scaled?.held, 1);
    assert.match(scaled?.note ?? '', /transformed by StandardScaler .* only the boxes were checked/);
    // Rows with proven values only (no label): the label is not checked.
    const boxOnly: ReconstructedRow = { values: [2], intervals: [[1, 2]], label: 0, certified: false, certifiedValues: [true] };
    assert.equal(checkCertifiedRows(sklearn, [boxOnly], truth)?.held, 1);
    // Nothing proven: no check.
    assert.equal(checkCertifiedRows(sklearn, [{ ...boxOnly, certifiedValues: [false] }], truth), undefined);
  });

  it("a OneVsRestClassifier's member is checked against the file's own labels, coded as the member's 0/1", () => {
    // three glucose bands; the member analysed is one band against the rest (refused before: exit 2).
    const model = join(FIXTURES, 'containers', 'one_vs_rest.joblib');
    const truth = join(FIXTURES, 'containers', 'one_vs_rest.train.csv');
    const out = execFileSync(process.execPath, [join(DIST, 'cli.js'), model, '--training-data', truth, '--label', 'band', '--budget', '5', '--format', 'json', '--fail-on', 'never'], { encoding: 'utf8' });
    const file = JSON.parse(out).files[0];
    const check = file.evaluation.certifiedCheck;
    assert.ok(check && check.proven > 0, JSON.stringify(file.evaluation).slice(0, 300));
    assert.equal(check.held, check.proven);
  });

  it('the command line says it in the evaluation line', () => {
    const out = execFileSync(process.execPath, [join(DIST, 'cli.js'), MODEL, '--training-data', TRUTH, '--label', 'Outcome', '--budget', '5', '--fail-on', 'never'], { encoding: 'utf8' });
    assert.match(out, /each of the \d+ proven rows is a distinct true row inside its proven box/);
  });
});

describe('every proven row of these fixtures is a distinct true row (the check found the first four wrong before stop 35)', () => {
  const cases: [string, string][] = [
    // Multi-class gradient boosting read as counts: a proven box without a class met a leaf whose rows were all given out.
    ['estimators/gb_clf_multi.joblib', 'target'],
    ['soundness/gb_pima_counts.joblib', 'y'],
    // XGBoost multi-class: the same, through the first round's pure leaves.
    ['xgboost-counts/multi_digits_deep.json', 'label'],
    // Missing values in the CSV (empty or nan cells): HistGradientBoosting sends them past float32's largest value.
    ['estimators/hgb_clf_missing.joblib', 'target'],
    ['estimators/hgb_reg_missing.joblib', 'target'],
    ['xgboost-counts/reg_missing.json', 'label'],
    ['estimators/gb_clf_multi_zero.joblib', 'target'],
  ];
  for (const [model, label] of cases) {
    it(model, () => {
      const file = join(FIXTURES, model);
      const csv = file.replace(/\.(joblib|json)$/, '.train.csv');
      const out = execFileSync(process.execPath, [join(DIST, 'cli.js'), file, '--training-data', csv, '--label', label, '--budget', '5', '--fail-on', 'never', '--format', 'json'], { encoding: 'utf8' });
      const evaluation = JSON.parse(out).files[0].evaluation;
      assert.doesNotMatch(evaluation.problem ?? '', /is not a number/);
      const check = evaluation.certifiedCheck;
      assert.ok(check && check.proven > 0, JSON.stringify(evaluation));
      assert.equal(check.held, check.proven);
    });
  }
});

describe('proven rows as values (0/1 models) are looked up by their values', () => {
  it("the README's COMPAS example: every certified row a distinct true row; one value no true row has is caught", async () => {
    const model = join(__dirname, '../../../examples/models/compas_no_bagging.joblib');
    const csv = join(__dirname, '../../../examples/data/compas_100.csv');
    const forest = await forestOf(model);
    const result = await reconstruct(forest, { budgetMs: 10_000 });
    const label = readFileSync(csv, 'utf8').split('\n')[0].split(',').at(-1)!.trim();
    const fit = alignTrainingData(await readTrainingData(csv, label), forest);
    assert.ok(fit.ok);
    const truth = fit.aligned.rows;
    const check = checkCertifiedRows(forest, result.reconstruction, truth)!;
    assert.ok(check.proven > 50);
    assert.equal(check.held, check.proven);
    const first = result.reconstruction.findIndex((r) => r.certified && !r.intervals && r.values.some((v) => v !== null));
    const f = result.reconstruction[first].values.findIndex((v) => v !== null);
    const flipped = result.reconstruction.map((r, k) => (k === first ? { ...r, values: r.values.map((v, g) => (g === f ? 7 : v)) } : r));
    assert.equal(checkCertifiedRows(forest, flipped, truth)!.held, check.proven - 1);
  });
});
