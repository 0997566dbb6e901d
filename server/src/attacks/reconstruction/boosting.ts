/**
 * Boosted models (XGBoost): which method reads them.
 *  - reg:squarederror, multi:softprob/softmax: covers that count rows (boosting-counts.ts), certified;
 *  - binary:logistic: hessians matched tree by tree (boosting-hessians.ts), an estimate;
 *  - a dump, which states no objective: the objective first-tree probing found consistent (every
 *    first-tree leaf came out a whole number of rows under it), said in the answer's reason;
 *  - anything else: skipped, with the reason of the method closest to applying.
 */
import type { Forest } from '../../forest/schema';
import { isLogistic } from '../../forest/boosting';
import { isSquaredError } from '../boosted-covers';
import { probeFirstTrees } from '../first-tree-probe';
import type { ReconstructionDetails } from './aggregated';
import { isMultiClass, reconstructBoostedCounts } from './boosting-counts';
import { reconstructBoostedHessians } from './boosting-hessians';
import type { RunContext } from './context';
import type { ReconstructionResult } from './types';

export async function reconstructBoosting(forest: Forest, ctx: RunContext, expose: (details: ReconstructionDetails) => void, limits: { cells: number; share: number }): Promise<ReconstructionResult> {
  const read = withProbedObjective(forest);
  if ('skip' in read) return ctx.answer({ status: 'skipped', reason: read.skip, rows: forest.training.rows ?? null, certifiedRows: 0 });
  const model = read.forest;
  const objective = model.boosting!.objective;
  if (!isSquaredError(model) && !isMultiClass(model) && !isLogistic(objective)) {
    return ctx.answer({ status: 'skipped', reason: unreconstructedObjective(objective), rows: model.training.rows ?? null, certifiedRows: 0 });
  }
  const result = isSquaredError(model) || isMultiClass(model) ? await reconstructBoostedCounts(model, ctx, expose, limits) : await reconstructBoostedHessians(model, ctx);
  return read.assumption ? { ...result, reason: `${result.reason}; ${read.assumption}` } : result;
}

/**
 * A dump (`objective` unknown) read as the objective the probe settled on. Only single-output
 * objectives: a multi-class dump does not say which class each tree adds to.
 */
function withProbedObjective(forest: Forest): { forest: Forest; assumption?: string } | { skip: string } {
  const b = forest.boosting!;
  if (b.objective !== 'unknown') return { forest };
  const probe = probeFirstTrees(forest);
  if (probe.status !== 'exact' || !probe.objectiveAssumed) {
    return { skip: `the dump states no objective, and first-tree probing could not settle one (${probe.status}${probe.reason ? `: ${probe.reason}` : ''})` };
  }
  if (probe.objective !== 'binary:logistic' && probe.objective !== 'reg:squarederror') {
    return { skip: `the dump states no objective; its covers fit ${probe.objective}, but a multi-class dump does not say which class each tree adds to` };
  }
  return {
    forest: { ...forest, boosting: { ...b, objective: probe.objective } },
    assumption: `the dump states no objective: ${probe.objective} with base score ${b.baseScore[0]} assumed, since under it every first-tree leaf holds a whole number of rows`,
  };
}

/**
 * Why an objective neither boosted method reads is skipped, in the user's terms (it read "the
 * hessian reconstruction handles the logistic objectives", as if only those were reconstructed).
 */
export function unreconstructedObjective(objective: string): string {
  if (objective === 'reg:absoluteerror' || objective === 'reg:quantileerror') {
    return `${objective} is not reconstructed yet: every tree's covers count its rows (first-tree-exposes-counts states them), but its leaves hold quantiles of the residuals, not the gradient sums the reconstruction reads`;
  }
  if (objective === 'count:poisson' || objective === 'binary:hinge') {
    return `${objective} is not reconstructed yet: a row's hessian depends on its prediction, so only the first tree's covers count rows (first-tree-exposes-counts states them)`;
  }
  if (objective.startsWith('rank:')) return `${objective} is not reconstructed: a ranking objective weighs each row's hessian by the pairs of its query group, so the covers count no rows`;
  if (/^(reg:(tweedie|gamma|pseudohubererror|squaredlogerror)|survival:)/.test(objective)) {
    return `${objective} is not reconstructed: it weighs each row's hessian by its label or residual, so the covers count no rows`;
  }
  return `XGBoost's ${objective} is not reconstructed yet (reg:squarederror, the logistic and the multi-class objectives are)`;
}
