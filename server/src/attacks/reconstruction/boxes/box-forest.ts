/**
 * The forest as the box propagation walks it: per tree its nodes with interval cuts (the walk of
 * ../row-walk.ts), parents (to go back up a leaf's path) and, per node and class, the rows still
 * to be placed below it. A box is a range of interval indices per feature (../feature-axes.ts);
 * `candidates` lists the leaves of one tree a box can reach that still have room for its class.
 */
import type { Forest } from '../../../forest/schema';
import type { LeafTable } from '../leaves';
import { walkForest, type WalkForest, type WalkTree } from '../row-walk';

export interface BoxForest extends WalkForest {
  parents: Int32Array[];
  /** Per tree, rows of class c still unplaced below node n: `open[t][n * classes + c]`. */
  open: Int32Array[];
}

/**
 * `counts`, when given, replaces the stored counts: per tree, rows of class c in leaf node n at
 * `n * classes + c` (other nodes ignored: they get their leaves' sums). The estimate (estimate.ts)
 * walks rows against counts it derived, not the stored ones.
 */
export function boxForest(forest: Forest, table: LeafTable, counts?: Int32Array[]): BoxForest {
  const walk = walkForest(forest, table);
  if (counts) {
    walk.trees.forEach((tree, t) => {
      const classes = walk.classes;
      const own = counts[t];
      // Children come after their parent: from the last node back, every node sums its children.
      for (let n = tree.left.length - 1; n >= 0; n--) {
        for (let c = 0; c < classes; c++) {
          tree.counts[n * classes + c] = tree.left[n] === -1 ? own[n * classes + c] : tree.counts[tree.left[n] * classes + c] + tree.counts[tree.right[n] * classes + c];
        }
      }
    });
  }
  const parents = walk.trees.map((tree) => {
    const parent = new Int32Array(tree.left.length).fill(-1);
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] === -1) continue;
      parent[tree.left[n]] = n;
      parent[tree.right[n]] = n;
    }
    return parent;
  });
  return { ...walk, parents, open: walk.trees.map((tree) => tree.counts.slice()) };
}

/**
 * Narrows low/high to leaf `node` of tree t: the interval ranges its path allows (the leaf table's
 * literals). What anchor groups start from.
 */
export function leafBoxReader(forest: BoxForest, table: LeafTable): (t: number, node: number, low: Int32Array, high: Int32Array) => void {
  return (t, node, low, high) => {
    const leaves = table.trees[t];
    const l = forest.trees[t].leafIndex[node];
    for (let k = leaves.literalStart[l]; k < leaves.literalStart[l + 1]; k++) {
      const f = leaves.literalFeature[k];
      low[f] = Math.max(low[f], leaves.literalLow[k]);
      high[f] = Math.min(high[f], leaves.literalHigh[k]);
    }
  };
}

/** Scratch space for one walk: the leaves found and, per leaf, its box cut down to the walked box. */
export class Candidates {
  leaves: Int32Array;
  boxes: Int32Array;
  count = 0;
  /** Per feature, the smallest box holding every candidate's box (valid when count > 0). */
  readonly hullLow: Int32Array;
  readonly hullHigh: Int32Array;
  private readonly low: Int32Array;
  private readonly high: Int32Array;
  /** While `best` runs: the walk keeps only the best leaf so far (its node, open count and box), listing none. */
  private bestOnly = false;
  private bestLeaf = -1;
  private bestOpen = -Infinity;
  private readonly bestLow: Int32Array;
  private readonly bestHigh: Int32Array;

  constructor(readonly features: number) {
    this.leaves = new Int32Array(64);
    this.boxes = new Int32Array(64 * 2 * features);
    this.hullLow = new Int32Array(features);
    this.hullHigh = new Int32Array(features);
    this.low = new Int32Array(features);
    this.high = new Int32Array(features);
    this.bestLow = new Int32Array(features);
    this.bestHigh = new Int32Array(features);
  }

  /**
   * The leaves of `tree` that the box low..high reaches and whose class-c rows are not all placed
   * (`open` > 0; `ignoreRoom` lists them all). Returns how many.
   */
  find(tree: WalkTree, open: Int32Array, classes: number, c: number, low: Int32Array, high: Int32Array, ignoreRoom = false): number {
    this.count = 0;
    this.low.set(low);
    this.high.set(high);
    this.hullLow.fill(0x7fffffff);
    this.hullHigh.fill(-1);
    this.visit(tree, open, classes, c, 0, ignoreRoom);
    return this.count;
  }

  /**
   * The leaf `find` would list first among those with the most class-c rows still to place (the
   * walks' choice, complete.ts), without listing the others: its box is written into low/high and
   * its node returned (-1 when the box reaches no leaf with room and `ignoreRoom` is false; then
   * low/high are unchanged). The walks call this once per row and tree, and listing every leaf
   * with room, each with its box, was most of their time.
   */
  best(tree: WalkTree, open: Int32Array, classes: number, c: number, low: Int32Array, high: Int32Array, ignoreRoom = false): number {
    this.low.set(low);
    this.high.set(high);
    this.bestLeaf = -1;
    this.bestOpen = -Infinity;
    this.bestOnly = true;
    this.visit(tree, open, classes, c, 0, ignoreRoom);
    this.bestOnly = false;
    if (this.bestLeaf >= 0) {
      low.set(this.bestLow);
      high.set(this.bestHigh);
    }
    return this.bestLeaf;
  }

