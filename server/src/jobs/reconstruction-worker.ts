/**
 * Worker-process entry of the reconstruction (worker-queue.ts): reads the model again (with the completed IR kept),
 * runs the engine within the budget, and posts progress, then the summary and the finding. It runs
 * in its own process, apart from the lint worker, so fast findings never wait behind a solve; the
 * pool terminates it to cancel (a HiGHS solve is synchronous: no message could interrupt it).
 * A reconstruction's progress messages carry its timeline so far, for the report's live chart.
 * The reconstructed rows go back to the server with the summary, for the privacy report's explicit
 * reveal; the server keeps them in memory only (never in diagnostics, notifications or logs).
 * A job whose request carries `advise` runs the what-if advisor (advisor/) on the reconstruction
 * the server already accepted, instead of reconstructing: the same process, so it is cancelled,
 * replaced and watched over like a reconstruction.
 */
import { basename } from 'node:path';
import { advise } from '../advisor';
import type { Forest } from '../forest/schema';
import { lintFile } from '../linter/linter';
import { assessRecoverability } from '../recoverability/assess';
import { declaredGroupsFor } from '../recoverability/declared-groups';
import { TimelineRecorder } from '../report/timeline';
import { featureUse } from '../report/build';
import { inputColumnRecovery } from '../report/input-columns';
import type { InputColumnRecovery } from '../report/model';
import {
  outcomeWithout,
  reconstructionKey,
  type JobProgress,
  type JobUpdate,
  type ReconstructionOutcome,
  type ReconstructionProgress,
  type ReconstructionRequest,
} from './reconstruction-job';
import { jobPort } from './job-port';
import { runStep, type StepRequest } from '../cli/step';
import { scoreMembership } from '../cli/membership';
import { membershipTruth } from '../cli/advisor';
import { readSidecarCandidates } from '../membership/sidecar';
import { emptyCounts, type MembershipSummary } from '../membership/summary';
import type { ReconstructionResult } from '../attacks/reconstruction/types';
import type { Finding } from '../rules/types';

interface Job {
  id: number;
  path: string;
  options: ReconstructionRequest;
}

/** Progress of one phase is posted at most this often; a new phase always is. */
const PROGRESS_INTERVAL_MS = 100;

/**
 * Test hook: `MODEL_PRIVACY_LINT_TEST_FAULT=oom:<file name>` (or `exit:`) makes the job for that
 * file exhaust the heap ceiling (or exit), so tests can check that a worker fault is reported and
 * that the next file gets a fresh worker. Unset in normal use.
 */
function injectFault(path: string): void {
  const [kind, name] = (process.env.MODEL_PRIVACY_LINT_TEST_FAULT ?? '').split(':');
  if (name !== basename(path)) return;
  if (kind === 'exit') process.exit(70);
  if (kind === 'oom') {
    const hog: number[][] = [];
    for (;;) hog.push(new Array(1e6).fill(hog.length));
  }
}

async function run(job: Job): Promise<ReconstructionOutcome> {
  const { path, options } = job;
  if (options.cli) return runCliStep(job, options.cli);
  const report = await lintFile(path, { keepForest: true, maxFileBytes: options.maxFileBytes, severities: options.severities });
  if (!report.forest) {
    const reason = 'the model could not be read (see its other findings)';
    return outcomeWithout(path, report.contentHash, 'skipped', reason);
  }
  injectFault(path);
  if (options.advise) return runAdvisor(path, report.contentHash, report.forest, options, throttledPoster(job.id));
  const key = await reconstructionKey(path, report.contentHash, options);
  const timeline = new TimelineRecorder();
  const post = throttledPoster(job.id, timeline);
  const onProgress = (progress: ReconstructionProgress) => {
    timeline.record(progress);
    post(progress);
  };
  const { recoverability, findings, result } = await assessRecoverability(path, report.forest, {
    ...(report.model?.location ? { model: { location: report.model.location, estimator: report.model.estimator } } : {}),
    budgetMs: options.budgetMs,
    onProgress,
    groups: options.groups.length > 0 ? [{ source: 'settings', declarations: options.groups }] : [],
    thresholds: options.thresholds,
    severities: options.severities,
  });
  const membership = await sidecarMembership(path, report.forest, result, options);
  if (membership.finding && !report.disabledRules?.includes('membership-exposure')) findings.push(membership.finding);
  return {
    path,
    contentHash: report.contentHash,
    key,
    recoverability,
    findings,
    features: featureUse(report.forest),
    ...inputColumnsOf(report.forest, result),
    result,
    timeline: timeline.finish(result),
    ...(membership.summary ? { membership: membership.summary } : {}),
  };
}

/** The report's figures per Pipeline input column, when the model has one and the reconstruction certified boxes. */
function inputColumnsOf(forest: Forest, result: ReconstructionResult | null): { inputColumns?: InputColumnRecovery[] } {
  const inputColumns = result ? inputColumnRecovery(forest, result) : undefined;
  return inputColumns ? { inputColumns } : {};
}

