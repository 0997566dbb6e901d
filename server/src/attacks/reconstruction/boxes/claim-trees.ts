/**
 * Which tree certifies each class of a box estimate (estimate.ts). A single-class leaf proves that
 * many distinct training rows of its class inside its box, and rows of different classes are
 * different rows, so the claims of each class may come from a tree of its own: the one whose leaves
 * give the most of the walked rows of that class a proof. The anchor's groups are exact (each
 * proves what its leaf holds); another tree's leaf proves as many of the rows the walk put inside
 * it as it holds.
 */
import type { WalkTree } from '../row-walk';
import type { BoxForest } from './box-forest';
import type { CompletedRow, RowGroup } from './row-groups';

/**
 * Per class, the tree whose leaves certify the most of the walked rows of that class: for the
 * anchor, its groups' proven rows; for another tree, each leaf's proven rows of the class up to the
 * walked rows of the class that lie in it. The anchor on ties.
 */
export function bestClaimTrees(walk: BoxForest, rows: readonly CompletedRow[], proven: readonly Int32Array[], groups: readonly RowGroup[], anchor: number): number[] {
  const classes = walk.classes;
  const best = new Array<number>(classes).fill(anchor);
  const most = new Float64Array(classes);
  for (const group of groups) most[group.classIndex] += Math.min(group.size, proven[anchor][group.leaf[anchor] * classes + group.classIndex]);
  walk.trees.forEach((tree, t) => {
    if (t === anchor) return;
    const walked = new Int32Array(tree.left.length * classes);
    for (const row of rows) {
      const leaf = leafHolding(tree, row.low, row.high);
      if (leaf >= 0) walked[leaf * classes + row.classIndex]++;
    }
    const got = new Float64Array(classes);
    for (let at = 0; at < walked.length; at++) got[at % classes] += Math.min(walked[at], proven[t][at]);
    for (let c = 0; c < classes; c++) {
      if (got[c] > most[c]) {
        most[c] = got[c];
        best[c] = t;
      }
    }
  });
  return best;
}

/** The leaf of the tree whose region holds the whole box (interval indices), or -1 when the box straddles a split. */
export function leafHolding(tree: WalkTree, low: Int32Array, high: Int32Array): number {
  let node = 0;
  while (tree.left[node] !== -1) {
    const f = tree.feature[node];
    const cut = tree.cut[node];
    if (high[f] < cut) node = tree.left[node];
    else if (low[f] >= cut) node = tree.right[node];
    else return -1;
  }
  return node;
}
