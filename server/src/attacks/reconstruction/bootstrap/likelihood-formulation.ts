/**
 * The DRAFT paper's maximum-likelihood formulation for bootstrap without known draws, aggregated
 * so that rows are not interchangeable copies of each other (no N! symmetry):
 *  - n[j, c] >= 0: training rows in cell j (of the whole forest's partition) with class c;
 *  - w[t, l, c, b] >= 0: of the rows of class c in leaf l of tree t, how many tree t drew b times
 *    (only where the leaf holds draws of class c; elsewhere every such row was drawn 0 times);
 * subject to, per tree t, leaf l, class c with a nonzero count:
 *    sum over b of w = sum over the cells j in l of n[j, c]      (each row has one multiplicity)
 *    sum over b of b * w = the stored (weighted) count             (scikit-learn counts draws)
 * per (t, l), when stored: sum over c, b >= 1 of w = the distinct in-bag count (n_node_samples;
 * the paper does not use it); and sum of n = N when N is known.
 * Objective (minimised): minus the log-likelihood of the draws, sum over rows and trees of
 * log p_b (draw-probabilities.ts). Rows of a leaf and class are exchangeable within one tree, so
 * this equals the paper's per-row objective; a row sitting in a leaf with no draws of its class
 * was drawn 0 times there, which costs log p_0 on its n[j, c]. (cell, class) pairs that would be
 * out of implausibly many trees get no column (mostTreesLeftOut).
 */
import type { LeafTable } from '../leaves';
import type { MergedCell } from '../merge';
import type { SparseProblem } from '../highs';
import { MAX_DRAWS } from './draw-probabilities';
import { SystemBuilder } from './system';

export interface LikelihoodFormulation {
  problem: SparseProblem;
  /** The first `cellColumns` columns are n[j, c]: cell and class of each. */
  cellColumns: number;
  colCell: Int32Array;
  colClass: Int32Array;
}

/**
 * A (cell, class) whose rows would have to be left out of more trees than this (trees whose leaf
 * holds no draw of the class) is left out: a row is out of a tree's sample with probability p_0, so
 * this is the mean plus four standard deviations of a binomial(trees, p_0). It is what keeps the
 * MILP small; it can only drop very unlikely rows (this is an estimate, not a certificate).
 */
export function mostTreesLeftOut(trees: number, logP0: number): number {
  const p0 = Math.exp(logP0);
  return Math.ceil(trees * p0 + 4 * Math.sqrt(trees * p0 * (1 - p0)));
}

export function buildLikelihoodFormulation(table: LeafTable, cells: readonly MergedCell[], logP: Float64Array, rows: number | undefined): LikelihoodFormulation {
  const leftOutAtMost = mostTreesLeftOut(table.trees.length, logP[0]);
  const classes = table.classes;
  const builder = new SystemBuilder();
  const linkRow: Int32Array[] = [];
  const countRow: Int32Array[] = [];
  const distinctRow: (Int32Array | undefined)[] = [];
  for (const tree of table.trees) {
    const link = new Int32Array(tree.counts.length).fill(-1);
    const count = new Int32Array(tree.counts.length).fill(-1);
    for (let i = 0; i < tree.counts.length; i++) {
      if (tree.counts[i] === 0) continue;
      link[i] = builder.addRow(0);
      count[i] = builder.addRow(tree.counts[i]);
    }
    linkRow.push(link);
    countRow.push(count);
    distinctRow.push(tree.distinct ? Int32Array.from(tree.distinct, (d) => builder.addRow(d)) : undefined);
  }
  const totalRow = rows !== undefined ? builder.addRow(rows) : -1;
  const cost: number[] = [];
  const colCell: number[] = [];
  const colClass: number[] = [];
  cells.forEach((cell, j) => {
    for (let c = 0; c < classes; c++) {
      const entries: number[] = [];
      const coefs: number[] = [];
      let penalty = 0;
      let leftOut = 0;
      cell.leaves.forEach((leaf, t) => {
        const link = linkRow[t][leaf * classes + c];
        if (link < 0) {
          penalty -= logP[0];
          leftOut++;
        } else {
          entries.push(link);
          coefs.push(-1);
        }
      });
      if (leftOut > leftOutAtMost) continue;
      if (totalRow >= 0) {
        entries.push(totalRow);
        coefs.push(1);
      }
      builder.addColumn(entries, coefs);
      cost.push(penalty);
      colCell.push(j);
      colClass.push(c);
    }
  });
  const cellColumns = cost.length;
  table.trees.forEach((tree, t) => {
    for (let l = 0; l < tree.nodes.length; l++) {
      for (let c = 0; c < classes; c++) {
        const i = l * classes + c;
        if (tree.counts[i] === 0) continue;
        for (let b = 0; b <= Math.min(MAX_DRAWS, tree.counts[i]); b++) {
          const entries = [linkRow[t][i]];
          const coefs = [1];
          if (b > 0) {
            entries.push(countRow[t][i]);
            coefs.push(b);
            const distinct = distinctRow[t];
            if (distinct) {
              entries.push(distinct[l]);
              coefs.push(1);
            }
          }
          builder.addColumn(entries, coefs);
          cost.push(-logP[b]);
        }
      }
    }
  });
  const system = builder.build();
  return {
    problem: { ...system, colCoef: Float64Array.from(system.colCoef), cost: Float64Array.from(cost) },
    cellColumns,
    colCell: Int32Array.from(colCell),
    colClass: Int32Array.from(colClass),
  };
}
