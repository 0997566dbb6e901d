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

/**
 * The step's options without its callbacks, and the reader's size limit: what the worker gets.
 * With `adviseOn` (the result of the model's reconstruction step), the job runs the advisor only:
 * a job of its own, so that an advisor that exhausts its worker leaves the reconstruction reported.
 */
export type StepRequest = Omit<ReconstructionStepOptions, 'onProgress' | 'log'> & { maxFileBytes?: number; adviseOn?: ReconstructionResult };

export interface StepAnswer {
  /** sha256 of the bytes the worker read (the command line checks they are the bytes it linted). */
  contentHash: string;
  outcome: ReconstructionStepOutcome;
  recoverability?: Recoverability;
  evaluation?: Evaluation;
  advisor?: AdvisorReport;
  /** Findings the step added (the reconstruction's). */
  findings: Finding[];
  /** The step's messages for stderr, in order. */
  logs: string[];
}

export async function runStep(path: string, request: StepRequest, onProgress: (progress: ReconstructionProgress) => void): Promise<StepAnswer> {
  const { maxFileBytes, adviseOn: current, ...options } = request;
  const report = await lintFile(path, { keepForest: true, severities: options.severities, ...(maxFileBytes !== undefined ? { maxFileBytes } : {}) });
  const before = report.findings.length;
  const logs: string[] = [];
  if (current) {
    const advisor = report.forest ? await adviseOn(path, report.forest, current, undefined, { ...options, log: (message) => logs.push(message) }) : undefined;
    return { contentHash: report.contentHash, outcome: {}, ...(advisor ? { advisor } : {}), findings: [], logs };
  }
  const outcome = await reconstructReport(report, { ...options, onProgress, log: (message) => logs.push(message) });
  return {
    contentHash: report.contentHash,
    outcome,
    ...(report.recoverability ? { recoverability: report.recoverability } : {}),
    ...(report.evaluation ? { evaluation: report.evaluation } : {}),
    ...(report.advisor ? { advisor: report.advisor } : {}),
    findings: report.findings.slice(before),
    logs,
  };
}
