/**
 * The replayed-bootstrap formulation: training rows are known by index, and so is how often each
 * tree drew each of them, so
 *  - one binary unknown per (row index i, candidate cell, class) (row-candidates.ts), and exactly
 *    one candidate per row;
 *  - per (tree, leaf, class) with a nonzero count: the candidates in that leaf, each weighted by how
 *    often the tree drew its row, sum to the stored count (scikit-learn's weighted counts are
 *    draws with multiplicity);
 *  - per (tree, leaf), when stored: the candidates in that leaf of rows the tree drew (at least
 *    once) sum to its distinct in-bag count (`n_node_samples`).
 * The true training set is one solution; rows are aligned to their indices, so no two solutions
 * are mere permutations of each other.
 */
import type { LeafTable } from '../leaves';
import type { RowCandidates } from './row-candidates';
import { SystemBuilder, type IntegerSystem } from './system';

export interface ReplayedFormulation {
  system: IntegerSystem;
  /** Columns of training row i: `rowColumns[i] .. rowColumns[i + 1]`. */
  rowColumns: Int32Array;
  /** Per column: its candidate cell (index into `candidates[row].cells`) and class. */
  colCell: Int32Array;
  colClass: Int32Array;
  /** Equalities of kind (tree, leaf, class) and (tree, leaf): for statistics. */
  countRows: number;
  distinctRows: number;
}

/** `size`: the columns and entries the candidates add (row-facts.ts's candidateSize, summed), to size the arrays once. */
export function buildReplayedFormulation(
  table: LeafTable,
  candidates: readonly RowCandidates[],
  size?: { columns: number; entries: number },
): { ok: true; formulation: ReplayedFormulation } | { ok: false; reason: string } {
  const classes = table.classes;
  const builder = new SystemBuilder(size);
  const rowConstraint = candidates.map(() => builder.addRow(1));
  // (tree, leaf, class) count rows, and (tree, leaf) distinct rows, numbered tree by tree.
  const countRow: Int32Array[] = [];
  const distinctRow: (Int32Array | undefined)[] = [];
  let countRows = 0;
  let distinctRows = 0;
  for (const tree of table.trees) {
    const leaves = tree.nodes.length;
    const rows = new Int32Array(leaves * classes).fill(-1);
    for (let i = 0; i < rows.length; i++) {
      if (tree.counts[i] > 0) {
        rows[i] = builder.addRow(tree.counts[i]);
        countRows++;
      }
    }
    countRow.push(rows);
    if (tree.distinct) {
      distinctRow.push(Int32Array.from(tree.distinct, (d) => builder.addRow(d)));
      distinctRows += leaves;
    } else distinctRow.push(undefined);
  }
  const rowColumns = new Int32Array(candidates.length + 1);
  const colCell: number[] = [];
  const colClass: number[] = [];
  candidates.forEach((row, i) => {
    row.cells.forEach((cell, m) => {
      for (let c = 0; c < classes; c++) {
        if (!cell.classes[c]) continue;
        const rows = [rowConstraint[i]];
        const coefs = [1];
        for (let k = 0; k < row.trees.length; k++) {
          const t = row.trees[k];
          const r = countRow[t][cell.leaves[k] * classes + c];
          if (r < 0) throw new Error(`replayed formulation: row ${i} keeps class ${c} in tree ${t} leaf ${cell.leaves[k]}, which holds none`);
          rows.push(r);
          coefs.push(row.draws[k]);
          const distinct = distinctRow[t];
          if (distinct) {
            rows.push(distinct[cell.leaves[k]]);
            coefs.push(1);
          }
        }
        builder.addColumn(rows, coefs);
        colCell.push(m);
        colClass.push(c);
      }
    });
    rowColumns[i + 1] = colCell.length;
  });
  const system = builder.build();
  for (let r = 0; r < system.numRows; r++) {
    if (system.rowRhs[r] > 0 && system.rowStart[r + 1] === system.rowStart[r]) {
      const what = r < candidates.length ? `training row ${r} has no candidate cell` : 'a leaf holds draws that no candidate of any row can reach';
      return { ok: false, reason: `the replayed draws do not fit the trees: ${what}` };
    }
  }
  return { ok: true, formulation: { system, rowColumns, colCell: Int32Array.from(colCell), colClass: Int32Array.from(colClass), countRows, distinctRows } };
}
