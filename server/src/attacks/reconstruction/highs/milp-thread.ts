/**
 * An integer solve that keeps its deadline whatever HiGHS does. HiGHS checks its time limit and
 * the interrupt callbacks only in some phases: on a large formulation its presolve ran 3.3 s past
 * a 3 s limit (5.6 s with the machine loaded) and, with presolve off, its root LP 7 s past a
 * 1.5 s one (GradientBoostingClassifier of 50 trees on 2,000 COMPAS rows: 11,236 columns, 561,800
 * entries; sweep 17 saw 15-18 s at a 10 s budget). A WebAssembly call cannot be interrupted from
 * its own thread, so a large solve runs in a worker thread (milp-worker.ts) that is terminated
 * `CUT_OFF_GRACE_MS` past the deadline (measured: the thread stops within 50 ms, mid-presolve), or
 * as soon as the caller's `shouldStop` says so. The answer is then `stopped` with the last
 * incumbent the thread reported, if it satisfies the problem.
 *
 * Small solves (the papers' settings: milliseconds) stay in the calling thread: starting a thread
 * and its HiGHS costs about OFF_THREAD_COST_MS, and a solve that small does not overrun by much.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Highs } from 'highs';
import { solveMilp, type MilpOptions, type MilpSolve } from './milp';
import type { ColumnBounds, SparseProblem } from './problem';

/** Entries (nonzeros) from which a solve runs in its own thread. */
export const OFF_THREAD_ENTRIES = 100_000;
/** How long past its deadline a thread's solve may run before it is terminated. */
export const CUT_OFF_GRACE_MS = 250;
/** How often the caller's `shouldStop` is polled while the thread solves. */
const STOP_POLL_MS = 50;

export interface MilpThreadRequest {
  problem: SparseProblem;
  bounds: ColumnBounds;
  deadline: number;
  relativeGap?: number;
  start?: ArrayLike<number>;
}

export type MilpThreadMessage =
  | { kind: 'incumbent'; colValue: Float64Array }
  | { kind: 'done'; result: MilpSolve }
  | { kind: 'failed'; detail: string };

/** What the cut-off solve says, for tests and the reason: set on a `stopped` answer that was terminated. */
export interface CutOff {
  cutOff?: true;
}

/**
 * solveMilp's answer within `options.deadline` + CUT_OFF_GRACE_MS: in this thread for a small
 * problem (or when the worker script is missing), else in a worker thread it terminates on time.
 */
export async function solveMilpWithin(highs: Highs, problem: SparseProblem, bounds: ColumnBounds, options: MilpOptions, offThreadFrom = OFF_THREAD_ENTRIES): Promise<MilpSolve & CutOff> {
  const entries = problem.colStart[problem.numCols] ?? 0;
  const script = join(__dirname, 'milp-worker.js');
  if (entries < offThreadFrom || !existsSync(script)) return solveMilp(highs, problem, bounds, options);
  return solveInThread(script, problem, bounds, options);
}

function solveInThread(script: string, problem: SparseProblem, bounds: ColumnBounds, options: MilpOptions): Promise<MilpSolve & CutOff> {
  return new Promise((resolve) => {
    const worker = new Worker(script);
    let incumbent: Float64Array | undefined;
    let settled = false;
    const finish = (answer: MilpSolve & CutOff) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      void worker.terminate();
      resolve(answer);
    };
    const cutOff = () => finish(incumbent ? { status: 'stopped', colValue: incumbent, objective: objectiveOf(problem, incumbent), cutOff: true } : { status: 'stopped', cutOff: true });
    const timer = setTimeout(cutOff, Math.max(0, options.deadline - Date.now()) + CUT_OFF_GRACE_MS);
    const shouldStop = options.shouldStop;
    const poll = shouldStop ? setInterval(() => shouldStop() && cutOff(), STOP_POLL_MS) : undefined;
    worker.on('message', (message: MilpThreadMessage) => {
      if (message.kind === 'incumbent') {
        // HiGHS reports incumbents from its search; one is kept only if it is a point of this problem.
        if (satisfies(problem, bounds, message.colValue)) incumbent = message.colValue;
      } else if (message.kind === 'done') {
        finish(message.result);
      } else {
        finish({ status: 'error', detail: `the integer solve failed in its thread: ${message.detail}` });
      }
    });
    worker.on('error', (error) => finish({ status: 'error', detail: `the integer solve's thread failed: ${error.message}` }));
    worker.on('exit', (code) => finish({ status: 'error', detail: `the integer solve's thread stopped (exit code ${code})` }));
    const request: MilpThreadRequest = {
      problem,
      bounds: { lower: Float64Array.from(bounds.lower), upper: Float64Array.from(bounds.upper) },
      deadline: options.deadline,
      ...(options.relativeGap !== undefined ? { relativeGap: options.relativeGap } : {}),
      ...(options.start ? { start: Float64Array.from(options.start) } : {}),
    };
    worker.postMessage(request);
  });
}

/** Whether `x` is an integer point within the bounds that meets every row of `problem` (to 1e-6). */
export function satisfies(problem: SparseProblem, bounds: ColumnBounds, x: ArrayLike<number>): boolean {
  const { numCols, numRows, colStart, colRow, colCoef, rowRhs } = problem;
  if (x.length !== numCols) return false;
  const activity = new Float64Array(numRows);
  for (let j = 0; j < numCols; j++) {
    const v = x[j];
    if (!(v >= bounds.lower[j] - 1e-6 && v <= bounds.upper[j] + 1e-6)) return false;
    if ((!problem.integer || problem.integer[j]) && Math.abs(v - Math.round(v)) > 1e-6) return false;
    for (let k = colStart[j]; k < colStart[j + 1]; k++) activity[colRow[k]] += colCoef[k] * v;
  }
  const lower = problem.rowLower ?? rowRhs;
  const upper = problem.rowUpper ?? rowRhs;
  for (let i = 0; i < numRows; i++) if (activity[i] < lower[i] - 1e-6 || activity[i] > upper[i] + 1e-6) return false;
  return true;
}

function objectiveOf(problem: SparseProblem, x: Float64Array): number {
  if (!problem.cost) return 0;
  let total = 0;
  for (let j = 0; j < x.length; j++) total += problem.cost[j] * x[j];
  return total;
}
