/**
 * The reconstruction's own worker thread, apart from the lint worker so that fast findings never
 * wait behind a solve. One job at a time; the newest request per file wins; `cancel(path)` stops
 * the worker if it runs that file (the next job starts a fresh one). A crash, an out-of-memory
 * stop or an overrun becomes recoverability status `failed` with the reason. Answers are cached by
 * their inputs (model hash, sidecar, settings: `reconstructionKey`), so saving an unchanged model
 * or switching a setting back costs nothing.
 */
import { outcomeWithout, type JobUpdate, type ReconstructionOutcome, type ReconstructionRequest } from './reconstruction-job';
import { WorkerQueue, type JobHooks } from './worker-queue';

export interface ReconstructionPoolOptions {
  workerScript: string;
  /** V8 heap ceiling of the worker, in MiB. */
  memoryMb: number;
  /**
   * Milliseconds a job may run beyond its budget before the worker is stopped. The engine stops
   * itself when the budget runs out (HiGHS gets the remaining time as its own limit); this only
   * catches a solve that does not return, and leaves time to read a large model. An advisor job's
   * `budgetMs` is the advisor's own (twice the reconstruction's), so its limit follows from it too.
   */
  graceMs?: number;
  /** Answers kept in the cache. */
  cacheEntries?: number;
  log?: (message: string) => void;
}

const DEFAULT_GRACE_MS = 60_000;
const DEFAULT_CACHE_ENTRIES = 64;

export class ReconstructionPool {
  private readonly queue: WorkerQueue<ReconstructionRequest, ReconstructionOutcome, JobUpdate>;
  private readonly cache = new Map<string, ReconstructionOutcome>();
  private readonly cacheEntries: number;

  constructor(options: ReconstructionPoolOptions) {
    const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.cacheEntries = options.cacheEntries ?? DEFAULT_CACHE_ENTRIES;
    this.queue = new WorkerQueue({
      workerScript: options.workerScript,
      memoryMb: options.memoryMb,
      timeoutMs: (request) => request.budgetMs + graceMs,
      result: (message) => (message as { outcome: ReconstructionOutcome }).outcome,
      failure: (path, _request, detail) => outcomeWithout(path, '', 'failed', detail),
      label: 'reconstruction',
      ...(options.log ? { log: options.log } : {}),
    });
  }

  /**
   * The file's reconstruction: from the cache when `key` (see `reconstructionKey`) names an answer
   * already known, else from the worker. Resolves `undefined` when a newer request for the file or
   * `cancel` replaced it. Any request replaces the file's queued or running one.
   */
  run(path: string, request: ReconstructionRequest, key?: string, hooks: JobHooks<JobUpdate> = {}): Promise<ReconstructionOutcome | undefined> {
    const hit = key ? this.cache.get(key) : undefined;
    if (hit) {
      this.queue.cancel(path);
      this.remember(hit);
      return Promise.resolve({ ...hit, path });
    }
    return this.queue.submit(path, request, hooks).then((outcome) => {
      if (outcome) this.remember(outcome);
      return outcome;
    });
  }

  /** Stops the file's reconstruction (queued or running). True if it was running. */
  cancel(path: string): boolean {
    return this.queue.cancel(path);
  }

  get busy(): boolean {
    return this.queue.busy;
  }

  dispose(): void {
    this.queue.dispose();
  }

  /** Failures are not kept: they may be transient (memory pressure), and the next run may succeed. */
  private remember(outcome: ReconstructionOutcome): void {
    if (!outcome.key || outcome.recoverability.status === 'failed') return;
    this.cache.delete(outcome.key);
    this.cache.set(outcome.key, outcome);
    while (this.cache.size > this.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
  }
}
