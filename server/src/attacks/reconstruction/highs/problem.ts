/**
 * The one problem type HiGHS is given, and how it becomes a HiGHS model. Models are passed as
 * sparse arrays through the persistent-model API, never as LP text: nothing is parsed, and a model
 * built once can be solved again after changing only its objective or bounds (warm-started).
 */
import type { Highs, Model, ModelData } from 'highs';
import type { SparseColumns } from '../dual-bounds';

/**
 * A linear system over columns stored sparse (dual-bounds.ts's SparseColumns: the aggregated
 * formulation seen through `columnsOf`, the bootstrap formulations, the restricted models of the
 * bounded search and of the boosting hessians), with what a MILP adds to it.
 */
export interface SparseProblem extends SparseColumns {
  /** Row activity bounds; equalities `rowRhs` when omitted. */
  rowLower?: ArrayLike<number>;
  rowUpper?: ArrayLike<number>;
  /** Objective to minimise; zero (any feasible point) when omitted. */
  cost?: ArrayLike<number>;
  /** 1 for integer columns; every column is integer when omitted. */
  integer?: Uint8Array;
}

/** Column bounds, kept apart from the problem: they are what certificates tighten. */
export interface ColumnBounds {
  lower: ArrayLike<number>;
  upper: ArrayLike<number>;
}

/** The whole problem as a MILP for a one-shot solve. */
export function modelData(highs: Highs, problem: SparseProblem, bounds: ColumnBounds): ModelData {
  const { numCols, numRows, colStart, colRow, colCoef, rowRhs } = problem;
  const variableType = highs.constants.variableType;
  return {
    numCols,
    numRows,
    colCost: problem.cost ? Float64Array.from(problem.cost) : new Float64Array(numCols),
    colLower: Float64Array.from(bounds.lower),
    colUpper: Float64Array.from(bounds.upper),
    rowLower: Float64Array.from(problem.rowLower ?? rowRhs),
    rowUpper: Float64Array.from(problem.rowUpper ?? rowRhs),
    matrix: { numRows, numCols, format: 'csc', starts: colStart, indices: colRow, values: Float64Array.from(colCoef) },
    integrality: Int32Array.from({ length: numCols }, (_, j) => (problem.integer && !problem.integer[j] ? variableType.continuous : variableType.integer)),
  };
}

/** A persistent model with its rows and no column yet, for models whose columns are added as they are priced in. */
export function modelWithRows(highs: Highs, rowLower: Float64Array, rowUpper: Float64Array): Model {
  const model = highs.createModel();
  model.options.set({ output_flag: false });
  const numRows = rowLower.length;
  const noEntries = { format: 'csr', numRows, numCols: 0, starts: new Int32Array(numRows + 1), indices: new Int32Array(0), values: new Float64Array(0) } as const;
  model.addRows({ lower: rowLower, upper: rowUpper, matrix: noEntries });
  return model;
}
