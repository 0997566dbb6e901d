/**
 * Supervision of one worker thread that runs one job at a time, shared by the lint pool and the
 * reconstruction pool (the only module that touches the worker API):
 *  - a queue that keeps only the newest request per file (an older one resolves `undefined`),
 *    ordered by priority, then arrival (work-priority.ts); a running job is never preempted;
 *  - a memory ceiling (V8 heap, `resourceLimits`) and a watchdog time limit per job;
 *  - a worker that crashes, runs out of memory or overruns its time becomes a failure result for
 *    the job it was running (the caller words it), and the next job gets a fresh worker;
 *  - `cancel(path)` drops a queued request and terminates the worker if it is running that file:
 *    work such as a HiGHS solve is synchronous, so a message could not interrupt it.
 * Messages: the pool posts `{ id, path, options }`; the worker answers `{ id, progress }` any
 * number of times, then one final message with the same id; `restart: true` on it asks for a
 * fresh worker for the next job (after a fault that may have left the worker's state unusable).
 */
import { Worker } from 'node:worker_threads';
import { PriorityList } from './work-priority';

export interface WorkerQueueOptions<Request, Result> {
  workerScript: string;
  /** V8 heap ceiling of the worker, in MiB (`resourceLimits.maxOldGenerationSizeMb`). */
  memoryMb: number;
  /** Milliseconds a job may run before the worker is stopped. */
  timeoutMs: (request: Request) => number;
  /** Turns the worker's final message into the job's result. */
  result: (message: unknown, request: Request) => Result;
  /** The result of a job whose worker failed; `detail` says how, in words. */
  failure: (path: string, request: Request, detail: string) => Result;
  /** What the worker does, for failure details and logs ("analysis", "reconstruction"). */
  label: string;
  log?: (message: string) => void;
}

export interface JobHooks<Progress> {
  /** Called when the job is handed to the worker (it may wait in the queue before). */
  onStart?: () => void;
  onProgress?: (progress: Progress) => void;
}

interface Pending<Request, Result, Progress> {
  path: string;
  request: Request;
  hooks: JobHooks<Progress>;
  resolve: (result: Result | undefined) => void;
}

interface Running<Request, Result, Progress> {
  id: number;
  pending: Pending<Request, Result, Progress>;
  timer: NodeJS.Timeout;
}

export class WorkerQueue<Request, Result, Progress = never> {
  private worker: Worker | undefined;
  private readonly queue = new PriorityList<Pending<Request, Result, Progress>>();
  private running: Running<Request, Result, Progress> | undefined;
  private nextId = 1;
  private disposed = false;

  constructor(private readonly options: WorkerQueueOptions<Request, Result>) {}

  /**
   * Resolves with the result, or with `undefined` when a newer request for the same file replaced
   * this one before it ran, or it was cancelled. `priority`: lower runs sooner (work-priority.ts).
   */
  submit(path: string, request: Request, hooks: JobHooks<Progress> = {}, priority = 0): Promise<Result | undefined> {
    return new Promise((resolve) => {
      this.dropQueued(path);
      this.queue.push({ path, request, hooks, resolve }, priority);
      this.pump();
    });
  }

  /** Moves the file's queued job up to `priority` (the user touched the file). True if it was queued. */
  promote(path: string, priority: number): boolean {
    return this.queue.promote((p) => p.path === path, priority);
  }

  /** The files whose jobs wait, in the order they will run. */
  get queuedPaths(): string[] {
    return this.queue.all().map((p) => p.path);
  }

  /** Drops the file's queued request and stops its running job. True if a job was running. */
  cancel(path: string): boolean {
    this.dropQueued(path);
    const running = this.running;
    if (!running || running.pending.path !== path) return false;
    clearTimeout(running.timer);
    this.running = undefined;
    this.replaceWorker();
    running.pending.resolve(undefined);
    this.pump();
    return true;
  }

  get busy(): boolean {
    return this.running !== undefined || this.queue.length > 0;
  }

  /** The file whose job the worker is running. */
  get runningPath(): string | undefined {
    return this.running?.pending.path;
  }

  dispose(): void {
    this.disposed = true;
    for (const pending of this.queue.clear()) pending.resolve(undefined);
    if (this.running) {
      clearTimeout(this.running.timer);
      this.running.pending.resolve(undefined);
      this.running = undefined;
    }
    this.replaceWorker();
  }

  private dropQueued(path: string): void {
    const dropped = this.queue.remove((p) => p.path === path);
    for (const old of dropped) old.resolve(undefined);
  }

  /** Stops the current worker; the next job starts a fresh one (lazily). */
  private replaceWorker(): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.options.workerScript, {
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb },
    });
    worker.on('message', (message: { id: number; progress?: Progress; restart?: boolean }) => {
      const running = this.running;
      if (worker !== this.worker || !running || message.id !== running.id) return;
      if (message.progress !== undefined) {
        running.pending.hooks.onProgress?.(message.progress);
        return;
      }
      clearTimeout(running.timer);
      this.running = undefined;
      if (message.restart) this.replaceWorker();
      running.pending.resolve(this.options.result(message, running.pending.request));
      this.pump();
    });
    // Events from a worker we already replaced (terminated after a failure or a cancel) are old news.
    worker.on('error', (error: Error & { code?: string }) => {
      if (worker !== this.worker) return;
      const detail =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `the ${this.options.label} ran out of memory (ceiling ${this.options.memoryMb} MB) and was stopped`
          : `the ${this.options.label} failed: ${error.message}`;
      this.fail(detail);
    });
    worker.on('exit', (code) => {
      if (worker !== this.worker) return;
      this.worker = undefined;
      if (this.running) this.fail(`the ${this.options.label} stopped unexpectedly (exit code ${code}); it may have run out of memory`);
    });
    this.worker = worker;
    return worker;
  }

  private pump(): void {
    if (this.disposed || this.running || this.queue.length === 0) return;
    const pending = this.queue.shift()!;
    const id = this.nextId++;
    const timeoutMs = this.options.timeoutMs(pending.request);
    const timer = setTimeout(
      () => this.fail(`the ${this.options.label} took longer than ${Math.round(timeoutMs / 1000)} s and was stopped`),
      timeoutMs,
    );
    this.running = { id, pending, timer };
    this.ensureWorker().postMessage({ id, path: pending.path, options: pending.request });
    pending.hooks.onStart?.();
  }

  /** Resolves the running job with a failure, replaces the worker, and goes on with the queue. */
  private fail(detail: string): void {
    const running = this.running;
    if (!running) return;
    clearTimeout(running.timer);
    this.running = undefined;
    this.options.log?.(`${running.pending.path}: ${detail}; restarting the ${this.options.label} worker`);
    this.replaceWorker();
    running.pending.resolve(this.options.failure(running.pending.path, running.pending.request, detail));
    this.pump();
  }
}
