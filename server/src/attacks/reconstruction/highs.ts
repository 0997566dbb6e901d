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
  | { status: 'optimal'; objective: number; rowDual: Float64Array; colValue: Float64Array }
  | { status: 'timeout' }
  | { status: 'error'; detail: string };

/**
 * The LP relaxation kept in memory for a series of "minimise x_j" solves. Only the objective and
 * the column bounds change between solves, so each solve starts from the previous optimal basis.
 */
export class ColumnMinimizer {
  private readonly model: Model;
  private current = -1;

  constructor(
    private readonly highs: Highs,
    formulation: Formulation,
    bounds: Bounds,
  ) {
    this.model = highs.createModel(modelData(highs, formulation, bounds, false));
    this.model.options.set({ output_flag: false });
  }

  minimize(column: number, limits: SolveLimits): ColumnMinimum {
    if (this.current >= 0) this.model.changeColCost(this.current, 0);
    this.model.changeColCost(column, 1);
    this.current = column;
    this.model.options.set({ time_limit: secondsLeft(limits) });
    const { modelStatus } = this.model.run();
    const status = this.highs.constants.modelStatus;
    if (modelStatus === status.optimal) {
      const solution = this.model.getSolution();
      return { status: 'optimal', objective: this.model.getObjectiveValue(), rowDual: solution.rowDual, colValue: solution.colValue };
    }
    if (modelStatus === status.timeLimit || modelStatus === status.interrupted) return { status: 'timeout' };
    return { status: 'error', detail: `HiGHS ended a bounding LP with model status ${modelStatus}` };
  }

  /** Raises a column's lower bound (a bound already proven for every integer solution). */
  raiseLower(column: number, lower: number, upper: number): void {
    this.model.changeColBounds(column, lower, upper);
  }

  dispose(): void {
    this.model.dispose();
  }
}
