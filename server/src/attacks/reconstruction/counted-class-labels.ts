/**
 * Classes for the rows of a classifier read as row counts (`forest.countedClasses`: scikit-learn's
 * multi-class gradient boosting). The count methods (aggregated, row-boxes) run on its trees as
 * count trees and return rows with boxes but no class; stage 0's tree for class k states, at every
 * node, its rows of class k exactly (formats/sklearn/gradient-boosting.ts).
 *
 * What the model proves: a leaf of class k's tree whose rows are all of class k holds no row of
 * another class, and one with no row of class k holds none of class k. A row whose proven box lies
 * inside one leaf of a class tree (leafOfBox) takes these facts: its class is certified as k when
 * k's leaf is all k, or when the leaves of every other class's tree hold none of theirs. Every
 * training row in such a box has class k, so the box's claim of a distinct training row keeps its
 * matching with the class added.
 *
 * The leaves prove more, without saying which row: a leaf of class k's tree holding c rows of class
 * k holds c distinct training rows of class k (rows of different classes are different rows, and
 * one tree's leaves are disjoint). What the rows certified one by one may take of a leaf's c is
 * taken off it (every leaf a row's box overlaps loses one: conservative); the rest are given to
 * rows not yet certified whose point lies in the leaf (those estimated as class k first), each
 * certified with class k and the leaf's region as its box, a wider box than its own proven one.
 * A row left with its proven box but no class may hold one of those leaf rows (its box met the
 * leaf): it then keeps no proof, since every row of the class there may be taken (on iris, such a
 * box claimed a 151st distinct row of 150; the `--training-data` check found it).
 *
 * Everything else is an estimate: the class whose tree gives the leaf at the row's point the
 * largest share of rows of that class.
 */
import type { Forest } from '../../forest/schema';
import { leafOf, leafOfBox, leavesMeetingBox } from '../../forest/structure';
import { certifiedBoxTightness } from './boxes/row-tightness';
import { intoRegion } from './region-points';
import type { ReconstructedRow, ReconstructionResult } from './types';
import { formatCount, plural, pluralPossessive } from '../../util/wording';

type CountedClasses = NonNullable<Forest['countedClasses']>;

/**
 * The result with classes. `proven(row)`: whether the row's box is proven to hold a distinct
 * training row (box methods: `certified`; the aggregated count rows: `certifiedValues`).
 */
