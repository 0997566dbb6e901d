/**
 * What the server, the reconstruction pool and the reconstruction worker exchange: the request
 * (settings that change the answer), the outcome (the summary, the finding, the progress timeline
 * and the reconstructed rows), and the cache key that names the inputs of an answer. No worker API
 * here, so tests can import it.
 *
 * The rows are personal data: they stay in the server's memory, for the privacy report's explicit
 * reveal (report-service.ts), and never go into diagnostics, notifications or logs.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { AdvisorResult } from '../advisor';
import type { ReconstructionProgress, ReconstructionResult } from '../attacks/reconstruction/types';
import type { FeatureUse } from '../report/build';
import type { InputColumnRecovery, TimelinePoint } from '../report/model';
import type { GroupDeclaration } from '../recoverability/declared-groups';
import { sidecarPaths } from '../recoverability/declared-groups';
import { packageVersion } from '../util/package-info';
import type { Recoverability } from '../recoverability/summary';
import type { SeverityOverrides } from '../rules';
import type { ReconstructionThresholds } from '../rules/reconstructable-training-set';
import type { Finding } from '../rules/types';
import type { StepAnswer, StepRequest } from '../cli/step';
import type { MembershipSummary } from '../membership/summary';
import { sidecarCandidatesHash } from '../membership/sidecar';

export interface ReconstructionRequest {
  budgetMs: number;
  maxFileBytes: number;
  /** Groups from the settings (`modelPrivacyLint.reconstruction.groups`); the sidecar adds its own. */
  groups: GroupDeclaration[];
  thresholds: ReconstructionThresholds;
  severities: SeverityOverrides;
  /**
   * Set for a what-if advisor job (after the file's reconstruction was accepted): the worker skips
   * the reconstruction and runs the advisor on this result, within `budgetMs` (the advisor's own
   * budget, see background-reconstruction.ts). Never cached: `key` is ''.
   */
  advise?: { current: ReconstructionResult };
  /**
   * Set for the command line's job: the worker runs its whole reconstruction step (cli/step.ts:
   * reconstruction, --training-data, --advise, --emit-reconstruction) and answers in `cli`.
   */
  cli?: StepRequest;
}

export interface ReconstructionOutcome {
  path: string;
  /** sha256 of the model bytes the worker read. */
  contentHash: string;
  /** The inputs this answer depends on (see `reconstructionKey`); empty when not cacheable. */
  key: string;
  recoverability: Recoverability;
  findings: Finding[];
  /** The model's features, in the order of each row's values, and whether a tree splits on each. */
  features: FeatureUse[];
  /** What the certified rows prove per Pipeline input column, when the model has one (report/input-columns.ts). */
  inputColumns?: InputColumnRecovery[];
  /** The engine's full result, rows included (personal data: server memory only, see above); null when it did not run. */
  result: ReconstructionResult | null;
  /** The engine's progress over time, for the report's chart (phases, not values). */
  timeline: TimelinePoint[];
  /** An advisor job's answer (absent from reconstruction jobs, and when the advisor job failed). */
  advisor?: AdvisorResult;
  /** A command-line job's answer (absent when its worker failed: `recoverability` says why). */
  cli?: StepAnswer;
  /**
   * The membership of the candidates the sidecar names (issue 14): aggregates only, never a
   * candidate's score or verdict; `problem` when the file could not be used. Absent without one.
   */
  membership?: MembershipSummary;
}

export type { ReconstructionProgress };

/** An advisor job's progress: simulations done of those planned, and the one now running. */
export interface AdvisorJobProgress {
  phase: 'advisor';
  elapsedMs: number;
  done: number;
  total: number;
  /** The scenario now running, e.g. "ε = 2". */
  label: string;
}

/** What the reconstruction worker posts while a job runs. */
export type JobProgress = ReconstructionProgress | AdvisorJobProgress;

/**
 * A progress message of the worker. A reconstruction's carries its timeline so far (thinned, at
 * most a few hundred points of phases and counters, never values), so that an open privacy report
 * can draw the progress chart while the run goes on instead of only at its end.
 */
export type JobUpdate = JobProgress & { timeline?: TimelinePoint[] };

/** A summary for a run that never reached the engine (unreadable model, worker fault). */
/** An outcome for a run that never reached the engine: no rows, no timeline. */
export function outcomeWithout(path: string, contentHash: string, status: 'skipped' | 'failed', reason: string): ReconstructionOutcome {
  return { path, contentHash, key: '', recoverability: recoverabilityWithout(status, reason), findings: [], features: [], result: null, timeline: [] };
}

export function recoverabilityWithout(status: 'skipped' | 'failed', reason: string): Recoverability {
  return {
    status,
    method: 'none',
    rows: null,
    certifiedRows: 0,
    reconstructedRows: 0,
    seconds: 0,
    reason,
    determinedFeatures: {},
    groups: { declared: 0, sources: [], problems: [] },
  };
}

/** The text of the sidecar the engine would read for this model ('' when there is none). */
async function sidecarText(modelPath: string): Promise<string> {
  for (const path of sidecarPaths(modelPath)) {
    try {
      return `${path}\n${await fs.readFile(path, 'utf8')}`;
    } catch {
      // not there: try the next name
    }
  }
  return '';
}

let version: string | undefined;

/**
 * Names everything a reconstruction's answer depends on: the model's bytes (by hash), its sidecar
 * (name and text) and the candidate file it names (by hash), the settings in the request (budget, size limit, groups, thresholds,
 * severities) and the tool's version. Equal keys, equal answers (up to timing), so a cached
 * answer can be reused. An advisor request's `advise` (the accepted result) is not part of it: see
 * `advisorKey`.
 */
export async function reconstructionKey(modelPath: string, contentHash: string, request: ReconstructionRequest): Promise<string> {
  const sidecar = await sidecarText(modelPath);
  // The candidate file the sidecar names (membership) is an input too: by its bytes.
  const candidates = await sidecarCandidatesHash(modelPath);
  const { advise: _advise, ...settings } = request;
  version ??= packageVersion();
  return createHash('sha256').update(JSON.stringify([version, contentHash, sidecar, settings, candidates])).digest('hex');
}

/**
 * The advisor's answer for a file depends on the reconstruction it scores (named by that
 * reconstruction's key, which covers the bytes, sidecar, settings and version) and its own budget.
 */
export function advisorKey(reconstruction: string, advisorBudgetMs: number): string {
  return createHash('sha256').update(JSON.stringify(['advisor', reconstruction, advisorBudgetMs])).digest('hex');
}
