/**
 * The point search's sweeps in worker threads (point-search-worker.ts), one core each. The search
 * walks a trial point down every tree for each move, and on forests of hundreds of rows it stops
 * on the clock with the error still falling (Pima without bootstrap: 3,128 at 60 s, 2,808 at
 * 100 s), so more sweeps in the same time are more rows right.
 *
 * Each thread owns a share of the movable rows (their points and leaves are written by it alone)
 * and all of them move rows over the same open counts and room tallies, held in shared memory and
 * changed atomically (point-moves.ts). A thread sees another's moves as they land, and two may
 * fill the same leaf's last place at once: their cost estimates are then stale, never the counts,
 * so the search recounts the error exactly after each sweep, when every thread waits.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SearchArrays } from './point-moves';

/** Threads at most: beyond four the shared counts' traffic gains little, and the machine has other work. */
export const MAX_SEARCH_THREADS = 4;
/**
 * Movable rows from which the sweeps run in threads: below it a sweep takes milliseconds, and a
 * thread costs about 30 ms to start (the 200-row example forests keep the calling thread).
 */
export const THREADED_FROM_ROWS = 300;

export interface SweepWorkerData {
  arrays: SearchArrays;
  /** The movable rows this thread owns (indices into the arrays' rows). */
  rows: Int32Array;
  seed: number;
  /** Shared flag: non-zero asks every thread to stop after its current row. */
  stop: Int32Array;
}

export interface SweepRequest {
  temperature: number;
  /** Epoch ms at which the sweep ends, done or not. */
  end: number;
}

export interface SweepReply {
  /** Moves this thread kept since it started. */
  moves: number;
  /** Rows of its own it went through this sweep. */
  done: number;
}

/** Threads for a search over `rows` movable rows: `requested` (tests), else one per core up to MAX_SEARCH_THREADS. */
export function searchThreadCount(rows: number, requested?: number): number {
  if (requested !== undefined) return Math.max(1, Math.floor(requested));
  if (rows < THREADED_FROM_ROWS) return 1;
  return Math.max(1, Math.min(MAX_SEARCH_THREADS, availableParallelism()));
}

let scriptChecked: string | null | undefined;
/** The worker script beside this module (out/ and dist/ alike), or null when it is not there. */
function workerScript(): string | null {
  if (scriptChecked === undefined) {
    const script = join(__dirname, 'point-search-worker.js');
    scriptChecked = existsSync(script) ? script : null;
  }
  return scriptChecked;
}

/** A copy of `values` in shared memory. */
export function shared(values: Int32Array): Int32Array {
  const copy = new Int32Array(new SharedArrayBuffer(values.byteLength));
  copy.set(values);
  return copy;
}

/** Worker threads sweeping the rows of `arrays` (every array shared, see `shared`). */
export class SweepThreads {
  private failure: string | undefined;
  private readonly moved: number[];

  /** `stop`: the shared flag every thread polls between rows. */
  private constructor(
    private readonly workers: Worker[],
    private readonly stop: Int32Array,
  ) {
    this.moved = workers.map(() => 0);
  }

  /**
   * `threads` threads over `count` movable rows (row i goes to thread i mod threads), or undefined
   * when the worker script is missing or no thread can be started: the caller sweeps itself.
   */
  static start(arrays: SearchArrays, count: number, threads: number, seed: number): SweepThreads | undefined {
    const script = workerScript();
    if (!script || threads < 2) return undefined;
    const workers: Worker[] = [];
    const stop = new Int32Array(new SharedArrayBuffer(4));
    try {
      for (let w = 0; w < threads; w++) {
        const rows = Int32Array.from({ length: Math.ceil((count - w) / threads) }, (_, k) => w + k * threads);
        const data: SweepWorkerData = { arrays, rows, seed: seed + 101 * w, stop };
        workers.push(new Worker(script, { workerData: data }));
      }
    } catch {
      // No thread to be had (a process out of threads or memory for one): the calling thread sweeps.
      for (const worker of workers) void worker.terminate();
      return undefined;
    }
    return new SweepThreads(workers, stop);
  }

  /** Moves kept by every thread so far. */
  get moves(): number {
    return this.moved.reduce((a, b) => a + b, 0);
  }

  /**
   * One sweep in every thread, until each went through its rows, `end` passed, or `stopped()` said
   * so (polled every 25 ms). Resolves when every thread is waiting again; rejects when one failed
   * (its last move may be half made: the caller recounts from the points).
   */
  sweep(temperature: number, end: number, stopped: () => boolean): Promise<void> {
    if (this.failure) return Promise.reject(new Error(this.failure));
    return new Promise((resolve, reject) => {
      let waiting = this.workers.length;
      const poll = setInterval(() => {
        if (stopped()) Atomics.store(this.stop, 0, 1);
      }, 25);
      const listeners: Array<() => void> = [];
      const settle = (error?: Error) => {
        clearInterval(poll);
        for (const remove of listeners) remove();
        if (error) reject(error);
        else resolve();
      };
      this.workers.forEach((worker, w) => {
        const onMessage = (reply: SweepReply) => {
          this.moved[w] = reply.moves;
          if (--waiting === 0) settle();
        };
        const onFailure = (error: Error | number) => {
          this.failure = `a point search thread failed: ${typeof error === 'number' ? `exit code ${error}` : error.message}`;
          settle(new Error(this.failure));
        };
        worker.once('message', onMessage);
        worker.once('error', onFailure);
        worker.once('exit', onFailure);
        listeners.push(() => {
          worker.off('message', onMessage);
          worker.off('error', onFailure);
          worker.off('exit', onFailure);
        });
        worker.postMessage({ temperature, end } satisfies SweepRequest);
      });
    });
  }

  /** Ends every thread (they are waiting between sweeps, or have failed). */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