export function labelCountedClasses(forest: Forest, counted: CountedClasses, result: ReconstructionResult, proven: (row: ReconstructedRow) => boolean): ReconstructionResult {
  const classTrees = counted.trees.map(({ tree, rows }) => ({ tree: forest.trees[tree], rows }));
  let certified = 0;
  let withoutLabel = 0;
  // Rows sharing a box share its mask of proven values (one per row took 500 MB on 212,215 rows).
  const masks = new Map<ReconstructedRow['intervals'] | ReconstructedRow['values'], boolean[]>();
  const maskOf = (bounds: (readonly [number, number] | number | null)[]) => {
    let mask = masks.get(bounds as ReconstructedRow['values']);
    if (!mask) masks.set(bounds as ReconstructedRow['values'], (mask = bounds.map((bound) => bound !== null)));
    return mask;
  };
  const reconstruction: ReconstructedRow[] = result.reconstruction.map((row): ReconstructedRow => {
    const box = proven(row) && row.intervals ? row.intervals : undefined;
    const known = box ? certifiedClass(classTrees, box) : -1;
    if (known >= 0) {
      certified++;
      const { certifiedValues: _, ...rest } = row;
      return { ...rest, label: counted.classes[known], certified: true };
    }
    const label = counted.classes[estimatedClass(classTrees, row.values.map((v) => v ?? 0), forest.splitRule)];
    if (!box) return { ...row, label, certified: false };
    withoutLabel++;
    // The box is proven, the class is not: its values count as proven where the box bounds them.
    return { ...row, label, certified: false, certifiedValues: row.certifiedValues ?? maskOf(row.intervals ?? row.values) };
  });
  const byBox = certified;
  const byLeaf = certifyFromLeaves(forest, counted, classTrees, reconstruction, result.rows);
  certified += byLeaf.rows;
  withoutLabel -= byLeaf.fromProvenBoxes + byLeaf.unproven;
  const rows = reconstruction.length;
  const { certifiedWithoutLabel: _, ...rest } = result;
  const trees = [...new Set(counted.trees.map((c) => c.tree))];
  // Binary boosting and AdaBoost grow one tree a round, which counts every class: no "class's tree" there.
  const single = trees.length === 1 ? `tree ${trees[0]}` : undefined;
  // Each part only when it counts rows: "0 rows certified with their class ... 241 more" read as a
  // contradiction of the headline's 241 (sweep 10, a public GradientBoostingClassifier).
  const parts: string[] = [];
  if (byBox > 0 || byLeaf.rows === 0) {
    parts.push(
      single
        ? `${plural(byBox, 'row')} certified with their class: each one's proven box lies in a leaf of ${single} (which counts every class) holding rows of that class only`
        : `${plural(byBox, 'row')} certified with their class: each one's proven box lies in a leaf of the first round's tree for that class holding only rows of it, or in leaves of every other class's tree holding none of theirs (trees ${trees.join(', ')})`,
    );
  }
  if (byLeaf.rows > 0) {
    const more = byBox > 0 ? ' more' : '';
    parts.push(
      single
        ? `${formatCount(byLeaf.rows)}${more} rows certified with their class, each with a leaf of ${single} (which counts every class) as its box: the leaf holds that many rows of the class`
        : `${formatCount(byLeaf.rows)}${more} rows certified with their class, each with a leaf of that class's tree as its box: the leaf holds that many rows of the class`,
    );
  }
  if (byLeaf.unproven > 0) parts.push(`${pluralPossessive(byLeaf.unproven, 'row')} proven boxes meet such a leaf, whose rows of the class may all be taken, so they are estimates`);
  if (rows > certified) {
    parts.push(
      `${pluralPossessive(rows - certified, 'row')} classes are estimates (the class ${single ? `with the largest share of the leaf of ${single}` : "whose tree's leaf"} at the row's point${single ? '' : ' has the largest share of it'})${withoutLabel > 0 ? `, ${formatCount(withoutLabel)} of them in proven boxes` : ''}`,
    );
  }
  const how = parts.join('; ');
  // The widths of the boxes the certified rows carry now (a leaf's region is wider than a row's own box).
  const boxes = byLeaf.rows > 0 ? certifiedBoxTightness(forest, reconstruction) : result.boxes;
  // The engine's reason gave the proven boxes' width before some became leaf regions: say which is which.
  const rewidened = byLeaf.rows > 0 && boxes ? `the boxes the rows carry now, leaf regions among them, have a median width of ${(100 * boxes.medianWidth).toFixed(1)}% of the thresholds' range` : undefined;
  const { boxes: _boxes, ...others } = rest;
  return {
    ...others,
    ...(boxes ? { boxes } : {}),
    status: result.status === 'exact' && certified < rows ? 'bounded' : result.status,
    reason: [result.reason, how, rewidened].filter((x) => x).join('; '),
    certifiedRows: certified,
    ...(withoutLabel > 0 ? { certifiedWithoutLabel: withoutLabel } : {}),
    reconstruction,
    reconstructedRows: reconstruction.length,
  };
}

interface ClassTree {
  tree: Forest['trees'][number];
  /** The class's rows at each node. */
  rows: readonly number[];
}

/** The class every training row in the box has, by the leaves of the class trees it lies in; -1 when not determined. */
function certifiedClass(classTrees: readonly ClassTree[], box: readonly ([number, number] | null)[]): number {
  let excluded = 0;
  let open = -1;
  for (let k = 0; k < classTrees.length; k++) {
    const { tree, rows } = classTrees[k];
    const leaf = leafOfBox(tree, box);
    if (leaf < 0) {
      open = open === -1 ? k : -2;
      continue;
    }
    const all = tree.classWeights[leaf];
    if (all > 0 && rows[leaf] === all) return k;
    if (rows[leaf] === 0) excluded++;
    else open = open === -1 ? k : -2;
  }
  // Every class but one excluded: the box's rows are of that one.
  return excluded === classTrees.length - 1 && open >= 0 ? open : -1;
}

/** The class with the largest share of its rows in its tree's leaf at the point (the first on ties). */
function estimatedClass(classTrees: readonly ClassTree[], point: readonly number[], rule: Forest['splitRule']): number {
  let best = 0;
  let bestShare = -1;
  classTrees.forEach(({ tree, rows }, k) => {
    const leaf = leafOf(tree, point, rule);
    const all = tree.classWeights[leaf];
    const share = all > 0 ? rows[leaf] / all : 0;
    if (share > bestShare) {
      best = k;
      bestShare = share;
    }
  });
  return best;
}

/**
 * The leaf claims (see the module comment), written into `rows` in place: per class tree, each
 * leaf's rows of the class less those the certified rows may take, given to uncertified rows whose
 * point lies in the leaf. Returns how many rows were certified so, and how many of them had a
 * proven box before.
 */
