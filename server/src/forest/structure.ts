/**
 * Walking a tree of the IR: leaves, the path conditions that lead to them, depths, node totals and
 * the leaf a row reaches. Shared by rules and analyses so that no one re-derives tree structure on
 * their own.
 */
import type { Forest, Tree } from './schema';
import { LEAF } from './schema';

export function classCount(forest: Pick<Forest, 'classes'>): number {
  return Math.max(1, forest.classes.length);
}

export function isLeaf(tree: Tree, node: number): boolean {
  return tree.left[node] === LEAF;
}

/** Sum of the weighted per-class counts at a node (the number of draws that reached it). */
export function nodeWeight(tree: Tree, node: number, classes: number): number {
  let total = 0;
  const base = node * classes;
  for (let c = 0; c < classes; c++) total += tree.classWeights[base + c];
  return total;
}

/** Weighted counts of one node, one entry per class. */
export function nodeClassWeights(tree: Tree, node: number, classes: number): number[] {
  return tree.classWeights.slice(node * classes, node * classes + classes);
}

export type SplitRule = Forest['splitRule'];

/** Whether `value` (already float32) goes left at a node with this threshold. */
export function goesLeft(value: number, threshold: number, rule: SplitRule): boolean {
  return rule === 'less' ? value < threshold : value <= threshold;
}

/**
 * The leaf (node id) a row reaches in one tree. Values are cast to float32 first because both
 * scikit-learn (`X` is converted to float32 before `apply`) and XGBoost compare float32 features
 * against the stored thresholds; a float64 value just above a threshold can round onto it.
 * HistGradientBoosting compares float64 values: `cast` is then value-precision.ts's valueCast.
 */
export function leafOf(tree: Tree, values: readonly number[], rule: SplitRule, cast: (value: number) => number = Math.fround): number {
  let node = 0;
  while (tree.left[node] !== LEAF) {
    const v = cast(values[tree.feature[node]]);
    node = goesLeftAt(tree, node, v, rule) ? tree.left[node] : tree.right[node];
  }
  return node;
}

/** Whether `value` (float32, or NaN for a missing value) goes left at this node of the tree. */
export function goesLeftAt(tree: Tree, node: number, value: number, rule: SplitRule): boolean {
  return Number.isNaN(value) ? missingGoesLeft(tree, node) : goesLeft(value, tree.threshold[node], rule);
}

/**
 * Where a missing value goes at a split: the direction the file states (XGBoost's `default_left`,
 * scikit-learn 1.3+'s and HistGradientBoosting's `missing_go_to_left`), else the child with more
 * training rows, ties to the right, which is what scikit-learn 1.3+ does at a split that saw no
 * missing values (formats/sklearn/missing-directions.ts leaves such directions out of the IR).
 * Models saved by older versions refuse missing values; this is the nearest reading of them.
 */
export function missingGoesLeft(tree: Tree, node: number): boolean {
  return tree.defaultLeft ? tree.defaultLeft[node] : largerChildIsLeft(tree, node);
}

/** Whether a split's left child holds more training rows than its right (distinct rows where the tree keeps them, else weight). */
export function largerChildIsLeft(tree: Tree, node: number): boolean {
  const size = (n: number) => {
    if (tree.distinctRows) return tree.distinctRows[n];
    const classes = Math.max(1, Math.round(tree.classWeights.length / tree.left.length));
    return nodeWeight(tree, n, classes);
  };
  return size(tree.left[node]) > size(tree.right[node]);
}

/**
 * The leaf of `tree` that every point of the box reaches, or -1 when the box straddles a split.
 * `intervals` as in ReconstructedRow: null where the box spans the feature's whole axis. Whatever
 * the split rule, a box lies left of a threshold when its upper end is at most the threshold, and
 * right of it when its lower end is at least the threshold (the ends are the forest's thresholds).
 */
export function leafOfBox(tree: Tree, intervals: readonly ([number, number] | null)[]): number {
  let node = 0;
  while (tree.left[node] !== LEAF) {
    const bounds = intervals[tree.feature[node]];
    if (!bounds) return -1;
    const threshold = tree.threshold[node];
    if (bounds[1] <= threshold) node = tree.left[node];
    else if (bounds[0] >= threshold) node = tree.right[node];
    else return -1;
  }
  return node;
}

/**
 * The leaves of `tree` whose regions meet the box (`intervals` as in leafOfBox; a box end at a
 * threshold counts on the side it is bounded by, whatever the split rule).
 */
export function leavesMeetingBox(tree: Tree, intervals: readonly ([number, number] | null)[]): number[] {
  const found: number[] = [];
  const stack = [0];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (tree.left[node] === LEAF) {
      found.push(node);
      continue;
    }
    const bounds = intervals[tree.feature[node]];
    const threshold = tree.threshold[node];
    if (!bounds || bounds[0] < threshold) stack.push(tree.left[node]);
    if (!bounds || bounds[1] > threshold) stack.push(tree.right[node]);
  }
  return found;
}

/** One step on the way from the root to a node: `x[feature] <= threshold` (goesLeft) or `>`. */
export interface Condition {
  feature: number;
  threshold: number;
  goesLeft: boolean;
}

/** Visits every leaf with the conditions on its path, depth first, without recursion (trees can be deep). */
export function forEachLeaf(tree: Tree, visit: (leaf: number, path: readonly Condition[]) => void): void {
  const path: Condition[] = [];
  // Stack entries: node to enter, and the path length at which it hangs.
  const stack: { node: number; depth: number; step?: Condition }[] = [{ node: 0, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth, step } = stack.pop()!;
    path.length = depth;
    if (step) path.push(step);
    if (isLeaf(tree, node)) {
      visit(node, path);
      continue;
    }
    const feature = tree.feature[node];
    const threshold = tree.threshold[node];
    const nextDepth = path.length;
    stack.push({ node: tree.right[node], depth: nextDepth, step: { feature, threshold, goesLeft: false } });
    stack.push({ node: tree.left[node], depth: nextDepth, step: { feature, threshold, goesLeft: true } });
  }
}

/** Depth of the deepest leaf (a lone root has depth 0). */
export function treeDepth(tree: Tree): number {
  let deepest = 0;
  forEachLeaf(tree, (_leaf, path) => {
    if (path.length > deepest) deepest = path.length;
  });
  return deepest;
}

/** The interval a path confines one feature to: lower < x <= upper (either side may be open). */
export interface FeatureInterval {
  feature: number;
  lower?: number;
  upper?: number;
}

/** Merges a path's conditions into one interval per feature, in order of first use. */
export function pathBox(path: readonly Condition[]): FeatureInterval[] {
  const byFeature = new Map<number, FeatureInterval>();
  for (const { feature, threshold, goesLeft } of path) {
    let interval = byFeature.get(feature);
    if (!interval) {
      interval = { feature };
      byFeature.set(feature, interval);
    }
    if (goesLeft) interval.upper = interval.upper === undefined ? threshold : Math.min(interval.upper, threshold);
    else interval.lower = interval.lower === undefined ? threshold : Math.max(interval.lower, threshold);
  }
  return [...byFeature.values()];
}

/**
 * A boosted model's margin per output group at a point: the starting margin (`start`, e.g.
 * forest/boosting.ts's baseMargin) plus the leaf value each tree of the group sends the point to.
 */
export function boostedMargins(forest: Forest, point: readonly number[], start: number): number[] {
  const margins = new Array<number>(forest.boosting!.outputGroups).fill(start);
  for (const tree of forest.trees) margins[tree.boosting!.group] += tree.boosting!.leafValue[leafOf(tree, point, forest.splitRule)];
  return margins;
}
