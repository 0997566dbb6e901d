/**
 * Labels of a reg:squarederror model's training rows from its gradient sums, once the rows' cells
 * (and so the leaf each row reached in every tree) are known.
 *
 * With squared error a row's gradient in tree t is (prediction before tree t) - y, and its
 * prediction is the base score plus the values of the leaves it reached in trees 0..t-1: a known
 * constant per cell. A leaf stores its weight w = -G / (H + lambda) (its value is eta w), so
 *   G = -w (H + lambda) = sum over its rows of (prediction - y), and
 *   sum over the leaf's cells of Y(cell) = sum over them of m(cell) x prediction(cell) - G,
 * Y(cell) being the sum of the labels of the cell's m(cell) rows. One linear equation per leaf of
 * every tree over the unknown Y. A cell's Y is determined when the unit vector of that cell lies in
 * the row space of the equations (reduced row echelon form below); the others are estimated: the
 * system's free unknowns are set to the cell's rows times the mean label (which tree 0 gives), and
 * the determined ones follow. A determined Y of a cell with one row is that row's label, up to the
 * float32 rounding of the stored weights and covers.
 */
import type { Forest } from '../../forest/schema';
import type { LeafTable } from './leaves';
import type { MergedCell } from './merge';

export interface CellLabels {
  /** Per cell: the sum of its rows' labels (an estimate where not determined). */
  sums: Float64Array;
  determined: Uint8Array;
  /** Largest |left - right| of an equation the estimate leaves (float rounding, or a wrong reading). */
  residual: number;
}

/**
 * Entries of the dense elimination beyond which labels are not solved for (memory and time: a
 * 100-tree model with thousands of cells would need gigabytes); the rows keep the mean label.
 */
export const LABEL_MATRIX_LIMIT = 1_000_000;

/** Tolerance of the elimination on a matrix of 0/1 entries. */
const PIVOT = 1e-9;

/**
 * `counts[c]`: rows in cell c (the reconstruction's multiplicities); cells with none are left out.
 * `eta`, `lambda`: the learning rate and L2 term (first-tree-probe.ts reads or infers them).
 * Undefined when the system is too large (LABEL_MATRIX_LIMIT) or the deadline passes.
 */
export function regressionLabels(forest: Forest, table: LeafTable, cells: readonly MergedCell[], counts: ArrayLike<number>, eta: number, lambda: number, meanLabel: number, deadline = Infinity): CellLabels | undefined {
  const trees = table.trees.length;
  const used = cells.map((_, c) => c).filter((c) => counts[c] > 0);
  // Per cell, the prediction before each tree.
  const base = forest.boosting!.baseScore[0];
  const prediction = used.map((c) => {
    const before = new Float64Array(trees);
    let p = base;
    for (let t = 0; t < trees; t++) {
      before[t] = p;
      p += forest.trees[t].boosting!.leafValue[table.trees[t].nodes[cells[c].leaves[t]]];
    }
    return before;
  });
  return labelsFromLeafSums(table, cells, counts, meanLabel, deadline, (t, node, cols) => {
    const b = forest.trees[t].boosting!;
    const G = -(b.leafValue[node] / eta) * (b.cover![node] + lambda);
    let rhs = -G;
    for (const i of cols) rhs += counts[used[i]] * prediction[i][t];
    return rhs;
  });
}

/**
 * Label sums of the cells from one equation per (tree, leaf) some used cell reaches:
 * `labelSum(t, node, cols)` is the sum of the labels of the leaf's rows, `cols` the indices (among
 * the cells with rows, in order) of the cells in the leaf.
 */
