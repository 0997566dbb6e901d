/**
 * Where a candidate row lands in each tree, and the region (box) of a leaf. The walk itself (float32
 * values against the thresholds, float64 for HistGradientBoosting) is the IR's own, forest/structure.ts.
 */
import type { Forest, Tree } from '../forest/schema';
import { LEAF } from '../forest/schema';
import { goesLeft, goesLeftAt, leafOf, type SplitRule } from '../forest/structure';
import { valueCast } from '../forest/value-precision';

export { goesLeft, leafOf, type SplitRule };

/** The leaf per tree, in tree order. */
export function leavesOf(forest: Pick<Forest, 'trees' | 'splitRule' | 'estimator'>, values: readonly number[]): Int32Array {
  const leaves = new Int32Array(forest.trees.length);
  const cast = valueCast(forest);
  for (let t = 0; t < forest.trees.length; t++) leaves[t] = leafOf(forest.trees[t], values, forest.splitRule, cast);
  return leaves;
}

/**
 * An axis-aligned box, one open-or-closed interval per feature, as bounds on the thresholds:
 * `lower[f] < x <= upper[f]` for scikit-learn's rule (`lower <= x < upper` for XGBoost's).
 * Treated as real intervals: a box is taken as non-empty whenever lower < upper, even if no float32
 * value lies inside; that only ever makes a proof fail, never makes one wrong.
 */
export interface Box {
  lower: Float64Array;
  upper: Float64Array;
}

export function fullBox(features: number): Box {
  return { lower: new Float64Array(features).fill(-Infinity), upper: new Float64Array(features).fill(Infinity) };
}

export function copyBox(box: Box): Box {
  return { lower: box.lower.slice(), upper: box.upper.slice() };
}

/** The box of the leaf a row reaches (the path's conditions merged); `cast`: valueCast of the forest. */
export function leafBox(tree: Tree, values: readonly number[], rule: SplitRule, features: number, cast: (value: number) => number = Math.fround): Box {
  const box = fullBox(features);
  let node = 0;
  while (tree.left[node] !== LEAF) {
    const f = tree.feature[node];
    const threshold = tree.threshold[node];
    // A missing value follows the split's direction for it; its box is then that side's interval.
    if (goesLeftAt(tree, node, cast(values[f]), rule)) {
      box.upper[f] = Math.min(box.upper[f], threshold);
      node = tree.left[node];
    } else {
      box.lower[f] = Math.max(box.lower[f], threshold);
      node = tree.right[node];
    }
  }
  return box;
}

/** Whether `inner` lies inside `outer` on every feature. */
export function boxInside(inner: Box, outer: Box): boolean {
  for (let f = 0; f < inner.lower.length; f++) {
    if (inner.lower[f] < outer.lower[f] || inner.upper[f] > outer.upper[f]) return false;
  }
  return true;
}
