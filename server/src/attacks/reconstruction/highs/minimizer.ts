/**
 * The LP relaxation of a sparse system kept in memory for a series of "minimise these columns"
 * solves that change only the objective and column bounds (the certificates: certify.ts for the
 * aggregated formulation, bootstrap/row-certificate.ts for the replayed bootstrap). Rebuilding
 * the model for each of tens of LPs would repeat the setup and lose the warm start.
 *
 * Column generation: the systems have thousands to tens of thousands of columns but an LP optimum
 * uses at most one per row, so HiGHS sees a restricted LP: the columns of a known feasible point
 * (the integer solution's support) and those with a positive lower bound, plus those that pricing
 * finds profitable. After each solve every column outside is priced with the row duals (reduced
 * cost -A_j'y); the most negative are added and the LP solved again, until none is negative: the
 * restricted optimum is then the full LP's. Added columns stay for the next solves. The whole LP
 * took 20 s in WebAssembly on the 15-tree Default Credit bootstrap fixture where the restricted
 * one takes well under a second. (Whatever duals come out, dual-bounds.ts recomputes a bound valid
 * over all columns, so stopping early never makes a certificate unsound.)
 */
import type { Highs, Model } from 'highs';
import type { SparseColumns } from '../dual-bounds';
import { modelWithRows } from './problem';
import { readLp, runWithin, type LpSolve, type Run, type SolveLimits } from './run';

/**
 * Single-column bounding LPs are solved by the interior-point method without crossover: only the
 * row duals are used, an approximate optimum loses nothing once rounded up (and cannot make a
 * bound unsound, see dual-bounds.ts), and on these degenerate LPs it beat the warm-started simplex
 * method (certificates of the 20-tree Default Credit and Adult fixtures without groups:
 * 3.5-3.8 s vs 4.8-5.3 s, and 1.8-2.0 s vs 3.9-4.5 s).
 */
const INTERIOR_POINT = { solver: 'ipm', run_crossover: 'off' } as const;
const SIMPLEX = { solver: 'simplex' } as const;

/** Columns priced into the restricted LP per round: enough to converge in a few rounds, few enough to stay small. */
const COLUMNS_PER_ROUND = 200;
/** A reduced cost below this (negative) means the column could lower the objective. */
const PRICING_TOLERANCE = 1e-9;

/** Int32Array, Float64Array or number[]: bounds the minimizer reads and writes. */
type NumberArray = { [j: number]: number; readonly length: number };

/** What `minimize` returns: an LpSolve whose `colValue` is over all the system's columns (0 outside the restricted LP). */
export type LpMinimum = LpSolve;

export class ColumnMinimizer {
  private readonly model: Model;
  /** System column of each restricted column, and the reverse (-1 when outside). */
  private readonly columns: number[] = [];
  private readonly position: Int32Array;
  /** The columns whose sum the objective currently is. */
  private objective: readonly number[] = [];

  constructor(
    private readonly highs: Highs,
    private readonly system: SparseColumns,
    /** The caller's proven bounds, held (not copied): `restrict` writes to them. */
    private readonly bounds: { lower: NumberArray; upper: NumberArray },
    /** Columns within which the LP is feasible (a known solution's support); all columns when omitted. */
    start?: readonly number[],
  ) {
    this.position = new Int32Array(system.numCols).fill(-1);
    const rhs = Float64Array.from(system.rowRhs);
    this.model = modelWithRows(highs, rhs, rhs);
    const initial = start ? [...start] : Array.from({ length: system.numCols }, (_, j) => j);
    for (let j = 0; j < system.numCols; j++) if (bounds.lower[j] > 0) initial.push(j);
    this.addColumns(initial);
  }

  /** Restricted LP size (for statistics). */
  get restrictedColumns(): number {
    return this.columns.length;
  }

