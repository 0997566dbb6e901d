/**
 * The `evaluation` block of a file's report (`--training-data`): the reconstruction scored against
 * the true training rows with the papers' measures: DRAFT's (metrics.ts) error after a
 * minimum-cost matching on Manhattan distance, share of perfectly reconstructed rows, and the
 * random baseline an adversary without the model reaches, defined for binary features; and
 * TimberStrike's reconstruction accuracy (timberstrike-evaluation.ts), defined for any features.
 *
 * The matching is O(n^3). Rows reconstructed exactly (no undetermined value, same label) are
 * paired with their true copies first, which leaves the cubic work to the rows that
 * differ. (Swapping two pairs to pair identical rows never raises the total Manhattan cost, by
 * the triangle inequality, so the result is still a minimum-cost matching.) What remains is
 * matched only up to MAX_MATCHED_ROWS; beyond it the error is not computed (null, with the
 * reason) rather than left running for hours.
 */
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import type { Forest } from '../forest/schema';
import { checkCertifiedRows, type CertifiedCheck } from './certified-check';
import { declaredCategorical, timberstrikeAccuracy, type AccuracyFigures } from './timberstrike-evaluation';
import { differingFeatures, evaluateReconstruction, randomBaselineError, type BaselineGroup, type EvaluatedRow } from './metrics';

/** Rows left after pairing identical ones that are still matched optimally (about 1e9 steps). */
export const MAX_MATCHED_ROWS = 1000;
/** Work allowed for the random baseline: runs shrink as n^3 grows, and stop being made beyond it. */
const BASELINE_STEPS = 3e8;
const BASELINE_MAX_RUNS = 100;

export interface Evaluation {
  /** The CSV the truth came from, as given on the command line. */
  trainingData: string;
  /** How its columns were matched to the model's features. */
  matchedBy?: 'name' | 'position';
  /** The CSV held the Pipeline's input, turned into the model's values by its fitted steps. */
  throughPipeline?: true;
  /** True rows the reconstruction was compared with. */
  rowsCompared: number;
  reconstructedRows: number;
  /**
   * DRAFT's error: mean fraction of wrong features over the true rows after matching; an empty
   * (undetermined) value counts as wrong. Binary features only (on numbers the Manhattan distance
   * it sums is not a fraction): null otherwise, and `accuracy` is the measure.
   */
  error: number | null;
  /** The papers' perfect rows: share of true rows whose match has every feature and the label right (no empty value). */
  perfectRows: number | null;
  /**
   * Share of true rows whose match has the label and every value the model determines right
   * (empty values allowed). An exact reconstruction has 1: it is the training set up to the
   * values the model never looks at.
   */
  consistentRows: number | null;
  /** Share of the reconstruction's values left empty because the model does not determine them. */
  undeterminedValues: number | null;
  /** Mean error of uniform random guesses that respect the declared groups (binary features only). */
  randomBaseline: number | null;
  /** Random guesses the baseline averages. */
  baselineRuns?: number;
  /** TimberStrike's reconstruction accuracy, over every feature and over the most important ones (null: see problem). */
  accuracy?: AccuracyFigures | null;
  /** The rows stated as proven, checked against the true rows (certified-check.ts); absent when none is. */
  certifiedCheck?: CertifiedCheck;
  /** Why a figure is missing. */
  problem?: string;
}

const exactKey = (row: EvaluatedRow): string | undefined => (row.values.some((v) => v === null) ? undefined : `${JSON.stringify(row.values)}|${typeof row.label}:${String(row.label)}`);

/**
 * A minimum-cost matching of the true rows to reconstructed rows (index, or -1), identical rows
 * paired first (see the module comment); `complete` is false when too many rows were left to match.
 */
function matchRows(reconstructed: readonly EvaluatedRow[], truth: readonly EvaluatedRow[], identicalOnly = false): { match: Int32Array; complete: boolean } {
  const available = new Map<string, number[]>();
  reconstructed.forEach((row, i) => {
    const key = exactKey(row);
    if (key !== undefined) available.set(key, [...(available.get(key) ?? []), i]);
  });
  const match = new Int32Array(truth.length).fill(-1);
  const used = new Set<number>();
  const restTruth: number[] = [];
  truth.forEach((row, t) => {
    const paired = available.get(exactKey(row) ?? '')?.pop();
    if (paired === undefined) restTruth.push(t);
    else {
      match[t] = paired;
      used.add(paired);
    }
  });
  const restReconstructed = reconstructed.map((_, i) => i).filter((i) => !used.has(i));
  if (restTruth.length === 0 || restReconstructed.length === 0) return { match, complete: true };
  if (identicalOnly) return { match, complete: false };
  if (Math.min(restTruth.length, restReconstructed.length) > MAX_MATCHED_ROWS) return { match, complete: false };
  const rest = evaluateReconstruction(
    restReconstructed.map((i) => reconstructed[i]),
    restTruth.map((t) => truth[t]),
  );
  rest.matchOfTrueRow.forEach((j, k) => (match[restTruth[k]] = j < 0 ? -1 : restReconstructed[j]));
  return { match, complete: true };
}

