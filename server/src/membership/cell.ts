/**
 * Proven `member`: the model proves that a training row with the candidate's label lies in the
 * candidate's cell, the region where every tree sends a point to the same leaf as the candidate
 * (the intersection of its leaves' boxes). Rows of one cell are indistinguishable to any attack on
 * the model, so "member" is claimed at that resolution: some training row with this label and the
 * candidate's values up to the model's splits exists; not that it is this person rather than a
 * twin the splits do not separate.
 *
 * Two sound arguments:
 *  1. Counts (`proveByLeafCounts`): in some tree t the candidate's leaf holds rows (or draws, which
 *     come from rows) of the label, so such a row lies in that leaf's box B. If every part of B
 *     outside the cell is excluded, the row is in the cell. A part is excluded when some tree sends
 *     it to a leaf with no count of the label, which proves no row of the label is there only when
 *     counts are rows of every tree (no bootstrap, no weights); with bootstrap a row may simply not
 *     have been drawn, so then nothing is excluded and B itself must lie inside the cell.
 *  2. Certified rows of the reconstruction (`certifiedInCell`): a certified row is proven to exist
 *     with its values or inside its box; it is in the candidate's cell when that box lies inside
 *     the cell's box (a box that only overlaps the cell proves nothing about the candidate).
 */
import type { Forest } from '../forest/schema';
import { LEAF } from '../forest/schema';
import { valueCast } from '../forest/value-precision';
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import { featureAxes } from '../attacks/reconstruction/feature-axes';
import { copyBox, leafBox, type Box } from './leaves';

export interface CountProofOptions {
  /** Per tree and leaf node: the count of the candidate's label there. */
  countOf: (tree: number, node: number) => number;
  /** Whether a zero count excludes a region (true only when counts are rows of every tree). */
  zeroExcludes: boolean;
  /** Leaves visited at most, over every start tree; past it the proof is abandoned (not proven). */
  budget: number;
  /** Start trees tried at most (the candidate's smallest leaves holding the label first). */
  startTrees?: number;
}

/** True when the counts prove a row with the label in the candidate's cell. */
export function proveByLeafCounts(forest: Forest, values: readonly number[], leaves: Int32Array, options: CountProofOptions): boolean {
  const trees = forest.trees;
  const starts = [...leaves.keys()]
    .filter((t) => options.countOf(t, leaves[t]) > 0)
    .sort((a, b) => options.countOf(a, leaves[a]) - options.countOf(b, leaves[b]))
    .slice(0, options.startTrees ?? 3);
  const spent = { leaves: 0 };
  const features = forest.features.length;
  for (const start of starts) {
    const box = leafBox(trees[start], values, forest.splitRule, features, valueCast(forest));
    const order = trees.map((_, t) => t).filter((t) => t !== start);
    const found = alternativeExists(forest, box, order, 0, false, leaves, options, spent);
    if (found === false) return true;
    if (spent.leaves > options.budget) return false;
  }
  return false;
}

/**
 * Whether some region of `box` outside the candidate's cell survives every tree in `order[k..]`
 * (reaches a leaf with a count of the label, or any leaf when zeros exclude nothing).
 * 'budget' when the search ran out: the caller then cannot conclude.
 */
function alternativeExists(forest: Forest, box: Box, order: number[], k: number, deviated: boolean, leaves: Int32Array, options: CountProofOptions, spent: { leaves: number }): boolean | 'budget' {
  if (k === order.length) return deviated;
  const t = order[k];
  for (const { leaf, region } of leavesMeeting(forest, t, box)) {
    if (++spent.leaves > options.budget) return 'budget';
    if (options.zeroExcludes && options.countOf(t, leaf) <= 0) continue;
    const off = deviated || leaf !== leaves[t];
    // Without exclusions any region off the cell survives the remaining trees (it meets some leaf of each).
    if (off && !options.zeroExcludes) return true;
    const found = alternativeExists(forest, region, order, k + 1, off, leaves, options, spent);
    if (found !== false) return found;
  }
  return false;
}

/** The leaves of tree t that meet `box`, each with the part of the box inside it. */
function leavesMeeting(forest: Forest, t: number, box: Box): { leaf: number; region: Box }[] {
  const tree = forest.trees[t];
  const out: { leaf: number; region: Box }[] = [];
  const stack: { node: number; region: Box }[] = [{ node: 0, region: box }];
  while (stack.length) {
    const { node, region } = stack.pop()!;
    if (tree.left[node] === LEAF) {
      out.push({ leaf: node, region });
      continue;
    }
    const f = tree.feature[node];
    const threshold = tree.threshold[node];
    // Left: x <= threshold (or < threshold); right: the rest. Both rules give the same bound arithmetic.
    if (region.lower[f] < Math.min(region.upper[f], threshold)) {
      const left = region.upper[f] <= threshold ? region : withBound(region, f, 'upper', threshold);
      stack.push({ node: tree.left[node], region: left });
    }
    if (Math.max(region.lower[f], threshold) < region.upper[f]) {
      const right = region.lower[f] >= threshold ? region : withBound(region, f, 'lower', threshold);
      stack.push({ node: tree.right[node], region: right });
    }
  }
  return out;
}

