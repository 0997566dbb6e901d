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
 * and its HiGHS costs about 80 ms, and a solve that small does not overrun by much.
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
/** How often the caller's `shouldStop` and the process's memory are polled while the thread solves. */
const STOP_POLL_MS = 50;
/**
 * Share of the memory ceiling at which a thread's solve is stopped. HiGHS's branch and bound grows
 * for as long as it runs (a 50-tree GradientBoostingClassifier's solve: 460 MB at a 4 s budget,
 * 865 MB at 10 s; a 150-tree one passed a 1 GB worker's ceiling at 9 s, and the whole job failed
 * with nothing certified: sweep 18). The worker pool samples the process every 100 ms and stops it
 * at the ceiling; stopping the thread below it keeps what was proven before the solve.
 */
export const MEMORY_SHARE = 0.85;

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
  /** Stopped near the memory ceiling rather than by the clock: the process's MiB then, and the ceiling. */
  memory?: { rssMb: number; ceilingMb: number };
}

/** The limits of a solve in its own thread, beside the deadline. */
export interface ThreadLimits {
  /** The process's memory ceiling in MiB (none: not watched). */
  memoryCeilingMb?: number;
  /** Entries from which a solve runs in its own thread (tests lower it). */
  offThreadFrom?: number;
}

/** The ceiling the worker pools give their processes (`--max-old-space-size=N`), or undefined. */
export function processMemoryCeilingMb(): number | undefined {
  for (const arg of process.execArgv) {
    const match = /^--max-old-space-size=(\d+)$/.exec(arg);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/**
 * solveMilp's answer within `options.deadline` + CUT_OFF_GRACE_MS: in this thread for a small
 * problem (or when the worker script is missing), else in a worker thread it terminates on time.
 */
export async function solveMilpWithin(highs: Highs, problem: SparseProblem, bounds: ColumnBounds, options: MilpOptions, limits: ThreadLimits = {}): Promise<MilpSolve & CutOff> {
  const entries = problem.colStart[problem.numCols] ?? 0;
  const script = join(__dirname, 'milp-worker.js');
  if (entries < (limits.offThreadFrom ?? OFF_THREAD_ENTRIES) || !existsSync(script)) return solveMilp(highs, problem, bounds, options);
  let worker: Worker;
  try {
    worker = new Worker(script);
  } catch {
    // No thread to be had (a process out of threads or memory for one): the solve as before.
    return solveMilp(highs, problem, bounds, options);
  }
  return solveInThread(worker, problem, bounds, options, limits.memoryCeilingMb ?? processMemoryCeilingMb());
}

function solveInThread(worker: Worker, problem: SparseProblem, bounds: ColumnBounds, options: MilpOptions, ceilingMb: number | undefined): Promise<MilpSolve & CutOff> {
  return new Promise((resolve) => {
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
    // Terminated: `stopped`, with the last incumbent the thread reported (see `satisfies`).
    const stopped = (memory?: CutOff['memory']): MilpSolve & CutOff => {
      const end: CutOff = { cutOff: true, ...(memory ? { memory } : {}) };
      return incumbent ? { status: 'stopped', colValue: incumbent, objective: objectiveOf(problem, incumbent), ...end } : { status: 'stopped', ...end };
    };
    const cutOff = () => finish(stopped());
    const timer = setTimeout(cutOff, Math.max(0, options.deadline - Date.now()) + CUT_OFF_GRACE_MS);
    const shouldStop = options.shouldStop;
    const memoryLimit = ceilingMb !== undefined ? ceilingMb * MEMORY_SHARE * 1024 * 1024 : undefined;
    const overMemory = () => {
      if (memoryLimit === undefined) return false;
      const rss = process.memoryUsage.rss();
      if (rss <= memoryLimit) return false;
      finish(stopped({ rssMb: Math.round(rss / (1024 * 1024)), ceilingMb: ceilingMb! }));
      return true;
    };
    const poll = shouldStop || memoryLimit !== undefined ? setInterval(() => overMemory() || (shouldStop?.() && cutOff()), STOP_POLL_MS) : undefined;
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
    // Copies made here and moved to the thread (transferred, not cloned: one copy at a time, not a
    // serialised one and its reading); the caller keeps its own arrays for the certificate.
    const sent = threadCopy(problem);
    const lower = Float64Array.from(bounds.lower);
    const upper = Float64Array.from(bounds.upper);
    const request: MilpThreadRequest = {
      problem: sent.problem,
      bounds: { lower, upper },
      deadline: options.deadline,
      ...(options.relativeGap !== undefined ? { relativeGap: options.relativeGap } : {}),
      ...(options.start ? { start: Float64Array.from(options.start) } : {}),
    };
    worker.postMessage(request, [...sent.buffers, lower.buffer, upper.buffer] as ArrayBuffer[]);
  });
}

/** The problem with every array copied into a buffer of its own, and those buffers (to transfer). */
function threadCopy(problem: SparseProblem): { problem: SparseProblem; buffers: ArrayBufferLike[] } {
  const buffers: ArrayBufferLike[] = [];
  const f64 = (values: ArrayLike<number>) => {
    const copy = Float64Array.from(values);
    buffers.push(copy.buffer);
    return copy;
  };
  const i32 = (values: Int32Array) => {
    const copy = Int32Array.from(values);
    buffers.push(copy.buffer);
    return copy;
  };
  const copied: SparseProblem = {
    numRows: problem.numRows,
    numCols: problem.numCols,
    rowRhs: f64(problem.rowRhs),
    colStart: i32(problem.colStart),
    colRow: i32(problem.colRow),
    colCoef: f64(problem.colCoef),
    ...(problem.rowLower ? { rowLower: f64(problem.rowLower) } : {}),
    ...(problem.rowUpper ? { rowUpper: f64(problem.rowUpper) } : {}),
    ...(problem.cost ? { cost: f64(problem.cost) } : {}),
    ...(problem.integer ? { integer: Uint8Array.from(problem.integer) } : {}),
  };
  return { problem: copied, buffers };
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
