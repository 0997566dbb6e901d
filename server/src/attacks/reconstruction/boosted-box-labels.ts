/**
 * Targets for squared-error boosted regressors reconstructed by row-boxes (XGBoost
 * reg:squarederror, scikit-learn's GradientBoostingRegressor and HistGradientBoostingRegressor read
 * as it). row-boxes runs on the count view (every tree's covers count rows), so its rows come back
 * with proven boxes but no target.
 *
 * What the model proves: with squared error every row's hessian is 1 and its gradient is
 * F - y, F the margin before the tree (base score plus the earlier trees' leaf values). A leaf that
 * holds one row (cover 1) has weight w = (y - F) / (1 + lambda), so y = F + (1 + lambda) w, with
 * w = leaf value / learning rate. A row whose proven box lies inside one leaf of every tree up to
 * such a leaf has a known F there, so its target is certified. Several such leaves must agree
 * (float32 rounding apart); a row whose leaves disagree is not certified.
 *
 * Not readable (no target certified): sample weights or an L1 term or max_delta_step (the weight
 * is no longer (y - F) / (1 + lambda)), an unknown learning rate. dart: only the first tree, since
 * later trees were fitted to predictions with some trees dropped. subsample < 1: only the first
 * tree, whose drawn rows are the rows certified (boosted-subsample.ts); a later tree's one-row
 * leaf may hold another row of the box than the one certified.
 *
 * Every other row's target is the model's prediction at its point (an estimate).
 */
import type { Forest } from '../../forest/schema';
import { boostedMargins, leafOfBox } from '../../forest/structure';
import { withTargets } from './regression-box-labels';
import { probeFirstTrees } from '../first-tree-probe';
import type { ReconstructionResult } from './types';
import { formatCount, pluralPossessive } from '../../util/wording';

/** What the leaf weights need, or undefined when they do not give targets (see the module comment). */
export interface BoostedWeights {
  eta: number;
  lambda: number;
  /**
   * Trees whose one-row leaves prove targets: their gradients came from the plain sum of the trees
   * before them and their one row is the row of the box (dart, subsample: only tree 0).
   */
  trees: number;
  /** Why only the first `trees` trees prove targets, for the reason ('dart', 'subsample=0.8'). */
  treesWhy?: string;
}

/** Relative agreement required between two one-row leaves' targets for the same row (float32 sums). */
const AGREEMENT = 1e-4;

/** The target a box proves (see the module comment), or undefined. */
export function certifiedTarget(forest: Forest, intervals: readonly ([number, number] | null)[], weights: BoostedWeights): number | undefined {
  let margin = forest.boosting!.baseScore[0];
  let target: number | undefined;
  for (let t = 0; t < forest.trees.length; t++) {
    const tree = forest.trees[t];
    const b = tree.boosting!;
    const leaf = leafOfBox(tree, intervals);
    if (leaf < 0) break;
    if (t < weights.trees && Math.round(b.cover![leaf]) === 1) {
      const y = margin + ((1 + weights.lambda) * b.leafValue[leaf]) / weights.eta;
      if (target === undefined) target = y;
      else if (Math.abs(y - target) > AGREEMENT * Math.max(1, Math.abs(target))) return undefined;
    }
    margin += b.leafValue[leaf];
  }
  return target;
}

/** The model's prediction at a point: base score plus every tree's leaf value. */
function prediction(forest: Forest, point: readonly number[]): number {
  return boostedMargins(forest, point, forest.boosting!.baseScore[0])[0];
}

/**
 * What rows carry when the budget ends before their targets: the training rows' mean target as the
 * first tree states it (its leaves' label sums over its rows), else the base score. A base score
 * left at XGBoost's default 0.5 meant nothing for a house-price model (mean target 491,027).
 */
function lateStandIn(forest: Forest): { value: number; words: string } {
  const probe = probeFirstTrees(forest);
  if (probe.labelSum !== undefined && probe.rows !== undefined && probe.rows > 0) {
    return { value: probe.labelSum / probe.rows, words: "the training rows' mean target, as the first tree states it" };
  }
  return { value: forest.boosting!.baseScore[0], words: "the model's base score" };
}

export function labelBoostedBoxes(forest: Forest, result: ReconstructionResult, weights: BoostedWeights | undefined, unreadable: string, stop: () => boolean = () => false): ReconstructionResult {
  return withTargets(
    result,
    (row) => {
      const target = row.certified && weights && row.intervals ? certifiedTarget(forest, row.intervals, weights) : undefined;
      return target !== undefined ? { target } : { estimate: prediction(forest, row.values.map((v) => v ?? 0)) };
    },
    (certified, withoutLabel, rows) =>
      !weights
        ? `${unreadable}; each row's target is the model's prediction at its point`
        : `${certified > 0 ? `${formatCount(certified)} ${certified === 1 ? 'row' : 'rows'} certified with ${certified === 1 ? 'its' : 'their'} target: each lies` : 'no row certified with its target: none lies'}, in every tree up to one, inside one leaf, with that tree's leaf holding only it to give its target (${forest.library.name === 'xgboost' ? "the margin before the tree plus (1 + lambda) x the leaf's weight" : "the prediction before the tree plus that one row's residual, which the leaf's stored value gives"})${weights.trees < forest.trees.length ? ` (${weights.treesWhy ?? 'the method'}: tree 0 only)` : ''}; ${pluralPossessive(rows - certified, 'row')} targets are the model's prediction at their point (an estimate)${withoutLabel > 0 ? `, ${formatCount(withoutLabel)} of them in proven boxes` : ''}`,
    { stop, standIn: () => lateStandIn(forest) },
  );
}
