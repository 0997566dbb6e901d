/**
 * Training rows as groups of identical unknowns. Without bootstrap every tree saw every row once,
 * so the rows of class c in one leaf of an anchor tree are `size` distinct training rows about which
 * the model says the same thing: a group, with the box they all lie in and, per tree, the leaf they
 * all reach once that is proven (-1 until then). The propagation narrows boxes, places groups in
 * leaves, and splits a group when its members provably go different ways (any member may be taken
 * for any other: they are interchangeable, so which one goes where is ours to choose).
 */
import type { BoxForest } from './box-forest';
import { place } from './box-forest';

export interface RowGroup {
  size: number;
  classIndex: number;
  low: Int32Array;
  high: Int32Array;
  /** Per tree, the leaf node every member reaches, or -1 while not proven. */
  leaf: Int32Array;
  /** Trees whose leaf is still unknown. */
  unplaced: number;
}

/** One row of the completion (complete.ts, point-search.ts): its group, class and box. */
export interface CompletedRow {
  group: number;
  classIndex: number;
  /** The box after the walk (inside the group's proven box). */
  low: Int32Array;
  high: Int32Array;
}

/** The groups of the anchor tree's leaves (one per leaf and class with rows), placed in that tree. */
export function anchorGroups(forest: BoxForest, anchor: number, leafBox: LeafBox): RowGroup[] {
  return classAnchorGroups(forest, new Array<number>(forest.classes).fill(anchor), leafBox);
}

/**
 * The groups of each class from its own anchor tree's leaves (`anchors[c]`), placed in that tree.
 * Rows of different classes are different rows, so each class's rows may be seeded by another tree
 * (box-estimate takes, per class, the tree whose leaves prove the most rows of it).
 */
export function classAnchorGroups(forest: BoxForest, anchors: readonly number[], leafBox: LeafBox): RowGroup[] {
  const groups: RowGroup[] = [];
  const { classes, features } = forest;
  const trees = forest.trees.length;
  // Every interval of every feature, copied per group (built once: a mapped Int32Array.from per
  // group took seconds over a public forest's 10,598 split features and 2,300 groups).
  const top = Int32Array.from(forest.intervals, (k) => k - 1);
  // Leaf by leaf, then class by class, as with one anchor (the walks' order follows the groups').
  for (const anchor of new Set(anchors)) {
    const tree = forest.trees[anchor];
    for (let node = 0; node < tree.left.length; node++) {
      if (tree.left[node] !== -1) continue;
      for (let c = 0; c < classes; c++) {
        if (anchors[c] !== anchor) continue;
        const size = tree.counts[node * classes + c];
        if (size <= 0) continue;
        const low = new Int32Array(features);
        const high = top.slice();
        leafBox(anchor, node, low, high);
        const leaf = new Int32Array(trees).fill(-1);
        leaf[anchor] = node;
        place(forest, anchor, node, c, size);
        groups.push({ size, classIndex: c, low, high, leaf, unplaced: trees - 1 });
      }
    }
  }
  return groups;
}

type LeafBox = (t: number, node: number, low: Int32Array, high: Int32Array) => void;

/** A copy of `group` with `size` members (the caller takes them out of the original). */
export function splitOff(group: RowGroup, size: number): RowGroup {
  return { size, classIndex: group.classIndex, low: group.low.slice(), high: group.high.slice(), leaf: group.leaf.slice(), unplaced: group.unplaced };
}
