/**
 * Supervision of one worker process that runs one job at a time, shared by the lint pool and the
 * reconstruction pool, in the language server and in the command line alike (the only module that
 * starts workers):
 *  - a queue that keeps only the newest request per file (an older one resolves `undefined`),
 *    ordered by priority, then arrival (work-priority.ts); a running job is never preempted;
 *  - memory ceilings: the V8 heap (`--max-old-space-size`) and the whole process's resident memory
 *    (buffers, typed arrays and HiGHS's WebAssembly memory included: worker-memory.ts), and a
 *    watchdog time limit per job;
 *  - a worker that crashes, runs out of memory, hits a V8 fatal error or overruns its time becomes a
 *    failure result for the job it was running (the caller words it), and the next job gets a
 *    fresh worker;
 *  - `cancel(path)` drops a queued request and kills the worker if it is running that file: work
 *    such as a HiGHS solve is synchronous, so a message could not interrupt it.
 * Why processes, not worker threads: a V8 fatal error in a worker thread (`Fatal JavaScript invalid
 * size error`, an array grown past V8's largest) aborts the whole process, the language server or
 * the command line with it (measured with Node 20; docs/reliability.md); in a child
 * process it ends that process only.
 * Messages (`serialization: 'advanced'`, the structured clone of postMessage): the pool sends
 * `{ id, path, options }`; the worker answers `{ id, progress }` any number of times, then one final
 * message with the same id; `restart: true` on it asks for a fresh worker for the next job (after a
 * fault that may have left the worker's state unusable). Workers talk through job-port.ts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { PriorityList } from './work-priority';
import { faultDetail, MemoryWatch, type Limit } from './worker-memory';

export interface WorkerQueueOptions<Request, Result> {
  workerScript: string;
  /**
   * Memory ceiling of the worker, in MiB: its V8 heap (`--max-old-space-size`) and, sampled, its
   * resident memory (everything the process holds). A function is asked each time a worker starts
   * (a changed setting applies from the next worker on).
   */
  memoryMb: number | (() => number);
  /** Milliseconds a job may run before the worker is stopped (a job's own `timeoutMs` wins). */
  timeoutMs: (request: Request) => number;
  /** Turns the worker's final message into the job's result. */
  result: (message: unknown, request: Request) => Result;
  /** The result of a job whose worker failed; `detail` says how, in words. */
  failure: (path: string, request: Request, detail: string) => Result;
  /** What the worker does, for failure details and logs ("analysis", "reconstruction"). */
  label: string;
  /** How the user raises each limit, appended to a failure's detail ("raise --max-memory-mb"). */
  raise?: Partial<Record<Limit, string>>;
  /**
   * A worker that holds more than this many MiB after a job is replaced, so an idle worker does not
   * keep the memory of its largest job (the command line keeps its total under its ceiling this way).
   */
  idleMemoryMb?: number;
  log?: (message: string) => void;
}

export interface JobHooks<Progress> {
  /** Called when the job is handed to the worker (it may wait in the queue before). */
  onStart?: () => void;
  onProgress?: (progress: Progress) => void;
  /** This job's own watchdog limit in milliseconds (e.g. scaled by the file's size). */
  timeoutMs?: number;
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
  timeoutMs: number;
}

interface Worker {
  child: ChildProcess;
  /** The ceiling it was started with, in MiB. */
  memoryMb: number;
  memory: MemoryWatch;
  /** The end of its stderr: V8 writes why it aborted there. */
  stderr: string;
}

