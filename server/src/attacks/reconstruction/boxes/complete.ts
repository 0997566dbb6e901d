/**
 * From proven groups to one full training set (an estimate). Every member of a group that is not
 * placed in every tree becomes a row of its own and is walked through the trees it is not placed
 * in, each time into the candidate leaf with the most rows of its class still to place (its box
 * narrows as it goes; with no leaf left with room, the first it reaches). Then passes of ruin and
 * recreate: each row in turn is taken out of the leaves the walk chose and walked again, trees in
 * fresh random orders, keeping the walk that misses the leaf counts least (its old leaves when
 * none does better), while a pass still gains, for half the time left at most. Then the point
 * search (point-search.ts) with the rest. This only picks one of the training sets the
 * propagation left open: it fixes which point inside each proven box stands for a row, never the
 * proven box itself.
 */
import { seededRandom, shuffleInPlace } from '../../../evaluate/seeded-random';
import { yieldToEventLoop } from '../context';
import { Candidates, openErrorChange, place, type BoxForest } from './box-forest';
import { WALKED_LEAF_CAP } from '../memory';
import { searchPoints } from './point-search';
import type { CompletedRow, RowGroup } from './row-groups';

export interface Completion {
  rows: CompletedRow[];
  /** Sum over trees, leaves and classes of |stored rows - rows placed| (0: the rows fit every count). */
  leafCountError: number;
  passes: number;
  /** False when the time ran out before every row had its first walk (the rest stand at their proven box). */
  walkedAll: boolean;
  /** Points moved by the search after the walks (point-search.ts). */
  moves: number;
  /** Why the walks were neither repaired nor searched (past WALKED_LEAF_CAP), in words. */
  unrepaired?: string;
}

/** Share of the time left after the first walks that the repair passes may take (the point search gets the rest). */
const REPAIR_SHARE = 0.5;

/**
 * Repair passes at most. They gain less and less, and the point search gains more per second
 * after the first few: on Pima without bootstrap (60 s budget) 158 passes took 18-22 s and left
 * the search 131 sweeps, error 4,146 (RA 88.2%); 10 passes took 1.4 s and left it 282 sweeps,
 * error 2,996 (RA 89.8%), the same machine the same hour. With the search's schedule unbounded
 * (fixed sweeps, longer budgets): 158 passes then 160 sweeps 3,222, 30 passes then 320 sweeps 2,652,
 * 10 passes then 400 sweeps 2,254.
 */
const REPAIR_PASSES = 10;

/** Walks tried per row and repair pass; the best is kept if it beats the row's leaves. */
const ATTEMPTS = 3;

