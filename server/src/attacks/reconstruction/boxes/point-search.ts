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
 *
 * The moves themselves are in point-moves.ts. From THREADED_FROM_ROWS movable rows the sweeps run
 * in worker threads, one per core (point-search-thread.ts); the schedule, the best points and the
 * rows' final boxes stay here.
 */
import { seededRandom, shuffleInPlace } from '../../../evaluate/seeded-random';
import type { BoxForest } from './box-forest';
import { leafOf, packTrees, PointMover, searchError, type SearchArrays } from './point-moves';
import { searchThreadCount, shared, SweepThreads } from './point-search-thread';
import { RoomIndex } from './room-index';
import type { CompletedRow, RowGroup } from './row-groups';

export interface PointSearch {
  /** Leaf-count error after the search (as complete.ts counts it). */
  leafCountError: number;
  /** Moves kept (those that left the error unchanged, and the worse ones annealing took, included). */
  moves: number;
  /** Sweeps over the rows in over-full leaves. */
  sweeps: number;
  /** Threads that swept (1: the calling thread; point-search-thread.ts). */
  threads: number;
}

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
 * Starting at 3 or 1.5 instead (120 sweeps, stop 44): errors 5,274 and 6,486 against 3,384.
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
  /** Threads to sweep in (default: point-search-thread.ts's searchThreadCount; 1: this thread only). */
  threads?: number;
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
  const { features } = forest;
  const trees = forest.trees.length;
  const random = seededRandom(7);
  // Only rows with a tree left open by the propagation move; pinned groups keep their proven leaves.
  const movable = rows.map((_, r) => r).filter((r) => groups[rows[r].group].unplaced > 0);
  const count = movable.length;
  // No more threads than rows (each owns some), and none for a search with nothing to move.
  const threads = Math.min(searchThreadCount(count, limits.threads), Math.max(1, count));
  const arrays = searchArrays(forest, groups, rows, movable, threads > 1);
  const { points } = arrays;
  const mover = new PointMover(arrays);
  const bestPoints = points.slice();
  let error = startError;
  let bestError = error;
  let sweeps = 0;
  let threadMoves = 0;
  const started = Date.now();
  // The search stops a little before the deadline: the rows' points are still to be chosen.
  const end = started + Math.max(0, limits.deadline - started) * 0.95;
  const temperatureNow = (): number | undefined => {
    // How far the schedule is: by sweeps, or by time when that runs out first.
    const progress = end <= started ? 1 : Math.max(sweeps / SWEEPS, (Date.now() - started) / (end - started));
    if (progress >= 1 || error === 0 || limits.stopped()) return undefined;
    return HOT * Math.pow(COLD / HOT, progress);
  };
  const keepBest = () => {
    if (error < bestError) {
      bestError = error;
      bestPoints.set(points);
    }
    limits.onSweep?.();
  };

  let swept = threads > 1 ? await sweepInThreads() : 1;
  if (swept === 0) swept = 1;
  const order = Int32Array.from({ length: count }, (_, i) => i);
  for (let temperature = temperatureNow(); temperature !== undefined; temperature = temperatureNow()) {
    sweeps++;
    shuffleInPlace(order, random);
    // The time is checked per row as well: one sweep over 10,000 rows takes seconds.
    for (let k = 0; k < count && error > 0 && !limits.stopped() && Date.now() < end; k++) {
      await limits.breathe();
      error += mover.moveRow(order[k], temperature, random);
    }
    keepBest();
  }
  // Back to the best points seen (a hot sweep may have ended worse).
  if (error > bestError) {
    const trial = new Int32Array(features);
    const trialLeaves = new Int32Array(trees);
    for (let i = 0; i < count; i++) {
      trial.set(bestPoints.subarray(i * features, (i + 1) * features));
      for (let t = 0; t < trees; t++) trialLeaves[t] = leafOf(arrays, t, trial, 0);
      mover.setPoint(i, arrays.rowClass[i], trial, trialLeaves);
    }
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
  return { leafCountError: error, moves: mover.moves + threadMoves, sweeps, threads: swept };

  /**
   * The schedule's sweeps in threads while it lasts; returns the threads that swept (0: none could
   * start, and this thread sweeps from the start). A failed thread hands the rest of the schedule
   * to this thread, after the counts are rebuilt from the points.
   */
  async function sweepInThreads(): Promise<number> {
    const initialOpen = forest.open.map((open) => open.slice());
    const initialLeaves = arrays.leaves.slice();
    const sweepers = SweepThreads.start(arrays, count, threads, 7);
    if (!sweepers) return 0;
    try {
      for (let temperature = temperatureNow(); temperature !== undefined; temperature = temperatureNow()) {
        sweeps++;
        await sweepers.sweep(temperature, end, limits.stopped);
        // Every thread waits now: the error is recounted (each thread's own tally of it is stale).
        error = searchError(arrays);
        keepBest();
      }
    } catch {
      recount(initialOpen, initialLeaves);
      error = searchError(arrays);
    } finally {
      threadMoves = sweepers.moves;
      await sweepers.close();
    }
    return threads;
  }

  /** After a failed thread: every row's leaves from its point, and the counts and tallies from those. */
  function recount(initialOpen: Int32Array[], initialLeaves: Int32Array): void {
    const { classes } = forest;
    forest.open.forEach((open, t) => open.set(initialOpen[t]));
    for (let i = 0; i < count; i++) {
      for (let t = 0; t < trees; t++) {
        const before = initialLeaves[i * trees + t];
        const now = leafOf(arrays, t, points, i * features);
        arrays.leaves[i * trees + t] = now;
        if (now === before) continue;
        const c = arrays.rowClass[i];
        for (let n = before; n >= 0; n = forest.parents[t][n]) forest.open[t][n * classes + c] += 1;
        for (let n = now; n >= 0; n = forest.parents[t][n]) forest.open[t][n * classes + c] -= 1;
      }
    }
    const room = new RoomIndex(forest);
    arrays.roomy.forEach((roomy, t) => roomy.set(room.tallies(t)));
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
 * The search's arrays for the movable rows (`movable`: indices into `rows`), each row's point at
 * its walked box's lower corner (any point of the box reaches exactly the walked leaves). `inShared`:
 * in shared memory, for threads; the forest's open counts then become the shared copies, so that
 * what the threads move is what the caller reads.
 */
function searchArrays(forest: BoxForest, groups: readonly RowGroup[], rows: readonly CompletedRow[], movable: readonly number[], inShared: boolean): SearchArrays {
  const { classes, features } = forest;
  const trees = forest.trees.length;
  const count = movable.length;
  const place = inShared ? shared : (values: Int32Array) => values;
  const { packed, roots } = packTrees(forest);
  // The groups of the movable rows, numbered in order of appearance.
  const groupIndex = new Map<number, number>();
  const rowGroup = new Int32Array(count);
  const rowClass = new Int32Array(count);
  movable.forEach((r, i) => {
    const g = rows[r].group;
    if (!groupIndex.has(g)) groupIndex.set(g, groupIndex.size);
    rowGroup[i] = groupIndex.get(g)!;
    rowClass[i] = rows[r].classIndex;
  });
  const groupLeaf = new Int32Array(groupIndex.size * trees);
  const groupLow = new Int32Array(groupIndex.size * features);
  const groupHigh = new Int32Array(groupIndex.size * features);
  for (const [g, k] of groupIndex) {
    groupLeaf.set(groups[g].leaf, k * trees);
    groupLow.set(groups[g].low, k * features);
    groupHigh.set(groups[g].high, k * features);
  }
  const points = new Int32Array(count * features);
  movable.forEach((r, i) => points.set(rows[r].low, i * features));
  const leaves = new Int32Array(count * trees);
  for (let i = 0; i < count; i++) for (let t = 0; t < trees; t++) leaves[i * trees + t] = leafOf({ packed, roots }, t, points, i * features);
  const room = new RoomIndex(forest);
  if (inShared) forest.open = forest.open.map(shared);
  return {
    classes,
    features,
    trees,
    packed: place(packed),
    roots,
    split: forest.trees.map((tree) => ({ left: place(tree.left), right: place(tree.right), feature: place(tree.feature), cut: place(tree.cut) })),
    parents: forest.parents.map(place),
    open: forest.open,
    roomy: forest.trees.map((_, t) => (inShared ? shared(room.tallies(t)) : room.tallies(t))),
    points: place(points),
    leaves: place(leaves),
    rowClass,
    rowGroup,
    groupLeaf,
    groupLow,
    groupHigh,
  };
}