const STDERR_TAIL = 16 * 1024;

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
    if (!worker) return;
    worker.memory.stop();
    worker.child.kill('SIGKILL');
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // Only the heap flag: the parent's own flags (a test runner's, an inspector's) are not the worker's.
    const memoryMb = typeof this.options.memoryMb === 'function' ? this.options.memoryMb() : this.options.memoryMb;
    const execArgv = [`--max-old-space-size=${memoryMb}`];
    if (process.execArgv.includes('--enable-source-maps')) execArgv.push('--enable-source-maps');
    // stdout ignored: the command line prints its report there, and nothing else may.
    const child = fork(this.options.workerScript, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const worker: Worker = {
      child,
      memoryMb,
      stderr: '',
      memory: new MemoryWatch(child, memoryMb, () => {
        if (worker !== this.worker || !this.running) return;
        this.fail('memory', '', worker.memoryMb);
      }),
    };
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      worker.stderr = (worker.stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('message', (message: { id: number; progress?: Progress; restart?: boolean; rss?: number }) => {
      if (typeof message?.rss === 'number') worker.memory.reported(message.rss);
      const running = this.running;
      if (worker !== this.worker || !running || message.id !== running.id) return;
      if (message.progress !== undefined) {
        running.pending.hooks.onProgress?.(message.progress);
        return;
      }
      clearTimeout(running.timer);
      this.running = undefined;
      worker.memory.pause();
      const heavy = this.options.idleMemoryMb !== undefined && worker.memory.residentMb() > this.options.idleMemoryMb;
      if (message.restart || heavy) this.replaceWorker();
      running.pending.resolve(this.options.result(message, running.pending.request));
      this.pump();
    });
    // Events from a worker we already replaced (killed after a failure or a cancel) are old news.
    child.on('error', (error) => {
      if (worker !== this.worker) return;
      this.fail('error', error.message, worker.memoryMb);
    });
    // 'close' (not 'exit'): stderr is complete by then, and it says why V8 aborted.
    child.on('close', (code, signal) => {
      if (worker !== this.worker) return;
      worker.memory.stop();
      this.worker = undefined;
      if (this.running) this.fail('exit', faultDetail(worker.stderr, code, signal), worker.memoryMb);
    });
    this.worker = worker;
    return worker;
  }

  private pump(): void {
    if (this.disposed || this.running || this.queue.length === 0) return;
    const pending = this.queue.shift()!;
    const id = this.nextId++;
    const timeoutMs = pending.hooks.timeoutMs ?? this.options.timeoutMs(pending.request);
    const worker = this.ensureWorker();
    const timer = setTimeout(() => this.fail('time', '', worker.memoryMb), timeoutMs);
    this.running = { id, pending, timer, timeoutMs };
    worker.memory.start();
    worker.child.send({ id, path: pending.path, options: pending.request });
    pending.hooks.onStart?.();
  }

  /** Resolves the running job with a failure, replaces the worker, and goes on with the queue. */
  private fail(kind: 'time' | 'memory' | 'exit' | 'error', cause: string, memoryMb: number): void {
    const running = this.running;
    if (!running) return;
    clearTimeout(running.timer);
    this.running = undefined;
    const detail = this.describe(kind, cause, running.timeoutMs, memoryMb);
    this.options.log?.(`${running.pending.path}: ${detail}; restarting the ${this.options.label} worker`);
    this.replaceWorker();
    running.pending.resolve(this.options.failure(running.pending.path, running.pending.request, detail));
    this.pump();
  }

  /** The failure in words: which limit was hit, and how to raise it. */
  private describe(kind: 'time' | 'memory' | 'exit' | 'error', cause: string, timeoutMs: number, memoryMb: number): string {
    const { label, raise } = this.options;
    const hint = (limit: Limit) => (raise?.[limit] ? ` (${raise[limit]})` : '');
    switch (kind) {
      case 'time':
        return `the ${label} took longer than ${Math.round(timeoutMs / 1000)} s and was stopped${hint('time')}`;
      case 'memory':
        // The resident memory (buffers, the solver's included) passed the ceiling: the same limit as the heap's, for the user.
        return `the ${label} ran out of memory (ceiling ${memoryMb} MB) and was stopped${hint('memory')}`;
      case 'error':
        return `the ${label} could not run: ${cause}`;
      default:
        if (cause === 'heap') return `the ${label} ran out of memory (ceiling ${memoryMb} MB) and was stopped${hint('memory')}`;
        return `the ${label} ${cause}`;
    }
  }
}
