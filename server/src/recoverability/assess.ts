/**
 * One model's reconstruction, as the CLI and the reconstruction worker run it: declared groups
 * (sidecar, settings, flags) -> engine within a budget -> the `recoverability` summary and the
 * `reconstructable-training-set` finding. The reconstructed rows are returned apart, for callers
 * that were asked to write or show them.
 */
import type { Forest } from '../forest/schema';
import { reconstruct } from '../attacks/reconstruction';
import type { ReconstructionProgress, ReconstructionResult } from '../attacks/reconstruction/types';
import { reconstructionFindings, type SeverityOverrides } from '../rules';
import { DEFAULT_THRESHOLDS, type ReconstructionThresholds } from '../rules/reconstructable-training-set';
import { placedIn } from '../rules/message';
import type { Finding } from '../rules/types';
import { declaredGroupsFor, type GroupDeclaration } from './declared-groups';
import { summarizeReconstruction, type Recoverability } from './summary';

export interface AssessOptions {
  budgetMs?: number;
  signal?: AbortSignal;
  onProgress?: (progress: ReconstructionProgress) => void;
  /** Groups declared outside the sidecar (settings, CLI flags), each with where it came from. */
  groups?: readonly { source: string; declarations: readonly GroupDeclaration[] }[];
  thresholds?: ReconstructionThresholds;
  severities?: SeverityOverrides;
  /** Where the model sits in its file, when not at its root (the finding says so, as the model rules' do). */
  model?: { location: string; estimator: string };
}

export interface Assessment {
  recoverability: Recoverability;
  findings: Finding[];
  /** The engine's full result, reconstructed rows included (personal data: handle with care). */
  result: ReconstructionResult;
}

export async function assessRecoverability(modelPath: string, forest: Forest, options: AssessOptions = {}): Promise<Assessment> {
  const declared = await declaredGroupsFor(modelPath, forest, options.groups ?? []);
  const result = await reconstruct(forest, {
    groups: declared.groups,
    ...(options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const recoverability = summarizeReconstruction(forest, result, {
    declared: declared.groups.length,
    sources: declared.sources,
    problems: declared.problems,
  });
  const model = options.model;
  const findings = reconstructionFindings(forest, recoverability, options.thresholds ?? DEFAULT_THRESHOLDS, options.severities ?? {}).map((finding) =>
    model ? { ...finding, message: placedIn(finding.message, model.location, model.estimator) } : finding,
  );
  return { recoverability, findings, result };
}
