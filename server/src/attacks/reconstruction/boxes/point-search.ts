/**
 * After the walks (complete.ts), a local search over points. The walks place a row tree by tree,
 * so a leaf chosen early can leave no room later; what is left are rows sitting in leaves that
 * hold more rows of their class than the model stores, beside leaves that hold fewer. Here each
 * walked row is one point (an interval index per feature, inside its group's proven box), and a
 * move takes a row out of an over-full leaf: its point is pulled into the box of a leaf of that
 * tree with room for its class (changing only the features that box requires), which may move it
 * in other trees too; the move's cost is the change of the leaf-count error over all trees.
 * Moves that do not add are kept; moves that add are kept now and then while the search is hot
 * (simulated annealing, cooling over a fixed number of sweeps or the time left, whichever ends
 * first), and the best points seen are the answer.
 *
 * Like the walks, this picks one of the training sets the propagation left open (an estimate):
 * points never leave their group's proven box, so the proven leaves and boxes are unchanged.
 */
import { seededRandom, shuffleInPlace } from '../../../evaluate/seeded-random';
import { Candidates, openErrorChange, place, type BoxForest } from './box-forest';
import { RoomIndex } from './room-index';
import type { CompletedRow, RowGroup } from './row-groups';

export interface PointSearch {
  /** Leaf-count error after the search (as complete.ts counts it). */
  leafCountError: number;
  /** Moves kept (those that left the error unchanged, and the worse ones annealing took, included). */
  moves: number;
  /** Sweeps over the rows in over-full leaves. */
  sweeps: number;
}

/**
 * Leaves of the tree tried per row in an over-full leaf (drawn from those with room). 3 rather than
 * 6: cheaper sweeps, so more of them in the time (Pima without bootstrap, 60 s: error 3,324 and
 * 3,382 against 3,620 and 3,470 with 6).
 */
const TARGETS = 3;
/**
 * Sweeps of the annealing schedule, or the time left when that runs out first. The search gains
 * with a slower schedule (Pima without bootstrap: error 4,318 after 80 sweeps, 3,398 after 160,
 * 3,166 after 320, with a longer budget), and since stop 39 it gets the time the repair passes
 * gave up (complete.ts REPAIR_PASSES): at 60 s Pima's forests stop on the clock (282 sweeps), and
 * the cap decides the time of smaller ones (wine without bootstrap 0.4 -> 0.7 s, error 116 -> 114;
 * breast cancer 13 -> 33 s of search, error 930 -> 760, within the 60 s budget). The certified
 * rows do not depend on the search (only the points do), so a schedule that ends on a loaded
 * machine's clock changes no proof.
 */
const SWEEPS = 400;
/**
 * The temperature falls from HOT to COLD over the schedule: a move that adds d to the error is
 * taken with probability exp(-d / temperature). Measured on Pima without bootstrap (60 s budget):
 * accepting only moves that do not add (temperature 0) left the error at 6,452; starting at 10 it
 * reached 4,388. Ending at 0.5 rather than 0.1 (with the clock's schedule and TARGETS 3): errors
 * 3,324 and 3,382 against 4,348 and 4,120 (two runs each), RA 88.8% and 89.6% against 88.1% and
 * 88.3%; below 0.5 the last sweeps moved almost nothing (4,362 -> 4,346 over the last 30 of 80).
 */
const HOT = 10;
const COLD = 0.5;

export interface SearchLimits {
  stopped: () => boolean;
  /** When the whole reconstruction must end (ms since the epoch). */
  deadline: number;
  /** Gives the event loop a turn now and then. */
  breathe: () => Promise<void>;
  /** Called after each sweep (progress). */
  onSweep?: () => void;
}

/**
 * Moves the walked rows' points (and their boxes, narrowed to the point's cell) to lower the
 * leaf-count error. `rows` and `forest.open` are updated in place.
 */
