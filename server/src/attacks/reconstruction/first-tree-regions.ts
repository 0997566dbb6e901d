/**
 * Count trees (scikit-learn's histogram boosting, trees fitted with missing values) and XGBoost
 * count views whose training data had missing values some splits send left and others right: the
 * cell methods cannot count with such a value (a row missing it reaches leaves by the default
 * directions, not by its interval), so these models used to be skipped. What one tree still proves:
 * each leaf holds its stated rows (of each class, where the tree counts classes), in its region or
 * missing a feature that a missing value reaches the leaf through; leaves of one tree are disjoint,
 * and rows of different classes are different rows. So every row a tree counts is **certified** as
 * a box: the leaf's region, with the features a missing value could bypass left unbounded
 * (missing-values.ts missingReachable), and its class where the tree counts classes. The point in
 * the box is an estimate; the later trees are not used (the answer is `bounded`).
 */
import type { Forest } from '../../forest/schema';
import { baseMargin } from '../../forest/boosting';
import { boostedMargins, classCount, forEachLeaf, leafOf, pathBox } from '../../forest/structure';
import { isSquaredError } from '../boosted-covers';
import { formatCount } from '../../util/wording';
import { missingReachable } from '../missing-values';
import { certifiedBoxTightness } from './boxes/row-tightness';
import type { RunContext } from './context';
import { featureAxes } from './feature-axes';
import { intoRegion, regionIntervals } from './region-points';
import { fillUnbounded } from './rows';
import type { ReconstructedRow, ReconstructionResult } from './types';

/**
 * A regressor's target at a point, as the model predicts it (an estimate): a squared-error boosted
 * model's margin, or the mean over trees of their leaves' means or medians; '' for a model without
 * targets (an outlier detector).
 */
function predictedTarget(forest: Forest, values: readonly (number | null)[]): string | number {
  const point = values.map((v) => v ?? 0);
  if (forest.boosting) return isSquaredError(forest) ? boostedMargins(forest, point, baseMargin(forest.boosting))[0] : '';
  if (!forest.trees.every((tree) => tree.targetMean ?? tree.targetMedian)) return '';
  let sum = 0;
  for (const tree of forest.trees) sum += (tree.targetMean ?? tree.targetMedian)![leafOf(tree, point, forest.splitRule)];
  return sum / forest.trees.length;
}

/** Rows of one class (or of any label, `label` undefined) per node of one tree. */
export interface LeafRows {
  tree: number;
  rows: ArrayLike<number>;
  label?: string | number | boolean;
}

/**
 * Which counts a model's trees give: a count-tree classifier's per-class trees (`countedClasses`),
 * else tree 0's per-class counts (a classifier without bootstrap), else tree 0's rows (labels
 * unknown). Undefined when tree 0's counts are not whole rows (weights, bootstrap draws).
 */
export function countTreeLeafRows(forest: Forest): LeafRows[] | undefined {
  if (forest.countedClasses) return forest.countedClasses.trees.map((t, k) => ({ tree: t.tree, rows: t.rows, label: forest.countedClasses!.classes[k] }));
  if (forest.training.weighted || forest.privacy) return undefined;
  if (forest.training.bootstrap) return drawnTreeLeafRows(forest);
  const tree = forest.trees[0];
  const k = classCount(forest);
  const whole = (x: number) => Math.abs(x - Math.round(x)) < 1e-9;
  if (!Array.from(tree.classWeights).every(whole)) return undefined;
  if (forest.task === 'classification' && forest.classes.length >= 2) {
    return forest.classes.map((label, c) => ({ tree: 0, rows: Array.from({ length: tree.left.length }, (_, n) => Math.round(tree.classWeights[n * k + c])), label }));
  }
  return [{ tree: 0, rows: Array.from({ length: tree.left.length }, (_, n) => Math.round(tree.classWeights[n * k])) }];
}

/**
 * With bootstrap: a leaf's distinct rows (n_node_samples) are training rows its tree drew, in its
 * region, and its class draws say their class where the leaf holds one class only. The tree that
 * drew the most rows is read (sweep 11: a public 1.5 forest trained with missing values was
 * `skipped` before). Leaves of several classes prove nothing of their rows' classes here, so only
 * single-class leaves' rows are listed (a regressor's, every leaf's, without a target).
 */
function drawnTreeLeafRows(forest: Forest): LeafRows[] | undefined {
  let best = -1;
  forest.trees.forEach((tree, t) => {
    if (tree.distinctRows && (best < 0 || tree.distinctRows[0] > forest.trees[best].distinctRows![0])) best = t;
  });
  if (best < 0) return undefined;
  const tree = forest.trees[best];
  const distinct = tree.distinctRows!;
  if (forest.task !== 'classification' || forest.classes.length < 2) return [{ tree: best, rows: Array.from(distinct) }];
  const k = classCount(forest);
  return forest.classes.map((label, c) => ({
    tree: best,
    rows: Array.from({ length: tree.left.length }, (_, n) => {
      let others = 0;
      for (let j = 0; j < k; j++) if (j !== c) others += tree.classWeights[n * k + j];
      return others === 0 && tree.classWeights[n * k + c] > 0 ? distinct[n] : 0;
    }),
    label,
  }));
}

