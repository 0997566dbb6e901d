/**
 * A row's candidates (row-candidates.ts) read off a table instead of searched for, when the
 * forest's binary feature space is small: every point of it (each assignment of the features some
 * tree tests or a declared group names, that the groups allow; the other features stay
 * undetermined) with its leaf in every tree, computed once for the whole forest. A row's
 * candidates are then the (point, class) pairs whose leaf, in every tree that drew the row, holds
 * at least as many draws of that class as the row contributes there: the pruning rule of
 * row-candidates.ts, applied point by point. The row's true point and class always pass it, so the
 * candidates are sound on their own; points that the row's trees send to the same leaves are merged
 * (values kept where all of them agree), as ../merge.ts does with cells.
 *
 * Why: the search builds leaf masks over the row's trees and walks them for every row, about 30 ms
 * a row on the default forest over 7,206 COMPAS rows (minutes for all of them); here a row costs a
 * pass over the points with an early exit at the first tree that rules a point out.
 */
import type { Forest } from '../../../forest/schema';
import { UNSET } from '../groups';
import type { LeafTable } from '../leaves';
import type { MergedCell } from '../merge';
import type { CategoricalGroup } from '../types';
import { drawnIn, type RowCandidates } from './row-candidates';

/** Points of the table at most, and points x trees (its Int32 leaf table: 40 MB at this cap; about 3 s to fill on a loaded machine). */
const MAX_POINTS = 1 << 16;
const MAX_LEAF_ENTRIES = 10_000_000;

export interface PointTable {
  points: number;
  features: number;
  /** values[p * features + f]: 0, 1, or UNSET for a feature outside the space. */
  values: Int8Array;
  /** leafOf[p * trees + t]: the point's leaf (index into LeafTable.trees[t]) in tree t. */
  leafOf: Int32Array;
  trees: number;
  /** classMask's cache, by tree and multiplicity. */
  masks: Map<number, Uint8Array | Uint16Array | Uint32Array>;
}

/**
 * The table, or undefined when it does not apply (a numeric feature, overlapping groups, a leaf the
 * leaf table does not list) or would be too large; the search is used then.
 */
export function buildPointTable(forest: Forest, table: LeafTable, groups: readonly CategoricalGroup[], deadline: number): PointTable | undefined {
  const features = table.features;
  // Class sets are bit masks (classMask): up to 31 classes.
  if (!table.axes.binary.every((b) => b === 1) || table.classes > 31) return undefined;
  const trees = table.trees.length;
  // Blocks of features assigned together: each group (its allowed patterns), each other tested feature (0 or 1).
  const inGroup = new Int8Array(features);
  const blocks: { features: number[]; patterns: number[][] }[] = [];
  for (const group of groups) {
    if (group.features.some((f) => f < 0 || f >= features || inGroup[f])) return undefined;
    group.features.forEach((f) => (inGroup[f] = 1));
    const k = group.features.length;
    const patterns: number[][] = Array.from({ length: k }, (_, hot) => Array.from({ length: k }, (_, i) => (i === hot ? 1 : 0)));
    if (group.kind === 'at-most-one') patterns.push(new Array<number>(k).fill(0));
    blocks.push({ features: group.features, patterns });
  }
  const tested = new Uint8Array(features);
  for (const tree of forest.trees) for (let n = 0; n < tree.left.length; n++) if (tree.left[n] !== -1 && tree.feature[n] >= 0 && tree.feature[n] < features) tested[tree.feature[n]] = 1;
  for (let f = 0; f < features; f++) if (tested[f] && !inGroup[f]) blocks.push({ features: [f], patterns: [[0], [1]] });
  let points = 1;
  for (const block of blocks) {
    points *= block.patterns.length;
    if (points > MAX_POINTS) return undefined;
  }
  if (points * trees > MAX_LEAF_ENTRIES) return undefined;

  const values = new Int8Array(points * features).fill(UNSET);
  for (let p = 0, rest = p; p < points; p++, rest = p) {
    for (const block of blocks) {
      const pattern = block.patterns[rest % block.patterns.length];
      rest = Math.floor(rest / block.patterns.length);
      block.features.forEach((f, i) => (values[p * features + f] = pattern[i]));
    }
  }
  const leafOf = new Int32Array(points * trees);
  const less = table.axes.splitRule === 'less';
  for (let t = 0; t < trees; t++) {
    // Seconds on large tables: the clock tree by tree (past it, the search takes over and stops at once).
    if (Date.now() > deadline) return undefined;
    const tree = forest.trees[t];
    const leafIndex = new Int32Array(tree.left.length).fill(-1);
    table.trees[t].nodes.forEach((node, l) => (leafIndex[node] = l));
    for (let p = 0; p < points; p++) {
      let node = 0;
      // At most one step per node: children come after their parents (schema.ts), this guards anyway.
      for (let steps = 0; tree.left[node] !== -1; steps++) {
        if (steps > tree.left.length) return undefined;
        const v = values[p * features + tree.feature[node]];
        const threshold = tree.threshold[node];
        // An undetermined value cannot occur on a tested feature; a group member is always assigned.
        node = (less ? v < threshold : v <= threshold) ? tree.left[node] : tree.right[node];
      }
      const leaf = leafIndex[node];
      if (leaf < 0) return undefined;
      leafOf[p * trees + t] = leaf;
    }
  }
  return { points, features, values, leafOf, trees, masks: new Map() };
}

