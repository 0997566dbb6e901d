/**
 * The point search's moves (point-search.ts says what the search is), on flat typed arrays only,
 * so that the same code runs in the calling thread and in worker threads sharing the arrays
 * (point-search-thread.ts): the forest's splits packed four numbers per node, its open counts and
 * room tallies per tree, and per movable row its point, its leaves, its class and its group's box.
 *
 * With threads, counts change through `Atomics`, so threads moving rows of their own at once keep
 * every open count and room tally exact; what a thread reads of the others' moves may be a move late, which
 * only makes its estimate of a move's cost stale (the search recounts the error after each sweep).
 */
import { shuffleInPlace } from '../../../evaluate/seeded-random';
import { Candidates, openErrorChange, type BoxForest } from './box-forest';
import type { WalkTree } from '../row-walk';

/**
 * Leaves of the tree tried per row in an over-full leaf (drawn from those with room). 3 rather than
 * 6: cheaper sweeps, so more of them in the time (Pima without bootstrap, 60 s: error 3,324 and
 * 3,382 against 3,620 and 3,470 with 6).
 */
const TARGETS = 3;

/** One tree's splits as Candidates walks them (row-walk.ts's WalkTree without its counts). */
export type SplitTree = Pick<WalkTree, 'left' | 'right' | 'feature' | 'cut'>;

/** Everything a move reads and writes. Arrays marked shared are written by every thread. */
export interface SearchArrays {
  classes: number;
  features: number;
  trees: number;
  /** Every tree's splits, four numbers per node (packTrees), and each tree's root offset. */
  packed: Int32Array;
  roots: Int32Array;
  split: SplitTree[];
  parents: Int32Array[];
  /** Shared: per tree, rows of class c still to place below node n (box-forest.ts `open`). */
  open: Int32Array[];
  /** Shared: per tree, leaves with room below node n for class c (room-index.ts). */
  roomy: Int32Array[];
  /** Shared: per movable row, its point (an interval index per feature) and its leaf per tree. */
  points: Int32Array;
  leaves: Int32Array;
  rowClass: Int32Array;
  rowGroup: Int32Array;
  /** Per group of a movable row: its proven leaf per tree (-1: open) and its proven box. */
  groupLeaf: Int32Array;
  groupLow: Int32Array;
  groupHigh: Int32Array;
}

/** The moves of one thread: its scratch space, over arrays it may share with other threads. */
export class PointMover {
  private readonly candidates: Candidates;
  private picks = new Int32Array(64);
  private readonly trial: Int32Array;
  private readonly trialLeaves: Int32Array;
  private readonly movePoint: Int32Array;
  private readonly moveLeaves: Int32Array;
  private readonly treeOrder: Int32Array;
  private readonly groupLow: Int32Array;
  private readonly groupHigh: Int32Array;
  /** Moves kept so far (those that left the error unchanged, and the worse ones annealing took, included). */
  moves = 0;

  /** `shared`: other threads move rows over the same counts at once (then counts change atomically). */
  constructor(
    private readonly a: SearchArrays,
    private readonly shared = false,
  ) {
    this.candidates = new Candidates(a.features);
    this.trial = new Int32Array(a.features);
    this.trialLeaves = new Int32Array(a.trees);
    this.movePoint = new Int32Array(a.features);
    this.moveLeaves = new Int32Array(a.trees);
    this.treeOrder = Int32Array.from({ length: a.trees }, (_, t) => t);
    this.groupLow = new Int32Array(a.features);
    this.groupHigh = new Int32Array(a.features);
  }

  /**
   * Tries to move row i out of every over-full leaf it sits in (trees in random order): its point
   * pulled into the box of a leaf of that tree with room for its class, the best of TARGETS such
   * leaves, kept if it does not add to the error, or now and then while `temperature` is high.
   * Returns the change in the leaf-count error, as this thread sees the counts.
   */
  moveRow(i: number, temperature: number, random: () => number): number {
    const { classes, features, trees, open, points, leaves } = this.a;
    const c = this.a.rowClass[i];
    const g = this.a.rowGroup[i];
    const groupLeaf = this.a.groupLeaf;
    this.groupLow.set(this.a.groupLow.subarray(g * features, (g + 1) * features));
    this.groupHigh.set(this.a.groupHigh.subarray(g * features, (g + 1) * features));
    const { candidates, trial, treeOrder } = this;
    let change = 0;
    shuffleInPlace(treeOrder, random);
    for (const t of treeOrder) {
      if (groupLeaf[g * trees + t] !== -1) continue;
      // Only a row in a leaf holding too many rows of its class is moved out of it.
      if (open[t][leaves[i * trees + t] * classes + c] >= 0) continue;
      const found = candidates.find(this.a.split[t] as WalkTree, this.a.roomy[t], classes, c, this.groupLow, this.groupHigh);
      if (found > this.picks.length) this.picks = new Int32Array(2 * found);
      const picks = this.picks;
      let moveDelta = Infinity;
      for (let k = 0; k < Math.min(TARGETS, found); k++) {
        // A target drawn without repeats (a partial shuffle of 0 .. found - 1).
        if (k === 0) for (let j = 0; j < found; j++) picks[j] = j;
        const j = k + Math.floor(random() * (found - k));
        const target = picks[j];
        picks[j] = picks[k];
        picks[k] = target;
        // The row's point pulled into the target's box (inside the group's box already).
        for (let f = 0; f < features; f++) {
          trial[f] = Math.min(Math.max(points[i * features + f], candidates.boxLow(target, f)), candidates.boxHigh(target, f));
        }
        const delta = this.trialDelta(i, c, g);
        if (delta < moveDelta || (delta === moveDelta && random() < 0.5)) {
          moveDelta = delta;
          this.movePoint.set(trial);
          this.moveLeaves.set(this.trialLeaves);
        }
      }
      if (moveDelta === Infinity) continue;
      // A worse move is taken now and then while the search is hot (annealing), less as it cools.
      if (moveDelta > 0 && random() >= Math.exp(-moveDelta / temperature)) continue;
      this.setPoint(i, c, this.movePoint, this.moveLeaves);
      change += moveDelta;
      this.moves++;
    }
    return change;
  }

