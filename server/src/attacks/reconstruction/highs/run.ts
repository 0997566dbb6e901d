/**
 * Running a HiGHS model within a deadline, and what its model status means to the callers: every
 * solve in this folder ends in one of four ways, whatever HiGHS's finer status.
 */
import type { Highs, HighsCallbackMap, Model } from 'highs';

export interface SolveLimits {
  /** Date.now() value after which the solver must stop. */
  deadline: number;
}

/**
 * How a solve ended: `optimal` proven; `infeasible` proven; `stopped` by the time limit or an
 * interrupt (a MIP may still hold its best point); `error` for any other status (see `endedWith`).
 */
export type Ending = 'optimal' | 'infeasible' | 'stopped' | 'error';

export interface Run {
  ending: Ending;
  /** HiGHS's own status code, for error messages. */
  modelStatus: number;
}

export function endingOf(highs: Highs, modelStatus: number): Ending {
  const status = highs.constants.modelStatus;
  if (modelStatus === status.optimal) return 'optimal';
  if (modelStatus === status.infeasible) return 'infeasible';
  if (modelStatus === status.timeLimit || modelStatus === status.interrupted) return 'stopped';
  return 'error';
}

/** The `error` detail: `what` names the solve ("the integer solve", "a bounding LP"). */
export function endedWith(what: string, run: Run): string {
  return `HiGHS ended ${what} with model status ${run.modelStatus}`;
}

/**
 * Solves `model` with HiGHS's time limit set to what is left of the budget. HiGHS compares its
 * limit with the run time accumulated since the model's clocks were last zeroed, so they are
 * zeroed first (a persistent model is run many times).
 */
export function runWithin(highs: Highs, model: Model, limits: SolveLimits, callbacks?: HighsCallbackMap): Run {
  model.zeroAllClocks();
  model.options.set({ time_limit: Math.max(0.001, (limits.deadline - Date.now()) / 1000) });
  const { modelStatus } = model.run(callbacks);
  return { ending: endingOf(highs, modelStatus), modelStatus };
}

/** An LP's end, with its primal point and row duals when optimal. */
export type LpSolve =
  | { status: 'optimal'; colValue: Float64Array; rowDual: Float64Array; objective: number }
  | { status: 'infeasible' | 'stopped' }
  | { status: 'error'; detail: string };

/** The result of an LP run of `model`; `what` names it in the error detail. */
export function readLp(model: Model, run: Run, what: string): LpSolve {
  if (run.ending === 'optimal') {
    const { colValue, rowDual } = model.getSolution();
    return { status: 'optimal', colValue, rowDual, objective: model.getObjectiveValue() };
  }
  if (run.ending === 'error') return { status: 'error', detail: endedWith(what, run) };
  return { status: run.ending };
}
