/**
 * Proven bounds on columns from a dual vector, by weak duality. This is where the certificate's
 * soundness lives, so it trusts nothing from the LP solver but the numbers y:
 * for ANY y and every x with A x = b and lo <= x <= hi,
 *   x_j = b'y + (e_j - A'y)'x >= b'y + sum over i of min(r_i lo_i, r_i hi_i),  r = e_j - A'y,
 * and likewise -x_j >= b'y + sum of min(r_i lo_i, r_i hi_i) with r = -e_j - A'y (an upper bound).
 * A good y (the LP optimum's duals) gives the LP optimum; a poor one gives a weaker, still valid
 * bound. The bounds lo, hi must themselves hold for every integer solution (they do: they come
 * from propagation, probing or earlier bounds). Floating-point error of the sums is bounded and
 * subtracted before rounding to an integer.
 */
import type { Formulation } from './formulation';

/**
 * A linear system A x = b with its columns stored sparse (compressed columns). The aggregated
 * formulation is one (every coefficient 1, one row per tree); the bootstrap formulations, whose
 * coefficients are draw multiplicities, are others.
 */
export interface SparseColumns {
  numRows: number;
  numCols: number;
  rowRhs: ArrayLike<number>;
  /** Entries of column j: `colRow/colCoef[colStart[j] .. colStart[j + 1])`. */
  colStart: Int32Array;
  colRow: Int32Array;
  colCoef: ArrayLike<number>;
}

const asColumns = new WeakMap<Formulation, SparseColumns>();

/** The aggregated formulation seen as a sparse system (computed once per formulation). */
export function columnsOf(system: Formulation | SparseColumns): SparseColumns {
  if ('colStart' in system) return system;
  let columns = asColumns.get(system);
  if (!columns) {
    const { numCols, numRows, trees, colRows, rowRhs } = system;
    const colStart = Int32Array.from({ length: numCols + 1 }, (_, j) => j * trees);
    columns = { numRows, numCols, rowRhs, colStart, colRow: colRows, colCoef: new Float64Array(colRows.length).fill(1) };
    asColumns.set(system, columns);
  }
  return columns;
}

/**
 * Weak-duality bounds from one dual vector y, for every column at once: with a_i = A_i'y and
 * g_i(r) = r * lo_i when r > 0, else r * hi_i, the bound on x_k is
 *   b'y + sum over i != k of g_i(-a_i) + g_k(1 - a_k),
 * so one pass over the columns prices them all, and the y of one LP can prove bounds on others.
 * Floating-point error is bounded generously and subtracted before rounding.
 */
export class DualBounds {
  private readonly aty: Float64Array;
  private readonly base: number;
  private readonly error: number;
  /** Copies: the caller raises its bounds while using these, and base must match what was summed. */
  private readonly lower: Int32Array;
  private readonly upper: Int32Array;

  constructor(system: Formulation | SparseColumns, y: Float64Array, lower: Int32Array, upper: Int32Array) {
    this.lower = lower.slice();
    this.upper = upper.slice();
    const { numRows, numCols, rowRhs, colStart, colRow, colCoef } = columnsOf(system);
    this.aty = new Float64Array(numCols);
    let base = 0;
    let magnitude = 0;
    for (let r = 0; r < numRows; r++) {
      const term = rowRhs[r] * y[r];
      base += term;
      magnitude += Math.abs(term);
    }
    let longest = 0;
    for (let i = 0; i < numCols; i++) {
      let aty = 0;
      let atyMagnitude = 0;
      for (let k = colStart[i]; k < colStart[i + 1]; k++) {
        const product = colCoef[k] * y[colRow[k]];
        aty += product;
        atyMagnitude += Math.abs(product);
      }
      longest = Math.max(longest, colStart[i + 1] - colStart[i]);
      this.aty[i] = aty;
      const term = this.weigh(i, -aty);
      base += term;
      // Each column's term, and its replacement for the column being bounded, within this magnitude.
      magnitude += Math.abs(term) + (atyMagnitude + 1) * Math.max(Math.abs(upper[i]), Math.abs(lower[i]));
    }
    this.base = base;
    // Each term passes through at most (entries + 3) roundings and the sum through numRows + numCols
    // more: the classic n * eps * sum|terms| bound, with n counted generously.
    const operations = numRows + numCols * (longest + 4);
    this.error = 2 * operations * Number.EPSILON * magnitude + 1e-9;
  }

  /** Proven integer lower bound on x_column (ceil of the weak-duality bound). */
  forColumn(column: number): number {
    const aty = this.aty[column];
    const bound = this.base - this.weigh(column, -aty) + this.weigh(column, 1 - aty);
    return Math.ceil(bound - this.error);
  }

  /** Proven integer upper bound on x_column (the same bound for the objective -x_column, floored). */
  upperForColumn(column: number): number {
    const aty = this.aty[column];
    const bound = this.base - this.weigh(column, -aty) + this.weigh(column, -1 - aty);
    return Math.floor(-bound + this.error);
  }

  /** The least value of reduced * x_i over lo_i <= x_i <= hi_i. */
  private weigh(i: number, reduced: number): number {
    return reduced > 0 ? reduced * this.lower[i] : reduced * this.upper[i];
  }
}

/** ceil of the weak-duality bound on x_column from row duals y (see DualBounds). */
export function provenLowerBound(system: Formulation | SparseColumns, column: number, y: Float64Array, lower: Int32Array, upper: Int32Array): number {
  return new DualBounds(system, y, lower, upper).forColumn(column);
}