  /** Moves row i (class c) to `point`, whose leaves are `to`: the open counts and room tallies follow. */
  setPoint(i: number, c: number, point: Int32Array, to: Int32Array): void {
    const { trees, leaves } = this.a;
    for (let t = 0; t < trees; t++) {
      const from = leaves[i * trees + t];
      if (from === to[t]) continue;
      this.place(t, from, c, -1);
      this.place(t, to[t], c, 1);
      leaves[i * trees + t] = to[t];
    }
    this.a.points.set(point, i * this.a.features);
  }

  /**
   * `size` rows of class c into leaf `leaf` of tree t (negative: out of it): its open count and its
   * ancestors' drop, and when the leaf gains or loses room, its ancestors' room tallies follow.
   */
  private place(t: number, leaf: number, c: number, size: number): void {
    const { classes } = this.a;
    const open = this.a.open[t];
    const parent = this.a.parents[t];
    const roomy = this.a.roomy[t];
    // Atomics only where other threads write too: an atomic update costs about 8 plain ones.
    if (this.shared) {
      const before = Atomics.sub(open, leaf * classes + c, size);
      for (let n = parent[leaf]; n >= 0; n = parent[n]) Atomics.sub(open, n * classes + c, size);
      const step = (before - size > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
      if (step !== 0) for (let n = leaf; n >= 0; n = parent[n]) Atomics.add(roomy, n * classes + c, step);
      return;
    }
    const before = open[leaf * classes + c];
    for (let n = leaf; n >= 0; n = parent[n]) open[n * classes + c] -= size;
    const step = (before - size > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
    if (step !== 0) for (let n = leaf; n >= 0; n = parent[n]) roomy[n * classes + c] += step;
  }

  /** The change in the leaf-count error if row i's point became `trial` (its leaves go to trialLeaves). */
  private trialDelta(i: number, c: number, g: number): number {
    const { classes, trees, open, leaves, groupLeaf } = this.a;
    const trialLeaves = this.trialLeaves;
    let delta = 0;
    for (let t = 0; t < trees; t++) {
      const from = leaves[i * trees + t];
      if (groupLeaf[g * trees + t] !== -1) {
        trialLeaves[t] = from;
        continue;
      }
      const to = leafOf(this.a, t, this.trial, 0);
      trialLeaves[t] = to;
      if (to === from) continue;
      const counts = open[t];
      delta += openErrorChange(counts[from * classes + c], 1) + openErrorChange(counts[to * classes + c], -1);
    }
    return delta;
  }
}

/** The leaf node of tree t that the point at `point[at ..]` reaches. */
export function leafOf(a: Pick<SearchArrays, 'packed' | 'roots'>, t: number, point: Int32Array, at: number): number {
  const { packed } = a;
  const base = a.roots[t];
  let n = base;
  while (packed[n] >= 0) n = point[at + packed[n]] < packed[n + 1] ? packed[n + 2] : packed[n + 3];
  return (n - base) >> 2;
}

/** Sum of |open| over every leaf and class of the search's trees (complete.ts's leafCountError). */
export function searchError(a: SearchArrays): number {
  let error = 0;
  for (let t = 0; t < a.trees; t++) {
    const open = a.open[t];
    const left = a.split[t].left;
    for (let n = 0; n < left.length; n++) {
      if (left[n] !== -1) continue;
      for (let c = 0; c < a.classes; c++) error += Math.abs(open[n * a.classes + c]);
    }
  }
  return error;
}

/**
 * Every tree's splits in one array, four numbers per node: feature (-1 on leaves), cut, and the
 * offsets of the left and right child; `roots[t]` is tree t's root offset, so node n of tree t is at
 * roots[t] + 4n. The search walks a trial point down every tree for each move (most of its time), and
 * one array read in node order is faster than four: 30 sweeps on Pima without bootstrap, 6.9 s
 * against 8.0 s, the same moves.
 */
export function packTrees(forest: BoxForest): { packed: Int32Array; roots: Int32Array } {
  const roots = new Int32Array(forest.trees.length);
  let size = 0;
  forest.trees.forEach((tree, t) => {
    roots[t] = size;
    size += 4 * tree.left.length;
  });
  const packed = new Int32Array(size);
  forest.trees.forEach((tree, t) => {
    const base = roots[t];
    for (let n = 0; n < tree.left.length; n++) {
      const at = base + 4 * n;
      if (tree.left[n] === -1) {
        packed[at] = -1;
        continue;
      }
      packed[at] = tree.feature[n];
      packed[at + 1] = tree.cut[n];
      packed[at + 2] = base + 4 * tree.left[n];
      packed[at + 3] = base + 4 * tree.right[n];
    }
  });
  return { packed, roots };
}
