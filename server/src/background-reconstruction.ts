/**
 * The editor's background reconstruction (issue 3): after a file's fast findings are published,
 * its training set is reconstructed in the reconstruction worker, with work-done progress that the
 * user can cancel; a newer version of the file, its deletion or a settings change cancels it; when
 * it ends, the file's diagnostics are published again with the `reconstructable-training-set`
 * finding. Every file has a generation number, bumped on each change: an answer is used only if
 * its file's generation has not moved since it was asked for, so a stale answer never follows the
 * fast findings of a newer file.
 *
 * While it runs, the worker's timeline so far is kept (live-timelines.ts) for the privacy report's
 * progress chart, and `onTimeline` says the report changed, at most once a second. The timeline
 * goes with the run: its end, cancellation or staleness drops it.
 *
 * Then the what-if advisor (issue 5): once a reconstruction is accepted, and if
 * `modelPrivacyLint.advisor.enabled`, a second job for the same file runs the advisor on that
 * result (reconstruction-worker.ts), within twice the time budget (as the CLI's `--advise`), with
 * its own cancellable progress. It shares the file's queue slot and generation, so whatever stops
 * a stale reconstruction (a change, deletion, settings change) stops it and drops its answer. Its
 * answer is kept for the bytes it was about (content hash), recorded for the script quick fixes
 * (scripts/advice.ts), and announced with `onAdvice`.
 */
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import type { AdvisorResult } from './advisor';
import { advisorBudgetMs } from './advisor/budget';
import type { FileReport } from './linter';
import type { ReconstructionStatusParams, Settings } from './protocol';
import { GroupDeclarationSchema, type GroupDeclaration } from './recoverability/declared-groups';
import { reconstructionKey, type ReconstructionOutcome, type ReconstructionRequest } from './reconstruction-job';
import { ReconstructionPool } from './reconstruction-pool';
import { ProgressDisplay } from './reconstruction-progress';
import { LiveTimelines } from './live-timelines';
import type { TimelinePoint } from './report/model';
import { recordAdvice } from './scripts/advice';

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
  /** The file's advisor answer arrived, or its answer was dropped (the file changed): the report and the script fixes changed. */
  onAdvice: (uri: string) => void;
  /** The running reconstruction's timeline grew (throttled, see live-timelines.ts): an open report redraws. */
  onTimeline?: (uri: string) => void;
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
  /** The advisor's answer per file, with the hash of the model bytes it simulated. */
  private readonly advice = new Map<string, { contentHash: string; advisor: AdvisorResult }>();
  /** Files whose advisor job is queued or running. */
  private readonly advising = new Set<string>();
  /** The running reconstructions' timelines so far. */
  private readonly live: LiveTimelines;

  constructor(private readonly options: BackgroundReconstructionOptions) {
    this.pool = new ReconstructionPool({ workerScript: options.workerScript, memoryMb: options.memoryMb, log: options.log });
    this.live = new LiveTimelines((uri) => options.onTimeline?.(uri));
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

  /** The advisor's simulations for the file, if they ran on the bytes whose hash is `contentHash`. */
  advisor(uri: string, contentHash: string | undefined): AdvisorResult | undefined {
    const entry = this.advice.get(uri);
    return entry && entry.contentHash === contentHash ? entry.advisor : undefined;
  }

  /**
   * Whether the advisor will still answer for the file: `running` (its job is queued in the pool or
   * runs), `queued` (it runs after the file's pending reconstruction, when enabled and unless that
   * is skipped or fails). Undefined when it will not run: the report then does not announce it.
   */
  advisorPending(uri: string): 'queued' | 'running' | undefined {
    if (this.advising.has(uri)) return 'running';
    return this.pending.has(uri) && this.options.settings().advisor.enabled ? 'queued' : undefined;
  }

  /** Whether the file's reconstruction is queued or running. */
  running(uri: string): boolean {
    return this.pending.has(uri);
  }

  /** The timeline so far of the file's running reconstruction (phases and counters, no values). */
  liveTimeline(uri: string): TimelinePoint[] | undefined {
    return this.pending.has(uri) ? this.live.get(uri) : undefined;
  }

  /** The file changed, was deleted, or the settings changed: what runs or was found for it is stale. */
  invalidate(uri: string): void {
    this.generations.set(uri, (this.generations.get(uri) ?? 0) + 1);
    this.outcomes.delete(uri);
    const advising = this.advising.has(uri);
    if (this.stop(uri)) this.options.log(`${fileURLToPath(uri)}: ${advising ? 'what-if advisor' : 'reconstruction'} stopped, its answer would be stale (the file or the settings changed)`);
    this.forgetAdvice(uri);
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
          this.live.drop(uri);
          const display = new ProgressDisplay(this.options.createProgress, 'Reconstructing training rows', basename(path), () => this.cancelByUser(uri));
          this.progress.set(uri, display);
        },
        onProgress: (update) => {
          if (!current()) return;
          this.progress.get(uri)?.report(update);
          if (update.timeline) this.live.update(uri, update.timeline);
        },
      });
      if (!outcome || !current()) return;
      this.endProgress(uri);
      // The outcome carries the final timeline (or, stale, none of this version's).
      this.live.drop(uri);
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
      this.advise(uri, outcome, request, current);
    };
    run()
      .catch((error: unknown) => this.options.log(`${path}: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => {
        if (!current()) return;
        this.pending.delete(uri);
        this.live.drop(uri);
      });
  }

  /**
   * Runs the advisor on the file's accepted reconstruction. Not for a failed or skipped one: the
   * advisor scores remedies against what this model gives away, and there is nothing to score.
   */
  private advise(uri: string, outcome: ReconstructionOutcome, request: ReconstructionRequest, current: () => boolean): void {
    const { result } = outcome;
    if (!this.options.settings().advisor.enabled || !result || result.status === 'failed' || result.status === 'skipped') return;
    const path = fileURLToPath(uri);
    this.advising.add(uri);
    const adviseRequest: ReconstructionRequest = { ...request, budgetMs: advisorBudgetMs(request.budgetMs), advise: { current: result } };
    const run = async () => {
      // No key: an advisor answer is never cached (the pool keeps reconstructions only).
      const answer = await this.pool.run(path, adviseRequest, undefined, {
        onStart: () => {
          this.endProgress(uri);
          const display = new ProgressDisplay(this.options.createProgress, 'What-if advisor', basename(path), () => this.cancelAdvisorByUser(uri));
          this.progress.set(uri, display);
        },
        onProgress: (progress) => this.progress.get(uri)?.report(progress),
      });
      if (!answer || !current()) return;
      this.endProgress(uri);
      this.advising.delete(uri);
      if (!answer.advisor) {
        this.options.log(`${path}: what-if advisor failed: ${answer.recoverability.reason}`);
        return;
      }
      // Other bytes than the reconstruction's: a newer version is on its way (its own change event).
      if (answer.contentHash !== outcome.contentHash) return;
      const { advisor } = answer;
      this.options.log(`${path}: what-if advisor: ${advisor.scenarios.length} scenario(s) in ${advisor.seconds} s${advisor.partial ? ' (partial: the budget ran out)' : ''}`);
      this.advice.set(uri, { contentHash: answer.contentHash, advisor });
      recordAdvice(path, advisor.recommendations);
      this.options.onAdvice(uri);
    };
    run()
      .catch((error: unknown) => this.options.log(`${path}: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => {
        if (current()) this.advising.delete(uri);
      });
  }

  /** Drops the file's advice (its model changed): the report and the quick fixes stop using it. */
  private forgetAdvice(uri: string): void {
    if (!this.advice.delete(uri)) return;
    recordAdvice(fileURLToPath(uri), []);
    this.options.onAdvice(uri);
  }

  /** The user cancelled the advisor: the reconstruction's answer stays; only the simulations are dropped. */
  private cancelAdvisorByUser(uri: string): void {
    if (!this.advising.has(uri)) return;
    this.stop(uri);
    this.options.log(`${fileURLToPath(uri)}: what-if advisor cancelled`);
  }

  dispose(): void {
    for (const display of this.progress.values()) display.end();
    this.progress.clear();
    this.live.dispose();
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
    this.live.drop(uri);
    this.pending.delete(uri);
    this.advising.delete(uri);
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
