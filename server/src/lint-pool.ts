/**
 * Owns the lint worker thread (the only module that touches the worker API): queues files,
 * keeps only the newest request per file, enforces a time limit and a memory ceiling, and turns
 * a crashed or stuck worker into a finding on that file before starting a fresh one.
 */
import { Worker } from 'node:worker_threads';
import type { FileReport, LintOptions } from './linter';
import { unreadableFinding } from './rules';
import type { LintJob } from './lint-worker';

interface Pending {
  path: string;
  options: LintOptions;
  resolve: (report: FileReport | undefined) => void;
}

export interface LintPoolOptions {
  workerScript: string;
  /** Milliseconds one file may take before the worker is stopped. */
  timeoutMs: number;
  /** Heap ceiling of the worker, in MiB. */
  memoryMb: number;
  log?: (message: string) => void;
}

export class LintPool {
  private worker: Worker | undefined;
  private queue: Pending[] = [];
  private running: { job: LintJob; pending: Pending; timer: NodeJS.Timeout } | undefined;
  private nextId = 1;
  private disposed = false;

  constructor(private readonly options: LintPoolOptions) {}

  /**
   * Resolves with the report, or with `undefined` when a newer request for the same file
   * replaced this one before it ran (the newer request gets the answer).
   */
  lint(path: string, options: LintOptions): Promise<FileReport | undefined> {
    return new Promise((resolve) => {
      const superseded = this.queue.filter((p) => p.path === path);
      this.queue = this.queue.filter((p) => p.path !== path);
      for (const old of superseded) old.resolve(undefined);
      this.queue.push({ path, options, resolve });
      this.pump();
    });
  }

  get busy(): boolean {
    return this.running !== undefined || this.queue.length > 0;
  }

  dispose(): void {
    this.disposed = true;
    for (const pending of this.queue) pending.resolve(undefined);
    this.queue = [];
    void this.worker?.terminate();
    this.worker = undefined;
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.options.workerScript, {
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb },
    });
    worker.on('message', (message: { id: number; report: FileReport }) => {
      if (!this.running || message.id !== this.running.job.id) return;
      const { pending, timer } = this.running;
      clearTimeout(timer);
      this.running = undefined;
      pending.resolve(message.report);
      this.pump();
    });
    // Events from a worker we already replaced (terminated after a failure) are old news.
    worker.on('error', (error) => {
      if (worker === this.worker) this.fail(`the analysis failed: ${error.message}`);
    });
    worker.on('exit', (code) => {
      if (worker !== this.worker) return;
      this.worker = undefined;
      if (this.running) this.fail(`the analysis stopped unexpectedly (exit code ${code}); it may have run out of memory`);
    });
    this.worker = worker;
    return worker;
  }

  private pump(): void {
    if (this.disposed || this.running || this.queue.length === 0) return;
    const pending = this.queue.shift()!;
    const job: LintJob = { id: this.nextId++, path: pending.path, options: pending.options };
    const timer = setTimeout(
      () => this.fail(`the analysis took longer than ${Math.round(this.options.timeoutMs / 1000)} s and was stopped`),
      this.options.timeoutMs,
    );
    this.running = { job, pending, timer };
    this.ensureWorker().postMessage(job);
  }

  /** Reports the running file as not analysable, replaces the worker, and goes on with the queue. */
  private fail(detail: string): void {
    const running = this.running;
    if (!running) return;
    clearTimeout(running.timer);
    this.running = undefined;
    this.options.log?.(`${running.job.path}: ${detail}; restarting the analysis worker`);
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
    const findings = unreadableFinding(
      { kind: 'unreadable', format: 'unknown', reason: 'analysis-failed', detail: `${detail}.` },
      running.pending.options.severities ?? {},
    );
    running.pending.resolve({ path: running.job.path, format: 'unknown', contentHash: '', model: null, findings, notes: [] });
    this.pump();
  }
}
