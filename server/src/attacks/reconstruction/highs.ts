/**
 * The only code that touches HiGHS (the `highs` package: HiGHS compiled to WebAssembly), one job
 * a file, in highs/:
 *  - load.ts: the runtime, loaded once; `withHighs` turns a failed load or a solver fault into an answer;
 *  - problem.ts: the one problem type (SparseProblem, column bounds) and the HiGHS model built from it;
 *  - run.ts: a solve within a deadline, and the four ways one ends (optimal, infeasible, stopped, error);
 *  - milp.ts: one-shot MILP solves;
 *  - milp-thread.ts: a large one in a worker thread (milp-worker.ts), terminated at its deadline;
 *  - minimizer.ts: a persistent LP for series of "minimise these columns" (the certificates);
 *  - growing-model.ts: a persistent model whose columns grow (the DP likelihood).
 */
export { discardHighs, loadHighs, withHighs } from './highs/load';
export { solveMilp, type MilpOptions, type MilpSolve } from './highs/milp';
export { solveMilpWithin } from './highs/milp-thread';
export { ColumnMinimizer, type LpMinimum } from './highs/minimizer';
export { GrowingModel, type ColumnBlock } from './highs/growing-model';
export type { ColumnBounds, SparseProblem } from './highs/problem';
export type { Ending, LpSolve, SolveLimits } from './highs/run';
