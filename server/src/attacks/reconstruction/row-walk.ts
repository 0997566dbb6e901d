/**
 * Per-row propagation of leaf boxes, for the bounded search: a candidate training row of class c
 * is built by walking every tree from its root, in some order, narrowing a box of interval indices
 * (feature-axes.ts) at each split: where the box already lies on one side of the split there is no
 * choice; where it straddles it, a side is drawn with probability proportional to the rows of class
 * c still unplaced below it. The result is the intersection of one leaf box per tree, a box
 * that reaches exactly those leaves: a cell of the forest, found without enumerating them all.
 */
import type { Forest } from '../../forest/schema';
import { classCount } from '../../forest/structure';
import { cutIndexOfSplit } from './feature-axes';
import type { LeafTable } from './leaves';

export interface WalkTree {
  left: Int32Array;
  right: Int32Array;
  feature: Int32Array;
  /** Interval cut of each split: intervals < cut go left. */
  cut: Int32Array;
  /** Leaf index (as in the leaf table) of each leaf node, -1 on splits. */
  leafIndex: Int32Array;
  /** Integer training rows of class c below node n: `counts[n * classes + c]`. */
  counts: Int32Array;
}

export interface WalkForest {
  trees: WalkTree[];
  classes: number;
  features: number;
  /** Interval count per feature (the full box is 0 .. intervals - 1). */
  intervals: Int32Array;
}

export function walkForest(forest: Forest, table: LeafTable): WalkForest {
  const classes = classCount(forest);
  const trees = forest.trees.map((tree, t) => {
    const nodes = tree.left.length;
    const leafIndex = new Int32Array(nodes).fill(-1);
    table.trees[t].nodes.forEach((node, l) => (leafIndex[node] = l));
    const cut = new Int32Array(nodes);
    for (let n = 0; n < nodes; n++) if (tree.left[n] !== -1) cut[n] = cutIndexOfSplit(table.axes, tree.feature[n], tree.threshold[n]);
    return {
      left: Int32Array.from(tree.left),
      right: Int32Array.from(tree.right),
      feature: Int32Array.from(tree.feature),
      cut,
      leafIndex,
      counts: Int32Array.from(tree.classWeights, (w) => Math.round(w)),
    };
  });
  return { trees, classes, features: table.features, intervals: table.axes.intervals };
}

/** A candidate row: its box, the leaf it reaches in every tree, and its class. */
export interface WalkedRow {
  low: Int32Array;
  high: Int32Array;
  leaves: Int32Array;
  classIndex: number;
}

/**
 * Remaining (unplaced) rows per node and class, one array per tree, starting from the counts.
 * Placing a row subtracts it along its path; a count can go negative when a row is forced into a
 * leaf that has no room left (that is a leaf-count error of the reconstruction).
 */
export function freshRemaining(walk: WalkForest): Int32Array[] {
  return walk.trees.map((tree) => tree.counts.slice());
}

/**
 * Walks one row of class c through the trees in `order`, drawing sides with `random`, and
 * subtracts it from `remaining` when given. `force`, when given, fixes the leaf node of one tree
 * (the walk in that tree then follows the path to it, if the box allows; it is tried first).
 */
export function walkRow(
  walk: WalkForest,
  classIndex: number,
  order: ArrayLike<number>,
  random: () => number,
  remaining: Int32Array[] | undefined,
  force?: { tree: number; path: Uint8Array },
): WalkedRow {
  const { classes } = walk;
  const low = new Int32Array(walk.features);
  const high = Int32Array.from(walk.intervals, (k) => k - 1);
  const leaves = new Int32Array(walk.trees.length);
  const path: number[] = [];
  for (let i = 0; i < order.length; i++) {
    const t = order[i];
    const tree = walk.trees[t];
    const rest = remaining?.[t] ?? tree.counts;
    const forced = force && force.tree === t ? force.path : undefined;
    path.length = 0;
    let node = 0;
    while (tree.left[node] !== -1) {
      path.push(node);
      const f = tree.feature[node];
      const cut = tree.cut[node];
      const canLeft = low[f] < cut;
      const canRight = high[f] >= cut;
      let goLeft: boolean;
      if (canLeft && canRight) {
        if (forced && forced[node] !== 2) goLeft = forced[node] === 0;
        else goLeft = drawLeft(rest, tree.counts, tree.left[node], tree.right[node], classIndex, classes, random);
      } else goLeft = canLeft;
      if (goLeft) {
        if (high[f] > cut - 1) high[f] = cut - 1;
        node = tree.left[node];
      } else {
        if (low[f] < cut) low[f] = cut;
        node = tree.right[node];
      }
    }
    leaves[t] = tree.leafIndex[node];
    if (remaining) {
      rest[node * classes + classIndex]--;
      for (const n of path) rest[n * classes + classIndex]--;
    }
  }
  return { low, high, leaves, classIndex };
}

/**
 * Left with probability proportional to the class's remaining rows on each side; when neither side
 * has room, proportional to the stored counts (the least bad place for a surplus row); when both
 * are empty of the class, even odds.
 */
function drawLeft(rest: Int32Array, counts: Int32Array, left: number, right: number, c: number, classes: number, random: () => number): boolean {
  let a = Math.max(0, rest[left * classes + c]);
  let b = Math.max(0, rest[right * classes + c]);
  if (a + b === 0) {
    a = counts[left * classes + c];
    b = counts[right * classes + c];
  }
  if (a + b === 0) return random() < 0.5;
  return random() * (a + b) < a;
}

/**
 * The path to a leaf node as a per-node direction (0 left, 1 right, 2 not on the path), so that
 * `walkRow` can be forced into that leaf.
 */
export function pathTo(tree: WalkTree, leafNode: number): Uint8Array {
  const parent = new Int32Array(tree.left.length).fill(-1);
  for (let n = 0; n < tree.left.length; n++) {
    if (tree.left[n] === -1) continue;
    parent[tree.left[n]] = n;
    parent[tree.right[n]] = n;
  }
  const direction = new Uint8Array(tree.left.length).fill(2);
  for (let child = leafNode, n = parent[child]; n >= 0; child = n, n = parent[n]) direction[n] = tree.left[n] === child ? 0 : 1;
  return direction;
}