/**
 * `identicalOnly`: only identical rows are paired (no matching): enough for `perfectRows`, which
 * such pairs already maximise, and all that numeric rows need (the papers' error and
 * consistentRows count binary values; a matching of 1,000 numeric rows took 2.8 s for figures
 * that were then dropped).
 */
export function scoreReconstruction(reconstructed: readonly EvaluatedRow[], truth: readonly EvaluatedRow[], identicalOnly = false): Pick<Evaluation, 'error' | 'perfectRows' | 'consistentRows' | 'problem'> {
  const { match, complete } = matchRows(reconstructed, truth, identicalOnly);
  const n = Math.max(1, truth.length);
  let errorSum = 0;
  let perfect = 0;
  let consistent = 0;
  truth.forEach((t, i) => {
    const r = match[i] < 0 ? undefined : reconstructed[match[i]];
    if (!r) {
      errorSum += 1;
      return;
    }
    const features = Math.max(1, t.values.length);
    const differing = differingFeatures(r.values, t.values);
    const wrongDetermined = t.values.reduce<number>((wrong, v, f) => wrong + (r.values[f] !== null && r.values[f] !== v ? 1 : 0), 0);
    const labelRight = r.label === t.label;
    errorSum += differing / features;
    if (differing === 0 && labelRight) perfect++;
    if (wrongDetermined === 0 && labelRight) consistent++;
  });
  if (!complete && identicalOnly) return { error: null, perfectRows: perfect / n, consistentRows: null };
  if (!complete) {
    return {
      error: null,
      perfectRows: perfect / n,
      consistentRows: null,
      problem: `more than ${MAX_MATCHED_ROWS} true rows differ from every reconstructed row; matching them optimally takes too long, so only the perfect rows (paired identically) were counted`,
    };
  }
  return { error: errorSum / n, perfectRows: perfect / n, consistentRows: consistent / n };
}

const isBinary = (rows: readonly EvaluatedRow[]) => rows.every((row) => row.values.every((v) => v === 0 || v === 1 || v === null));

/**
 * The random baseline against `truth` (also used by the advisor, whose truth may be an exact
 * reconstruction: its null values, never determined, count as wrong for every guess).
 */
export function baseline(truth: readonly EvaluatedRow[], groups: readonly BaselineGroup[], labels: readonly (string | number | boolean)[]): { value: number | null; runs?: number; problem?: string } {
  if (!isBinary(truth)) {
    return { value: null, problem: 'the random baseline is defined for binary features only' };
  }
  const n = truth.length;
  const runs = Math.min(BASELINE_MAX_RUNS, Math.floor(BASELINE_STEPS / Math.max(1, n ** 3)));
  if (runs < 1) return { value: null, problem: `the random baseline matches ${n} rows per guess; too many to compute` };
  return { value: randomBaselineError(truth, groups, labels, runs), runs };
}

export function evaluateAgainstTruth(
  forest: Forest,
  trainingData: string,
  matchedBy: Evaluation['matchedBy'],
  reconstruction: readonly ReconstructedRow[],
  truth: readonly EvaluatedRow[],
  groups: readonly BaselineGroup[],
  labels: readonly (string | number | boolean)[],
  /** Features (names or indices) the reconstruction accuracy scores as categories (--categorical). */
  categorical: readonly string[] = [],
): Evaluation {
  const problems: string[] = [];
  let score: Pick<Evaluation, 'error' | 'perfectRows' | 'consistentRows' | 'problem'> = { error: null, perfectRows: null, consistentRows: null };
  const binary = isBinary(truth);
  if (reconstruction.length === 0) problems.push('there is no reconstruction to evaluate');
  else score = scoreReconstruction(reconstruction, truth, !binary);
  if (score.problem) problems.push(score.problem);
  if (reconstruction.length > 0 && !binary) {
    score = { ...score, error: null, consistentRows: null };
    problems.push("the papers' error and consistent rows count binary values; on numeric features see the reconstruction accuracy");
  }
  const declared = declaredCategorical(forest, categorical);
  if (declared.unknown.length) problems.push(`--categorical: this model has no feature ${declared.unknown.map((name) => `'${name}'`).join(', ')}`);
  const ra = reconstruction.length ? timberstrikeAccuracy(forest, reconstruction, truth, declared.features) : undefined;
  if (ra && 'problem' in ra) problems.push(ra.problem);
  const values = reconstruction.reduce((total, row) => total + row.values.length, 0);
  const empty = reconstruction.reduce((total, row) => total + row.values.filter((v) => v === null).length, 0);
  const random = baseline(truth, groups, labels);
  if (random.problem) problems.push(random.problem);
  const certifiedCheck = checkCertifiedRows(forest, reconstruction, truth);
  return {
    trainingData,
    ...(matchedBy ? { matchedBy } : {}),
    rowsCompared: truth.length,
    reconstructedRows: reconstruction.length,
    error: score.error,
    perfectRows: score.perfectRows,
    consistentRows: score.consistentRows,
    undeterminedValues: values > 0 ? empty / values : null,
    randomBaseline: random.value,
    ...(random.runs !== undefined ? { baselineRuns: random.runs } : {}),
    accuracy: ra && 'figures' in ra ? ra.figures : null,
    ...(certifiedCheck ? { certifiedCheck } : {}),
    ...(problems.length ? { problem: problems.join('; ') } : {}),
  };
}
