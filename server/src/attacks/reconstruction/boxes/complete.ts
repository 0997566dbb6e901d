/**
 * From proven groups to one full training set (an estimate). Every member of a group that is not
 * placed in every tree becomes a row of its own and is walked through the trees it is not placed
 * in, each time into the candidate leaf with the most rows of its class still to place (its box
 * narrows as it goes; with no leaf left with room, the one with the least surplus). Then passes of
 * ruin and recreate: each row in turn is taken out of the leaves the walk chose and walked again,
 * trees in a fresh random order, while the rows' total miss of the leaf counts keeps falling and
 * the time allows. This only picks one of the training sets the propagation left open: it fixes
 * which point inside each proven box stands for a row, never the proven box itself.
 */
import { seededRandom } from '../../../evaluate/seeded-random';
import { Candidates, place, type BoxForest } from './box-forest';
import type { RowGroup } from './row-groups';

export interface CompletedRow {
  group: number;
  classIndex: number;
  /** The box after the walk (inside the group's proven box). */
  low: Int32Array;
  high: Int32Array;
}

export interface Completion {
  rows: CompletedRow[];
  /** Sum over trees, leaves and classes of |stored rows - rows placed| (0: the rows fit every count). */
  leafCountError: number;
  passes: number;
}

export function completeRows(forest: BoxForest, groups: readonly RowGroup[], stopped: () => boolean): Completion {
  const { classes, features } = forest;
  const trees = forest.trees.length;
  const candidates = new Candidates(features);
  const random = seededRandom(1);
  const rows: CompletedRow[] = [];
  /** Per completed row, the leaf its walk chose in each tree the group is not placed in (-1 elsewhere). */
  const chosen: Int32Array[] = [];
  const order = Int32Array.from({ length: trees }, (_, t) => t);
  groups.forEach((group, g) => {
    if (group.unplaced === 0) {
      for (let member = 0; member < group.size; member++) rows.push({ group: g, classIndex: group.classIndex, low: group.low, high: group.high });
      return;
    }
    for (let member = 0; member < group.size; member++) {
      const row = { group: g, classIndex: group.classIndex, low: group.low.slice(), high: group.high.slice() };
      const leaves = new Int32Array(trees).fill(-1);
      // Out of time: the row stays at its proven box (its point is that box's representative).
      if (!stopped()) walk(row, group, leaves);
      rows.push(row);
      chosen.push(leaves);
    }
  });
  let error = leafCountError(forest);
  let passes = 0;
  const walked = rows.filter((row) => groups[row.group].unplaced > 0);
  while (walked.length > 0 && error > 0 && !stopped()) {
    passes++;
    for (let i = 0; i < walked.length; i++) {
      const row = walked[i];
      const group = groups[row.group];
      const leaves = chosen[i];
      for (let t = 0; t < trees; t++) if (leaves[t] >= 0) place(forest, t, leaves[t], row.classIndex, -1);
      row.low.set(group.low);
      row.high.set(group.high);
      shuffle(order);
      walk(row, group, leaves);
    }
    // The pass is kept either way (undoing it would cost another); stop once one does not help.
    const after = leafCountError(forest);
    const improved = after < error;
    error = after;
    if (!improved) break;
  }
  return { rows, leafCountError: error, passes };

  function walk(row: CompletedRow, group: RowGroup, leaves: Int32Array): void {
    const c = group.classIndex;
    for (const t of order) {
      if (group.leaf[t] !== -1) continue;
      const open = forest.open[t];
      let found = candidates.find(forest.trees[t], open, classes, c, row.low, row.high);
      if (found === 0) found = candidates.find(forest.trees[t], open, classes, c, row.low, row.high, true);
      let best = 0;
      for (let k = 1; k < found; k++) if (open[candidates.leaves[k] * classes + c] > open[candidates.leaves[best] * classes + c]) best = k;
      candidates.copyBox(best, row.low, row.high);
      leaves[t] = candidates.leaves[best];
      place(forest, t, leaves[t], c, 1);
    }
  }

  function shuffle(values: Int32Array): void {
    for (let i = values.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      const v = values[i];
      values[i] = values[j];
      values[j] = v;
    }
  }
}

/** Sum of |open| over every leaf and class: rows missing plus rows too many. */
function leafCountError(forest: BoxForest): number {
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
