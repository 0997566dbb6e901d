/**
 * Mixed-integer solves: one-shot (`solveMilp`, a model built, run and disposed) and the result
 * both it and GrowingModel.solveInteger return.
 */
import type { Highs, HighsCallbackMap, Model } from 'highs';
import { modelData, type ColumnBounds, type SparseProblem } from './problem';
import { endedWith, runWithin, type Run, type SolveLimits } from './run';

interface Point {
  colValue: Float64Array;
  objective: number;
}
interface NoPoint {
  colValue?: undefined;
  objective?: undefined;
}

/**
 * A MILP's end (run.ts's Ending) with the best point HiGHS holds: always when `optimal`; when
 * `stopped` (or `error`) only if HiGHS had found a feasible point by then.
 */
export type MilpSolve = { gap?: number } & (
  | ({ status: 'optimal' } & Point)
  | ({ status: 'stopped' } & (Point | NoPoint))
  | ({ status: 'infeasible' } & NoPoint)
  | ({ status: 'error'; detail: string } & (Point | NoPoint))
);

export interface MilpOptions extends SolveLimits {
  /** A known point to begin from (HiGHS repairs or rejects it). */
  start?: ArrayLike<number>;
  /** HiGHS's mip_rel_gap: optimal within this relative gap. */
  relativeGap?: number;
  /**
   * Cancellation. When given, the solver's checkpoints (MIP, simplex and interior point) also
   * interrupt the solve once the deadline passes: HiGHS's own time limit can be overshot by
   * many seconds on hard models (measured 20 s past a 10 s limit).
   */
  shouldStop?: () => boolean;
}

/** Minimises `problem` as a MILP within the deadline: the optimum, or the best point found by then. */
export function solveMilp(highs: Highs, problem: SparseProblem, bounds: ColumnBounds, options: MilpOptions): MilpSolve {
  const model = highs.createModel(modelData(highs, problem, bounds));
  try {
    model.options.set({ output_flag: false, ...(options.relativeGap !== undefined ? { mip_rel_gap: options.relativeGap } : {}) });
    if (options.start) model.setSolution({ colValue: Float64Array.from(options.start) });
    return readMilp(highs, model, runWithin(highs, model, options, options.shouldStop ? checkpoints(highs, options.deadline, options.shouldStop) : undefined));
  } finally {
    model.dispose();
  }
}

function checkpoints(highs: Highs, deadline: number, shouldStop: () => boolean): HighsCallbackMap {
  const interrupt = (event: { interrupt(): void }): undefined => {
    if (Date.now() > deadline || shouldStop()) event.interrupt();
    return undefined;
  };
  const callbacks = highs.constants.callbackType;
  return { [callbacks.mipInterrupt]: interrupt, [callbacks.simplexInterrupt]: interrupt, [callbacks.ipmInterrupt]: interrupt };
}

/** The result of a MILP run of `model`: how it ended, and its best point when it has one. */
export function readMilp(highs: Highs, model: Model, run: Run): MilpSolve {
  if (run.ending === 'infeasible') return { status: 'infeasible' };
  const gap = Number(model.info.get('mip_gap'));
  const known = Number.isFinite(gap) ? { gap } : {};
  const point = (): Point => ({ colValue: Float64Array.from(model.getSolution().colValue), objective: model.getObjectiveValue() });
  if (run.ending === 'optimal') return { status: 'optimal', ...point(), ...known };
  const found = Number(model.info.get('primal_solution_status')) === highs.constants.solutionStatus.feasible ? point() : {};
  if (run.ending === 'stopped') return { status: 'stopped', ...found, ...known };
  return { status: 'error', detail: endedWith('the integer solve', run), ...found, ...known };
}
