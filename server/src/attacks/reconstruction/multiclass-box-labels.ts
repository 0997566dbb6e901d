/**
 * Classes for multi-class boosted models (XGBoost multi:softprob / multi:softmax) reconstructed by
 * row-boxes past the cell limit. The first round's K trees (one per class) state, per leaf, its
 * rows and its rows of the tree's class (first-tree-probe.ts). row-boxes runs on those trees read
 * as row counts, so its rows come back as proven boxes without a class, and one anchor tree's
 * leaf rarely settles a class.
 *
 * What the model proves instead: a leaf of class k's tree whose rows are all of class k holds that
 * many distinct training rows of class k inside its region. Such leaves of one tree are disjoint,
 * and leaves of different class trees hold rows of different classes, so the rows of all of them
 * are distinct: every one is **certified** with that leaf's region and class k. Each such claim is
 * given to a reconstructed row whose point reaches the leaf (the model's prediction k first), whose
 * point is moved into the region when none is left. Every other row keeps its proven box, and its
 * class is the model's prediction at its point (the largest margin over all rounds), an estimate;
 * unless its box meets a leaf whose rows were all claimed: that box may hold one of them, so it
 * keeps no proof (on digits, 16 such boxes claimed rows beyond the 300 the model was trained on;
 * the `--training-data` check found them).
 */
import { formatCount, plural } from '../../util/wording';
import type { ProbedTree } from '../first-tree-probe';
import type { Forest } from '../../forest/schema';
import { boostedMargins, leafOf, leavesMeetingBox } from '../../forest/structure';
import { intoRegion, regionIntervals } from './region-points';
import type { ReconstructedRow, ReconstructionResult } from './types';

/** The class with the largest margin at a point (base score plus every tree of the class). */
export function predictedClass(forest: Forest, point: readonly number[]): number {
  const base = forest.boosting!.baseScore;
  const margins = boostedMargins(forest, point, 0).map((m, k) => m + (base[k] ?? base[0]));
  let best = 0;
  margins.forEach((m, k) => {
    if (m > margins[best]) best = k;
  });
  return best;
}

/** The rows certified by the first round's single-class leaves, the others with predicted classes. */
export function labelMulticlassBoxes(forest: Forest, classTrees: readonly ProbedTree[], result: ReconstructionResult): ReconstructionResult {
  const name = (k: number) => forest.classes[k] ?? k;
  const features = forest.features.length;
  const lowerInclusive = forest.splitRule === 'less';
  const points = result.reconstruction.map((row) => row.values.map((v) => v ?? 0));
  const predicted = points.map((point) => predictedClass(forest, point));
  const claimed: (ReconstructedRow | undefined)[] = new Array(result.reconstruction.length).fill(undefined);
  let certified = 0;
  // Per class tree (by its index in the forest), the leaves whose rows were claimed.
  const claimedLeaves = new Map<number, Set<number>>();
  const take = (i: number, region: ([number, number] | null)[], k: number) => {
    claimed[i] = { values: intoRegion(result.reconstruction[i].values, region, lowerInclusive), intervals: region, label: name(k), certified: true };
    certified++;
  };
  for (const pt of classTrees) {
    const tree = forest.trees[pt.tree];
    const k = pt.group;
    // The rows each leaf's points reach, those predicted k first.
    const reaching = new Map<number, number[]>();
    points.forEach((point, i) => {
      const leaf = leafOf(tree, point, forest.splitRule);
      const list = reaching.get(leaf) ?? [];
      list.push(i);
      reaching.set(leaf, list);
    });
    for (const list of reaching.values()) list.sort((a, b) => Number(predicted[a] !== k) - Number(predicted[b] !== k));
    for (const leaf of pt.leaves) {
      if (leaf.rows === 0 || leaf.positives !== leaf.rows) continue;
      const region = regionIntervals(leaf.box, features);
      let need = leaf.rows;
      if (!claimedLeaves.has(pt.tree)) claimedLeaves.set(pt.tree, new Set());
      claimedLeaves.get(pt.tree)!.add(leaf.node);
      for (const i of reaching.get(leaf.node) ?? []) {
        if (need === 0) break;
        if (claimed[i] === undefined) {
          take(i, region, k);
          need--;
        }
      }
      // Fewer points reach the leaf than it holds: rows predicted k, then any, moved into it.
      for (const wanted of [true, false]) {
        for (let i = 0; i < points.length && need > 0; i++) {
          if (claimed[i] === undefined && (predicted[i] === k) === wanted) {
            take(i, region, k);
            need--;
          }
        }
      }
    }
  }
  let withoutLabel = 0;
  let unproven = 0;
  const meetsClaimedLeaf = (box: readonly ([number, number] | null)[]) => [...claimedLeaves].some(([t, leaves]) => leavesMeetingBox(forest.trees[t], box).some((leaf) => leaves.has(leaf)));
  const reconstruction: ReconstructedRow[] = result.reconstruction.map((row, i) => {
    const claim = claimed[i];
    if (claim) return claim;
    const label = name(predicted[i]);
    if (!row.certified) return { ...row, label };
    if (row.intervals && meetsClaimedLeaf(row.intervals)) {
      unproven++;
      return { ...row, label, certified: false };
    }
    withoutLabel++;
    // The box is proven, the class is not: the values count as proven where the box bounds them.
    return { ...row, label, certified: false, certifiedValues: (row.intervals ?? row.values).map((bound) => bound !== null) };
  });
  const rows = reconstruction.length;
  const { certifiedWithoutLabel: _, ...rest } = result;
  const describe = `${certified > 0 ? `${plural(certified, 'row')} certified with their class: the first round's leaves that hold one class only (each its own tree's class) hold that many distinct rows of it in their regions` : "no row certified with its class: no first-round leaf holds one class only"}; ${formatCount(rows - certified)} rows' classes are the model's prediction at their point (an estimate)${withoutLabel > 0 ? `, ${formatCount(withoutLabel)} of them in proven boxes` : ''}${unproven > 0 ? `; ${formatCount(unproven)} of the ${formatCount(result.reconstruction.filter((r) => r.certified).length)} boxes above hold no proven row: each meets a leaf whose rows the classes above all claimed, so the row it holds may be one of those` : ''}`;
  return {
    ...rest,
    status: result.status === 'exact' && certified < rows ? 'bounded' : result.status,
    reason: [result.reason, describe].filter((x) => x).join('; '),
    certifiedRows: certified,
    ...(withoutLabel > 0 ? { certifiedWithoutLabel: withoutLabel } : {}),
    reconstruction,
  };
}
