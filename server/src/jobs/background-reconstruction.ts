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
 *
 * Fast feedback after a save (issue 16): both answers are cached by what determines them (the
 * reconstruction's by `reconstructionKey`: model bytes, sidecar, settings, tool version; the
 * advisor's by `advisorKey`: that reconstruction and its own budget), in bounded in-memory LRUs,
 * so an unchanged model costs no solver time. A file's work is planned from its fast findings
 * (`schedule`): when the plan is the one already running or done (same key, same switches), nothing
 * is stopped or run again, even if the file was written again with the same bytes; only a plan
 * that differs stops the file's stale run. Jobs wait by priority (work-priority.ts): what the user
 * changed before the folder's start-up work. `onSettled` says when a file has no work left (for
 * the start-up progress, "k of n models").
 */
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import type { AdvisorResult } from '../advisor';
import { advisorBudgetMs } from '../advisor/budget';
import type { FileReport } from '../linter/linter';
import type { ReconstructionStatusParams, Settings } from '../lsp/protocol';
import { GroupDeclarationSchema, type GroupDeclaration } from '../recoverability/declared-groups';
import { advisorKey, reconstructionKey, type ReconstructionOutcome, type ReconstructionRequest } from './reconstruction-job';
import { LruCache, estimatedBytes } from './lru-cache';
import { PRIORITY, priorities, type Origin } from './work-priority';
import { ReconstructionPool } from './reconstruction-pool';
import { ProgressDisplay } from './reconstruction-progress';
import { LiveTimelines } from './live-timelines';
import type { TimelinePoint } from '../report/model';
import { recordAdvice } from '../scripts/advice';

export interface BackgroundReconstructionOptions {
  workerScript: string;
  memoryMb: number | (() => number);
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
  /** The file has no background work left (ended, failed, cancelled, or nothing to do). */
  onSettled?: (uri: string) => void;
  createProgress: () => Promise<WorkDoneProgressServerReporter>;
  log: (message: string) => void;
}

export interface ScheduleOptions {
  /** A change of the user's (saved, opened, rewritten) or the folder's start-up scan: sets the priority. */
  origin?: Origin;
  /** Ignore the cached answers and the plan in place (the "Re-run analysis" command). */
  fresh?: boolean;
}

