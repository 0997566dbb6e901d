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
  private readonly colStart: number[] = [0];
  private readonly colRow: number[] = [];
  private readonly colCoef: number[] = [];

  get numRows(): number {
    return this.rhs.length;
  }

  get numCols(): number {
    return this.colStart.length - 1;
  }

  addRow(rhs: number): number {
    this.rhs.push(rhs);
    return this.rhs.length - 1;
  }

  /** Adds a column entering `rows` with `coefs` (a row at most once, coefficients > 0); returns its index. */
  addColumn(rows: readonly number[], coefs: readonly number[]): number {
    for (let k = 0; k < rows.length; k++) {
      this.colRow.push(rows[k]);
      this.colCoef.push(coefs[k]);
    }
    this.colStart.push(this.colRow.length);
    return this.colStart.length - 2;
  }

  build(): IntegerSystem {
    const numRows = this.rhs.length;
    const numCols = this.colStart.length - 1;
    const colStart = Int32Array.from(this.colStart);
    const colRow = Int32Array.from(this.colRow);
    const colCoef = Int32Array.from(this.colCoef);
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
