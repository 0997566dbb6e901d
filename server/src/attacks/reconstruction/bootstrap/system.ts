/**
 * A linear system over nonnegative integers, A x = b with positive integer coefficients, stored
 * both by columns (for the solver and weak duality) and by rows (for propagation). The bootstrap
 * formulations build one with `SystemBuilder`: rows are declared with their right-hand side, then
 * columns with the rows they enter.
 */
import type { SparseColumns } from '../dual-bounds';

export interface IntegerSystem extends SparseColumns {
  rowRhs: Int32Array;
  colCoef: Int32Array;
  /** Entries of row r: `rowCol/rowCoef[rowStart[r] .. rowStart[r + 1])`. */
  rowStart: Int32Array;
  rowCol: Int32Array;
  rowCoef: Int32Array;
}

export class SystemBuilder {
  private readonly rhs: number[] = [];
  // Entries in typed arrays, sized up front when the caller knows how many (replayed-formulation.ts
  // counts them first), doubled otherwise: a plain number[] costs 8 bytes an entry and grows by
  // copying, which on large formulations was what ran out of memory (a 169M-element array).
  private colStart: Int32Array;
  private colRow: Int32Array;
  private colCoef: Int32Array;
  private cols = 0;
  private entries = 0;

  constructor(capacity: { columns?: number; entries?: number } = {}) {
    this.colStart = new Int32Array(Math.max(16, (capacity.columns ?? 0) + 1));
    this.colRow = new Int32Array(Math.max(16, capacity.entries ?? 0));
    this.colCoef = new Int32Array(this.colRow.length);
  }

  get numRows(): number {
    return this.rhs.length;
  }

  get numCols(): number {
    return this.cols;
  }

  addRow(rhs: number): number {
    this.rhs.push(rhs);
    return this.rhs.length - 1;
  }

  /** Adds a column entering `rows` with `coefs` (a row at most once, coefficients > 0); returns its index. */
  addColumn(rows: readonly number[], coefs: readonly number[]): number {
    if (this.entries + rows.length > this.colRow.length) {
      const size = Math.max(this.entries + rows.length, this.colRow.length * 2);
      this.colRow = grown(this.colRow, size);
      this.colCoef = grown(this.colCoef, size);
    }
    for (let k = 0; k < rows.length; k++) {
      this.colRow[this.entries] = rows[k];
      this.colCoef[this.entries++] = coefs[k];
    }
    if (this.cols + 2 > this.colStart.length) this.colStart = grown(this.colStart, this.colStart.length * 2);
    this.colStart[++this.cols] = this.entries;
    return this.cols - 1;
  }

  build(): IntegerSystem {
    const numRows = this.rhs.length;
    const numCols = this.cols;
    // Views when the arrays were sized exactly, copies of the used part otherwise.
    const colStart = this.colStart.length === numCols + 1 ? this.colStart : this.colStart.slice(0, numCols + 1);
    const colRow = this.colRow.length === this.entries ? this.colRow : this.colRow.slice(0, this.entries);
    const colCoef = this.colCoef.length === this.entries ? this.colCoef : this.colCoef.slice(0, this.entries);
    const rowStart = new Int32Array(numRows + 1);
    for (const r of colRow) rowStart[r + 1]++;
    for (let r = 0; r < numRows; r++) rowStart[r + 1] += rowStart[r];
    const fill = rowStart.slice(0, numRows);
    const rowCol = new Int32Array(colRow.length);
    const rowCoef = new Int32Array(colRow.length);
    for (let j = 0; j < numCols; j++) {
      for (let k = colStart[j]; k < colStart[j + 1]; k++) {
        const at = fill[colRow[k]]++;
        rowCol[at] = j;
        rowCoef[at] = colCoef[k];
      }
    }
    return { numRows, numCols, rowRhs: Int32Array.from(this.rhs), colStart, colRow, colCoef, rowStart, rowCol, rowCoef };
  }
}

function grown(array: Int32Array, size: number): Int32Array {
  const larger = new Int32Array(size);
  larger.set(array);
  return larger;
}

/** Whether integer x satisfies every equality exactly, within `lower <= x <= upper` when given. */
export function satisfiesSystem(system: IntegerSystem, x: ArrayLike<number>, bounds?: { lower: ArrayLike<number>; upper: ArrayLike<number> }): boolean {
  for (let j = 0; j < system.numCols; j++) {
    if (!Number.isInteger(x[j]) || x[j] < 0) return false;
    if (bounds && (x[j] < bounds.lower[j] || x[j] > bounds.upper[j])) return false;
  }
  for (let r = 0; r < system.numRows; r++) {
    let sum = 0;
    for (let k = system.rowStart[r]; k < system.rowStart[r + 1]; k++) sum += system.rowCoef[k] * x[system.rowCol[k]];
    if (sum !== system.rowRhs[r]) return false;
  }
  return true;
}
