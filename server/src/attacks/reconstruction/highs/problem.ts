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
    colCost: problem.cost ? float64(problem.cost) : new Float64Array(numCols),
    colLower: float64(bounds.lower),
    colUpper: float64(bounds.upper),
    rowLower: float64(problem.rowLower ?? rowRhs),
    rowUpper: float64(problem.rowUpper ?? rowRhs),
    matrix: { numRows, numCols, format: 'csc', starts: colStart, indices: colRow, values: float64(colCoef) },
    integrality: Int32Array.from({ length: numCols }, (_, j) => (problem.integer && !problem.integer[j] ? variableType.continuous : variableType.integer)),
  };
}

/**
 * The values as a Float64Array: the array itself when it is one (HiGHS copies what it is given,
 * so a second copy here only added to the peak: millions of entries on large formulations).
 */
function float64(values: ArrayLike<number>): Float64Array {
  return values instanceof Float64Array ? values : Float64Array.from(values);
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
