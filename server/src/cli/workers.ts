/**
 * The command line's execution path, the language server's: each model is read in the lint worker
 * (jobs/lint-pool.ts), then reconstructed (with --training-data, --advise, --emit-reconstruction) in
 * the reconstruction worker (jobs/reconstruction-pool.ts, cli/step.ts), each a child process with a
 * memory ceiling and a watchdog (jobs/worker-queue.ts). A model that exhausts a worker, makes V8
 * abort or overruns its time gets an `unreadable-model` finding (reading) or recoverability
 * `failed` (reconstruction) saying which limit it hit and the flag that raises it; the command line
 * itself goes on with the next model.
 */
import type { FileReport } from '../linter/linter';
import type { ReconstructionProgress } from '../attacks/reconstruction/types';
import type { SeverityOverrides } from '../rules';
import { LintPool, DEFAULT_READ_TIMEOUT } from '../jobs/lint-pool';
import { ReconstructionPool } from '../jobs/reconstruction-pool';
import { workerScript } from '../jobs/worker-scripts';
import type { JobUpdate, ReconstructionRequest } from '../jobs/reconstruction-job';
import type { StepAnswer, StepRequest } from './step';
import type { ReconstructionStepOutcome } from './reconstruction';
import type { MembershipStepOutcome } from './membership';

export interface CliWorkerOptions {
  /** Ceiling of each worker process, in MiB (--max-memory-mb). */
  memoryMb: number;
  /** Reading may take this long plus 2 s per MB of the file (--read-timeout), in ms. */
  readBaseMs: number;
  log: (message: string) => void;
}

/**
 * A worker left holding more than this after a model is restarted: the idle worker then holds at
 * most this much while the other one works, so the command line's processes together stay near
 * --max-memory-mb plus this plus the main process's own (docs/reliability.md).
 */
export const IDLE_MEMORY_MB = 256;

export class CliWorkers {
  private readonly lintPool: LintPool;
  private readonly reconstructionPool: ReconstructionPool;

  constructor(options: CliWorkerOptions) {
    const raise = { memory: 'raise --max-memory-mb' } as const;
    this.lintPool = new LintPool({
      workerScript: workerScript('lint-worker'),
      memoryMb: options.memoryMb,
      readTimeout: { baseMs: options.readBaseMs, perMbMs: DEFAULT_READ_TIMEOUT.perMbMs },
      raise: { ...raise, time: 'raise --read-timeout' },
      idleMemoryMb: IDLE_MEMORY_MB,
      log: options.log,
    });
    this.reconstructionPool = new ReconstructionPool({
      workerScript: workerScript('reconstruction-worker'),
      memoryMb: options.memoryMb,
      raise: { ...raise, time: 'the limit is --budget plus a minute' },
      idleMemoryMb: IDLE_MEMORY_MB,
      log: options.log,
    });
  }

  /** The model's fast findings (a worker fault is an `unreadable-model` finding on it). */
  async read(path: string, options: { severities: SeverityOverrides; maxFileBytes?: number }): Promise<FileReport> {
    const request = { severities: options.severities, ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}) };
    // Never undefined here: the command line submits each file once and cancels nothing.
    return (await this.lintPool.lint(path, request))!;
  }

  /**
   * Runs the reconstruction step on a readable model and fills `report` as the in-process step did
   * (recoverability, evaluation, advisor, the reconstruction's finding). A worker fault leaves the
   * fast findings and sets recoverability `failed` with the reason; an advisor's fault leaves the
   * report without advice (stderr says why).
   */
  async reconstruct(report: FileReport, request: StepRequest, hooks: { onProgress?: (p: ReconstructionProgress) => void; log: (message: string) => void }): Promise<ReconstructionStepOutcome & { membership?: MembershipStepOutcome }> {
    const advise = request.advise === true && request.budgetMs > 0;
    const answer = await this.step(report, { ...request, advise: false, keepResult: advise }, hooks.onProgress);
    if (!answer) return {};
    for (const message of answer.logs) hooks.log(message);
    if (answer.contentHash !== report.contentHash) hooks.log(`${report.path}: the file changed between reading and reconstructing it; the reconstruction is of the newer bytes`);
    if (answer.recoverability) report.recoverability = answer.recoverability;
    if (answer.evaluation) report.evaluation = answer.evaluation;
    if (answer.membership) report.membership = answer.membership;
    report.findings.push(...answer.findings);
    const { result, ...outcome } = answer.outcome;
    // --advise: a job of its own, on the result just found; if its worker fails, the reconstruction stands.
    if (advise && result) {
      const advice = await this.step(report, { ...request, adviseOn: result, forReport: false }, undefined);
      for (const message of advice?.logs ?? []) hooks.log(message);
      if (advice?.advisor) report.advisor = advice.advisor;
    }
    return { ...outcome, ...(answer.membershipStep ? { membership: answer.membershipStep } : {}) };
  }

  /**
   * One job of the reconstruction worker; undefined when its worker failed (the pool logged why,
   * and a reconstruction's `failed` status with the reason goes into the report).
   */
  private async step(report: FileReport, request: StepRequest, onProgress?: (p: ReconstructionProgress) => void): Promise<StepAnswer | undefined> {
    const job: ReconstructionRequest = {
      budgetMs: request.budgetMs,
      maxFileBytes: request.maxFileBytes ?? Number.MAX_SAFE_INTEGER,
      groups: [],
      thresholds: request.thresholds,
      severities: request.severities,
      cli: request,
    };
    const hooks = onProgress ? { onProgress: (p: JobUpdate) => { if (p.phase !== 'advisor') onProgress(p); } } : {};
    const outcome = await this.reconstructionPool.run(report.path, job, undefined, hooks);
    if (outcome && !outcome.cli && !request.adviseOn) report.recoverability = outcome.recoverability;
    return outcome?.cli;
  }

  /** Ends the worker processes (else they keep the command line alive). */
  dispose(): void {
    this.lintPool.dispose();
    this.reconstructionPool.dispose();
  }
}