export function labelsFromLeafSums(table: LeafTable, cells: readonly MergedCell[], counts: ArrayLike<number>, meanLabel: number, deadline: number, labelSum: (tree: number, node: number, cols: number[]) => number): CellLabels | undefined {
  const used = cells.map((_, c) => c).filter((c) => counts[c] > 0);
  const rows: { cols: number[]; rhs: number }[] = [];
  for (let t = 0; t < table.trees.length; t++) {
    const byLeaf = new Map<number, number[]>();
    used.forEach((c, i) => {
      const l = cells[c].leaves[t];
      const list = byLeaf.get(l);
      if (list) list.push(i);
      else byLeaf.set(l, [i]);
    });
    for (const [l, cols] of byLeaf) rows.push({ cols, rhs: labelSum(t, table.trees[t].nodes[l], cols) });
  }
  const solved = solveCellSums(rows, used.map((c) => counts[c]), meanLabel, deadline);
  if (!solved) return undefined;
  const { Y, determinedUsed, residual } = solved;
  const sums = new Float64Array(cells.length);
  const determined = new Uint8Array(cells.length);
  used.forEach((c, i) => {
    sums[c] = Y[i];
    determined[c] = determinedUsed[i];
  });
  return { sums, determined, residual };
}

/**
 * Solves `sum over cols of Y = rhs` (one equation per leaf) for the label sums Y of the used
 * cells (`rowCounts`: rows per used cell) by dense reduced row echelon form of [A | rhs]. A Y is
 * determined when its unit vector lies in the row space; free unknowns are set to their rows times
 * `meanLabel` and the rest follow. Shared by every model whose leaves give label sums (boosted
 * gradient sums here, regression forests' leaf means in regression-forest.ts).
 */
function solveCellSums(rows: readonly { cols: number[]; rhs: number }[], rowCounts: readonly number[], meanLabel: number, deadline = Infinity): { Y: Float64Array; determinedUsed: Uint8Array; residual: number } | undefined {
  const C = rowCounts.length;
  const E = rows.length;
  if (E * (C + 1) > LABEL_MATRIX_LIMIT) return undefined;
  const A = rows.map(({ cols, rhs }) => {
    const r = new Float64Array(C + 1);
    for (const i of cols) r[i] = 1;
    r[C] = rhs;
    return r;
  });
  const pivotOfRow: number[] = [];
  let rank = 0;
  for (let col = 0; col < C && rank < E; col++) {
    // The budget: past it, no labels rather than a late answer.
    if ((col & 63) === 0 && Date.now() > deadline) return undefined;
    let best = rank;
    for (let r = rank + 1; r < E; r++) if (Math.abs(A[r][col]) > Math.abs(A[best][col])) best = r;
    if (Math.abs(A[best][col]) < PIVOT) continue;
    [A[rank], A[best]] = [A[best], A[rank]];
    const p = A[rank];
    const inv = 1 / p[col];
    for (let k = col; k <= C; k++) p[k] *= inv;
    for (let r = 0; r < E; r++) {
      if (r === rank) continue;
      const f = A[r][col];
      if (f === 0) continue;
      const row = A[r];
      for (let k = col; k <= C; k++) row[k] -= f * p[k];
    }
    pivotOfRow.push(col);
    rank++;
  }
  const isPivot = new Uint8Array(C);
  for (const col of pivotOfRow) isPivot[col] = 1;
  const Y = new Float64Array(C);
  for (let i = 0; i < C; i++) if (!isPivot[i]) Y[i] = rowCounts[i] * meanLabel;
  const determinedUsed = new Uint8Array(C);
  for (let r = 0; r < rank; r++) {
    const col = pivotOfRow[r];
    let value = A[r][C];
    let alone = true;
    for (let k = 0; k < C; k++) {
      if (k === col || isPivot[k] || Math.abs(A[r][k]) < PIVOT) continue;
      value -= A[r][k] * Y[k];
      alone = false;
    }
    Y[col] = value;
    determinedUsed[col] = alone ? 1 : 0;
  }
  let residual = 0;
  for (const { cols, rhs } of rows) {
    let s = 0;
    for (const i of cols) s += Y[i];
    residual = Math.max(residual, Math.abs(s - rhs));
  }
  return { Y, determinedUsed, residual };
}
