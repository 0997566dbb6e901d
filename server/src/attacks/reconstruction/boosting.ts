/**
 * Boosted models (XGBoost): which method reads them.
 *  - reg:squarederror, multi:softprob/softmax: covers that count rows (boosting-counts.ts), certified;
 *  - binary:logistic: hessians matched tree by tree (boosting-hessians.ts), an estimate;
 *  - anything else: skipped, with the reason of the method closest to applying.
 */
import type { Forest } from '../../forest/schema';
import { isSquaredError } from '../boosted-covers';
import type { ReconstructionDetails } from './aggregated';
import { isMultiClass, reconstructBoostedCounts } from './boosting-counts';
import { reconstructBoostedHessians } from './boosting-hessians';
import type { RunContext } from './context';
import type { ReconstructionResult } from './types';

export async function reconstructBoosting(forest: Forest, ctx: RunContext, expose: (details: ReconstructionDetails) => void, limits: { cells: number; share: number }): Promise<ReconstructionResult> {
  if (isSquaredError(forest) || isMultiClass(forest)) return reconstructBoostedCounts(forest, ctx, expose, limits);
  return reconstructBoostedHessians(forest, ctx);
}
