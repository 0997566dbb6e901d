/**
 * A model kept in memory whose rows are fixed and whose columns grow (column generation): solve
 * the LP relaxation, read the row duals, append the columns they price in, solve again; finally
 * solve it as a MILP over the columns it then has, from a known starting point, reporting every
 * improving incumbent as HiGHS finds it (used by the differentially private reconstruction).
 */
import type { Highs, Model } from 'highs';
import { readMilp, type MilpSolve } from './milp';
import { modelWithRows } from './problem';
import { readLp, runWithin, type LpSolve, type SolveLimits } from './run';

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

export class GrowingModel {
  private readonly model: Model;
  private readonly numRows: number;
  private columns = 0;

  constructor(
    private readonly highs: Highs,
    rowLower: Float64Array,
    rowUpper: Float64Array,
  ) {
    this.model = modelWithRows(highs, rowLower, rowUpper);
    this.numRows = rowLower.length;
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
      matrix: { format: 'csc', numRows: this.numRows, numCols: count, starts: block.starts, indices: block.indices, values: block.values },
    });
    this.columns += count;
    return first;
  }

  /** The LP relaxation (integrality ignored) with its row duals, for pricing. */
  solveRelaxation(limits: SolveLimits): LpSolve {
    this.model.clearIntegrality();
    this.model.options.set({ solver: 'simplex' });
    return readLp(this.model, runWithin(this.highs, this.model, limits), 'the relaxation');
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
  ): MilpSolve {
    const { constants } = this.highs;
    this.model.clearIntegrality();
    if (integer.length > 0) {
      this.model.changeColsIntegrality({ kind: 'set', indices: integer }, new Int32Array(integer.length).fill(constants.variableType.integer));
    }
    this.model.options.set({ solver: 'choose' });
    if (options.start) this.model.setSolution({ colValue: options.start });
    const run = runWithin(this.highs, this.model, limits, {
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
    return readMilp(this.highs, this.model, run);
  }

  dispose(): void {
    this.model.dispose();
  }
}