export function reconstructFromLeafRegions(forest: Forest, ctx: RunContext, why: string, sources: readonly LeafRows[], rows: number | null): ReconstructionResult {
  ctx.method = 'leaf-regions';
  const features = forest.features.length;
  const lowerInclusive = forest.splitRule === 'less';
  const reconstruction: ReconstructedRow[] = [];
  let withLabel = 0;
  let withoutLabel = 0;
  let unbounded = 0;
  for (const source of sources) {
    const tree = forest.trees[source.tree];
    forEachLeaf(tree, (leaf, path) => {
      const count = source.rows[leaf];
      if (!(count > 0)) return;
      const region = regionIntervals(pathBox(path), features, missingReachable(forest, source.tree, leaf));
      const values = intoRegion(new Array<number | null>(features).fill(null), region, lowerInclusive);
      // A leaf's rows share its point and region (rows are read, never changed, once answered).
      // Without a label, a region that bounds no feature proves nothing but that a row exists: it
      // is not counted as a proven box (a public subsampled XGBRegressor read "10,415 rows proven
      // with their feature intervals", 8,462 of them bounding none: sweep 15).
      const bounds = region.some((b) => b !== null);
      const row: ReconstructedRow =
        source.label !== undefined
          ? { values, intervals: region, label: source.label, certified: true }
          : { values, intervals: region, label: predictedTarget(forest, values), certified: false, ...(bounds ? { certifiedValues: region.map((b) => b !== null) } : {}) };
      for (let i = 0; i < count; i++) reconstruction.push(row);
      if (source.label !== undefined) withLabel += count;
      else if (bounds) withoutLabel += count;
      else unbounded += count;
    });
  }
  const axes = featureAxes(forest);
  const filled = axes.ok ? fillUnbounded(reconstruction, axes.axes) : reconstruction;
  const boxes = withLabel > 0 ? certifiedBoxTightness(forest, filled) : undefined;
  const trees = [...new Set(sources.map((s) => s.tree))];
  const reason = [
    why,
    `so one tree is read instead: ${trees.length === 1 ? `tree ${trees[0]}'s leaves hold` : `the leaves of trees ${trees.join(', ')}, one per class, hold`} ${formatCount(filled.length)} rows, each certified as a box (its leaf's region, leaving a feature unbounded where a row missing it reaches the leaf)${withLabel > 0 ? ' with its class' : ", its target the model's prediction there (an estimate)"}, at a point of it (an estimate); the other trees are not used`,
    unbounded > 0 ? `${formatCount(unbounded)} of them are not counted as proven: their leaf's region, open to missing values, bounds no feature` : undefined,
  ].filter((x) => x).join('; ');
  ctx.stats.treesMatched = trees.length;
  return ctx.answer({ status: 'bounded', reason, rows, certifiedRows: withLabel, ...(withoutLabel > 0 ? { certifiedWithoutLabel: withoutLabel } : {}), ...(boxes ? { boxes } : {}), reconstruction: filled });
}

/**
 * An estimate's rows (a reconstruction run as if the model had no missing values), certified by
 * one tree's leaf regions instead of the estimate's own proof: each (leaf, class) of the sources
 * holds its stated rows, so that many of the estimate's rows whose point lies in the leaf, with that
 * class, are certified with the leaf's region (open to a missing value where one reaches it) as
 * their box; the points stay the estimate's. The rest are estimates.
 */
