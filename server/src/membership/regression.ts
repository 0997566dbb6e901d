/**
 * Membership against a regression forest: a candidate is its features and its target, and each
 * tree's leaf states the mean target of the rows that reached it (and, for squared error, their
 * variance; regression-box-labels.ts says when a leaf is pure: one distinct row, or zero variance).
 *
 * Per tree, how well the candidate's target fits its leaf:
 *  - a pure leaf: 1 when the target is the leaf's value (within PURE_TARGET of its size), else 0.
 *    Without bootstrap and sample weights every training row reached a leaf of every tree, so a
 *    candidate whose target differs from a pure leaf it reaches is no training row: a proven
 *    non-member. With bootstrap the tree may not have drawn it, so it is only evidence;
 *  - another leaf: exp(-(y - mean)^2 / (2 variance)), the leaf's rows read as a normal spread (the
 *    tree's root variance when the leaf stores none).
 * The score is the mean over trees. A member sits in pure leaves of its own target in every tree
 * that drew it (deep trees: most of them), a non-member in its neighbours' leaves.
 */
import type { Forest } from '../forest/schema';
import { PURE_TARGET, pureLeaf } from '../attacks/reconstruction/regression-box-labels';
import { targetFunction } from '../forest/target-transform';
import { mayMixFits } from '../forest/warm-start';

export interface RegressionScore {
  score: number;
  /** Proven only without bootstrap and sample weights (see the header). */
  nonMember: boolean;
}

/** Why a regression forest cannot be scored, or undefined when it can. */
export function regressionUnsupported(forest: Forest): string | undefined {
  if (!forest.trees.every((tree) => tree.targetMean !== undefined)) return "the trees store no mean targets (a tree of criterion='absolute_error' stores medians; a classifier read as row counts stores no targets), so a candidate's target cannot be tested";
  // A TransformedTargetRegressor's trees hold func(y): a candidate's y is comparable only through
  // the function (soundness sweep 16: raw targets against log1p ones made every member a "proven
  // non-member").
  if (forest.targetTransform !== undefined && !targetFunction(forest)) {
    return `the targets were transformed by ${forest.targetTransform} before fitting (a TransformedTargetRegressor), which this tool does not apply, so a candidate's target cannot be tested against the trees'`;
  }
  return undefined;
}

/** A candidate's target in the trees' scale (a TransformedTargetRegressor's function applied). */
export function targetInTreeScale(forest: Forest, target: number): number {
  const forward = targetFunction(forest);
  return forward ? forward(target) : target;
}

/** Whether a pure leaf's mismatch proves a non-member: every tree grew on every row, unweighted. */
export function regressionProves(forest: Forest): boolean {
  // warm_start: the trees may not have grown on the same rows (forest/warm-start.ts).
  return !forest.training.bootstrap && !forest.training.weighted && !mayMixFits(forest);
}

export function scoreRegressionCandidate(forest: Forest, leaves: Int32Array, target: number, proves: boolean): RegressionScore {
  const weighted = forest.training.weighted === true;
  let sum = 0;
  let nonMember = false;
  forest.trees.forEach((tree, t) => {
    const leaf = leaves[t];
    const mean = tree.targetMean![leaf];
    if (pureLeaf(tree, leaf, weighted)) {
      const same = Math.abs(target - mean) <= PURE_TARGET * Math.max(Math.abs(mean), Math.abs(target), Number.MIN_VALUE);
      if (same) sum += 1;
      else if (proves) nonMember = true;
      return;
    }
    const variance = tree.targetVariance?.[leaf] ?? tree.targetVariance?.[0];
    if (variance === undefined || !(variance > 0)) return;
    sum += Math.exp(-((target - mean) ** 2) / (2 * variance));
  });
  return { score: nonMember ? 0 : sum / forest.trees.length, nonMember };
}