  /**
   * Minimises the sum of `objective`'s columns: one column for a bound, several to find a point
   * where many sit at their lower bounds. `simplex` returns a vertex (many columns at a bound,
   * good witnesses); `interior-point` returns the duals faster (see INTERIOR_POINT).
   */
  minimize(objective: readonly number[], method: 'simplex' | 'interior-point', limits: SolveLimits): LpMinimum {
    this.addColumns(objective);
    for (const j of this.objective) this.model.changeColCost(this.position[j], 0);
    for (const j of objective) this.model.changeColCost(this.position[j], 1);
    this.objective = objective;
    const run = (options: typeof SIMPLEX | typeof INTERIOR_POINT): Run => {
      this.model.options.set(options);
      return runWithin(this.highs, this.model, limits);
    };
    for (;;) {
      let ended = run(method === 'simplex' ? SIMPLEX : INTERIOR_POINT);
      // The interior-point method can stall on a degenerate LP; the simplex method does not.
      if (method === 'interior-point' && ended.ending !== 'optimal' && ended.ending !== 'stopped') ended = run(SIMPLEX);
      const lp = readLp(this.model, ended, 'a bounding LP');
      if (lp.status !== 'optimal') return lp;
      const priced = this.profitableColumns(lp.rowDual);
      if (priced.length === 0) {
        const colValue = new Float64Array(this.system.numCols);
        this.columns.forEach((j, k) => (colValue[j] = lp.colValue[k]));
        return { ...lp, colValue };
      }
      if (Date.now() > limits.deadline) return { status: 'stopped' };
      this.addColumns(priced);
    }
  }

  /** Tightens a column's bounds to ones already proven for every integer solution (the LP stays a relaxation). */
  restrict(column: number, lower: number, upper: number): void {
    this.bounds.lower[column] = lower;
    this.bounds.upper[column] = upper;
    if (this.position[column] >= 0) this.model.changeColBounds(this.position[column], lower, upper);
    else if (lower > 0) this.addColumns([column]);
  }

  dispose(): void {
    this.model.dispose();
  }

  /**
   * Outside columns with a negative reduced cost -A_j'y, most negative first. They all have lower
   * bound 0 and objective 0: objective columns and columns with a positive lower bound are inside.
   */
  private profitableColumns(rowDual: Float64Array): number[] {
    const { numCols, colStart, colRow, colCoef } = this.system;
    const found: { column: number; reduced: number }[] = [];
    for (let j = 0; j < numCols; j++) {
      if (this.position[j] >= 0 || this.bounds.upper[j] === 0) continue;
      let aty = 0;
      for (let k = colStart[j]; k < colStart[j + 1]; k++) aty += colCoef[k] * rowDual[colRow[k]];
      if (-aty < -PRICING_TOLERANCE) found.push({ column: j, reduced: -aty });
    }
    found.sort((a, b) => a.reduced - b.reduced);
    return found.slice(0, COLUMNS_PER_ROUND).map((f) => f.column);
  }

  private addColumns(columns: readonly number[]): void {
    const fresh = [...new Set(columns)].filter((j) => this.position[j] < 0);
    if (fresh.length === 0) return;
    const { colStart, colRow, colCoef, numRows } = this.system;
    const starts = new Int32Array(fresh.length + 1);
    const indices: number[] = [];
    const values: number[] = [];
    fresh.forEach((j, k) => {
      // HiGHS wants each column's row indices without duplicates (the systems store none).
      for (let e = colStart[j]; e < colStart[j + 1]; e++) {
        indices.push(colRow[e]);
        values.push(colCoef[e]);
      }
      starts[k + 1] = indices.length;
      this.position[j] = this.columns.length + k;
    });
    this.model.addCols({
      cost: new Float64Array(fresh.length),
      lower: Float64Array.from(fresh, (j) => this.bounds.lower[j]),
      upper: Float64Array.from(fresh, (j) => this.bounds.upper[j]),
      matrix: { format: 'csc', numRows, numCols: fresh.length, starts, indices: Int32Array.from(indices), values: Float64Array.from(values) },
    });
    this.columns.push(...fresh);
  }
}
