/**
 * The aggregated reconstruction model as a linear system over integers:
 *  - one unknown (column) per (merged cell, class) pair that no tree rules out: how many training
 *    rows lie in that cell with that class;
 *  - one equality (row) per (tree, leaf, class) with a nonzero count: the columns whose cell that
 *    tree sends to that leaf, with that class, sum to the stored count.
 * Every column meets exactly one row per tree (its cell reaches one leaf per tree), all with
 * coefficient 1, so the matrix is stored as `colRows[j * trees + t]`. Rows with a zero count need
 * no equality: columns that would enter them were pruned.
 */
import type { LeafTable } from './leaves';
import type { MergedCell } from './merge';

export interface Formulation {
  trees: number;
  classes: number;
  /** Training rows N (every tree's equalities sum to it). */
  total: number;
  numCols: number;
  numRows: number;
  colCell: Int32Array;
  colClass: Int32Array;
  /** Row of column j in tree t: `colRows[j * trees + t]`. */
  colRows: Int32Array;
  /** The count each row must add up to. */
  rowRhs: Int32Array;
  /** Columns of row r: `rowCols[rowStart[r] .. rowStart[r + 1])`. */
  rowStart: Int32Array;
  rowCols: Int32Array;
  /** Where each row comes from, for messages. */
  rowTree: Int32Array;
  rowLeaf: Int32Array;
  rowClass: Int32Array;
}

export type FormulationResult = { ok: true; formulation: Formulation } | { ok: false; reason: string };

export function buildFormulation(table: LeafTable, cells: readonly MergedCell[], classLabels: readonly unknown[]): FormulationResult {
  const trees = table.trees.length;
  const classes = table.classes;
  // Rows: (tree, leaf, class) with a nonzero count, numbered tree by tree.
  const leafBase = new Int32Array(trees + 1);
  for (let t = 0; t < trees; t++) leafBase[t + 1] = leafBase[t] + table.trees[t].nodes.length;
  const rowOf = new Int32Array(leafBase[trees] * classes).fill(-1);
  const rowTree: number[] = [];
  const rowLeaf: number[] = [];
  const rowClass: number[] = [];
  const rowRhs: number[] = [];
  for (let t = 0; t < trees; t++) {
    const counts = table.trees[t].counts;
    for (let l = 0; l < table.trees[t].nodes.length; l++) {
      for (let c = 0; c < classes; c++) {
        if (counts[l * classes + c] === 0) continue;
        rowOf[(leafBase[t] + l) * classes + c] = rowRhs.length;
        rowTree.push(t);
        rowLeaf.push(l);
        rowClass.push(c);
        rowRhs.push(counts[l * classes + c]);
      }
    }
  }
  const colCell: number[] = [];
  const colClass: number[] = [];
  const colRows: number[] = [];
  for (let m = 0; m < cells.length; m++) {
    const cell = cells[m];
    for (let c = 0; c < classes; c++) {
      if (!cell.classes[c]) continue;
      colCell.push(m);
      colClass.push(c);
      for (let t = 0; t < trees; t++) {
        const row = rowOf[(leafBase[t] + cell.leaves[t]) * classes + c];
        if (row < 0) throw new Error(`formulation: cell ${m} keeps class ${c} but tree ${t} leaf ${cell.leaves[t]} holds none`);
        colRows.push(row);
      }
    }
  }
  const { formulation, emptyRow: r } = assembleFormulation({ trees, classes, total: table.rows, colCell, colClass, colRows, rowRhs, rowTree, rowLeaf, rowClass });
  if (r >= 0) {
    const tree = table.trees[rowTree[r]];
    return {
      ok: false,
      reason: `tree ${rowTree[r]} node ${tree.nodes[rowLeaf[r]]} holds ${rowRhs[r]} rows of class ${String(classLabels[rowClass[r]])}, but no assignment of binary features that the other trees allow reaches it`,
    };
  }
  return { ok: true, formulation };
}

/** What a formulation builder collects: columns with their row in each tree, and the rows. */
export interface FormulationParts {
  trees: number;
  classes: number;
  total: number;
  colCell: number[];
  colClass: number[];
  /** Row of column j in tree t: `colRows[j * trees + t]`. */
  colRows: number[];
  rowRhs: number[];
  rowTree: number[];
  rowLeaf: number[];
  rowClass: number[];
}

/**
 * Packs the parts into a Formulation with its columns indexed by row. Shared by this builder and
 * multiclass-formulation.ts, which differ only in which rows a leaf gives. `emptyRow` is the first
 * row no column enters (-1 when there is none): its count cannot be met, which the caller explains
 * in its own terms.
 */
export function assembleFormulation(parts: FormulationParts): { formulation: Formulation; emptyRow: number } {
  const { trees, colRows, rowRhs } = parts;
  const numRows = rowRhs.length;
  const numCols = parts.colCell.length;
  const rowStart = new Int32Array(numRows + 1);
  for (const row of colRows) rowStart[row + 1]++;
  for (let r = 0; r < numRows; r++) rowStart[r + 1] += rowStart[r];
  const fill = rowStart.slice(0, numRows);
  const rowCols = new Int32Array(colRows.length);
  for (let j = 0; j < numCols; j++) for (let t = 0; t < trees; t++) rowCols[fill[colRows[j * trees + t]]++] = j;
  let emptyRow = -1;
  for (let r = 0; r < numRows && emptyRow < 0; r++) if (rowStart[r + 1] === rowStart[r]) emptyRow = r;
  const formulation: Formulation = {
    trees,
    classes: parts.classes,
    total: parts.total,
    numCols,
    numRows,
    colCell: Int32Array.from(parts.colCell),
    colClass: Int32Array.from(parts.colClass),
    colRows: Int32Array.from(colRows),
    rowRhs: Int32Array.from(rowRhs),
    rowStart,
    rowCols,
    rowTree: Int32Array.from(parts.rowTree),
    rowLeaf: Int32Array.from(parts.rowLeaf),
    rowClass: Int32Array.from(parts.rowClass),
  };
  return { formulation, emptyRow };
}

/** Whether integer multiplicities satisfy every leaf equality exactly (and are nonnegative). */
export function satisfiesAll(formulation: Formulation, x: ArrayLike<number>): boolean {
  const { numRows, rowStart, rowCols, rowRhs } = formulation;
  for (let j = 0; j < formulation.numCols; j++) if (!(x[j] >= 0) || !Number.isInteger(x[j])) return false;
  for (let r = 0; r < numRows; r++) {
    let sum = 0;
    for (let k = rowStart[r]; k < rowStart[r + 1]; k++) sum += x[rowCols[k]];
    if (sum !== rowRhs[r]) return false;
  }
  return true;
}
