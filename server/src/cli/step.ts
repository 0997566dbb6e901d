/**
 * The command line's reconstruction step as one worker job (run by jobs/reconstruction-worker.ts):
 * the worker reads the model again with its IR kept, runs cli/reconstruction.ts on it, and sends
 * back what the command line's report takes from it. The model's IR never crosses the process
 * boundary; the reconstructed rows do only when the HTML report asks for them (`forReport`).
 */
import type { AdvisorReport } from '../report/model';
import { lintFile } from '../linter/linter';
import type { ReconstructionProgress, ReconstructionResult } from '../attacks/reconstruction/types';
import type { Evaluation } from '../evaluate/evaluation';
import type { Recoverability } from '../recoverability/summary';
import type { Finding } from '../rules/types';
import { adviseOn, reconstructReport, type ReconstructionStepOptions, type ReconstructionStepOutcome } from './reconstruction';
import { membershipStep, type MembershipStepOutcome } from './membership';
import type { CandidateFile } from '../membership/candidates';
import type { MembershipSummary } from '../membership/summary';

/**
 * The step's options without its callbacks, and the reader's size limit: what the worker gets.
 * With `adviseOn` (the result of the model's reconstruction step), the job runs the advisor only:
 * a job of its own, so that an advisor that exhausts its worker leaves the reconstruction reported.
 */
export type StepRequest = Omit<ReconstructionStepOptions, 'onProgress' | 'log'> & {
  maxFileBytes?: number;
  adviseOn?: ReconstructionResult;
  /** --membership: the candidates, scored after the reconstruction in the same job (its certified rows can prove membership). */
  membership?: { file: CandidateFile; emitPath?: string };
};

export interface StepAnswer {
  /** sha256 of the bytes the worker read (the command line checks they are the bytes it linted). */
  contentHash: string;
  outcome: ReconstructionStepOutcome;
  recoverability?: Recoverability;
  evaluation?: Evaluation;
  advisor?: AdvisorReport;
  /** --membership: the aggregates (per-candidate verdicts go only to the --emit-membership file, written by the worker). */
  membership?: MembershipSummary;
  membershipStep?: MembershipStepOutcome;
  /** Findings the step added (the reconstruction's). */
  findings: Finding[];
  /** The step's messages for stderr, in order. */
  logs: string[];
}

export async function runStep(path: string, request: StepRequest, onProgress: (progress: ReconstructionProgress) => void): Promise<StepAnswer> {
  const { maxFileBytes, adviseOn: current, membership, ...options } = request;
  const report = await lintFile(path, { keepForest: true, severities: options.severities, ...(maxFileBytes !== undefined ? { maxFileBytes } : {}) });
  const before = report.findings.length;
  const logs: string[] = [];
  if (current) {
    const candidates = membership ? { candidates: membership.file } : {};
    const advisor = report.forest ? await adviseOn(path, report.forest, current, undefined, { ...options, ...candidates, log: (message) => logs.push(message) }) : undefined;
    return { contentHash: report.contentHash, outcome: {}, ...(advisor ? { advisor } : {}), findings: [], logs };
  }
  const forest = report.forest; // the reconstruction step drops it from the report; membership still needs it
  const outcome = await reconstructReport(report, { ...options, ...(membership ? { keepResult: true } : {}), onProgress, log: (message) => logs.push(message) });
  let scored: MembershipStepOutcome | undefined;
  if (membership && forest) {
    const result = outcome.result;
    scored = await membershipStep(report, forest, {
      file: membership.file,
      ...(result ? { reconstruction: result.reconstruction, trainingRows: result.rows } : {}),
      ...(result?.contradiction ? { countsContradict: result.contradiction } : {}),
      ...(membership.emitPath !== undefined ? { emitPath: membership.emitPath } : {}),
      severities: options.severities,
      log: (message) => logs.push(message),
    });
    // The rows are personal data and large: they cross back only when the caller asked for them.
    if (!options.keepResult) delete outcome.result;
  }
  return {
    contentHash: report.contentHash,
    outcome,
    ...(report.recoverability ? { recoverability: report.recoverability } : {}),
    ...(report.evaluation ? { evaluation: report.evaluation } : {}),
    ...(report.advisor ? { advisor: report.advisor } : {}),
    ...(report.membership ? { membership: report.membership } : {}),
    ...(scored ? { membershipStep: scored } : {}),
    findings: report.findings.slice(before),
    logs,
  };
}