/**
 * The membership of the candidates the model's sidecar names, scored as the CLI's --membership
 * does (cli/membership.ts `scoreMembership`, after the reconstruction, whose certified rows can
 * prove members). Only the aggregates and the finding leave: nothing per candidate is kept or
 * written in the editor. A file that cannot be read or does not fit is the summary's `problem`.
 */
async function sidecarMembership(path: string, forest: Forest, result: ReconstructionResult | null, options: ReconstructionRequest): Promise<{ summary?: MembershipSummary; finding?: Finding }> {
  const read = await readSidecarCandidates(path);
  if (!read.declared) return {};
  const { declaration } = read;
  const failed = (problem: string): { summary: MembershipSummary } => ({
    summary: { candidates: declaration.candidates, rows: 0, labelColumn: declaration.label ?? null, matchedBy: null, basis: null, threshold: null, verdicts: emptyCounts(), histogram: [], seconds: 0, problem },
  });
  if ('problem' in read) return failed(read.problem);
  try {
    const scored = scoreMembership(forest, read.file, {
      ...(result ? { reconstruction: result.reconstruction, trainingRows: result.rows } : {}),
      ...(result?.contradiction ? { countsContradict: result.contradiction } : {}),
      severities: options.severities,
    });
    return { summary: scored.summary, ...(scored.finding ? { finding: scored.finding } : {}) };
  } catch (error) {
    // A bug in the scoring must not cost the file its reconstruction: the report says what happened.
    return failed(`the membership scoring failed: ${(error as Error)?.message ?? String(error)}`);
  }
}

/**
 * Posts progress to the pool: a new phase at once, the same phase at most every PROGRESS_INTERVAL_MS.
 * With a recorder, each message carries the timeline so far (the report's live chart): at most a
 * few hundred points, so copying it ten times a second costs little, and the server always holds
 * the latest (it decides how often the report is redrawn).
 */
function throttledPoster(id: number, timeline?: TimelineRecorder): (progress: JobProgress) => void {
  let lastPhase = '';
  let lastPost = 0;
  return (progress) => {
    const now = Date.now();
    if (progress.phase === lastPhase && now - lastPost < PROGRESS_INTERVAL_MS) return;
    lastPhase = progress.phase;
    lastPost = now;
    const update: JobUpdate = timeline ? { ...progress, timeline: timeline.timeline() } : progress;
    jobPort!.post({ id, progress: update });
  };
}

/**
 * The advisor on the file as read now, with the groups its reconstruction had (sidecar + settings).
 * The outcome carries the hash of the bytes read: the server drops the advice if they are not the
 * bytes its reconstruction was about. Its summary says `skipped`: this job reconstructs nothing.
 */
async function runAdvisor(path: string, contentHash: string, forest: Forest, options: ReconstructionRequest, post: (progress: JobProgress) => void): Promise<ReconstructionOutcome> {
  const extra = options.groups.length > 0 ? [{ source: 'settings', declarations: options.groups }] : [];
  const declared = await declaredGroupsFor(path, forest, extra);
  // The sidecar's candidates, when they say who was a member: each remedy's membership AUC.
  const candidates = await readSidecarCandidates(path);
  const membership = candidates.declared && 'file' in candidates ? membershipTruth(forest, candidates.file) : undefined;
  const advisor = await advise(forest, options.advise!.current, {
    budgetMs: options.budgetMs,
    groups: declared.groups,
    ...(membership ? { membership } : {}),
    onProgress: ({ done, total, label, elapsedMs }) => post({ phase: 'advisor', done, total, label, elapsedMs }),
  });
  return { ...outcomeWithout(path, contentHash, 'skipped', 'a what-if advisor job: no reconstruction'), advisor };
}

/** The command line's step (cli/step.ts): its answer rides on an outcome that reconstructs nothing here. */
async function runCliStep(job: Job, request: StepRequest): Promise<ReconstructionOutcome> {
  injectFault(job.path);
  const answer = await runStep(job.path, request, throttledPoster(job.id));
  const outcome = outcomeWithout(job.path, answer.contentHash, 'skipped', 'a command-line job: see cli');
  return { ...outcome, cli: answer };
}

jobPort?.onJob((job: Job) => {
  run(job).then(
    (outcome) => jobPort!.post({ id: job.id, outcome }),
    (error: unknown) => {
      // A bug, or a solver fault that surfaced as an exception (a WebAssembly abort leaves HiGHS
      // unusable): report it, and ask for a fresh worker for the next job.
      const reason = `the reconstruction failed: ${(error as Error)?.message ?? String(error)}`;
      const outcome: ReconstructionOutcome = outcomeWithout(job.path, '', 'failed', reason);
      jobPort!.post({ id: job.id, outcome, restart: true });
    },
  );
});