export async function searchPoints(
  forest: BoxForest,
  groups: readonly RowGroup[],
  rows: CompletedRow[],
  startError: number,
  limits: SearchLimits,
): Promise<PointSearch> {
  const { classes, features } = forest;
  const trees = forest.trees.length;
  const random = seededRandom(7);
  // Only rows with a tree left open by the propagation move; pinned groups keep their proven leaves.
  const movable = rows.map((_, r) => r).filter((r) => groups[rows[r].group].unplaced > 0);
  const count = movable.length;
  const { packed, roots } = packTrees(forest);
  const points = new Int32Array(count * features);
  const leaves = new Int32Array(count * trees);
  movable.forEach((r, i) => {
    const row = rows[r];
    // Any point of the walked box reaches exactly the walked leaves; its lower corner will do.
    points.set(row.low, i * features);
    for (let t = 0; t < trees; t++) leaves[i * trees + t] = leafOf(t, points, i * features);
  });
  const room = new RoomIndex(forest);
  const candidates = new Candidates(features);
  let picks = new Int32Array(64);
  const trial = new Int32Array(features);
  const trialLeaves = new Int32Array(trees);
  const movePoint = new Int32Array(features);
  const moveLeaves = new Int32Array(trees);
  const bestPoints = points.slice();
  let error = startError;
  let bestError = error;
  let moves = 0;
  let sweeps = 0;
  const started = Date.now();
  // The search stops a little before the deadline: the rows' points are still to be chosen.
  const end = started + Math.max(0, limits.deadline - started) * 0.95;
  const order = Int32Array.from({ length: count }, (_, i) => i);
  const treeOrder = Int32Array.from({ length: trees }, (_, t) => t);
  for (;;) {
    // How far the schedule is: by sweeps, or by time when that runs out first.
    const progress = end <= started ? 1 : Math.max(sweeps / SWEEPS, (Date.now() - started) / (end - started));
    if (progress >= 1 || error === 0 || limits.stopped()) break;
    const temperature = HOT * Math.pow(COLD / HOT, progress);
    sweeps++;
    shuffleInPlace(order, random);
    // The time is checked per row as well: one sweep over 10,000 rows takes seconds.
    for (let k = 0; k < count && error > 0 && !limits.stopped() && Date.now() < end; k++) {
      await limits.breathe();
      const i = order[k];
      const row = rows[movable[i]];
      const group = groups[row.group];
      const c = row.classIndex;
      shuffleInPlace(treeOrder, random);
      for (const t of treeOrder) {
        if (group.leaf[t] !== -1) continue;
        const open = forest.open[t];
        // Only a row in a leaf holding too many rows of its class is moved out of it.
        if (open[leaves[i * trees + t] * classes + c] >= 0) continue;
        const found = candidates.find(forest.trees[t], room.tallies(t), classes, c, group.low, group.high);
        if (found > picks.length) picks = new Int32Array(2 * found);
        let moveDelta = Infinity;
        for (let a = 0; a < Math.min(TARGETS, found); a++) {
          // A target drawn without repeats (a partial shuffle of 0 .. found - 1).
          if (a === 0) for (let j = 0; j < found; j++) picks[j] = j;
          const j = a + Math.floor(random() * (found - a));
          const target = picks[j];
          picks[j] = picks[a];
          picks[a] = target;
          // The row's point pulled into the target's box (inside the group's box already).
          for (let f = 0; f < features; f++) {
            trial[f] = Math.min(Math.max(points[i * features + f], candidates.boxLow(target, f)), candidates.boxHigh(target, f));
          }
          const delta = trialDelta(i, c, group);
          if (delta < moveDelta || (delta === moveDelta && random() < 0.5)) {
            moveDelta = delta;
            movePoint.set(trial);
            moveLeaves.set(trialLeaves);
          }
        }
        if (moveDelta === Infinity) continue;
        // A worse move is taken now and then while the search is hot (annealing), less as it cools.
        if (moveDelta > 0 && random() >= Math.exp(-moveDelta / temperature)) continue;
        setPoint(i, c, movePoint, moveLeaves);
        error += moveDelta;
        moves++;
      }
    }
    if (error < bestError) {
      bestError = error;
      bestPoints.set(points);
    }
    limits.onSweep?.();
  }
  // Back to the best points seen (a hot sweep may have ended worse).
  if (error > bestError) {
    movable.forEach((r, i) => {
      const c = rows[r].classIndex;
      trial.set(bestPoints.subarray(i * features, (i + 1) * features));
      for (let t = 0; t < trees; t++) trialLeaves[t] = leafOf(t, trial, 0);
      setPoint(i, c, trial, trialLeaves);
    });
    error = bestError;
  }
  // Each moved row's box: its point's cell, inside the group's box (the point choice picks inside it).
  movable.forEach((r, i) => {
    const row = rows[r];
    const group = groups[row.group];
    row.low.set(group.low);
    row.high.set(group.high);
    for (let t = 0; t < trees; t++) narrowToPath(t, i, row.low, row.high);
  });
  return { leafCountError: error, moves, sweeps };

  function leafOf(t: number, point: Int32Array, at: number): number {
    const base = roots[t];
    let n = base;
    while (packed[n] >= 0) n = point[at + packed[n]] < packed[n + 1] ? packed[n + 2] : packed[n + 3];
    return (n - base) >> 2;
  }

  /** Moves row i (class c) to `point`, whose leaves are `to`: the open counts follow. */
  function setPoint(i: number, c: number, point: Int32Array, to: Int32Array): void {
    for (let t = 0; t < trees; t++) {
      const from = leaves[i * trees + t];
      if (from === to[t]) continue;
      const open = forest.open[t];
      const fromBefore = open[from * classes + c];
      const toBefore = open[to[t] * classes + c];
      place(forest, t, from, c, -1);
      place(forest, t, to[t], c, 1);
      room.changed(t, from, c, fromBefore);
      room.changed(t, to[t], c, toBefore);
      leaves[i * trees + t] = to[t];
    }
    points.set(point, i * features);
  }

  /** The change in the leaf-count error if row i's point became `trial` (its leaves go to trialLeaves). */
  function trialDelta(i: number, c: number, group: RowGroup): number {
    let delta = 0;
    for (let t = 0; t < trees; t++) {
      const from = leaves[i * trees + t];
      if (group.leaf[t] !== -1) {
        trialLeaves[t] = from;
        continue;
      }
      const to = leafOf(t, trial, 0);
      trialLeaves[t] = to;
      if (to === from) continue;
      const open = forest.open[t];
      delta += openErrorChange(open[from * classes + c], 1) + openErrorChange(open[to * classes + c], -1);
    }
    return delta;
  }

  function narrowToPath(t: number, i: number, low: Int32Array, high: Int32Array): void {
    const tree = forest.trees[t];
    let node = 0;
    while (tree.left[node] !== -1) {
      const f = tree.feature[node];
      const cut = tree.cut[node];
      if (points[i * features + f] < cut) {
        high[f] = Math.min(high[f], cut - 1);
        node = tree.left[node];
      } else {
        low[f] = Math.max(low[f], cut);
        node = tree.right[node];
      }
    }
  }
}

/**
 * Every tree's splits in one array, four numbers per node: feature (-1 on leaves), cut, and the
 * offsets of the left and right child; `roots[t]` is tree t's root offset, so node n of tree t is at
 * roots[t] + 4n. The search walks a trial point down every tree for each move (most of its time), and
 * one array read in node order is faster than four: 30 sweeps on Pima without bootstrap, 6.9 s
 * against 8.0 s, the same moves.
 */
function packTrees(forest: BoxForest): { packed: Int32Array; roots: Int32Array } {
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
