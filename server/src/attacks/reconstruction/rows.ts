/**
 * Turns column multiplicities back into training rows: `count` copies of the cell's feature
 * values (null where undetermined) with the column's class, the first `certified` of them
 * flagged as proven.
 */
import type { Formulation } from './formulation';
import { UNSET } from './groups';
import type { MergedCell } from './merge';
import type { ReconstructedRow } from './types';

export function reconstructedRows(
  formulation: Formulation,
  cells: readonly MergedCell[],
  labels: readonly (string | number | boolean)[],
  counts: ArrayLike<number>,
  certified: ArrayLike<number>,
): ReconstructedRow[] {
  const rows: ReconstructedRow[] = [];
  for (let j = 0; j < formulation.numCols; j++) {
    const cell = cells[formulation.colCell[j]];
    const label = labels[formulation.colClass[j]];
    for (let k = 0; k < counts[j]; k++) {
      const values = Array.from(cell.values, (v) => (v === UNSET ? null : v));
      rows.push({ values, label, certified: k < certified[j] });
    }
  }
  return rows;
}
