/**
 * The aggregated formulation for the first round of a K-class boosted model (multi:softprob,
 * multi:softmax). Tree t of that round scores class c_t, and its covers and gradients give, per
 * leaf, the rows (all classes) and the rows of class c_t (first-tree-probe.ts); the other classes
 * are only known together. So each leaf gives two equalities, one over the columns (cell, c_t) and
 * one over the columns (cell, k != c_t):
 *   sum x(cell, c_t) = rows of class c_t in the leaf,   sum x(cell, k != c_t) = the other rows.
 * Each column still meets exactly one equality per tree, the shape formulation.ts builds and
 * propagation, the integer solve and the certificate work on.
 *
 * The leaf table it reads has K classes per leaf: class c_t holds its count and every other class
 * holds the rows of all other classes, an upper bound on each. The cell enumeration only asks
 * whether a leaf can hold a class (count > 0), for which the bound is sound.
 */
import { assembleFormulation, type FormulationResult } from './formulation';
import type { LeafTable } from './leaves';
import type { MergedCell } from './merge';

/** A formulation builder for a table whose tree t scores class `classOfTree[t]`. */
export function oneVsRestFormulation(classOfTree: readonly number[]) {
  return (table: LeafTable, cells: readonly MergedCell[], classLabels: readonly unknown[]): FormulationResult => {
    const trees = table.trees.length;
    const classes = table.classes;
    // Rows: per tree and leaf, 'own' (class c_t) then 'rest', when nonzero.
    const own: Int32Array[] = [];
    const rest: Int32Array[] = [];
    const rowTree: number[] = [];
    const rowLeaf: number[] = [];
    const rowClass: number[] = [];
    const rowRhs: number[] = [];
    for (let t = 0; t < trees; t++) {
      const c = classOfTree[t];
      const leaves = table.trees[t].nodes.length;
      own.push(new Int32Array(leaves).fill(-1));
      rest.push(new Int32Array(leaves).fill(-1));
      for (let l = 0; l < leaves; l++) {
        const counts = table.trees[t].counts;
        const mine = counts[l * classes + c];
        // Any other class holds the rest (the table repeats it in every other class).
        const others = counts[l * classes + (c === 0 ? 1 : 0)];
        for (const [target, rhs, cls] of [[own, mine, c], [rest, others, -1]] as const) {
          if (rhs === 0) continue;
          target[t][l] = rowRhs.length;
          rowTree.push(t);
          rowLeaf.push(l);
          rowClass.push(cls);
          rowRhs.push(rhs);
        }
      }
    }
    const colCell: number[] = [];
    const colClass: number[] = [];
    const colRows: number[] = [];
    for (let m = 0; m < cells.length; m++) {
      const cell = cells[m];
      for (let k = 0; k < classes; k++) {
        if (!cell.classes[k]) continue;
        colCell.push(m);
        colClass.push(k);
        for (let t = 0; t < trees; t++) {
          const row = (k === classOfTree[t] ? own : rest)[t][cell.leaves[t]];
          if (row < 0) throw new Error(`formulation: cell ${m} keeps class ${k} but tree ${t} leaf ${cell.leaves[t]} holds none`);
          colRows.push(row);
        }
      }
    }
    // rowClass -1: the row counts every class but the tree's own.
    const { formulation, emptyRow: r } = assembleFormulation({ trees, classes, total: table.rows, colCell, colClass, colRows, rowRhs, rowTree, rowLeaf, rowClass });
    if (r >= 0) {
      const what = rowClass[r] >= 0 ? `of class ${String(classLabels[rowClass[r]])}` : `of the classes other than ${String(classLabels[classOfTree[rowTree[r]]])}`;
      return { ok: false, reason: `tree ${rowTree[r]} node ${table.trees[rowTree[r]].nodes[rowLeaf[r]]} holds ${rowRhs[r]} rows ${what}, but no cell the other trees allow reaches it` };
    }
    return { ok: true, formulation };
  };
}
