/**
 * The `evaluation` block of a file's report (`--training-data`): the reconstruction scored against
 * the true training rows with the papers' measures (metrics.ts): error after a minimum-cost
 * matching on Manhattan distance, share of perfectly reconstructed rows, and the random baseline
 * an adversary without the model reaches.
 *
 * The matching is O(n^3). Rows reconstructed exactly (no undetermined value, same label) are
 * paired with their true copies first, which leaves the cubic work to the rows that
 * differ. (Swapping two pairs to pair identical rows never raises the total Manhattan cost, by
 * the triangle inequality, so the result is still a minimum-cost matching.) What remains is
 * matched only up to MAX_MATCHED_ROWS; beyond it the error is not computed (null, with the
 * reason) rather than left running for hours.
 */
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import { evaluateReconstruction, randomBaselineError, type BaselineGroup, type EvaluatedRow } from './metrics';

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
  /** True rows the reconstruction was compared with. */
  rowsCompared: number;
  reconstructedRows: number;
  /** Mean fraction of wrong features over the true rows after matching (undetermined values count as wrong). */
  error: number | null;
  /** Share of true rows reconstructed with every feature and the label right. */
  perfectRows: number | null;
  /** Mean error of uniform random guesses that respect the declared groups (binary features only). */
  randomBaseline: number | null;
  /** Random guesses the baseline averages. */
  baselineRuns?: number;
  /** Why a figure is missing. */
  problem?: string;
}

const exactKey = (row: EvaluatedRow): string | undefined => (row.values.some((v) => v === null) ? undefined : `${JSON.stringify(row.values)}|${typeof row.label}:${String(row.label)}`);

/** Error and perfect share with identical rows paired first (see the module comment). */
function scoreReconstruction(reconstructed: readonly EvaluatedRow[], truth: readonly EvaluatedRow[]): { error: number | null; perfectRows: number; problem?: string } {
  const available = new Map<string, number[]>();
  reconstructed.forEach((row, i) => {
    const key = exactKey(row);
    if (key !== undefined) available.set(key, [...(available.get(key) ?? []), i]);
  });
  const usedReconstructed = new Set<number>();
  const restTruth: EvaluatedRow[] = [];
  let paired = 0;
  for (const row of truth) {
    const candidates = available.get(exactKey(row) ?? '');
    const match = candidates?.pop();
    if (match === undefined) restTruth.push(row);
    else {
      usedReconstructed.add(match);
      paired++;
    }
  }
  const restReconstructed = reconstructed.filter((_, i) => !usedReconstructed.has(i));
  const n = Math.max(1, truth.length);
  if (restTruth.length === 0) return { error: 0, perfectRows: paired / n };
  if (Math.min(restTruth.length, Math.max(1, restReconstructed.length)) > MAX_MATCHED_ROWS) {
    return {
      error: null,
      perfectRows: paired / n,
      problem: `${restTruth.length} true rows differ from every reconstructed row; matching more than ${MAX_MATCHED_ROWS} optimally takes too long, so the error was not computed (perfect rows are exact)`,
    };
  }
  const rest = evaluateReconstruction(restReconstructed, restTruth);
  return { error: (rest.error * restTruth.length) / n, perfectRows: (paired + rest.perfectRows * restTruth.length) / n };
}

function baseline(truth: readonly EvaluatedRow[], groups: readonly BaselineGroup[], labels: readonly (string | number | boolean)[]): { value: number | null; runs?: number; problem?: string } {
  if (!truth.every((row) => row.values.every((v) => v === 0 || v === 1))) {
    return { value: null, problem: 'the random baseline is defined for binary features only' };
  }
  const n = truth.length;
  const runs = Math.min(BASELINE_MAX_RUNS, Math.floor(BASELINE_STEPS / Math.max(1, n ** 3)));
  if (runs < 1) return { value: null, problem: `the random baseline matches ${n} rows per guess; too many to compute` };
  return { value: randomBaselineError(truth, groups, labels, runs), runs };
}

export function evaluateAgainstTruth(
  trainingData: string,
  matchedBy: Evaluation['matchedBy'],
  reconstruction: readonly ReconstructedRow[],
  truth: readonly EvaluatedRow[],
  groups: readonly BaselineGroup[],
  labels: readonly (string | number | boolean)[],
): Evaluation {
  const problems: string[] = [];
  let error: number | null = null;
  let perfectRows: number | null = null;
  if (reconstruction.length === 0) problems.push('there is no reconstruction to evaluate');
  else {
    const score = scoreReconstruction(reconstruction, truth);
    error = score.error;
    perfectRows = score.perfectRows;
    if (score.problem) problems.push(score.problem);
  }
  const random = baseline(truth, groups, labels);
  if (random.problem) problems.push(random.problem);
  return {
    trainingData,
    ...(matchedBy ? { matchedBy } : {}),
    rowsCompared: truth.length,
    reconstructedRows: reconstruction.length,
    error,
    perfectRows,
    randomBaseline: random.value,
    ...(random.runs !== undefined ? { baselineRuns: random.runs } : {}),
    ...(problems.length ? { problem: problems.join('; ') } : {}),
  };
}
