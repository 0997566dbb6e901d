/**
 * The only module that touches HiGHS (the `highs` package: HiGHS compiled to WebAssembly).
 * The runtime is loaded once per process and reused. Models are passed as sparse arrays through
 * the persistent-model API, never as LP text: no parsing, and a model built once can be solved
 * again after changing only its objective or bounds (warm-started from the previous basis).
 */
import loadHighsRuntime, { type Highs, type Model, type ModelData } from 'highs';
import type { SparseColumns } from './dual-bounds';
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

/**
 * Sets HiGHS's time limit to what is left of the budget. HiGHS compares its limit with the run
 * time accumulated since the model's clocks were last zeroed, so they are zeroed first.
 */
function limitTime(model: Model, limits: SolveLimits): void {
  model.zeroAllClocks();
  model.options.set({ time_limit: Math.max(0.001, (limits.deadline - Date.now()) / 1000) });
}

/** One integer solution of the leaf equalities (any: the objective is zero), or why there is none. */
export function solveIntegerFeasibility(highs: Highs, formulation: Formulation, bounds: Bounds, limits: SolveLimits): IntegerSolve {
  const model = highs.createModel(modelData(highs, formulation, bounds, true));
  try {
    model.options.set({ output_flag: false });
    limitTime(model, limits);
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

/**
 * The LP relaxation kept in memory for a series of "minimise x_j" solves, by column generation.
 * The forest's formulation has thousands of columns but an LP optimum uses at most one per row,
 * so HiGHS sees a restricted LP: the columns of a known feasible point (the integer solution),
 * plus those that pricing finds profitable. After each solve every column outside is priced with
 * the row duals (reduced cost -A_i'y, all coefficients being 1); the most negative are added and
 * the LP is solved again, until none is negative: the restricted optimum is then the full LP's.
 * Added columns stay for the next solves. (Whatever duals come out, certify.ts recomputes a bound
 * valid over all columns, so stopping early never makes a certificate unsound.)
 */
export class ColumnMinimizer {
  private readonly model: Model;
  /** Formulation column of each restricted column, and the reverse (-1 when outside). */
  private readonly columns: number[] = [];
  private readonly position: Int32Array;
  /** The columns whose sum the objective currently is. */
  private objective: readonly number[] = [];

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

  /**
   * Minimises the sum of `objective`'s columns: one column for a bound, several to find a point
   * where many sit at their lower bounds. `simplex` returns a vertex (many columns at a bound,
   * good witnesses); `interior-point` returns the duals faster (see INTERIOR_POINT).
   */
  minimize(objective: readonly number[], method: 'simplex' | 'interior-point', limits: SolveLimits): ColumnMinimum {
    this.addColumns(objective);
    for (const j of this.objective) this.model.changeColCost(this.position[j], 0);
    for (const j of objective) this.model.changeColCost(this.position[j], 1);
    this.objective = objective;
    const status = this.highs.constants.modelStatus;
    const run = (options: typeof SIMPLEX | typeof INTERIOR_POINT) => {
      this.model.options.set(options);
      limitTime(this.model, limits);
      return this.model.run().modelStatus;
    };
    for (;;) {
      let modelStatus = run(method === 'simplex' ? SIMPLEX : INTERIOR_POINT);
      // The interior-point method can stall on a degenerate LP; the simplex method does not.
      if (method === 'interior-point' && modelStatus !== status.optimal && modelStatus !== status.timeLimit && modelStatus !== status.interrupted) {
        modelStatus = run(SIMPLEX);
      }
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

  /**
   * Outside columns with a negative reduced cost, most negative first. They all have lower bound
   * 0 and objective 0: objective columns and columns with a positive lower bound are inside.
   */
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

/** A mixed-integer program in column-wise sparse form (for the bounded search's restricted model). */
export interface SparseMilp {
  numCols: number;
  numRows: number;
  cost: Float64Array;
  colLower: Float64Array;
  colUpper: Float64Array;
  rowLower: Float64Array;
  rowUpper: Float64Array;
  /** CSC matrix: the entries of column j are `indices/values[starts[j] .. starts[j + 1])`. */
  starts: Int32Array;
  indices: Int32Array;
  values: Float64Array;
  /** Per column: 1 when it must be an integer. */
  integer: Uint8Array;
}

export type MilpOutcome =
  | { status: 'optimal' | 'incumbent'; values: Float64Array; objective: number }
  | { status: 'none'; detail: string };

/** HiGHS's `primal_solution_status` for a feasible point. */
const SOLUTION_FEASIBLE = 2;

/**
 * Minimises a MILP from a known feasible start, within the time left: the optimum, or the best
 * point found when time runs out (`incumbent`), or `none` when there is no point to return.
 * Besides HiGHS's own time limit (which it can overshoot by many seconds on hard models: measured
 * 20 s past a 10 s limit), its solver checkpoints interrupt the solve once the deadline passes or
 * `shouldStop` says so (cancellation).
 */
export function solveMilpFromStart(highs: Highs, milp: SparseMilp, start: Float64Array | undefined, limits: SolveLimits & { shouldStop?: () => boolean }): MilpOutcome {
  const { numCols, numRows } = milp;
  const variableType = highs.constants.variableType;
  const model = highs.createModel({
    numCols,
    numRows,
    colCost: milp.cost,
    colLower: milp.colLower,
    colUpper: milp.colUpper,
    rowLower: milp.rowLower,
    rowUpper: milp.rowUpper,
    matrix: { numRows, numCols, format: 'csc', starts: milp.starts, indices: milp.indices, values: milp.values },
    integrality: Int32Array.from(milp.integer, (v) => (v ? variableType.integer : variableType.continuous)),
  });
  try {
    model.options.set({ output_flag: false });
    if (start) model.setSolution({ colValue: start });
    limitTime(model, limits);
    const interrupt = (event: { interrupt(): void }): undefined => {
      if (Date.now() > limits.deadline || limits.shouldStop?.() === true) event.interrupt();
      return undefined;
    };
    const callbacks = highs.constants.callbackType;
    const { modelStatus } = model.run({ [callbacks.mipInterrupt]: interrupt, [callbacks.simplexInterrupt]: interrupt, [callbacks.ipmInterrupt]: interrupt });
    const status = highs.constants.modelStatus;
    const feasible = Number(model.info.get('primal_solution_status')) === SOLUTION_FEASIBLE;
    if (!feasible) return { status: 'none', detail: `HiGHS found no point (model status ${modelStatus})` };
    const values = Float64Array.from(model.getSolution().colValue);
    return { status: modelStatus === status.optimal ? 'optimal' : 'incumbent', values, objective: model.getObjectiveValue() };
  } finally {
    model.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// General sparse systems (the bootstrap formulations, bootstrap/): any positive coefficients,
// rows that are equalities or ranges, an objective, and integrality per column.

export interface SparseProblem extends SparseColumns {
  /** Row activity bounds; equalities `rowRhs` when omitted. */
  rowLower?: ArrayLike<number>;
  rowUpper?: ArrayLike<number>;
  /** Objective to minimise; zero (any feasible point) when omitted. */
  cost?: ArrayLike<number>;
  /** 1 for integer columns; every column is integer when omitted. */
  integer?: Uint8Array;
}

export type SparseSolve =
  /** `proven`: optimal (or, with no objective, feasible); otherwise the best point found when time ran out. */
  | { status: 'solved'; values: Float64Array; proven: boolean; objective: number }
  | { status: 'infeasible' }
  | { status: 'timeout' }
  | { status: 'error'; detail: string };

function sparseModelData(highs: Highs, problem: SparseProblem, lower: ArrayLike<number>, upper: ArrayLike<number>, integer: boolean): ModelData {
  const { numCols, numRows, colStart, colRow, colCoef, rowRhs } = problem;
  const variableType = highs.constants.variableType;
  return {
    numCols,
    numRows,
    colCost: problem.cost ? Float64Array.from(problem.cost) : new Float64Array(numCols),
    colLower: Float64Array.from(lower),
    colUpper: Float64Array.from(upper),
    rowLower: Float64Array.from(problem.rowLower ?? rowRhs),
    rowUpper: Float64Array.from(problem.rowUpper ?? rowRhs),
    matrix: { numRows, numCols, format: 'csc', starts: colStart, indices: colRow, values: Float64Array.from(colCoef) },
    ...(integer
      ? { integrality: Int32Array.from({ length: numCols }, (_, j) => (problem.integer && !problem.integer[j] ? variableType.continuous : variableType.integer)) }
      : {}),
  };
}

/**
 * Solves the problem as a MILP within the deadline. On the time limit the best integer point
 * found so far is returned (`proven: false`), which is what the likelihood estimate wants.
 * `start`: a known point to begin from (HiGHS repairs or rejects it).
 */
export function solveSparseMilp(
  highs: Highs,
  problem: SparseProblem,
  bounds: { lower: ArrayLike<number>; upper: ArrayLike<number> },
  limits: SolveLimits & { relativeGap?: number; start?: ArrayLike<number> },
): SparseSolve {
  const model = highs.createModel(sparseModelData(highs, problem, bounds.lower, bounds.upper, true));
  try {
    model.options.set({ output_flag: false, ...(limits.relativeGap !== undefined ? { mip_rel_gap: limits.relativeGap } : {}) });
    if (limits.start) model.setSolution({ colValue: Float64Array.from(limits.start) });
    limitTime(model, limits);
    const { modelStatus } = model.run();
    const status = highs.constants.modelStatus;
    const feasible = Number(model.info.get('primal_solution_status')) === highs.constants.solutionStatus.feasible;
    const objective = () => Number(model.info.get('objective_function_value'));
    if (modelStatus === status.optimal) return { status: 'solved', values: Float64Array.from(model.getSolution().colValue), proven: true, objective: objective() };
    if (modelStatus === status.infeasible) return { status: 'infeasible' };
    if (modelStatus === status.timeLimit || modelStatus === status.interrupted) {
      return feasible ? { status: 'solved', values: Float64Array.from(model.getSolution().colValue), proven: false, objective: objective() } : { status: 'timeout' };
    }
    return { status: 'error', detail: `HiGHS ended the integer solve with model status ${modelStatus}` };
  } finally {
    model.dispose();
  }
}

export type SparseMinimum = { status: 'optimal'; rowDual: Float64Array; colValue: Float64Array; objective: number } | { status: 'timeout' } | { status: 'error'; detail: string };

/**
 * The LP relaxation of a sparse system kept in memory for a series of solves that change only
 * the objective or column bounds, by column generation as in ColumnMinimizer: HiGHS sees the
 * columns of a known feasible point (and those fixed above 0), plus those that pricing with the
 * row duals finds profitable, until none is. The bootstrap formulations have tens of thousands of
 * candidate columns but an LP optimum uses few; the whole LP took 20 s in WebAssembly on the
 * 15-tree Default Credit fixture where the restricted one takes well under a second.
 */
export class SparseMinimizer {
  private readonly model: Model;
  private readonly columns: number[] = [];
  private readonly position: Int32Array;
  private objective: readonly number[] = [];
  private readonly lower: Float64Array;
  private readonly upper: Float64Array;

  constructor(
    private readonly highs: Highs,
    private readonly problem: SparseColumns,
    bounds: { lower: ArrayLike<number>; upper: ArrayLike<number> },
    /** Columns within which the LP is feasible (a known solution's support); all when omitted. */
    start?: readonly number[],
  ) {
    this.lower = Float64Array.from(bounds.lower);
    this.upper = Float64Array.from(bounds.upper);
    this.position = new Int32Array(problem.numCols).fill(-1);
    this.model = highs.createModel();
    this.model.options.set({ output_flag: false, ...SIMPLEX });
    const { numRows, rowRhs } = problem;
    const rhs = Float64Array.from(rowRhs);
    this.model.addRows({ lower: rhs, upper: rhs, matrix: { format: 'csr', numRows, numCols: 0, starts: new Int32Array(numRows + 1), indices: new Int32Array(0), values: new Float64Array(0) } });
    const initial = start ? [...start] : Array.from({ length: problem.numCols }, (_, j) => j);
    for (let j = 0; j < problem.numCols; j++) if (this.lower[j] > 0) initial.push(j);
    this.addColumns(initial);
  }

  /** Minimises the sum of the `objective` columns (one column: its LP minimum). */
  minimize(objective: readonly number[], limits: SolveLimits): SparseMinimum {
    this.addColumns(objective);
    for (const j of this.objective) this.model.changeColCost(this.position[j], 0);
    for (const j of objective) this.model.changeColCost(this.position[j], 1);
    this.objective = objective;
    const status = this.highs.constants.modelStatus;
    for (;;) {
      limitTime(this.model, limits);
      const { modelStatus } = this.model.run();
      if (modelStatus === status.timeLimit || modelStatus === status.interrupted) return { status: 'timeout' };
      if (modelStatus !== status.optimal) return { status: 'error', detail: `HiGHS ended a bounding LP with model status ${modelStatus}` };
      const solution = this.model.getSolution();
      const priced = this.profitableColumns(solution.rowDual);
      if (priced.length === 0) {
        const colValue = new Float64Array(this.problem.numCols);
        this.columns.forEach((j, k) => (colValue[j] = solution.colValue[k]));
        return { status: 'optimal', rowDual: Float64Array.from(solution.rowDual), colValue, objective: Number(this.model.info.get('objective_function_value')) };
      }
      if (Date.now() > limits.deadline) return { status: 'timeout' };
      this.addColumns(priced);
    }
  }

  /** Tightens a column's bounds (bounds already proven for every integer solution). */
  restrict(column: number, lower: number, upper: number): void {
    this.lower[column] = lower;
    this.upper[column] = upper;
    if (this.position[column] < 0 && lower > 0) this.addColumns([column]);
    else if (this.position[column] >= 0) this.model.changeColBounds(this.position[column], lower, upper);
  }

  dispose(): void {
    this.model.dispose();
  }

  /** Outside columns (all at lower bound 0, cost 0) with a negative reduced cost -A_j'y, most negative first. */
  private profitableColumns(rowDual: Float64Array): number[] {
    const { numCols, colStart, colRow, colCoef } = this.problem;
    const found: { column: number; reduced: number }[] = [];
    for (let j = 0; j < numCols; j++) {
      if (this.position[j] >= 0 || this.upper[j] === 0) continue;
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
    const { colStart, colRow, colCoef, numRows } = this.problem;
    const starts = new Int32Array(fresh.length + 1);
    const indices: number[] = [];
    const values: number[] = [];
    fresh.forEach((j, k) => {
      for (let e = colStart[j]; e < colStart[j + 1]; e++) {
        indices.push(colRow[e]);
        values.push(colCoef[e]);
      }
      starts[k + 1] = indices.length;
      this.position[j] = this.columns.length + k;
    });
    this.model.addCols({
      cost: new Float64Array(fresh.length),
      lower: Float64Array.from(fresh, (j) => this.lower[j]),
      upper: Float64Array.from(fresh, (j) => this.upper[j]),
      matrix: { format: 'csc', numRows, numCols: fresh.length, starts, indices: Int32Array.from(indices), values: Float64Array.from(values) },
    });
    this.columns.push(...fresh);
  }
}

/** Columns to append to a GrowingModel, in compressed sparse column form over its rows. */
export interface ColumnBlock {
  cost: Float64Array;
  lower: Float64Array;
  upper: Float64Array;
  /** Column k's entries are `indices/values[starts[k] .. starts[k + 1])` (row indices without duplicates). */
  starts: Int32Array;
  indices: Int32Array;
  values: Float64Array;
}

export type RelaxationSolve =
  | { status: 'optimal'; colValue: Float64Array; rowDual: Float64Array }
  | { status: 'infeasible' }
  | { status: 'timeout' }
  | { status: 'error'; detail: string };

export type MixedIntegerSolve = {
  /** `optimal`: proven within HiGHS's gap; `stopped`: time limit or interrupt (best incumbent, if any). */
  status: 'optimal' | 'stopped' | 'infeasible' | 'error';
  detail?: string;
  colValue?: Float64Array;
  objective?: number;
  /** Relative gap between the incumbent and the proven bound, when HiGHS reports one. */
  gap?: number;
};

/**
 * A model kept in memory whose rows are fixed and whose columns grow (column generation): solve
 * the LP relaxation, read the row duals, append the columns they price in, solve again; finally
 * solve it as a MILP over the columns it then has, from a known starting point, reporting every
 * improving incumbent as HiGHS finds it (used by the differentially private reconstruction).
 */
export class GrowingModel {
  private readonly model: Model;
  private columns = 0;

  constructor(
    private readonly highs: Highs,
    private readonly rowLower: Float64Array,
    rowUpper: Float64Array,
  ) {
    this.model = highs.createModel();
    this.model.options.set({ output_flag: false });
    const numRows = rowLower.length;
    this.model.addRows({ lower: rowLower, upper: rowUpper, matrix: { format: 'csr', numRows, numCols: 0, starts: new Int32Array(numRows + 1), indices: new Int32Array(0), values: new Float64Array(0) } });
  }

  get numCols(): number {
    return this.columns;
  }

  /** Appends columns; returns the index of the first. */
  addColumns(block: ColumnBlock): number {
    const first = this.columns;
    const count = block.cost.length;
    if (count === 0) return first;
    this.model.addCols({
      cost: block.cost,
      lower: block.lower,
      upper: block.upper,
      matrix: { format: 'csc', numRows: this.rowLower.length, numCols: count, starts: block.starts, indices: block.indices, values: block.values },
    });
    this.columns += count;
    return first;
  }

  /** The LP relaxation (integrality ignored) with its row duals, for pricing. */
  solveRelaxation(limits: SolveLimits): RelaxationSolve {
    const status = this.highs.constants.modelStatus;
    this.model.clearIntegrality();
    this.model.options.set({ solver: 'simplex' });
    limitTime(this.model, limits);
    const { modelStatus } = this.model.run();
    if (modelStatus === status.optimal) {
      const solution = this.model.getSolution();
      return { status: 'optimal', colValue: solution.colValue, rowDual: solution.rowDual };
    }
    if (modelStatus === status.infeasible) return { status: 'infeasible' };
    if (modelStatus === status.timeLimit || modelStatus === status.interrupted) return { status: 'timeout' };
    return { status: 'error', detail: `HiGHS ended the relaxation with model status ${modelStatus}` };
  }

  /**
   * The MILP with `integer` columns integral, started from `start` (a full column vector HiGHS
   * checks and keeps as incumbent when feasible). `onImproving` sees every new incumbent;
   * `shouldStop` is asked at HiGHS's MIP checkpoints.
   */
  solveInteger(
    integer: Int32Array,
    limits: SolveLimits,
    options: { start?: Float64Array; onImproving?: (colValue: Float64Array, objective: number) => void; shouldStop?: () => boolean } = {},
  ): MixedIntegerSolve {
    const { constants } = this.highs;
    const status = constants.modelStatus;
    this.model.clearIntegrality();
    if (integer.length > 0) {
      this.model.changeColsIntegrality({ kind: 'set', indices: integer }, new Int32Array(integer.length).fill(constants.variableType.integer));
    }
    this.model.options.set({ solver: 'choose' });
    if (options.start) this.model.setSolution({ colValue: options.start });
    limitTime(this.model, limits);
    const { modelStatus } = this.model.run({
      [constants.callbackType.mipImprovingSolution]: (event) => {
        const values = event.data.mip_solution;
        if (values && options.onImproving) options.onImproving(values, event.data.objective_function_value ?? Number.NaN);
        return undefined;
      },
      [constants.callbackType.mipInterrupt]: (event) => {
        if (options.shouldStop?.()) event.interrupt();
        return undefined;
      },
    });
    if (modelStatus === status.infeasible) return { status: 'infeasible' };
    const stopped = modelStatus === status.timeLimit || modelStatus === status.interrupted;
    if (modelStatus !== status.optimal && !stopped) return { status: 'error', detail: `HiGHS ended the integer solve with model status ${modelStatus}` };
    const feasible = Number(this.model.info.get('primal_solution_status')) === 2;
    const gap = Number(this.model.info.get('mip_gap'));
    return {
      status: stopped ? 'stopped' : 'optimal',
      ...(feasible ? { colValue: this.model.getSolution().colValue, objective: this.model.getObjectiveValue() } : {}),
      ...(Number.isFinite(gap) ? { gap } : {}),
    };
  }

  dispose(): void {
    this.model.dispose();
  }
}