function withBound(box: Box, f: number, side: 'lower' | 'upper', value: number): Box {
  const copy = copyBox(box);
  copy[side][f] = value;
  return copy;
}

/** The candidate's cell as a box: the intersection of its leaves' boxes. */
export function cellBox(forest: Forest, values: readonly number[]): Box {
  const features = forest.features.length;
  const cast = valueCast(forest);
  const cell = leafBox(forest.trees[0], values, forest.splitRule, features, cast);
  for (let t = 1; t < forest.trees.length; t++) {
    const box = leafBox(forest.trees[t], values, forest.splitRule, features, cast);
    for (let f = 0; f < features; f++) {
      cell.lower[f] = Math.max(cell.lower[f], box.lower[f]);
      cell.upper[f] = Math.min(cell.upper[f], box.upper[f]);
    }
  }
  return cell;
}

/**
 * Whether a certified row could lie in the cell: its interval (or value) meets the cell's on every
 * feature. Touching ends count as meeting and an undetermined feature meets everything, so "does
 * not meet" is always safe to act on.
 */
export function certifiedMeetsCell(row: ReconstructedRow, cell: Box): boolean {
  for (let f = 0; f < cell.lower.length; f++) {
    const interval = row.intervals?.[f];
    const value = row.values[f];
    let lower = -Infinity;
    let upper = Infinity;
    if (interval) {
      lower = interval[0] ?? -Infinity;
      upper = interval[1] ?? Infinity;
    } else if (!row.intervals && value !== null && value !== undefined) {
      // Only a row without intervals (binary features) is proven at its values; where a row has
      // intervals, a null one is unconstrained and the value beside it is an estimate.
      lower = upper = Math.fround(value);
    }
    if (upper < cell.lower[f] || lower > cell.upper[f]) return false;
  }
  return true;
}

/**
 * Whether a certified row lies inside the cell: per feature its proven interval (or its value,
 * where it has no interval) must lie inside the cell's; a feature the row leaves undetermined must
 * be one the cell does not constrain.
 */
export function certifiedInCell(row: ReconstructedRow, cell: Box, rule: Forest['splitRule']): boolean {
  for (let f = 0; f < cell.lower.length; f++) {
    const interval = row.intervals?.[f];
    const value = row.values[f];
    if (interval) {
      const lower = interval[0] ?? -Infinity;
      const upper = interval[1] ?? Infinity;
      if (lower < cell.lower[f] || upper > cell.upper[f]) return false;
    } else if (!row.intervals && value !== null && value !== undefined) {
      // As in certifiedMeetsCell: values are proven only on rows without intervals.
      const v = Math.fround(value);
      const inside = rule === 'less' ? cell.lower[f] <= v && v < cell.upper[f] : cell.lower[f] < v && v <= cell.upper[f];
      if (!inside) return false;
    } else if (cell.lower[f] !== -Infinity || cell.upper[f] !== Infinity) return false;
  }
  return true;
}

/**
 * The features a cell can pin to one value: read as 0/1 (a side of its split is a value), and
 * split by some tree. A numeric feature's interval always holds other values, so a cell that
 * bounds one never proves this candidate was the row, only that someone in that range was.
 */
export interface PinnableFeatures {
  /** Per feature: 1 when some tree splits on it. */
  used: Uint8Array;
  /** Per feature: 1 when it is read as 0/1 (attacks/reconstruction/feature-axes.ts). */
  binary: Uint8Array;
}

export function pinnableFeatures(forest: Forest): PinnableFeatures {
  const axes = featureAxes(forest);
  const features = forest.features.length;
  if (!axes.ok) return { used: new Uint8Array(features).fill(1), binary: new Uint8Array(features) };
  return { used: Uint8Array.from(axes.axes.thresholds, (cuts) => (cuts.length > 0 ? 1 : 0)), binary: axes.axes.binary };
}

/**
 * Whether the cell fixes the candidate's value of every feature the model splits on: then a
 * training row with the candidate's label in the cell has the candidate's values wherever the
 * model looks (a twin at most differs where it never does), and `member` is proven. A cell left
 * open on a 0/1 feature, or bounding a numeric one, holds other people too. The model reads a
 * feature split only inside (0, 1) as 0/1, and the proof takes the training rows' values there to
 * be 0 or 1; a candidate whose value is neither (0.7, or a count of 2 where the model's 1 stands for
 * "above 0.5") is not the value the cell pins (soundness sweep 16: 230 such candidates were
 * "proven" members).
 */
export function cellPinsValues(cell: Box, pin: PinnableFeatures, values: readonly number[]): boolean {
  for (let f = 0; f < cell.lower.length; f++) {
    if (!pin.used[f]) continue;
    if (!pin.binary[f]) return false;
    // A 0/1 feature's thresholds lie inside (0, 1): below one, the cell holds only 0; above, only 1.
    if (cell.upper[f] < 1) {
      if (values[f] !== 0) return false;
    } else if (cell.lower[f] > 0) {
      if (values[f] !== 1) return false;
    } else return false;
  }
  return true;
}