  /** Box of candidate k: feature f's range is boxLow(k, f) .. boxHigh(k, f). */
  boxLow(k: number, f: number): number {
    return this.boxes[(2 * k) * this.features + f];
  }

  boxHigh(k: number, f: number): number {
    return this.boxes[(2 * k + 1) * this.features + f];
  }

  /** Copies candidate k's box into low/high. */
  copyBox(k: number, low: Int32Array, high: Int32Array): void {
    low.set(this.boxes.subarray(2 * k * this.features, (2 * k + 1) * this.features));
    high.set(this.boxes.subarray((2 * k + 1) * this.features, (2 * k + 2) * this.features));
  }

  /**
   * Whether the box low..high reaches some leaf of `tree` with class-c rows to place (`find` without
   * listing them: it stops at the first).
   */
  reaches(tree: WalkTree, open: Int32Array, classes: number, c: number, low: Int32Array, high: Int32Array): boolean {
    this.low.set(low);
    this.high.set(high);
    return this.any(tree, open, classes, c, 0);
  }

  private any(tree: WalkTree, open: Int32Array, classes: number, c: number, node: number): boolean {
    if (open[node * classes + c] <= 0) return false;
    if (tree.left[node] === -1) return true;
    const f = tree.feature[node];
    const cut = tree.cut[node];
    const low = this.low[f];
    const high = this.high[f];
    if (low < cut) {
      if (high > cut - 1) this.high[f] = cut - 1;
      const found = this.any(tree, open, classes, c, tree.left[node]);
      this.high[f] = high;
      if (found) return true;
    }
    if (high >= cut) {
      if (low < cut) this.low[f] = cut;
      const found = this.any(tree, open, classes, c, tree.right[node]);
      this.low[f] = low;
      if (found) return true;
    }
    return false;
  }

  /** Drops candidate k (the last one takes its place; the hull is not recomputed). */
  remove(k: number): void {
    const last = --this.count;
    if (k === last) return;
    const F = this.features;
    this.leaves[k] = this.leaves[last];
    this.boxes.copyWithin(2 * k * F, 2 * last * F, 2 * (last + 1) * F);
  }

  /** Recomputes the hull from the candidates left. */
  rehull(): void {
    const F = this.features;
    this.hullLow.fill(0x7fffffff);
    this.hullHigh.fill(-1);
    for (let k = 0; k < this.count; k++) {
      for (let f = 0; f < F; f++) {
        const low = this.boxes[2 * k * F + f];
        const high = this.boxes[(2 * k + 1) * F + f];
        if (low < this.hullLow[f]) this.hullLow[f] = low;
        if (high > this.hullHigh[f]) this.hullHigh[f] = high;
      }
    }
  }

  private visit(tree: WalkTree, open: Int32Array, classes: number, c: number, node: number, ignoreRoom: boolean): void {
    const here = open[node * classes + c];
    if (!ignoreRoom && here <= 0) return;
    if (tree.left[node] === -1) {
      if (!this.bestOnly) this.push(node);
      else if (here > this.bestOpen) {
        // Strictly more: the first of equals in visiting order, as the walks picked from `find`'s list.
        this.bestOpen = here;
        this.bestLeaf = node;
        this.bestLow.set(this.low);
        this.bestHigh.set(this.high);
      }
      return;
    }
    const f = tree.feature[node];
    const cut = tree.cut[node];
    const low = this.low[f];
    const high = this.high[f];
    if (low < cut) {
      if (high > cut - 1) this.high[f] = cut - 1;
      this.visit(tree, open, classes, c, tree.left[node], ignoreRoom);
      this.high[f] = high;
    }
    if (high >= cut) {
      if (low < cut) this.low[f] = cut;
      this.visit(tree, open, classes, c, tree.right[node], ignoreRoom);
      this.low[f] = low;
    }
  }

  private push(node: number): void {
    const k = this.count++;
    const F = this.features;
    if (k >= this.leaves.length) {
      const leaves = new Int32Array(this.leaves.length * 2);
      leaves.set(this.leaves);
      this.leaves = leaves;
      const boxes = new Int32Array(this.boxes.length * 2);
      boxes.set(this.boxes);
      this.boxes = boxes;
    }
    this.leaves[k] = node;
    this.boxes.set(this.low, 2 * k * F);
    this.boxes.set(this.high, (2 * k + 1) * F);
    for (let f = 0; f < F; f++) {
      if (this.low[f] < this.hullLow[f]) this.hullLow[f] = this.low[f];
      if (this.high[f] > this.hullHigh[f]) this.hullHigh[f] = this.high[f];
    }
  }
}

/** Places `size` rows of class c in leaf `node` of tree t: its open count and its ancestors' drop. */
export function place(forest: BoxForest, t: number, node: number, c: number, size: number): void {
  const open = forest.open[t];
  const parent = forest.parents[t];
  for (let n = node; n >= 0; n = parent[n]) open[n * forest.classes + c] -= size;
}

/**
 * How a leaf's part of the leaf-count error (|open|) changes when one row leaves it (`step` +1:
 * its open count rises) or enters it (-1).
 */
export function openErrorChange(open: number, step: 1 | -1): number {
  return Math.abs(open + step) - Math.abs(open);
}
