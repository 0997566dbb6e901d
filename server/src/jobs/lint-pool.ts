/**
 * The fast findings' worker: queues files, keeps only the newest request per file, enforces a
 * time limit and a memory ceiling, and turns a crashed or stuck worker into a finding on that file
 * before starting a fresh one (the supervision itself is worker-queue.ts).
 * The time limit is sized for reading, scaled by the file's size (`readTimeoutMs`): a stuck file
 * holds the queue for seconds, then the next file gets a fresh worker.
 */
import { promises as fs } from 'node:fs';
import type { FileReport, LintOptions } from '../linter/linter';
import { PRIORITY } from './work-priority';
import { unreadableFinding } from '../rules';
import { WorkerQueue } from './worker-queue';
import type { Limit } from './worker-memory';

/** What the lint worker gets: the linter's options, and whether to bypass its cache. */
export type LintRequest = Omit<LintOptions, 'cached'> & { fresh?: boolean };

/** One file's reading may take `baseMs` plus `perMbMs` for each MiB of the file. */
export interface ReadTimeout {
  baseMs: number;
  perMbMs: number;
}

/**
 * 5 s + 2 s per MiB. Measured reading speeds are far above 0.5 MiB/s (a 40 MB scikit-learn forest
 * is read in about 2 s, docs/benchmarks.md), so only a stuck or pathological read hits it.
 */
export const DEFAULT_READ_TIMEOUT: ReadTimeout = { baseMs: 5000, perMbMs: 2000 };

export function readTimeoutMs(bytes: number, timeout: ReadTimeout = DEFAULT_READ_TIMEOUT): number {
  return Math.round(timeout.baseMs + (timeout.perMbMs * bytes) / (1024 * 1024));
}

export interface LintPoolOptions {
  workerScript: string;
  /** The reading time limit of each file (default DEFAULT_READ_TIMEOUT); a function is asked per file. */
  readTimeout?: ReadTimeout | (() => ReadTimeout);
  /** Memory ceiling of the worker process, in MiB (heap and resident memory: worker-queue.ts). */
  memoryMb: number | (() => number);
  /** How the user raises each limit, for the finding ("raise --max-memory-mb"). */
  raise?: Partial<Record<Limit, string>>;
  /** A worker holding more than this after a file is replaced (worker-queue.ts). */
  idleMemoryMb?: number;
  log?: (message: string) => void;
}

export class LintPool {
  private readonly queue: WorkerQueue<LintRequest, FileReport>;
  private readonly readTimeout: () => ReadTimeout;
  /** Settles once every request made so far has reached the queue (keeps `lint`'s calls in order). */
  private submitted: Promise<void> = Promise.resolve();

  constructor(options: LintPoolOptions) {
    const timeout = options.readTimeout ?? DEFAULT_READ_TIMEOUT;
    this.readTimeout = typeof timeout === 'function' ? timeout : () => timeout;
    this.queue = new WorkerQueue<LintRequest, FileReport>({
      workerScript: options.workerScript,
      memoryMb: options.memoryMb,
      timeoutMs: () => readTimeoutMs(0, this.readTimeout()),
      result: (message) => (message as { report: FileReport }).report,
      failure: (path, lintOptions, detail) => {
        const findings = unreadableFinding(
          { kind: 'unreadable', format: 'unknown', reason: 'analysis-failed', detail: `${detail}.` },
          lintOptions.severities ?? {},
        );
        return { path, format: 'unknown', contentHash: '', model: null, findings, notes: [] };
      },
      label: 'analysis',
      ...(options.raise ? { raise: options.raise } : {}),
      ...(options.idleMemoryMb !== undefined ? { idleMemoryMb: options.idleMemoryMb } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
  }

  /**
   * Resolves with the report, or with `undefined` when a newer request for the same file
   * replaced this one before it ran (the newer request gets the answer). `priority`: see
   * work-priority.ts (a file the user changed goes before a folder scan's).
   */
  async lint(path: string, options: LintRequest, priority: number = PRIORITY.changedFindings): Promise<FileReport | undefined> {
    // The file's size (for its time limit) is read first, and those reads may finish in any order.
    // Requests still reach the queue in the order they were made, or an older request whose read
    // finished last would replace a newer one (and run with its stale options).
    const bytes = fs.stat(path).then((s) => s.size, () => 0);
    let result: Promise<FileReport | undefined> = Promise.resolve(undefined);
    const submitted = this.submitted
      .then(() => bytes)
      .then((size) => {
        result = this.queue.submit(path, options, { timeoutMs: readTimeoutMs(size, this.readTimeout()) }, priority);
      });
    this.submitted = submitted;
    await submitted;
    return result;
  }


  get busy(): boolean {
    return this.queue.busy;
  }

  dispose(): void {
    this.queue.dispose();
  }
}
