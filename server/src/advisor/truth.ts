/**
 * What the simulated reconstructions are scored against, and the scoring itself (the papers'
 * error after a minimum-cost matching, evaluate/evaluation.ts, and their random baseline,
 * evaluate/metrics.ts, reused as they are):
 *  - `training-data`: the true rows (CLI --training-data);
 *  - `certified-reconstruction`: this model's reconstruction when it is exact: it IS the training
 *    set, up to the values the model never looks at (null). A null true value counts as wrong for
 *    every scenario and for the baseline alike, which raises both errors by the same amount and so
 *    leaves the verdict "no better than the baseline" unchanged;
 *  - `none`: otherwise; the scenarios are scored against the rows certified so far (proven to be
 *    training rows), when there are any. A scenario's N rows are then matched to fewer true rows
 *    than the baseline's guesses, which favours the scenario: its "no better than guessing"
 *    verdicts are conservative.
 */
import { imputeUndetermined } from '../attacks/reconstruction/dp/impute';
import { UNSET } from '../attacks/reconstruction/groups';
import type { CategoricalGroup, ReconstructedRow, ReconstructionResult } from '../attacks/reconstruction/types';
import { baseline as randomBaseline, scoreReconstruction } from '../evaluate/evaluation';
import type { BaselineGroup, EvaluatedRow } from '../evaluate/metrics';
import type { AdvisorReport } from '../report/model';

export interface AdvisorTruth {
  kind: AdvisorReport['truth'];
  rows: EvaluatedRow[];
  /** The papers' error is defined on binary features; on others nothing is scored (null errors). */
  scorable: boolean;
  baselineError: number | null;
  /** What the scoring compared, in words. */
  note: string;
}

export function chooseTruth(current: ReconstructionResult, given: readonly EvaluatedRow[] | undefined, groups: readonly BaselineGroup[], labels: readonly (string | number | boolean)[]): AdvisorTruth {
  let kind: AdvisorTruth['kind'];
  let rows: EvaluatedRow[];
  let note: string;
  if (given && given.length > 0) {
    kind = 'training-data';
    rows = [...given];
    note = `scored against the ${rows.length} true training rows`;
  } else if (current.status === 'exact' && current.reconstruction.length > 0) {
    kind = 'certified-reconstruction';
    rows = current.reconstruction.map(toEvaluated);
    note = `scored against this model's exact reconstruction (${rows.length} rows, proven to be the training set up to the values the model never looks at)`;
  } else {
    kind = 'none';
    rows = current.reconstruction.filter((row) => row.certified).map(toEvaluated);
    note =
      rows.length > 0
        ? `no training data and no exact reconstruction: scored against the ${rows.length} rows certified so far only (the scenarios' rows outnumber them, which favours the scenarios, so "no better than guessing" is conservative)`
        : 'no training data, no exact reconstruction and no certified row: the scenarios cannot be scored, only their certified rows compared';
  }
  const scorable = rows.length > 0 && rows.every((row) => row.values.every((v) => v === 0 || v === 1 || v === null));
  if (rows.length > 0 && !scorable) note += '; the error and the random baseline are defined on binary features only, so only certified rows are compared';
  const baseline = scorable ? randomBaseline(rows, groups, labels).value : null;
  return { kind, rows, scorable, baselineError: baseline, note };
}

/**
 * The papers' error of a reconstruction against the truth; null when there is nothing to score or
 * the matching is too large. Values the reconstruction leaves undetermined are first filled the way
 * `dp-likelihood` fills its own (dp/impute.ts: the value most frequent among the reconstructed rows
 * that determine it, within the declared groups): otherwise a method that guesses (the likelihood
 * ones) would be scored against one that leaves blanks (aggregated), which the papers' error counts
 * as wrong, and a remedy could look better than the model as it is.
 */
export function scoreAgainst(truth: AdvisorTruth, reconstruction: readonly ReconstructedRow[], groups: readonly CategoricalGroup[]): number | null {
  if (!truth.scorable || reconstruction.length === 0) return null;
  return scoreReconstruction(filled(reconstruction, groups), truth.rows).error;
}

function filled(reconstruction: readonly ReconstructedRow[], groups: readonly CategoricalGroup[]): EvaluatedRow[] {
  const binary = reconstruction.every((row) => row.values.every((v) => v === null || v === 0 || v === 1));
  if (!binary || !reconstruction.some((row) => row.values.includes(null))) return reconstruction.map(toEvaluated);
  const values = reconstruction.map((row) => Int32Array.from(row.values, (v) => (v === null ? UNSET : v)));
  imputeUndetermined({ values, weights: values.map(() => 1) }, reconstruction[0].values.length, groups);
  return reconstruction.map((row, i) => ({ values: Array.from(values[i]), label: row.label }));
}

function toEvaluated(row: ReconstructedRow): EvaluatedRow {
  return { values: row.values, label: row.label };
}
