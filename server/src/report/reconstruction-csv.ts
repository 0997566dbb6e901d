/**
 * The reconstructed training set as CSV (`--emit-reconstruction`): one line per reconstructed row,
 * the training data's columns (features in the model's order, the label last), then `certified`
 * (`true`: proven from the model alone to be a row of the real training data, with the values
 * shown; `false`: part of a training set consistent with the model, an estimate).
 * A value the model does not determine is left empty: the model says nothing about it. A value the
 * reconstruction finds missing is left empty too, as training CSVs write a missing value; the
 * engine's rows (`ReconstructedRow.missing`) tell the two apart.
 * `cellText` is the one place a reconstructed value becomes text, so that interval values for
 * numeric features can be written there when the engine reports them.
 */
import { csvLine } from '../csv';
import type { ReconstructedRow } from '../attacks/reconstruction/types';

export interface ReconstructionColumns {
  /** One name per model feature, in the model's order. */
  features: readonly string[];
  label: string;
}

/** The label column's name when the training data's is unknown. */
export const DEFAULT_LABEL_COLUMN = 'label';

export function cellText(row: ReconstructedRow, feature: number): string {
  const value = row.values[feature];
  return value === null || value === undefined ? '' : String(value);
}

export function reconstructionCsv(rows: readonly ReconstructedRow[], columns: ReconstructionColumns): string {
  const lines = [csvLine([...columns.features, columns.label, 'certified'])];
  for (const row of rows) {
    lines.push(csvLine([...columns.features.map((_, f) => cellText(row, f)), String(row.label), row.certified ? 'true' : 'false']));
  }
  return lines.join('');
}
