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
 * Numeric features: the model proves only an interval for each row's value (`ReconstructedRow.
 * intervals`), and the value is a point chosen inside it (an estimate). Each numeric feature `F`
 * is then followed by `F.low` and `F.high`, the proven interval's ends (open below and closed above
 * under scikit-learn's `x <= threshold`, closed below and open above under XGBoost's `x < threshold`),
 * written as the float64 the thresholds are stored as; a cell is empty where that end is unbounded
 * or the model does not constrain the feature. Binary features keep their one column: their
 * "interval" is just the 0 or 1 already written, so a binary-only model's CSV is unchanged; in a
 * certified row of a box method the 0 or 1 is written only where the proven box fixes it.
 */
import { csvLine } from '../util/csv';
import type { Forest } from '../forest/schema';
import { featureAxes } from '../attacks/reconstruction/feature-axes';
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import { determined } from '../recoverability/summary';

export interface ReconstructionColumns {
  /** One name per model feature, in the model's order. */
  features: readonly string[];
  label: string;
  /**
   * Per feature (the model's order): true when it is numeric, i.e. gets `F.low` and `F.high`
   * columns (`intervalFeatures`). Absent or all false: one column per feature.
   */
  numeric?: readonly boolean[];
}

/** The label column's name when the training data's is unknown. */
export const DEFAULT_LABEL_COLUMN = 'label';

export function cellText(row: ReconstructedRow, feature: number): string {
  const value = row.values[feature];
  return value === null || value === undefined ? '' : String(value);
}

/**
 * A one-column (binary) value: in a certified row that carries intervals (a box method), the 0 or 1
 * is written only where the row's proven interval fixes it. The box methods complete every row to a
 * point, so a certified box row holds an estimated 0 or 1 wherever its box spans both values; written
 * in a row marked `certified`, that guess would read as proven (and is wrong as often as not).
 */
function provenCellText(row: ReconstructedRow, feature: number): string {
  if (row.certified && row.intervals && !determined(row, feature)) return '';
  return cellText(row, feature);
}

/** One end of a proven interval as text; empty when unbounded (or when there is no interval). */
export function boundText(row: ReconstructedRow, feature: number, end: 0 | 1): string {
  const bound = row.intervals?.[feature]?.[end];
  return bound === undefined || bound === null || !Number.isFinite(bound) ? '' : String(bound);
}

/**
 * Which features are numeric: the engine's own reading of the forest (feature-axes.ts), not the
 * rows. Rows cannot tell: on a forest with numeric features a binary feature carries an interval
 * too ((-inf, 0.5] for a 0), and a numeric feature no row's box constrains carries none, yet its
 * column must be there in every row. The axes say which features the engine cut into intervals;
 * a feature no split uses has nothing to bound and stays one column. All false when the forest
 * cannot be read into axes (the engine then made no interval rows either).
 */
export function intervalFeatures(forest: Forest): boolean[] {
  const read = featureAxes(forest);
  if (!read.ok) return forest.features.map(() => false);
  const { binary, intervals } = read.axes;
  return forest.features.map((_, f) => binary[f] === 0 && intervals[f] > 1);
}

export function reconstructionCsv(rows: readonly ReconstructedRow[], columns: ReconstructionColumns): string {
  // Only rows that carry intervals can fill the bound columns; without them the CSV stays as before.
  const numeric = rows.some((row) => row.intervals) ? columns.numeric : undefined;
  const bounded = (f: number) => numeric?.[f] === true;
  const header = columns.features.flatMap((name, f) => (bounded(f) ? [name, `${name}.low`, `${name}.high`] : [name]));
  const lines = [csvLine([...header, columns.label, 'certified'])];
  for (const row of rows) {
    const cells = columns.features.flatMap((_, f) => (bounded(f) ? [cellText(row, f), boundText(row, f, 0), boundText(row, f, 1)] : [provenCellText(row, f)]));
    lines.push(csvLine([...cells, String(row.label), row.certified ? 'true' : 'false']));
  }
  return lines.join('');
}
