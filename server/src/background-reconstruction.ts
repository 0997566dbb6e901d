/**
 * The editor's background reconstruction (issue 3): after a file's fast findings are published,
 * its training set is reconstructed in the reconstruction worker, with work-done progress that the
 * user can cancel; a newer version of the file, its deletion or a settings change cancels it; when
 * it ends, the file's diagnostics are published again with the `reconstructable-training-set`
 * finding. Every file has a generation number, bumped on each change: an answer is used only if
 * its file's generation has not moved since it was asked for, so a stale answer never follows the
 * fast findings of a newer file.
 */
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import type { FileReport } from './linter';
import type { ReconstructionStatusParams, Settings } from './protocol';
import { GroupDeclarationSchema, type GroupDeclaration } from './recoverability/declared-groups';
import { reconstructionKey, type ReconstructionOutcome, type ReconstructionRequest } from './reconstruction-job';
import { ReconstructionPool } from './reconstruction-pool';
import { ProgressDisplay } from './reconstruction-progress';

export interface BackgroundReconstructionOptions {
  workerScript: string;
  memoryMb: number;
  settings: () => Settings;
  /** Publishes the file's diagnostics again (fast findings + `findings(uri)`). */
  publish: (uri: string) => Promise<void>;
  /** A reconstruction started, ended or was cancelled. */
  onEvent: (event: ReconstructionStatusParams) => void;
  /** The worker found other bytes than the fast findings were about: the file must be analysed again. */
  onStale: (uri: string) => void;
  createProgress: () => Promise<WorkDoneProgressServerReporter>;
  log: (message: string) => void;
}

export class BackgroundReconstruction {
  private readonly pool: ReconstructionPool;
  private readonly generations = new Map<string, number>();
  private readonly outcomes = new Map<string, ReconstructionOutcome>();
  private readonly progress = new Map<string, ProgressDisplay>();
  /** Files between `schedule` and their answer (or its cancellation). */
  private readonly pending = new Set<string>();