export function certifyByLeafRegions(forest: Forest, sources: readonly LeafRows[], rows: readonly ReconstructedRow[]): { rows: ReconstructedRow[]; certified: number; withoutLabel: number } {
  const features = forest.features.length;
  const left = sources.map((s) => Array.from(s.rows));
  // Every source tree's leaf regions, in one walk per tree.
  const regions = new Map<number, Map<number, ([number, number] | null)[]>>();
  for (const tree of new Set(sources.map((source) => source.tree))) {
    const byLeaf = new Map<number, ([number, number] | null)[]>();
    forEachLeaf(forest.trees[tree], (leaf, path) => byLeaf.set(leaf, regionIntervals(pathBox(path), features, missingReachable(forest, tree, leaf))));
    regions.set(tree, byLeaf);
  }
  const regionOf = (tree: number, leaf: number) => regions.get(tree)!.get(leaf)!;
  // Rows past the walk cap share their group's values array, and rows of one leaf its region: the
  // leaves a values array reaches and a region's proven values are computed once, not per row (a
  // public 706,048-row HistGradientBoostingRegressor, 3,975 features, ran out of 6 GB on per-row
  // copies of `certifiedValues`).
  const leavesOfValues = new WeakMap<object, Int32Array>();
  const leafAt = (values: readonly (number | null)[], s: number): number => {
    let leaves = leavesOfValues.get(values);
    if (!leaves) {
      const point = values.map((v) => v ?? 0);
      leaves = Int32Array.from(sources, (source) => leafOf(forest.trees[source.tree], point, forest.splitRule));
      leavesOfValues.set(values, leaves);
    }
    return leaves[s];
  };
  const provenOf = new WeakMap<object, boolean[]>();
  const provenValues = (region: ([number, number] | null)[]): boolean[] => {
    let proven = provenOf.get(region);
    if (!proven) provenOf.set(region, (proven = region.map((b) => b !== null)));
    return proven;
  };
  let certified = 0;
  let withoutLabel = 0;
  const out = rows.map((row): ReconstructedRow => {
    for (let s = 0; s < sources.length; s++) {
      const source = sources[s];
      if (source.label !== undefined && source.label !== row.label) continue;
      const leaf = leafAt(row.values, s);
      if (!(left[s][leaf] > 0)) continue;
      left[s][leaf]--;
      const region = regionOf(source.tree, leaf);
      const { certifiedValues: _, ...rest } = row;
      if (source.label !== undefined) {
        certified++;
        return { ...rest, intervals: region, certified: true };
      }
      withoutLabel++;
      return { ...rest, intervals: region, certified: false, certifiedValues: provenValues(region) };
    }
    const { certifiedValues: _, ...rest } = row;
    return { ...rest, certified: false };
  });
  // Second pass: a row the estimate put where its class has no room left goes to a leaf that still
  // has room for its class, its point moved into that leaf's region (the point is an estimate).
  // Third pass: claims still left go to rows still uncertified of any class, which take the claim's
  // class (theirs was the estimate's). So every stated row is certified, however the estimate's
  // classes fell: a public 26,029-row model certified 25,758 to 25,953 rows from run to run.
  const lowerInclusive = forest.splitRule === 'less';
  // Each source tree's leaves, listed once (not once per row and pass).
  const leavesOf = new Map([...regions].map(([tree, byLeaf]) => [tree, [...byLeaf.keys()]]));
  // A shared values array moved into one region is one new array, however many rows share both.
  const moved = new WeakMap<object, Map<object, (number | null)[]>>();
  const movedInto = (values: (number | null)[], region: ([number, number] | null)[]): (number | null)[] => {
    let byRegion = moved.get(values);
    if (!byRegion) moved.set(values, (byRegion = new Map()));
    let into = byRegion.get(region);
    if (!into) byRegion.set(region, (into = intoRegion(values, region, lowerInclusive)));
    return into;
  };
  for (const anyClass of [false, true]) passOver(anyClass);
  return { rows: out, certified, withoutLabel };

  function passOver(anyClass: boolean): void {
    for (let r = 0; r < out.length; r++) {
      const row = out[r];
      if (row.certified || row.certifiedValues) continue;
      for (let s = 0; s < sources.length && !(out[r].certified || out[r].certifiedValues); s++) {
        const source = sources[s];
        if (source.label !== undefined && source.label !== row.label && !anyClass) continue;
        // Leaves only: the sources count rows at every node (countedClasses), internal ones too.
        const leaf = leavesOf.get(source.tree)!.find((l) => left[s][l] > 0);
        if (leaf === undefined) continue;
        left[s][leaf]--;
        const region = regionOf(source.tree, leaf);
        const values = movedInto(row.values, region);
        if (source.label !== undefined) {
          certified++;
          out[r] = { ...row, values, intervals: region, label: source.label, certified: true };
        } else {
          withoutLabel++;
          out[r] = { ...row, values, intervals: region, certified: false, certifiedValues: provenValues(region) };
        }
      }
    }
  }
}

/** The model read as if its training data had no missing values (its directions left out). */
export function withoutMissingDirections(forest: Forest): Forest {
  return { ...forest, trees: forest.trees.map(({ defaultLeft, ...tree }) => (void defaultLeft, tree)) };
}

/**
 * An estimate of a model that may have had missing values (run on withoutMissingDirections), its
 * own certificate set aside (it assumed none) and its rows certified by the sources' leaf regions
 * instead (certifyByLeafRegions).
 */
export function certifiedEstimate(forest: Forest, ctx: RunContext, estimate: ReconstructionResult, sources: readonly LeafRows[], why: string): ReconstructionResult {
  const { rows, certified, withoutLabel } = certifyByLeafRegions(forest, sources, estimate.reconstruction);
  const boxes = certified > 0 ? certifiedBoxTightness(forest, rows) : undefined;
  ctx.method = 'leaf-regions';
  const reason = [
    why,
    `so the rows are reconstructed as if there were none (${estimate.method}, an estimate), and certified by tree ${sources[0].tree}'s leaves instead: ` +
      `${formatCount(certified + withoutLabel)} rows as boxes${withoutLabel > 0 ? ' without their label' : ' with their class'}, each its leaf's region, open to a missing value where one reaches the leaf`,
  ].join('; ');
  const { boxes: _boxes, certifiedWithoutLabel: _withoutLabel, ...rest } = estimate;
  return {
    ...rest,
    method: 'leaf-regions',
    status: estimate.status === 'exact' ? 'bounded' : estimate.status,
    reason,
    certifiedRows: certified,
    ...(withoutLabel > 0 ? { certifiedWithoutLabel: withoutLabel } : {}),
    ...(boxes ? { boxes } : {}),
    reconstruction: rows,
  };
}
