/**
 * The DRAFT-DP likelihood (paper section III, objective (9)) over the aggregated unknowns:
 *  - one integer multiplicity x_j >= 0 per (merged cell, class): how many training rows lie in
 *    that cell with that class. Nothing is pruned: a released zero may be noise.
 *  - one likelihood row per released count (tree t, leaf v, class c) that some cell reaches:
 *    n_tvc = sum of the x_j whose cell tree t sends to v, with class c; its noise is
 *    Delta = n*_tvc - n_tvc, an integer, written Delta = plus - minus with plus, minus >= 0;
 *  - the paper's domain |Delta| <= gamma, intersected with what n in [0, N] allows.
 * The cost of a count's noise is -log P(Delta) = K + eps |Delta| + log 2 [Delta != 0] (noise.ts):
 * eps (plus + minus) plus log 2 (1 - zero), with a binary `zero` that forces plus = minus = 0.
 * Leaves no cell reaches (a path that needs x_f = 0 and x_f = 1: diffprivlib splits a feature
 * again below itself) hold no row: their noise is their released count, a constant.
 *
 * This module is plain data; dp/solve.ts hands it to HiGHS (through highs.ts).
 */
import type { MergedCell } from '../merge';
import type { NoisyLeafTable } from './noisy-leaves';
import { noiseCost, noiseRange } from './noise';

export interface LikelihoodFormulation {
  trees: number;
  classes: number;
  epsLeaf: number;
  /** The paper's noise range gamma. */
  gamma: number;
  /** Columns: j = cell * classes + class. */
  numCols: number;
  /** Likelihood row of column j in tree t: `colRows[j * trees + t]`. */
  colRows: Int32Array;
  numRows: number;
  rowTree: Int32Array;
  rowLeaf: Int32Array;
  rowClass: Int32Array;
  /** Released (noisy) count n* of each row. */
  released: Int32Array;
  /** Allowed noise Delta = n* - n per row: the paper's [-gamma, gamma] within what n in [0, maxRows] allows. */
  deltaLow: Int32Array;
  deltaHigh: Int32Array;
  /** Allowed total rows (N stated: one value; unknown: the confidence interval). */
  rowsLow: number;
  rowsHigh: number;
  /** -log P of the noise of counts no cell reaches (fixed by the model). */
  constantCost: number;
}

export function buildLikelihood(table: NoisyLeafTable, cells: readonly MergedCell[], rowsLow: number, rowsHigh: number): LikelihoodFormulation {
  const { structure, noisy, epsLeaf } = table;
  const trees = structure.trees.length;
  const classes = structure.classes;
  const gamma = noiseRange(epsLeaf);
  const numCols = cells.length * classes;

  // Leaves some cell reaches, per tree.
  const reached = structure.trees.map((tree) => new Uint8Array(tree.nodes.length));
  for (const cell of cells) for (let t = 0; t < trees; t++) reached[t][cell.leaves[t]] = 1;

  const rowOf = structure.trees.map((tree) => new Int32Array(tree.nodes.length * classes).fill(-1));
  const rowTree: number[] = [];
  const rowLeaf: number[] = [];
  const rowClass: number[] = [];
  const released: number[] = [];
  const deltaLow: number[] = [];
  const deltaHigh: number[] = [];
  let constantCost = 0;
  for (let t = 0; t < trees; t++) {
    for (let l = 0; l < structure.trees[t].nodes.length; l++) {
      for (let c = 0; c < classes; c++) {
        const star = noisy[t][l * classes + c];
        if (!reached[t][l]) {
          constantCost += noiseCost(star, epsLeaf);
          continue;
        }
        rowOf[t][l * classes + c] = released.length;
        rowTree.push(t);
        rowLeaf.push(l);
        rowClass.push(c);
        released.push(star);
        // n in [0, rowsHigh] means Delta in [star - rowsHigh, star]; the paper adds |Delta| <= gamma.
        const low = Math.max(-gamma, star - rowsHigh);
        const high = Math.min(gamma, star);
        if (low <= high) {
          deltaLow.push(low);
          deltaHigh.push(high);
        } else {
          // The released count lies beyond gamma of every possible n (probability about 6e-6 per
          // count): keep what n in [0, N] allows rather than declare the model impossible.
          deltaLow.push(star - rowsHigh);
          deltaHigh.push(star);
        }
      }
    }
  }
  const colRows = new Int32Array(numCols * trees);
  for (let m = 0; m < cells.length; m++) {
    for (let c = 0; c < classes; c++) {
      const j = m * classes + c;
      for (let t = 0; t < trees; t++) colRows[j * trees + t] = rowOf[t][cells[m].leaves[t] * classes + c];
    }
  }
  return {
    trees,
    classes,
    epsLeaf,
    gamma,
    numCols,
    colRows,
    numRows: released.length,
    rowTree: Int32Array.from(rowTree),
    rowLeaf: Int32Array.from(rowLeaf),
    rowClass: Int32Array.from(rowClass),
    released: Int32Array.from(released),
    deltaLow: Int32Array.from(deltaLow),
    deltaHigh: Int32Array.from(deltaHigh),
    rowsLow,
    rowsHigh,
    constantCost,
  };
}

/** Per-row counts n of integer multiplicities `x` (sparse: columns and their values). */
export function rowCounts(formulation: LikelihoodFormulation, columns: ArrayLike<number>, values: ArrayLike<number>): Int32Array {
  const counts = new Int32Array(formulation.numRows);
  const { trees, colRows } = formulation;
  for (let k = 0; k < columns.length; k++) {
    if (values[k] === 0) continue;
    for (let t = 0; t < trees; t++) counts[colRows[columns[k] * trees + t]] += values[k];
  }
  return counts;
}

/**
 * -log likelihood of the released counts given per-row true counts (all counts, constants
 * included), and whether every noise lies in the paper's domain.
 */
export function negativeLogLikelihood(formulation: LikelihoodFormulation, counts: Int32Array): { cost: number; inDomain: boolean } {
  let cost = formulation.constantCost;
  let inDomain = true;
  for (let r = 0; r < formulation.numRows; r++) {
    const delta = formulation.released[r] - counts[r];
    cost += noiseCost(delta, formulation.epsLeaf);
    if (delta < formulation.deltaLow[r] || delta > formulation.deltaHigh[r]) inDomain = false;
  }
  return { cost, inDomain };
}
