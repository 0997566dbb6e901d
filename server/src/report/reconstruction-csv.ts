/**
 * The reconstructed training set as CSV (`--emit-reconstruction`): one line per reconstructed row,
 * the training data's columns (features in the model's order, the label last), then `certified`
 * (`true`: proven from the model alone to be a row of the real training data, with the values
 * shown; `false`: part of a training set consistent with the model, an estimate).
 * A value the model does not determine is left empty: the model says nothing about it. A value the
 * reconstruction finds missing is left empty too, as training CSVs write a missing value; the
 * engine's rows (`ReconstructedRow.missing`) tell the two apart.
 * `cellText` is the one place a reconstructed value becomes text.
 *
 * Rows with intervals (a forest with numeric features, or a box method): the model proves only an
 * interval for each row's value (`ReconstructedRow.intervals`), and the value is a point chosen
 * inside it (an estimate). Each feature the forest splits, `F`, is then followed by `F.low` and
 * `F.high`, the proven interval's ends (open below and closed above under scikit-learn's
 * `x <= threshold`, closed below and open above under XGBoost's `x < threshold`), written as the
 * float64 the thresholds are stored as; a cell is empty where that end is unbounded or the model
 * does not constrain the feature. A feature read as 0/1 gets them too: its 1 is proven only as
 * "above 0.5" (a count split only at 0.5 reads as 0/1, and Pima's pregnancies above 0 are not 1),
 * and a box method's row holds a guessed 0 or 1 where its box spans both. Rows without intervals
 * (the exact methods on 0/1 features) keep one column per feature, as before.
 */
import { csvLine } from '../util/csv';
import { splitsOnMissingOnly } from '../forest/missing-split';
import type { Forest } from '../forest/schema';
import { featureAxes } from '../attacks/reconstruction/feature-axes';
import type { ReconstructedRow } from '../attacks/reconstruction/types';

export interface ReconstructionColumns {
  /** One name per model feature, in the model's order. */
  features: readonly string[];
  label: string;
  /**
   * Per feature (the model's order): true when it gets `F.low` and `F.high` columns on rows with
   * intervals: every feature the model splits (`intervalFeatures`; the name is from when only
   * numeric ones did). Absent or all false: one column per feature.
   */
  numeric?: readonly boolean[];
  /** The label as written (a TransformedTargetRegressor's target back in the user's scale); as stored when absent. */
  labelValue?: (label: ReconstructedRow['label']) => ReconstructedRow['label'];
}

/** The label column's name when the training data's is unknown. */
export const DEFAULT_LABEL_COLUMN = 'label';

export function cellText(row: ReconstructedRow, feature: number): string {
  const value = row.values[feature];
  // A value past a split on missing values alone is how the walks carry a missing one: empty.
  return value === null || value === undefined || splitsOnMissingOnly(value) ? '' : String(value);
}

/**
 * One end of a proven interval as text; empty when unbounded (or when there is no interval). A
 * split on missing values alone bounds no value: an end at it is empty too (the value is either
 * not missing and unbounded there, or, above it, missing: then `F` is empty as well).
 */
export function boundText(row: ReconstructedRow, feature: number, end: 0 | 1): string {
  const bound = row.intervals?.[feature]?.[end];
  return bound === undefined || bound === null || !Number.isFinite(bound) || splitsOnMissingOnly(bound) ? '' : String(bound);
}

/**
 * Which features get bound columns when the rows carry intervals: those the forest splits, by the
 * engine's own reading (feature-axes.ts), not the rows. Rows cannot tell: a feature no row's box
 * constrains carries no interval, yet its columns must be there in every row. A feature no split
 * uses has nothing to bound and stays one column. All false when the forest cannot be read into
 * axes (the engine then made no interval rows either).
 */
export function intervalFeatures(forest: Forest): boolean[] {
  const read = featureAxes(forest);
  if (!read.ok) return forest.features.map(() => false);
  return forest.features.map((_, f) => read.axes.intervals[f] > 1);
}

export function reconstructionCsv(rows: readonly ReconstructedRow[], columns: ReconstructionColumns): string {
  // Only rows that carry intervals can fill the bound columns; without them the CSV stays as before.
  const numeric = rows.some((row) => row.intervals) ? columns.numeric : undefined;
  const bounded = (f: number) => numeric?.[f] === true;
  const header = columns.features.flatMap((name, f) => (bounded(f) ? [name, `${name}.low`, `${name}.high`] : [name]));
  const lines = [csvLine([...header, columns.label, 'certified'])];
  for (const row of rows) {
    const cells = columns.features.flatMap((_, f) => (bounded(f) ? [cellText(row, f), boundText(row, f, 0), boundText(row, f, 1)] : [cellText(row, f)]));
    lines.push(csvLine([...cells, String(columns.labelValue ? columns.labelValue(row.label) : row.label), row.certified ? 'true' : 'false']));
  }
  return lines.join('');
}