function certifyFromLeaves(forest: Forest, counted: CountedClasses, classTrees: readonly ClassTree[], rows: ReconstructedRow[], stated: number | null | undefined): { rows: number; fromProvenBoxes: number; unproven: number } {
  const features = forest.features.length;
  // Rows that share their values (a group's rows past the walks' cap: 212,215 rows of 291 features
  // in a public model) share one point: a point per row took 500 MB.
  const pointOf = new Map<ReconstructedRow['values'], number[]>();
  const points = rows.map((row) => {
    let point = pointOf.get(row.values);
    if (!point) pointOf.set(row.values, (point = row.values.map((v) => v ?? 0)));
    return point;
  });
  let certified = 0;
  let fromProvenBoxes = 0;
  // Rows short of N: the class trees' roots count every training row once, by class.
  const total = Math.min(stated ?? Infinity, classTrees.reduce((sum, { rows: ofClass }) => sum + ofClass[0], 0));
  let missing = Math.max(0, total - rows.length);
  // Each class tree's leaf regions, walked once per tree (binary models name tree 0 for both classes).
  const regions = new Map<number, Map<number, ([number, number] | null)[]>>();
  for (const { tree: t } of counted.trees) {
    if (regions.has(t)) continue;
    const boxes = new Map<number, ([number, number] | null)[]>();
    forEachLeafBox(forest.trees[t], features, (leaf, box) => boxes.set(leaf, box));
    regions.set(t, boxes);
  }
  // Per class tree, the leaves whose rows were given out.
  const given = classTrees.map(() => new Set<number>());
  classTrees.forEach(({ tree, rows: ofClass }, k) => {
    const boxes = regions.get(counted.trees[k].tree)!;
    const left = new Map<number, number>();
    for (const leaf of boxes.keys()) left.set(leaf, ofClass[leaf]);
    const label = counted.classes[k];
    for (const row of rows) {
      if (!row.certified || row.label !== label || !row.intervals) continue;
      for (const leaf of leavesMeetingBox(tree, row.intervals)) left.set(leaf, Math.max(0, (left.get(leaf) ?? 0) - 1));
    }
    // Rows estimated as this class first, then any uncertified row in the leaf.
    for (const pass of [true, false]) {
      rows.forEach((row, r) => {
        if (row.certified || (pass && row.label !== label)) return;
        const leaf = leafOf(tree, points[r], forest.splitRule);
        const room = left.get(leaf) ?? 0;
        if (room <= 0) return;
        left.set(leaf, room - 1);
        given[k].add(leaf);
        if (row.certifiedValues) fromProvenBoxes++;
        certified++;
        const { certifiedValues: _, ...rest } = row;
        rows[r] = { ...rest, label, certified: true, intervals: boxes.get(leaf)! };
      });
    }
    // Rows the leaves still hold when the reconstruction has fewer rows than N (a budget that ran
    // out after the integer solve left none: 0 of 160 certified where the next run gave 160): each
    // is a row of its own, its box the leaf's region and its point inside it. The claims need no
    // walked row, so the certified count no longer follows the clock.
    for (const [leaf, room] of left) {
      for (let k2 = 0; k2 < room && missing > 0; k2++, missing--) {
        const box = boxes.get(leaf)!;
        rows.push({ values: intoRegion(new Array(features).fill(null), box, forest.splitRule === 'less'), intervals: box, label, certified: true });
        given[k].add(leaf);
        certified++;
      }
    }
  });
  // A proven box without a class that meets a leaf whose rows were given out may hold one of them.
  let unproven = 0;
  const meets = new Map<ReconstructedRow['intervals'], { proven: boolean[]; met: boolean }>();
  rows.forEach((row, r) => {
    const proven = row.certifiedValues;
    if (row.certified || !proven || !row.intervals) return;
    let seen = meets.get(row.intervals);
    if (seen?.proven !== proven) {
      // Only the proven values bound the box.
      const box = row.intervals.map((interval, f) => (proven[f] ? interval : null));
      seen = { proven, met: classTrees.some(({ tree }, k) => leavesMeetingBox(tree, box).some((leaf) => given[k].has(leaf))) };
      meets.set(row.intervals, seen);
    }
    if (!seen.met) return;
    const { certifiedValues: _, ...rest } = row;
    rows[r] = rest;
    unproven++;
  });
  return { rows: certified, fromProvenBoxes, unproven };
}

/** Every leaf with its region: per feature (lower, upper], null where the path does not test the feature. */
function forEachLeafBox(tree: ClassTree['tree'], features: number, visit: (leaf: number, box: ([number, number] | null)[]) => void): void {
  const walk = (node: number, box: ([number, number] | null)[]) => {
    if (tree.left[node] === -1) return visit(node, box);
    const f = tree.feature[node];
    const t = tree.threshold[node];
    const [lo, hi] = box[f] ?? [-Infinity, Infinity];
    const leftBox = box.slice();
    leftBox[f] = [lo, Math.min(hi, t)];
    const rightBox = box.slice();
    rightBox[f] = [Math.max(lo, t), hi];
    walk(tree.left[node], leftBox);
    walk(tree.right[node], rightBox);
  };
  walk(0, new Array<[number, number] | null>(features).fill(null));
}
