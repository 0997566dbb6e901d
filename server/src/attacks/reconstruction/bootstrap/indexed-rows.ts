/**
 * Turns a replayed-bootstrap solution back into training rows, one per row index, in index order:
 * the chosen candidate's determined values (null where its cell leaves a feature open) and class.
 * A row is certified when its candidate is proven; otherwise a value is certified when every
 * candidate not proven impossible has that same determined value.
 */
import { UNSET } from '../groups';
import type { ReconstructedRow } from '../types';
import type { Bounds } from '../propagation';
import type { ReplayedFormulation } from './replayed-formulation';
import type { RowCandidates } from './row-candidates';

export function indexedRows(
  formulation: ReplayedFormulation,
  candidates: readonly RowCandidates[],
  labels: readonly (string | number | boolean)[],
  solution: ArrayLike<number>,
  proven: Bounds | undefined,
): ReconstructedRow[] {
  const { rowColumns, colCell, colClass } = formulation;
  return candidates.map((row, i) => {
    let chosen = rowColumns[i];
    for (let j = rowColumns[i]; j < rowColumns[i + 1]; j++) if (solution[j] === 1) chosen = j;
    const cell = row.cells[colCell[chosen]].values;
    const values = Array.from(cell, (v) => (v === UNSET ? null : v));
    const reconstructed: ReconstructedRow = { values, label: labels[colClass[chosen]], certified: proven !== undefined && proven.lower[chosen] >= 1, index: i };
    if (proven && !reconstructed.certified) {
      const agreed = Array.from(cell, (v) => v !== UNSET);
      for (let j = rowColumns[i]; j < rowColumns[i + 1]; j++) {
        if (proven.upper[j] < 1) continue;
        const other = row.cells[colCell[j]].values;
        for (let f = 0; f < agreed.length; f++) if (other[f] !== cell[f]) agreed[f] = false;
      }
      if (agreed.some(Boolean)) reconstructed.certifiedValues = agreed;
    }
    return reconstructed;
  });
}
