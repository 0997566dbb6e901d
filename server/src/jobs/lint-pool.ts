/**
 * The fast findings' worker: queues files, keeps only the newest request per file, enforces a
 * time limit and a memory ceiling, and turns a crashed or stuck worker into a finding on that file
 * before starting a fresh one (the supervision itself is worker-queue.ts).
 */
import type { FileReport, LintOptions } from '../linter/linter';
import { PRIORITY } from './work-priority';

/** What the lint worker gets: the linter's options, and whether to bypass its cache. */
export type LintRequest = Omit<LintOptions, 'cached'> & { fresh?: boolean };
import { unreadableFinding } from '../rules';
import { WorkerQueue } from './worker-queue';

export interface LintPoolOptions {
  workerScript: string;
  /** Milliseconds one file may take before the worker is stopped. */
  timeoutMs: number;
  /** Heap ceiling of the worker, in MiB. */
  memoryMb: number;
  log?: (message: string) => void;
}

export class LintPool {
  private readonly queue: WorkerQueue<LintRequest, FileReport>;

  constructor(options: LintPoolOptions) {
    this.queue = new WorkerQueue<LintRequest, FileReport>({
      workerScript: options.workerScript,
      memoryMb: options.memoryMb,
      timeoutMs: () => options.timeoutMs,
      result: (message) => (message as { report: FileReport }).report,
      failure: (path, lintOptions, detail) => {
        const findings = unreadableFinding(
          { kind: 'unreadable', format: 'unknown', reason: 'analysis-failed', detail: `${detail}.` },
          lintOptions.severities ?? {},
        );
        return { path, format: 'unknown', contentHash: '', model: null, findings, notes: [] };
      },
      label: 'analysis',
      ...(options.log ? { log: options.log } : {}),
    });
  }

  /**
   * Resolves with the report, or with `undefined` when a newer request for the same file
   * replaced this one before it ran (the newer request gets the answer). `priority`: see
   * work-priority.ts (a file the user changed goes before a folder scan's).
   */
  lint(path: string, options: LintRequest, priority: number = PRIORITY.changedFindings): Promise<FileReport | undefined> {
    return this.queue.submit(path, options, {}, priority);
  }

  get busy(): boolean {
    return this.queue.busy;
  }

  dispose(): void {
    this.queue.dispose();
  }
}