/** Row `row`'s candidates from the table (`perTree[t][row]`: its multiplicity in tree t). */
export function pointCandidates(points: PointTable, table: LeafTable, perTree: readonly Uint16Array[], row: number): RowCandidates {
  const { trees, draws } = drawnIn(perTree, row);
  const { features, values, leafOf } = points;
  const T = points.trees;
  const intervals = table.axes.intervals;
  // Per drawing tree: the classes each leaf holds at least the row's multiplicity of, as bits.
  const masks = trees.map((t, k) => classMask(points, table, t, draws[k]));
  const all = (1 << table.classes) - 1;
  const bySignature = new Map<number, MergedCell[]>();
  const cells: MergedCell[] = [];
  for (let p = 0; p < points.points; p++) {
    const base = p * T;
    let alive = all;
    for (let k = 0; k < trees.length && alive !== 0; k++) alive &= masks[k][leafOf[base + trees[k]]];
    if (alive === 0) continue;
    // The signature (leaves in the row's trees) hashed to a number: joining them into strings was
    // the slowest part. Hits are checked leaf by leaf; a collision goes to the bucket's next entry.
    let h1 = 0x811c9dc5;
    let h2 = 0;
    for (let k = 0; k < trees.length; k++) {
      const leaf = leafOf[base + trees[k]];
      h1 = Math.imul(h1 ^ leaf, 0x01000193);
      h2 = (Math.imul(h2, 31) + leaf) & 0x1fffff;
    }
    const key = (h1 >>> 0) * 0x200000 + h2;
    const bucket = bySignature.get(key);
    let merged: MergedCell | undefined;
    if (bucket) for (const cell of bucket) if (sameLeaves(cell.leaves, leafOf, base, trees)) merged = cell;
    const at = p * features;
    if (!merged) {
      const leaves = new Int32Array(trees.length);
      for (let k = 0; k < trees.length; k++) leaves[k] = leafOf[base + trees[k]];
      const cellValues = new Int32Array(features);
      // Intervals: the value where determined, the feature's whole axis where not.
      const low = new Int32Array(features);
      const high = new Int32Array(features);
      for (let f = 0; f < features; f++) {
        const v = values[at + f];
        cellValues[f] = v;
        low[f] = v === UNSET ? 0 : v;
        high[f] = v === UNSET ? intervals[f] - 1 : v;
      }
      const classes = new Uint8Array(table.classes);
      for (let c = 0; c < table.classes; c++) classes[c] = (alive >>> c) & 1;
      const cell: MergedCell = { values: cellValues, low, high, leaves, classes, members: 1 };
      if (bucket) bucket.push(cell);
      else bySignature.set(key, [cell]);
      cells.push(cell);
      continue;
    }
    merged.members++;
    for (let f = 0; f < features; f++) {
      if (merged.values[f] === values[at + f]) continue;
      merged.values[f] = UNSET;
      merged.low[f] = 0;
      merged.high[f] = intervals[f] - 1;
    }
  }
  return { trees: Int32Array.from(trees), draws: Int32Array.from(draws), cells };
}

/** Per leaf of tree t, the classes it holds at least `m` draws of (bit c), cached on the table. */
function classMask(points: PointTable, table: LeafTable, t: number, m: number): Uint8Array | Uint16Array | Uint32Array {
  const key = t * 65536 + m;
  let mask = points.masks.get(key);
  if (!mask) {
    const { counts, nodes } = table.trees[t];
    const classes = table.classes;
    mask = classes <= 8 ? new Uint8Array(nodes.length) : classes <= 16 ? new Uint16Array(nodes.length) : new Uint32Array(nodes.length);
    for (let l = 0; l < nodes.length; l++) {
      let bits = 0;
      for (let c = 0; c < classes; c++) if (counts[l * classes + c] >= m) bits |= 1 << c;
      mask[l] = bits;
    }
    points.masks.set(key, mask);
  }
  return mask;
}

function sameLeaves(leaves: Int32Array, leafOf: Int32Array, base: number, trees: readonly number[]): boolean {
  for (let k = 0; k < trees.length; k++) if (leaves[k] !== leafOf[base + trees[k]]) return false;
  return true;
}
