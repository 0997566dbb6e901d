/**
 * The command line's `--advise` step: after a model's reconstruction, the what-if advisor
 * (server/src/advisor/) on the same model, with the same declared groups, scored against the
 * --training-data rows when they fit the model. It gets a budget of its own, twice --budget (it
 * runs about twenty reconstructions, each on a simulated model; with less, the likelihood
 * methods stop at rougher estimates), so `--advise` at most triples the time spent per model.
 */
import { advise, type AdvisorResult, type MembershipTruth } from '../advisor';
import { alignCandidates, type CandidateFile } from '../membership/candidates';
import type { ReconstructionResult } from '../attacks/reconstruction/types';
import type { CategoricalGroup } from '../attacks/reconstruction/types';
import type { EvaluatedRow } from '../evaluate/metrics';
import type { Forest } from '../forest/schema';
import { advisorBudgetMs } from '../advisor/budget';

/** The advisor's budget for a reconstruction budget of `budgetMs` (advisor/budget.ts). */
export { advisorBudgetMs };

export async function adviseForModel(
  forest: Forest,
  current: ReconstructionResult,
  options: { budgetMs: number; groups: readonly CategoricalGroup[]; truth?: readonly EvaluatedRow[]; candidates?: CandidateFile; log: (message: string) => void; path: string },
): Promise<AdvisorResult> {
  const budgetMs = advisorBudgetMs(options.budgetMs);
  const membership = options.candidates ? membershipTruth(forest, options.candidates) : undefined;
  const report = await advise(forest, current, { budgetMs, groups: options.groups, ...(options.truth ? { truth: options.truth } : {}), ...(membership ? { membership } : {}) });
  if (report.partial) options.log(`${options.path}: the advisor ran out of its budget of ${budgetMs / 1000} s; the scenarios not run are missing (raise --budget)`);
  return report;
}

/**
 * The candidates of --membership (or the sidecar's entry) as the advisor's membership truth: only
 * when they carry the members column and fit the model (else the membership step reports why).
 */
export function membershipTruth(forest: Forest, file: CandidateFile): MembershipTruth | undefined {
  if (!file.members) return undefined;
  const aligned = alignCandidates(file, forest);
  return aligned.ok ? { candidates: aligned.candidates, members: file.members } : undefined;
}
