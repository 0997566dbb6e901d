/**
 * The only module that touches HiGHS (the `highs` package: HiGHS compiled to WebAssembly).
 * The runtime is loaded once per process and reused. Models are passed as sparse arrays through
 * the persistent-model API, never as LP text: no parsing, and a model built once can be solved
 * again after changing only its objective or bounds (warm-started from the previous basis).
 */
import loadHighsRuntime, { type Highs, type Model, type ModelData } from 'highs';
import type { Formulation } from './formulation';
import type { Bounds } from './propagation';

let runtime: Promise<Highs> | undefined;

export function loadHighs(): Promise<Highs> {
  runtime ??= loadHighsRuntime().catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

/**
 * Forgets the loaded runtime after a fault inside WebAssembly (an abort leaves the module
 * unusable); the next `loadHighs()` instantiates a fresh one.
 */
export function discardHighs(): void {
  runtime = undefined;
}

export interface SolveLimits {
  /** Date.now() value after which the solver must stop. */
  deadline: number;
}

export type IntegerSolve =
  | { status: 'solved'; values: Int32Array }
  | { status: 'infeasible' }
  | { status: 'timeout' }
  | { status: 'error'; detail: string };

/** The formulation's equalities with `bounds` as column bounds, objective zero. */
function modelData(highs: Highs, formulation: Formulation, bounds: Bounds, integer: boolean): ModelData {
  const { numCols, numRows, trees, colRows, rowRhs } = formulation;
  const starts = new Int32Array(numCols + 1);
  for (let j = 0; j <= numCols; j++) starts[j] = j * trees;
  return {
    numCols,
    numRows,
    colCost: new Float64Array(numCols),
    colLower: Float64Array.from(bounds.lower),
    colUpper: Float64Array.from(bounds.upper),
    rowLower: Float64Array.from(rowRhs),
    rowUpper: Float64Array.from(rowRhs),
    matrix: { numRows, numCols, format: 'csc', starts, indices: colRows, values: new Float64Array(colRows.length).fill(1) },
    ...(integer ? { integrality: new Int32Array(numCols).fill(highs.constants.variableType.integer) } : {}),
  };
}

function secondsLeft(limits: SolveLimits): number {
  return Math.max(0.001, (limits.deadline - Date.now()) / 1000);
}

/** One integer solution of the leaf equalities (any: the objective is zero), or why there is none. */
export function solveIntegerFeasibility(highs: Highs, formulation: Formulation, bounds: Bounds, limits: SolveLimits): IntegerSolve {
  const model = highs.createModel(modelData(highs, formulation, bounds, true));
  try {
    model.options.set({ output_flag: false, time_limit: secondsLeft(limits) });
    const { modelStatus } = model.run();
    const status = highs.constants.modelStatus;
    if (modelStatus === status.optimal) {
      const values = Int32Array.from(model.getSolution().colValue, (v) => Math.round(v));
      return { status: 'solved', values };
    }
    if (modelStatus === status.infeasible) return { status: 'infeasible' };
    if (modelStatus === status.timeLimit || modelStatus === status.interrupted) return { status: 'timeout' };
    return { status: 'error', detail: `HiGHS ended the integer solve with model status ${modelStatus}` };
  } finally {
    model.dispose();
  }
}

export type ColumnMinimum =
  | { status: 'optimal'; rowDual: Float64Array; colValue: Float64Array }
  | { status: 'timeout' }
  | { status: 'error'; detail: string };

/** Columns priced into the restricted LP per round: enough to converge in a few rounds, few enough to stay small. */
const COLUMNS_PER_ROUND = 200;
/** A reduced cost below this (negative) means the column could lower the objective. */
const PRICING_TOLERANCE = 1e-9;

/**
 * The LP relaxation kept in memory for a series of "minimise x_j" solves, by column generation.
 * The forest's formulation has thousands of columns but an LP optimum uses at most one per row,
 * so HiGHS sees a restricted LP: the columns of a known feasible point (the integer solution),
 * plus those that pricing finds profitable. After each solve every column outside is priced with
 * the row duals (reduced cost -A_i'y, all coefficients being 1); the most negative are added and
 * the LP is solved again, until none is negative: the restricted optimum is then the full LP's.
 * Only the objective and bounds change between solves, so each starts from the last basis, and
 * added columns stay for the next ones. (Whatever duals come out, certify.ts recomputes a bound
 * valid over all columns, so stopping early never makes a certificate unsound.)
 */
export class ColumnMinimizer {
  private readonly model: Model;
  /** Formulation column of each restricted column, and the reverse (-1 when outside). */
  private readonly columns: number[] = [];
  private readonly position: Int32Array;
  private current = -1;

  constructor(
    private readonly highs: Highs,
    private readonly formulation: Formulation,
    private readonly bounds: Bounds,
    /** A set of columns within which the LP is feasible (the support of a known solution); all columns when omitted. */
    start?: readonly number[],
  ) {
    this.position = new Int32Array(formulation.numCols).fill(-1);
    this.model = highs.createModel();
    this.model.options.set({ output_flag: false });
    const { numRows, rowRhs } = formulation;
    const rhs = Float64Array.from(rowRhs);
    this.model.addRows({ lower: rhs, upper: rhs, matrix: { format: 'csr', numRows, numCols: 0, starts: new Int32Array(numRows + 1), indices: new Int32Array(0), values: new Float64Array(0) } });
    this.addColumns(start ?? Array.from({ length: formulation.numCols }, (_, j) => j));
  }

  /** Restricted LP size (for statistics). */
  get restrictedColumns(): number {
    return this.columns.length;
  }

  minimize(column: number, limits: SolveLimits): ColumnMinimum {
    if (this.position[column] < 0) this.addColumns([column]);
    if (this.current >= 0) this.model.changeColCost(this.position[this.current], 0);
    this.model.changeColCost(this.position[column], 1);
    this.current = column;
    const status = this.highs.constants.modelStatus;
    for (;;) {
      this.model.options.set({ time_limit: secondsLeft(limits) });
      const { modelStatus } = this.model.run();
      if (modelStatus === status.timeLimit || modelStatus === status.interrupted) return { status: 'timeout' };
      if (modelStatus !== status.optimal) return { status: 'error', detail: `HiGHS ended a bounding LP with model status ${modelStatus}` };
      const solution = this.model.getSolution();
      const priced = this.profitableColumns(solution.rowDual);
      if (priced.length === 0) {
        const colValue = new Float64Array(this.formulation.numCols);
        this.columns.forEach((j, k) => (colValue[j] = solution.colValue[k]));
        return { status: 'optimal', rowDual: solution.rowDual, colValue };
      }
      if (Date.now() > limits.deadline) return { status: 'timeout' };
      this.addColumns(priced);
    }
  }

  /** Raises a column's lower bound (a bound already proven for every integer solution). */
  raiseLower(column: number, lower: number): void {
    if (this.position[column] < 0) this.addColumns([column]);
    this.model.changeColBounds(this.position[column], lower, this.bounds.upper[column]);
  }

  dispose(): void {
    this.model.dispose();
  }

  /** Outside columns with a negative reduced cost (all have lower bound 0 and objective 0), most negative first. */
  private profitableColumns(rowDual: Float64Array): number[] {
    const { numCols, trees, colRows } = this.formulation;
    const found: { column: number; reduced: number }[] = [];
    for (let j = 0; j < numCols; j++) {
      if (this.position[j] >= 0 || this.bounds.upper[j] === 0) continue;
      let aty = 0;
      for (let t = 0; t < trees; t++) aty += rowDual[colRows[j * trees + t]];
      if (-aty < -PRICING_TOLERANCE) found.push({ column: j, reduced: -aty });
    }
    found.sort((a, b) => a.reduced - b.reduced);
    return found.slice(0, COLUMNS_PER_ROUND).map((f) => f.column);
  }

  private addColumns(columns: readonly number[]): void {
    const fresh = columns.filter((j) => this.position[j] < 0);
    if (fresh.length === 0) return;
    const { trees, colRows, numRows } = this.formulation;
    const starts = new Int32Array(fresh.length + 1);
    const indices = new Int32Array(fresh.length * trees);
    fresh.forEach((j, k) => {
      starts[k + 1] = (k + 1) * trees;
      // HiGHS wants each column's row indices without duplicates; one row per tree, trees differ.
      for (let t = 0; t < trees; t++) indices[k * trees + t] = colRows[j * trees + t];
      this.position[j] = this.columns.length + k;
    });
    this.model.addCols({
      cost: new Float64Array(fresh.length),
      lower: Float64Array.from(fresh, (j) => this.bounds.lower[j]),
      upper: Float64Array.from(fresh, (j) => this.bounds.upper[j]),
      matrix: { format: 'csc', numRows, numCols: fresh.length, starts, indices, values: new Float64Array(indices.length).fill(1) },
    });
    this.columns.push(...fresh);
  }
}