/** What `schedule` did: nothing to do, kept the work in place (same plan), or started new work. */
export type ScheduleResult = 'none' | 'unchanged' | 'started';

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
  /** Per file, the plan of the work running or done (see `planKey`); absent when none stands. */
  private readonly plans = new Map<string, string>();
  /** Per file, the latest `schedule` call: an older one that awaited its key gives way. */
  private readonly tickets = new Map<string, number>();
  /** Per file, where its work came from (its advisor job's priority follows). */
  private readonly origins = new Map<string, Origin>();
  /** Advisor answers by `advisorKey`: results of simulations, no rows (in memory only). */
  private readonly adviceCache = new LruCache<string, AdvisorResult>({ maxEntries: 64, maxBytes: 32 * 1024 * 1024, size: estimatedBytes });

  constructor(private readonly options: BackgroundReconstructionOptions) {
    this.pool = new ReconstructionPool({
      workerScript: options.workerScript,
      memoryMb: options.memoryMb,
      raise: { memory: 'raise the setting modelPrivacyLint.maxMemoryMB', time: 'a stuck solve: the limit is modelPrivacyLint.timeBudgetSeconds plus a minute' },
      log: options.log,
    });
    this.live = new LiveTimelines((uri) => options.onTimeline?.(uri));
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }

  /**
   * The file's reconstruction finding(s), once its current version's reconstruction ended; with
   * `contentHash`, only if that reconstruction read those bytes.
   */
  findings(uri: string, contentHash?: string): ReconstructionOutcome['findings'] {
    const outcome = this.outcomes.get(uri);
    if (!outcome || (contentHash !== undefined && outcome.contentHash !== contentHash)) return [];
    return outcome.findings;
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

  /** Whether the file's reconstruction or advisor run is queued or running. */
  working(uri: string): boolean {
    return this.pending.has(uri) || this.advising.has(uri);
  }

  /** The timeline so far of the file's running reconstruction (phases and counters, no values). */
  liveTimeline(uri: string): TimelinePoint[] | undefined {
    return this.pending.has(uri) ? this.live.get(uri) : undefined;
  }

  /** The file was deleted (or must be forgotten): what runs or was found for it is stale, and so is a plan being made. */
  invalidate(uri: string): void {
    this.tickets.set(uri, (this.tickets.get(uri) ?? 0) + 1);
    this.reset(uri);
  }

  /** What runs or was found for the file is stale: stop it, drop the answers. */
  private reset(uri: string): void {
    this.plans.delete(uri);
    this.generations.set(uri, (this.generations.get(uri) ?? 0) + 1);
    this.outcomes.delete(uri);
    const advising = this.advising.has(uri);
    if (this.stop(uri)) this.options.log(`${fileURLToPath(uri)}: ${advising ? 'what-if advisor' : 'reconstruction'} stopped, its answer would be stale (the file or the settings changed)`);
    this.forgetAdvice(uri);
  }

  /**
   * Plans the background work of the file whose fast findings are `report`: when the plan (bytes,
   * sidecar, settings, switches) is the one already running or done, it stays as it is (a queued
   * job moves up if the user touched the file); otherwise the file's stale work is stopped and its
   * reconstruction queued (or taken from the cache). Resolves once the stale answers are dropped,
   * so the caller publishes the new fast findings without them.
   */
  async schedule(uri: string, report: FileReport, options: ScheduleOptions = {}): Promise<ScheduleResult> {
    const ticket = (this.tickets.get(uri) ?? 0) + 1;
    this.tickets.set(uri, ticket);
    const settings = this.options.settings();
    const origin = options.origin ?? 'changed';
    if (!settings.reconstruction.enabled || !report.model || !report.contentHash) {
      // Nothing to reconstruct (any more): what was found for older bytes or settings goes.
      this.reset(uri);
      this.options.onSettled?.(uri);
      return 'none';
    }
    const path = fileURLToPath(uri);
    const request = this.request(settings);
    const key = await reconstructionKey(path, report.contentHash, request);
    if (this.tickets.get(uri) !== ticket) return 'none'; // a newer plan for the file is on its way
    const plan = JSON.stringify([key, settings.advisor.enabled]);
    if (!options.fresh && this.plans.get(uri) === plan) {
      if (origin === 'changed') this.promote(uri);
      this.options.log(`${path}: same bytes, sidecar and settings as the analysis ${this.working(uri) ? 'under way' : 'done'}: nothing to run again`);
      if (!this.working(uri)) this.options.onSettled?.(uri);
      return 'unchanged';
    }
    this.reset(uri);
    this.plans.set(uri, plan);
    this.origins.set(uri, origin);
    this.start(uri, report, request, key, options.fresh ?? false);
    return 'started';
  }

  /** The user touched a file whose plan stands: its queued job goes before the start-up work. */
  private promote(uri: string): void {
    if (this.origins.get(uri) === 'changed') return;
    this.origins.set(uri, 'changed');
    const path = fileURLToPath(uri);
    if (this.pending.has(uri)) this.pool.promote(path, PRIORITY.changedReconstruction);
    else if (this.advising.has(uri)) this.pool.promote(path, PRIORITY.changedAdvisor);
  }

  /** Queues the file's reconstruction (the cache answers at once when `key` is known). */
  private start(uri: string, report: FileReport, request: ReconstructionRequest, key: string, fresh: boolean): void {
    const generation = this.generations.get(uri) ?? 0;
    const path = fileURLToPath(uri);
    this.pending.add(uri);
    const current = () => (this.generations.get(uri) ?? 0) === generation;
    const run = async () => {
      const priority = priorities(this.origins.get(uri) ?? 'changed').reconstruction;
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
      }, { priority, fresh });
      if (!outcome || !current()) return;
      this.endProgress(uri);
      // The outcome carries the final timeline (or, stale, none of this version's).
      this.live.drop(uri);
      // The worker read the file again and found other bytes: analyse them (their reconstruction is
      // cached by now), rather than show an answer that does not match the fast findings.
      // (A failure carries no hash: the worker did not get that far, or died.)
      if (outcome.recoverability.status !== 'failed' && outcome.contentHash !== report.contentHash) {
        this.pending.delete(uri);
        this.plans.delete(uri);
        this.options.onStale(uri);
        return;
      }
      const { recoverability } = outcome;
      // A failure is not cached, and neither is its plan: saving the file again tries again.
      if (recoverability.status === 'failed') this.plans.delete(uri);
      if (recoverability.status === 'failed') this.options.log(`${path}: reconstruction failed: ${recoverability.reason}`);
      else this.options.log(`${path}: reconstruction ${recoverability.status} (${recoverability.method}), ${recoverability.certifiedRows}/${recoverability.rows ?? '?'} rows certified in ${recoverability.seconds} s`);
      this.outcomes.set(uri, outcome);
      if (outcome.findings.length > 0) await this.options.publish(uri);
      this.pending.delete(uri);
      this.options.onEvent({ uri, state: 'done', recoverability: brief(recoverability) });
      this.advise(uri, outcome, request, outcome.key || key, current, fresh);
    };
    run()
      .catch((error: unknown) => this.options.log(`${path}: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => {
        if (!current()) return;
        this.pending.delete(uri);
        this.live.drop(uri);
        this.settle(uri);
      });
  }

  /** Tells that the file's work ended, if none is left (the advisor may follow the reconstruction). */
  private settle(uri: string): void {
    if (!this.working(uri)) this.options.onSettled?.(uri);
  }


  /**
   * Runs the advisor on the file's accepted reconstruction. Not for a failed or skipped one: the
   * advisor scores remedies against what this model gives away, and there is nothing to score.
   */
  private advise(uri: string, outcome: ReconstructionOutcome, request: ReconstructionRequest, reconstruction: string, current: () => boolean, fresh: boolean): void {
    const { result } = outcome;
    if (!this.options.settings().advisor.enabled || !result || result.status === 'failed' || result.status === 'skipped') return;
    const path = fileURLToPath(uri);
    const budgetMs = advisorBudgetMs(request.budgetMs);
    const cacheKey = advisorKey(reconstruction, budgetMs);
    const cached = fresh ? undefined : this.adviceCache.get(cacheKey);
    if (cached) {
      this.options.log(`${path}: what-if advisor: ${cached.scenarios.length} scenario(s), from the cache (same model, sidecar and settings)`);
      this.accept(uri, path, outcome.contentHash, cached);
      return;
    }
    this.advising.add(uri);
    const adviseRequest: ReconstructionRequest = { ...request, budgetMs, advise: { current: result } };
    const run = async () => {
      // No pool key: the pool caches reconstructions; the advice is cached here, once accepted.
      const answer = await this.pool.run(path, adviseRequest, undefined, {
        onStart: () => {
          this.endProgress(uri);
          const display = new ProgressDisplay(this.options.createProgress, 'What-if advisor', basename(path), () => this.cancelAdvisorByUser(uri));
          this.progress.set(uri, display);
        },
        onProgress: (progress) => this.progress.get(uri)?.report(progress),
      }, { priority: priorities(this.origins.get(uri) ?? 'changed').advisor });
      if (!answer || !current()) return;
      this.endProgress(uri);
      this.advising.delete(uri);
      if (!answer.advisor) {
        // Not cached, and the plan gives way: saving the file again tries again.
        this.plans.delete(uri);
        this.options.log(`${path}: what-if advisor failed: ${answer.recoverability.reason}`);
        return;
      }
      // Other bytes than the reconstruction's: a newer version is on its way (its own change event).
      if (answer.contentHash !== outcome.contentHash) return;
      const { advisor } = answer;
      this.options.log(`${path}: what-if advisor: ${advisor.scenarios.length} scenario(s) in ${advisor.seconds} s${advisor.partial ? ' (partial: the budget ran out)' : ''}`);
      this.adviceCache.set(cacheKey, advisor);
      this.accept(uri, path, answer.contentHash, advisor);
    };
    run()
      .catch((error: unknown) => this.options.log(`${path}: ${(error as Error)?.stack ?? String(error)}`))
      .finally(() => {
        if (!current()) return;
        this.advising.delete(uri);
        this.settle(uri);
      });
  }

  /** The file's advice is `advisor` (just simulated, or cached for these inputs). */
  private accept(uri: string, path: string, contentHash: string, advisor: AdvisorResult): void {
    this.advice.set(uri, { contentHash, advisor });
    recordAdvice(path, advisor.recommendations);
    this.options.onAdvice(uri);
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
    this.plans.delete(uri); // saving the file again runs it again
    this.options.log(`${fileURLToPath(uri)}: what-if advisor cancelled`);
    this.options.onSettled?.(uri);
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
    this.plans.delete(uri); // saving the file again runs it again
    this.stop(uri);
    this.options.log(`${fileURLToPath(uri)}: reconstruction cancelled`);
    this.options.onEvent({ uri, state: 'cancelled' });
    this.options.onSettled?.(uri);
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
