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
 * On numeric features the papers' error is not defined (it counts wrong 0/1 values): against the
 * true training data the scenarios are then scored as 1 - TimberStrike's reconstruction accuracy
 * (timberstrike-evaluation.ts: the share of values, the label included, outside 0.319 standard
 * deviations of the true one after a matching), and the baseline is that of N rows whose every
 * value and label is drawn from the true data's column (an attacker who knows each column's
 * distribution but not the model), matched the same way.
 */
import { imputeUndetermined } from '../attacks/reconstruction/dp/impute';
import { UNSET } from '../attacks/reconstruction/groups';
import type { CategoricalGroup, ReconstructedRow, ReconstructionResult } from '../attacks/reconstruction/types';
import { baseline as randomBaseline, scoreReconstruction } from '../evaluate/evaluation';
import type { BaselineGroup, EvaluatedRow } from '../evaluate/metrics';
import type { AdvisorReport } from '../report/model';
import type { Forest } from '../forest/schema';
import { timberstrikeAccuracy } from '../evaluate/timberstrike-evaluation';
import { seededRandom } from '../evaluate/seeded-random';

export interface AdvisorTruth {
  kind: AdvisorReport['truth'];
  rows: EvaluatedRow[];
  /** Whether scenarios get an error: the papers' on 0/1 features, TimberStrike's on numeric ones against the true data only; else null errors. */
  scorable: boolean;
  /** `draft`: the papers' error; `timberstrike`: 1 - TimberStrike's RA, for numeric features against the true data. */
  measure: AdvisorReport['errorMeasure'];
  /** The model whose features the RA scores (its kinds, importance and labels). */
  forest?: Forest;
  baselineError: number | null;
  /** What the scoring compared, in words. */
  note: string;
}

export function chooseTruth(current: ReconstructionResult, given: readonly EvaluatedRow[] | undefined, groups: readonly BaselineGroup[], forest: Forest): AdvisorTruth {
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
  const binary = rows.length > 0 && rows.every((row) => row.values.every((v) => v === 0 || v === 1 || v === null));
  if (!binary && kind === 'training-data') {
    const truth: AdvisorTruth = { kind, rows, scorable: true, measure: 'timberstrike', forest, baselineError: null, note };
    truth.baselineError = marginalGuessError(truth);
    truth.note +=
      `; numeric features: each error is 1 - TimberStrike's reconstruction accuracy (a value is right within 0.319 standard deviations of the true one, ${forest.task === 'regression' ? 'the target too' : 'the label exactly'}), and the baseline N rows whose values and ${forest.task === 'regression' ? 'target' : 'label'} are each drawn from the true data's column, matched likewise`;
    return truth;
  }
  if (rows.length > 0 && !binary) note += '; the error and the random baseline are defined on binary features only (numeric ones are scored against --training-data), so only certified rows are compared';
  const baseline = binary ? randomBaseline(rows, groups, forest.classes).value : null;
  return { kind, rows, scorable: binary, measure: 'draft', baselineError: baseline, note };
}

/** 1 - RA of a reconstruction against the true rows; null when it cannot be scored. */
function raError(truth: AdvisorTruth, reconstruction: readonly ReconstructedRow[]): number | null {
  const scored = timberstrikeAccuracy(truth.forest!, reconstruction, truth.rows);
  return 'figures' in scored ? round4(1 - scored.figures.all) : null;
}

/** Guesses the numeric baseline averages (each a matching of N rows). */
const MARGINAL_GUESSES = 2;

/**
 * The numeric analogue of the papers' random baseline: N rows whose every value (and label) is
 * drawn on its own from the true data's column, matched to the truth like a reconstruction; the
 * mean 1 - RA over MARGINAL_GUESSES seeded draws. (Every row at the median, matched, scored
 * Pima's default forest better than its own reconstruction under ε = 0.1 by 0.32: N copies of one
 * row cannot be matched to N different people.)
 */
function marginalGuessError(truth: AdvisorTruth): number | null {
  const random = seededRandom(1);
  const n = truth.rows.length;
  const features = truth.rows[0]?.values.length ?? 0;
  const errors: number[] = [];
  for (let g = 0; g < MARGINAL_GUESSES; g++) {
    const guess: ReconstructedRow[] = truth.rows.map(() => ({
      values: Array.from({ length: features }, (_, f) => truth.rows[Math.floor(random() * n)].values[f]),
      label: truth.rows[Math.floor(random() * n)].label as ReconstructedRow['label'],
      certified: false,
    }));
    const error = raError(truth, guess);
    if (error === null) return null;
    errors.push(error);
  }
  return round4(errors.reduce((a, b) => a + b, 0) / errors.length);
}

const round4 = (x: number) => Math.round(x * 10000) / 10000;

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
  if (truth.measure === 'timberstrike') return raError(truth, reconstruction);
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