  constructor(private readonly options: BackgroundReconstructionOptions) {
    this.pool = new ReconstructionPool({ workerScript: options.workerScript, memoryMb: options.memoryMb, log: options.log });
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** The file's reconstruction finding(s), once its current version's reconstruction ended. */
  findings(uri: string): ReconstructionOutcome['findings'] {
    return this.outcomes.get(uri)?.findings ?? [];
  }

  /**
   * The file's last reconstruction, rows included (personal data: for the report's explicit reveal
   * only), once its current version's reconstruction ended.
   */
  outcome(uri: string): ReconstructionOutcome | undefined {
    return this.outcomes.get(uri);
  }

  /** Whether the file's reconstruction is queued or running. */
  running(uri: string): boolean {
    return this.pending.has(uri);
  }

  /** The file changed, was deleted, or the settings changed: what runs or was found for it is stale. */
  invalidate(uri: string): void {
    this.generations.set(uri, (this.generations.get(uri) ?? 0) + 1);
    this.outcomes.delete(uri);
    if (this.stop(uri)) this.options.log(`${fileURLToPath(uri)}: reconstruction stopped, its answer would be stale (the file or the settings changed)`);
  }

  /** Starts the reconstruction of the file whose fast findings are `report` (just published). */
  schedule(uri: string, report: FileReport): void {
    const settings = this.options.settings();
    if (!settings.reconstruction.enabled || !report.model || !report.contentHash) return;
    const generation = this.generations.get(uri) ?? 0;
    const path = fileURLToPath(uri);
    const request = this.request(settings);
    this.pending.add(uri);
    const current = () => (this.generations.get(uri) ?? 0) === generation;
    const run = async () => {
      const key = await reconstructionKey(path, report.contentHash, request);
      if (!current()) return;
      const outcome = await this.pool.run(path, request, key, {
        onStart: () => {
          this.options.onEvent({ uri, state: 'running' });
          // Two analyses of one file in flight (the start-up scan and an explicit request) can both
          // reach here: the newer run replaces the older, and so must its progress, or the older
          // one stays in the status bar for good.
          this.endProgress(uri);
          const display = new ProgressDisplay(this.options.createProgress, 'Reconstructing training rows', basename(path), () => this.cancelByUser(uri));
          this.progress.set(uri, display);
        },
        onProgress: (progress) => this.progress.get(uri)?.report(progress),
      });
      if (!outcome || !current()) return;
      this.endProgress(uri);
      // The worker read the file again and found other bytes: analyse them (their reconstruction is
      // cached by now), rather than show an answer that does not match the fast findings.
      // (A failure carries no hash: the worker did not get that far, or died.)
      if (outcome.recoverability.status !== 'failed' && outcome.contentHash !== report.contentHash) {
        this.pending.delete(uri);
        this.options.onStale(uri);
        return;
      }
      const { recoverability } = outcome;
      if (recoverability.status === 'failed') this.options.log(`${path}: reconstruction failed: ${recoverability.reason}`);
      else this.options.log(`${path}: reconstruction ${recoverability.status} (${recoverability.method}), ${recoverability.certifiedRows}/${recoverability.rows ?? '?'} rows certified in ${recoverability.seconds} s`);
      this.outcomes.set(uri, outcome);
      if (outcome.findings.length > 0) await this.options.publish(uri);
      this.pending.delete(uri);
      this.options.onEvent({ uri, state: 'done', recoverability: brief(recoverability) });
    };
    run()
      .catch((error: unknown) => this.options.log(`${path}: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => {
        if (current()) this.pending.delete(uri);
      });
  }

  dispose(): void {
    for (const display of this.progress.values()) display.end();
    this.progress.clear();
    this.pool.dispose();
  }

  private request(settings: Settings): ReconstructionRequest {
    return {
      budgetMs: settings.timeBudgetSeconds * 1000,
      maxFileBytes: settings.maxFileSizeMB * 1024 * 1024,
      groups: this.validGroups(settings.reconstruction.groups),
      thresholds: { errorShare: settings.reconstruction.errorShare, warningRows: settings.reconstruction.warningRows },
      severities: settings.severity,
    };
  }

  /** Settings are user input: a malformed group is logged and left out, never trusted. */
  private validGroups(groups: unknown): GroupDeclaration[] {
    if (!Array.isArray(groups)) return [];
    const valid: GroupDeclaration[] = [];
    for (const group of groups) {
      const parsed = GroupDeclarationSchema.safeParse(group);
      if (parsed.success) valid.push(parsed.data);
      else this.options.log(`modelPrivacyLint.reconstruction.groups: ${JSON.stringify(group)} is not a group (${parsed.error.issues[0]?.message}); it was ignored`);
    }
    return valid;
  }

  private cancelByUser(uri: string): void {
    this.generations.set(uri, (this.generations.get(uri) ?? 0) + 1);
    this.stop(uri);
    this.options.log(`${fileURLToPath(uri)}: reconstruction cancelled`);
    this.options.onEvent({ uri, state: 'cancelled' });
  }

  /** Cancels the file's reconstruction; true if its worker was running it (and was stopped). */
  private stop(uri: string): boolean {
    const wasRunning = this.pool.cancel(fileURLToPath(uri));
    this.endProgress(uri);
    this.pending.delete(uri);
    return wasRunning;
  }

  private endProgress(uri: string): void {
    this.progress.get(uri)?.end();
    this.progress.delete(uri);
  }
}

function brief(r: ReconstructionOutcome['recoverability']): NonNullable<ReconstructionStatusParams['recoverability']> {
  return {
    status: r.status,
    method: r.method,
    rows: r.rows,
    certifiedRows: r.certifiedRows,
    reconstructedRows: r.reconstructedRows,
    seconds: r.seconds,
    ...(r.reason ? { reason: r.reason } : {}),
  };
}
