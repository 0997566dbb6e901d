/**
 * The reconstruction's own worker process, apart from the lint worker so that fast findings never
 * wait behind a solve. One job at a time; the newest request per file wins; `cancel(path)` stops
 * the worker if it runs that file (the next job starts a fresh one). A crash, an out-of-memory
 * stop or an overrun becomes recoverability status `failed` with the reason. Answers are cached by
 * their inputs (model hash, sidecar, settings: `reconstructionKey`), so saving an unchanged model
 * or switching a setting back costs nothing; the cache is an LRU bounded by entries and by the
 * estimated bytes of the answers (their rows), in memory only. Jobs wait by priority (work-priority.ts).
 */
import { outcomeWithout, type JobUpdate, type ReconstructionOutcome, type ReconstructionRequest } from './reconstruction-job';
import { LruCache, estimatedBytes } from './lru-cache';
import { WorkerQueue, type JobHooks } from './worker-queue';
import type { Limit } from './worker-memory';
import { advisorBudgetMs } from '../advisor/budget';

export interface ReconstructionPoolOptions {
  workerScript: string;
  /** Memory ceiling of the worker process, in MiB (heap and resident memory: worker-queue.ts). */
  memoryMb: number | (() => number);
  /** How the user raises each limit, for the failure's reason ("raise --max-memory-mb"). */
  raise?: Partial<Record<Limit, string>>;
  /** A worker holding more than this after a job is replaced (worker-queue.ts). */
  idleMemoryMb?: number;
  /**
   * Milliseconds a job may run beyond its budget before the worker is stopped. The engine stops
   * itself when the budget runs out (HiGHS gets the remaining time as its own limit); this only
   * catches a solve that does not return, and leaves time to read a large model. An advisor job's
   * `budgetMs` is the advisor's own (twice the reconstruction's), so its limit follows from it too.
   */
  graceMs?: number;
  /** Answers kept in the cache. */
  cacheEntries?: number;
  /** Estimated bytes the cached answers may hold (their rows are most of it). */
  cacheBytes?: number;
  log?: (message: string) => void;
}

const DEFAULT_GRACE_MS = 60_000;
const DEFAULT_CACHE_ENTRIES = 64;
const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;

export interface RunOptions {
  /** Lower runs sooner (work-priority.ts). */
  priority?: number;
  /** Skip the cache lookup (the "Re-run analysis" command); the new answer is stored. */
  fresh?: boolean;
}

export class ReconstructionPool {
  private readonly queue: WorkerQueue<ReconstructionRequest, ReconstructionOutcome, JobUpdate>;
  private readonly cache: LruCache<string, ReconstructionOutcome>;

  constructor(options: ReconstructionPoolOptions) {
    const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.cache = new LruCache<string, ReconstructionOutcome>({
      maxEntries: options.cacheEntries ?? DEFAULT_CACHE_ENTRIES,
      maxBytes: options.cacheBytes ?? DEFAULT_CACHE_BYTES,
      size: estimatedBytes,
    });
    this.queue = new WorkerQueue({
      workerScript: options.workerScript,
      memoryMb: options.memoryMb,
      // The command line's advisor job (cli/step.ts) has the advisor's budget: twice the reconstruction's.
      timeoutMs: (request) => (request.cli?.adviseOn ? advisorBudgetMs(request.budgetMs) : request.budgetMs) + graceMs,
      result: (message) => (message as { outcome: ReconstructionOutcome }).outcome,
      failure: (path, _request, detail) => outcomeWithout(path, '', 'failed', detail),
      label: 'reconstruction',
      ...(options.raise ? { raise: options.raise } : {}),
      ...(options.idleMemoryMb !== undefined ? { idleMemoryMb: options.idleMemoryMb } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
  }

  /**
   * The file's reconstruction: from the cache when `key` (see `reconstructionKey`) names an answer
   * already known, else from the worker. Resolves `undefined` when a newer request for the file or
   * `cancel` replaced it. Any request replaces the file's queued or running one.
   */
  run(path: string, request: ReconstructionRequest, key?: string, hooks: JobHooks<JobUpdate> = {}, options: RunOptions = {}): Promise<ReconstructionOutcome | undefined> {
    const hit = key && !options.fresh ? this.cache.get(key) : undefined;
    if (hit) {
      this.queue.cancel(path);
      return Promise.resolve({ ...hit, path });
    }
    return this.queue.submit(path, request, hooks, options.priority ?? 0).then((outcome) => {
      if (outcome) this.remember(outcome);
      return outcome;
    });
  }

  /** Whether `key` names a cached answer (no worker time to get it). */
  cached(key: string): boolean {
    return this.cache.has(key);
  }

  /** Moves the file's queued job up to `priority`. True if one was queued. */
  promote(path: string, priority: number): boolean {
    return this.queue.promote(path, priority);
  }

  /** The file whose job runs now. */
  get runningPath(): string | undefined {
    return this.queue.runningPath;
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
    this.cache.set(outcome.key, outcome);
  }
}
