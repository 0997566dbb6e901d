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
  /** Each new incumbent HiGHS reports (with `shouldStop`); milp-thread.ts keeps the last one for a solve it has to cut off. */
  onIncumbent?: (colValue: Float64Array) => void;
}

/** Minimises `problem` as a MILP within the deadline: the optimum, or the best point found by then. */
export function solveMilp(highs: Highs, problem: SparseProblem, bounds: ColumnBounds, options: MilpOptions): MilpSolve {
  return runMilpModel(highs, createMilpModel(highs, problem, bounds, options), options);
}

/**
 * The HiGHS model of a MILP, its options set: HiGHS holds its own copy of the problem from here
 * on, so a caller that drops the problem's arrays before `runMilpModel` frees them (milp-worker.ts).
 */
export function createMilpModel(highs: Highs, problem: SparseProblem, bounds: ColumnBounds, options: Pick<MilpOptions, 'relativeGap' | 'start'>): Model {
  const model = highs.createModel(modelData(highs, problem, bounds));
  try {
    model.options.set({
      output_flag: false,
      ...(options.relativeGap !== undefined ? { mip_rel_gap: options.relativeGap } : {}),
      ...(largestUpper(bounds) > SPARSIFY_UPPER_LIMIT ? { presolve_rule_off: SPARSIFY_RULE } : {}),
    });
    if (options.start) model.setSolution({ colValue: Float64Array.from(options.start) });
    return model;
  } catch (error) {
    model.dispose();
    throw error;
  }
}

/** Runs a model createMilpModel built, within the deadline, and disposes of it. */
export function runMilpModel(highs: Highs, model: Model, options: MilpOptions): MilpSolve {
  try {
    return readMilp(highs, model, runWithin(highs, model, options, options.shouldStop ? checkpoints(highs, options.deadline, options.shouldStop, options.onIncumbent) : undefined));
  } finally {
    model.dispose();
  }
}

/**
 * HiGHS's presolve rule "sparsify" (bit 14 of `presolve_rule_off` in the HiGHS that highs 1.15
 * bundles), which no time limit or callback interrupts. On counts of thousands of rows per cell
 * it ran away: a GradientBoostingClassifier of 10 stumps of depth 2 on 20,000 rows (1,112 cells,
 * 40 leaf rows, cells up to 7,195 rows) spent 12-15 s in presolve past a 3 s budget (soundness
 * sweep 15); without the rule the solve took 1 s, and on 2,000 rows (cells up to 777) 0.2 s
 * either way. Elsewhere the rule pays (the reconstruction fixtures, cells up to 22 rows: the
 * integer solve 1.5-2x slower without it; 20,000 Adult rows in trees of depth 3, cells up to
 * 4,211: 0.37 -> 0.46 s), so it is switched off past this many rows in a cell only. The bit is
 * HiGHS's enum order, not a name: engine-budget.test.ts ("HiGHS's presolve on cells of thousands
 * of rows") fails if an update of highs moves it.
 */
const SPARSIFY_RULE = 1 << 14;
const SPARSIFY_UPPER_LIMIT = 1_000;

function largestUpper(bounds: ColumnBounds): number {
  let most = 0;
  for (let j = 0; j < bounds.upper.length; j++) if (bounds.upper[j] > most && Number.isFinite(bounds.upper[j]) && bounds.upper[j] < 1e20) most = bounds.upper[j];
  return most;
}

function checkpoints(highs: Highs, deadline: number, shouldStop: () => boolean, onIncumbent?: (colValue: Float64Array) => void): HighsCallbackMap {
  const interrupt = (event: { interrupt(): void }): undefined => {
    if (Date.now() > deadline || shouldStop()) event.interrupt();
    return undefined;
  };
  const callbacks = highs.constants.callbackType;
  const stops: HighsCallbackMap = { [callbacks.mipInterrupt]: interrupt, [callbacks.simplexInterrupt]: interrupt, [callbacks.ipmInterrupt]: interrupt };
  if (!onIncumbent) return stops;
  return {
    ...stops,
    [callbacks.mipImprovingSolution]: (event): undefined => {
      const point = event.data.mip_solution;
      if (point) onIncumbent(Float64Array.from(point));
      return undefined;
    },
  };
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
