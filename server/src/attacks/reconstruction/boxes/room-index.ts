/**
 * Which leaves still have room, found fast. Once every row is placed, an inner node's open count
 * is the sum of its leaves', over-full ones included (mostly 0), so it no longer tells whether a
 * leaf with room lies below. This index keeps, per tree, node and class, how many leaves below the
 * node hold fewer rows of the class than the model stores, updated as rows move, so a search for
 * such leaves inside a box skips every subtree without one (point-search.ts, through Candidates).
 */
import type { BoxForest } from './box-forest';

export class RoomIndex {
  /** Per tree, leaves with room below node n for class c: `roomy[t][n * classes + c]`. */
  private readonly roomy: Int32Array[];

  constructor(private readonly forest: BoxForest) {
    const { classes } = forest;
    this.roomy = forest.trees.map((tree, t) => {
      const roomy = new Int32Array(tree.left.length * classes);
      const open = forest.open[t];
      // Children come after their parent: from the last node back, every node sums its children.
      for (let n = tree.left.length - 1; n >= 0; n--) {
        for (let c = 0; c < classes; c++) {
          roomy[n * classes + c] = tree.left[n] === -1 ? (open[n * classes + c] > 0 ? 1 : 0) : roomy[tree.left[n] * classes + c] + roomy[tree.right[n] * classes + c];
        }
      }
      return roomy;
    });
  }

  /**
   * To call after leaf `leaf` of tree t changed its open count for class c from `before` to its
   * current value (place() in box-forest.ts changes it): a leaf gaining or losing room updates
   * its ancestors' tallies.
   */
  changed(t: number, leaf: number, c: number, before: number): void {
    const { classes } = this.forest;
    const after = this.forest.open[t][leaf * classes + c];
    const step = (after > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
    if (step === 0) return;
    const roomy = this.roomy[t];
    const parent = this.forest.parents[t];
    for (let n = leaf; n >= 0; n = parent[n]) roomy[n * classes + c] += step;
  }

  /**
   * Tree t's tallies, in the layout of its open counts: positive exactly where a leaf with room for
   * the class lies below. Candidates.find (box-forest.ts) walks against them as against open
   * counts, so it lists the leaves with room inside a box and skips every subtree without one.
   */
  tallies(t: number): Int32Array {
    return this.roomy[t];
  }
}