/** `deadline`: when the whole reconstruction ends (the point search after the walks may run until shortly before it). */
export async function completeRows(forest: BoxForest, groups: readonly RowGroup[], stopped: () => boolean, deadline: number, onPass?: () => void, leafCap = WALKED_LEAF_CAP): Promise<Completion> {
  const { classes, features } = forest;
  const trees = forest.trees.length;
  const candidates = new Candidates(features);
  const random = seededRandom(1);
  const rows: CompletedRow[] = [];
  /** Per completed row, the leaf its walk chose in each tree the group is not placed in (-1 elsewhere). */
  const chosen: Int32Array[] = [];
  const order = Int32Array.from({ length: trees }, (_, t) => t);
  // The repairs and the search need every walked row's leaves; past the cap they are not kept.
  const walkedRows = groups.reduce((n, g) => n + (g.unplaced > 0 ? g.size : 0), 0);
  const keepLeaves = walkedRows * trees <= leafCap;
  const scratch = keepLeaves ? undefined : new Int32Array(trees);
  let walkedAll = true;
  let lastYield = Date.now();
  // Long loops give the event loop a turn (an abort or a progress message can then get through).
  const breathe = async () => {
    if (Date.now() - lastYield < 25) return;
    await yieldToEventLoop();
    lastYield = Date.now();
  };
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    await breathe();
    if (group.unplaced === 0) {
      for (let member = 0; member < group.size; member++) rows.push({ group: g, classIndex: group.classIndex, low: group.low, high: group.high });
      continue;
    }
    for (let member = 0; member < group.size; member++) {
      const row = { group: g, classIndex: group.classIndex, low: group.low.slice(), high: group.high.slice() };
      const leaves = scratch ?? new Int32Array(trees);
      leaves.fill(-1);
      // Out of time: the row stays at its proven box (its point is that box's representative).
      if (!stopped()) walk(row, group, leaves);
      else walkedAll = false;
      rows.push(row);
      if (keepLeaves) chosen.push(leaves);
    }
  }
  // Repair passes: each row is taken out and walked again, trees in fresh random orders, and its
  // best walk kept only when it misses the leaf counts by less than the row's current leaves.
  let error = leafCountError(forest);
  if (!keepLeaves) {
    const unrepaired = `the walks were neither repaired nor searched: ${walkedRows.toLocaleString('en-US')} walked rows x ${trees} trees are past the ${leafCap.toLocaleString('en-US')} leaf choices they keep in memory`;
    return { rows, leafCountError: error, passes: 0, walkedAll, moves: 0, unrepaired };
  }
  let passes = 0;
  const walked: number[] = [];
  rows.forEach((row, r) => {
    if (groups[row.group].unplaced > 0) walked.push(r);
  });
  const trial = new Int32Array(trees);
  const best = new Int32Array(trees);
  const bestLow = new Int32Array(features);
  const bestHigh = new Int32Array(features);
  // The repair passes gain less and less (Pima without bootstrap: 21,440 -> 15,188 in the first
  // 10 passes, 9,930 -> 9,222 in the last 40); the point search gains more per second from there,
  // so the passes stop after REPAIR_PASSES or half the time left, and the search gets the rest.
  const repairEnd = Date.now() + Math.max(0, deadline - Date.now()) * REPAIR_SHARE;
  while (walked.length > 0 && error > 0 && !stopped() && Date.now() < repairEnd && passes < REPAIR_PASSES) {
    passes++;
    let gained = 0;
    for (let i = 0; i < walked.length && !stopped(); i++) {
      await breathe();
      const row = rows[walked[i]];
      const group = groups[row.group];
      const leaves = chosen[i];
      const c = row.classIndex;
      // Out: what the row's current leaves cost, as the change removing them makes.
      let removed = 0;
      for (let t = 0; t < trees; t++) {
        if (leaves[t] < 0) continue;
        removed += change(t, leaves[t], c, 1);
        place(forest, t, leaves[t], c, -1);
      }
      let bestDelta = 0;
      bestLow.set(row.low);
      bestHigh.set(row.high);
      best.set(leaves);
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        row.low.set(group.low);
        row.high.set(group.high);
        shuffleInPlace(order, random);
        trial.fill(-1);
        const delta = removed + walk(row, group, trial);
        if (delta < bestDelta) {
          bestDelta = delta;
          best.set(trial);
          bestLow.set(row.low);
          bestHigh.set(row.high);
        }
        for (let t = 0; t < trees; t++) if (trial[t] >= 0) place(forest, t, trial[t], c, -1);
      }
      for (let t = 0; t < trees; t++) if (best[t] >= 0) place(forest, t, best[t], c, 1);
      leaves.set(best);
      row.low.set(bestLow);
      row.high.set(bestHigh);
      gained -= bestDelta;
    }
    error = leafCountError(forest);
    onPass?.();
    if (gained <= 0) break;
  }
  // The walks' local optimum, then moves of single points between leaves (point-search.ts).
  let moves = 0;
  if (walkedAll && error > 0 && !stopped()) {
    const searched = await searchPoints(forest, groups, rows, error, { stopped, deadline, breathe, ...(onPass ? { onSweep: onPass } : {}) });
    error = searched.leafCountError;
    moves = searched.moves;
  }
  return { rows, leafCountError: error, passes, walkedAll, moves };

  /** The change in the leaf-count error when one row of class c enters (-1 open) or leaves (+1) a leaf. */
  function change(t: number, leaf: number, c: number, direction: 1 | -1): number {
    return openErrorChange(forest.open[t][leaf * classes + c], direction);
  }

  /** Walks the row through the trees it is not placed in, placing it; returns the change in the leaf-count error. */
  function walk(row: CompletedRow, group: RowGroup, leaves: Int32Array): number {
    const c = group.classIndex;
    let delta = 0;
    for (const t of order) {
      if (group.leaf[t] !== -1) continue;
      const open = forest.open[t];
      // The leaf with most room for the class (any reachable leaf when none has room).
      let leaf = candidates.best(forest.trees[t], open, classes, c, row.low, row.high);
      if (leaf < 0) leaf = candidates.best(forest.trees[t], open, classes, c, row.low, row.high, true);
      leaves[t] = leaf;
      delta += change(t, leaves[t], c, -1);
      place(forest, t, leaves[t], c, 1);
    }
    return delta;
  }
}

/** Sum of |open| over every leaf and class: rows missing plus rows too many. */
export function leafCountError(forest: BoxForest): number {
  let error = 0;
  forest.trees.forEach((tree, t) => {
    const open = forest.open[t];
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] !== -1) continue;
      for (let c = 0; c < forest.classes; c++) error += Math.abs(open[n * forest.classes + c]);
    }
  });
  return error;
}
