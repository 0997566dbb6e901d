/**
 * What one training row's candidates (row-candidates.ts) prove on their own, without the integer
 * system that ties the rows together: the answer when that system is not built (it would exceed the
 * memory cap, ../memory.ts) or the budget ran out before it was. The candidates are a superset of
 * what the row can be (their pruning is sound), so
 *  - a row with a single (cell, class) candidate is proven: those determined values and that class;
 *  - otherwise a feature's value is proven where every candidate cell determines the same value.
 * The values shown for an open row are its first candidate's (an estimate). Nothing is proven when
 * several training-set sizes replay the draws (`certifiable` false).
 */
import { UNSET } from '../groups';
import type { ReconstructedRow } from '../types';
import type { RowCandidates } from './row-candidates';

export function rowFromCandidates(candidates: RowCandidates, index: number, labels: readonly (string | number | boolean)[], certifiable: boolean): ReconstructedRow {
  const { cells } = candidates;
  let columns = 0;
  let firstClass = -1;
  for (const cell of cells) {
    for (let c = 0; c < cell.classes.length; c++) {
      if (!cell.classes[c]) continue;
      columns++;
      if (firstClass < 0) firstClass = c;
    }
  }
  const first = cells.find((cell) => cell.classes.some(Boolean));
  const features = first?.values.length ?? 0;
  const values = first ? Array.from(first.values, (v) => (v === UNSET ? null : v)) : [];
  const row: ReconstructedRow = { values, label: labels[Math.max(0, firstClass)], certified: certifiable && columns === 1, index };
  if (certifiable && columns > 1 && first) {
    const agreed = Array.from(first.values, (v) => v !== UNSET);
    for (const cell of cells) {
      if (!cell.classes.some(Boolean)) continue;
      for (let f = 0; f < features; f++) if (cell.values[f] !== first.values[f]) agreed[f] = false;
    }
    if (agreed.some(Boolean)) row.certifiedValues = agreed;
  }
  return row;
}

/** The columns (cell, class) and system entries row i's candidates add to the replayed formulation. */
export function candidateSize(candidates: RowCandidates, distinctTrees: Uint8Array): { columns: number; entries: number } {
  let perColumn = 1;
  for (let k = 0; k < candidates.trees.length; k++) perColumn += 1 + distinctTrees[candidates.trees[k]];
  let columns = 0;
  for (const cell of candidates.cells) for (let c = 0; c < cell.classes.length; c++) columns += cell.classes[c];
  return { columns, entries: columns * perColumn };
}
