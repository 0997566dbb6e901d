/**
 * Remedy "larger leaves" (scikit-learn's min_samples_leaf = k), simulated on THIS model: bottom-up,
 * a split one of whose children is a leaf holding fewer than k rows is undone, its parent becoming
 * a leaf with the summed counts. Children are visited before their parent, so a parent that became
 * a small leaf is itself merged further up; in the end no leaf holds fewer than k rows unless the
 * whole tree does (its root alone).
 *
 * A simulation: min_samples_leaf forbids those splits when the tree is grown, and the tree then
 * picks other splits instead; merging only removes splits, so the simulated tree is coarser than a
 * retrained one would be. Counts are conserved: every row of a merged leaf is in its parent.
 * Regression trees too: their nodes' stored targets are those of the node's rows.
 */
import { LEAF, type Forest, type Tree } from '../forest/schema';
import { leavesOf, sumIntoInternalNodes } from './tree-sums';

export interface MergedForest {
  forest: Forest;
  /** Leaves before and after, over all trees. */
  leavesBefore: number;
  leavesAfter: number;
}

export function mergeSmallLeaves(forest: Forest, minLeafRows: number): MergedForest {
  const classes = forest.classes.length || 1;
  let leavesBefore = 0;
  let leavesAfter = 0;
  const trees = forest.trees.map((tree) => {
    const merged = mergeTree(tree, classes, minLeafRows);
    leavesBefore += leavesOf(tree.left).length;
    leavesAfter += leavesOf(merged.left).length;
    return merged;
  });
  return {
    forest: { ...forest, hyperParameters: { ...forest.hyperParameters, min_samples_leaf: minLeafRows }, trees },
    leavesBefore,
    leavesAfter,
  };
}

function mergeTree(tree: Tree, classes: number, minLeafRows: number): Tree {
  const n = tree.left.length;
  // Internal counts recomputed from the leaves, so that conservation holds whatever was stored.
  const weights = Array.from(tree.classWeights);
  sumIntoInternalNodes(tree.left, tree.right, weights, classes);
  const distinct = tree.distinctRows ? Array.from(tree.distinctRows) : undefined;
  if (distinct) sumIntoInternalNodes(tree.left, tree.right, distinct, 1);
  const total = (node: number) => {
    let sum = 0;
    for (let c = 0; c < classes; c++) sum += weights[node * classes + c];
    return sum;
  };

  const isLeaf = new Uint8Array(n);
  for (let node = n - 1; node >= 0; node--) {
    const l = tree.left[node];
    const r = tree.right[node];
    if (l === LEAF) isLeaf[node] = 1;
    else if ((isLeaf[l] && total(l) < minLeafRows) || (isLeaf[r] && total(r) < minLeafRows)) isLeaf[node] = 1;
  }

  // Keep the nodes still reachable, renumbered depth-first so that children follow their parent.
  const kept: number[] = [];
  const newId = new Int32Array(n).fill(-1);
  const stack = [0];
  while (stack.length) {
    const node = stack.pop()!;
    newId[node] = kept.length;
    kept.push(node);
    if (!isLeaf[node]) stack.push(tree.right[node], tree.left[node]);
  }
  const pick = <T>(column: ArrayLike<T>) => kept.map((node) => column[node]);
  const out: Tree = {
    ...tree,
    left: kept.map((node) => (isLeaf[node] ? LEAF : newId[tree.left[node]])),
    right: kept.map((node) => (isLeaf[node] ? LEAF : newId[tree.right[node]])),
    feature: kept.map((node) => (isLeaf[node] ? -2 : tree.feature[node])),
    threshold: kept.map((node) => (isLeaf[node] ? -2 : tree.threshold[node])),
    classWeights: kept.flatMap((node) => weights.slice(node * classes, node * classes + classes)),
  };
  if (tree.defaultLeft) out.defaultLeft = pick(tree.defaultLeft);
  if (distinct) out.distinctRows = pick(distinct);
  // A regression tree stores every node's own target statistics (mean, variance, median of the
  // rows that reach it): a merged leaf takes its node's, the statistics of exactly its rows.
  if (tree.targetMean) out.targetMean = pick(tree.targetMean);
  if (tree.targetVariance) out.targetVariance = pick(tree.targetVariance);
  if (tree.targetMedian) out.targetMedian = pick(tree.targetMedian);
  return out;
}
