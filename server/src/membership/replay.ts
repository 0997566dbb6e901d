/**
 * Membership under a replayed bootstrap: tree t drew row index i c[i][t] times, and those draws
 * sit in the leaf the row reaches, with its label. So the candidate can be row i only if, in every
 * tree that drew i, the candidate's leaf holds at least c[i][t] draws of its label. When no index
 * fits, no training row has the candidate's label and its values up to the model's splits: a
 * proven non-member. Indices laid out row-major (one index's trees side by side) for the scan.
 */
import type { ReplayedDraws } from '../attacks/reconstruction/bootstrap/draws';

export interface DrawTable {
  rows: number;
  trees: number;
  /** `counts[i * trees + t]`: draws of index i in tree t. */
  counts: Uint16Array;
}

export function drawTable(draws: ReplayedDraws): DrawTable {
  const trees = draws.perTree.length;
  const counts = new Uint16Array(draws.rows * trees);
  for (let t = 0; t < trees; t++) {
    const column = draws.perTree[t];
    for (let i = 0; i < draws.rows; i++) counts[i * trees + t] = column[i];
  }
  return { rows: draws.rows, trees, counts };
}

/**
 * Over the indices that fit, the best mean (over the trees that drew the index) of the share the
 * index's draws take of the leaf's draws of the label; 0 when none fits. `labelCounts[t]`: the
 * candidate's leaf's draws of its label in tree t.
 */
export function bestFit(table: DrawTable, labelCounts: Float64Array): { fits: number; score: number } {
  const { trees, counts } = table;
  let fits = 0;
  let best = 0;
  for (let i = 0, base = 0; i < table.rows; i++, base += trees) {
    let share = 0;
    let inBag = 0;
    let ok = true;
    for (let t = 0; t < trees; t++) {
      const c = counts[base + t];
      if (c === 0) continue;
      const n = labelCounts[t];
      if (n < c) {
        ok = false;
        break;
      }
      share += c / n;
      inBag++;
    }
    if (!ok) continue;
    // An index no tree drew is in no leaf: it could be any row, so it fits every candidate (score 0).
    fits++;
    if (inBag > 0 && share / inBag > best) best = share / inBag;
  }
  return { fits, score: best };
}
