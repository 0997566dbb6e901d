/**
 * Targets for regression forests reconstructed by the box methods. Those methods run on the
 * forest's count view (one class: "a row"), so their rows come back with boxes but no target.
 *
 * What the model proves: the box methods seed their row groups from the leaves of one anchor tree
 * (`stats.anchorTree`), and a certified row lies inside its anchor leaf. A leaf that holds exactly
 * one distinct training row (`n_node_samples` = 1 with bootstrap, a count of 1 without) stores that
 * row's target as its value: the mean of one row's target, however often the tree drew it. A leaf
 * whose stored variance (squared error's impurity) is zero holds rows that all have its value as
 * target. A certified row in either kind of anchor leaf is certified with its target.
 * scikit-learn's defaults grow regression trees until their leaves are pure, so most leaves hold
 * one row; with max_depth or min_samples_leaf, integer or 0/1 targets leave many pure leaves.
 *
 * Everything else is an estimate: a row's target is the forest's prediction at its point (the mean
 * over trees of the leaf values it reaches), and a certified row whose anchor leaf holds more than
 * one row keeps its box as proven (`certifiedWithoutLabel`) with that estimated target.
 */
import { formatCount, plural, pluralPossessive } from '../../util/wording';
import type { Forest, Tree } from '../../forest/schema';
import { leafOf, leafOfBox } from '../../forest/structure';
import type { ReconstructedRow, ReconstructionResult } from './types';

/**
 * Whether every training row in this leaf has the leaf's value as its target:
 *  - one distinct row (`n_node_samples`, also with bootstrap or sample weights; else the count,
 *    which counts rows in a model without either);
 *  - or zero variance over its draws. scikit-learn's variance of equal targets is not exactly 0
 *    (E[y^2] - E[y]^2 in doubles), so the test is on the bound it gives: a draw with weight at
 *    least 1 is at most sqrt(W * variance) from the mean (W the leaf's draws), and that bound must
 *    be within PURE_TARGET of the mean's size. Only without sample weights (a weight below 1
 *    loosens the bound without limit).
 */
export function pureLeaf(tree: Tree, leaf: number, weighted: boolean): boolean {
  if ((tree.distinctRows?.[leaf] ?? tree.classWeights[leaf]) === 1) return true;
  const variance = tree.targetVariance?.[leaf];
  if (weighted || variance === undefined) return false;
  const mean = tree.targetMean![leaf];
  return tree.classWeights[leaf] * Math.max(0, variance) <= PURE_TARGET * PURE_TARGET * mean * mean;
}

/** Relative distance from the leaf's value within which a pure leaf's targets are certified. */
export const PURE_TARGET = 1e-6;

/**
 * What labelling takes, to reserve it from the box method's budget (RunContext.reserve): a walk
 * through every tree per row, measured at about 1 microsecond a walk (10,000 rows of 100 fully
 * grown extra trees: 1.06 s), doubled for slower machines.
 */
export function labellingMs(forest: Forest, rows: number): number {
  return rows * forest.trees.length * 2e-3;
}

export function labelRegressionBoxes(forest: Forest, result: ReconstructionResult, stop: () => boolean = () => false): ReconstructionResult {
  const anchor = result.stats.anchorTree;
  if (anchor === undefined || result.reconstruction.length === 0) return result;
  // Leaf values: means, or medians (criterion='absolute_error'): what the trees predict, and a
  // one-row leaf's target either way.
  const valuesOf = (tree: Tree) => tree.targetMean ?? tree.targetMedian;
  const means = forest.trees.every((tree) => valuesOf(tree) !== undefined);
  const fallback = valuesOf(forest.trees[0])?.[0] ?? 0;
  return withTargets(
    result,
    (row) => {
      if (!means) return { estimate: fallback };
      // Points inside the forest's intervals; a null value is a feature no split tests.
      const point = row.values.map((v) => v ?? 0);
      let sum = 0;
      for (const tree of forest.trees) sum += valuesOf(tree)![leafOf(tree, point, forest.splitRule)];
      // The proven box, not the point, says which anchor leaf holds the row: a point is an estimate
      // and, compared as float32 at a threshold, may be routed past the box it stands for.
      const boxLeaf = row.certified && row.intervals ? leafOfBox(forest.trees[anchor], row.intervals) : -1;
      const proven = boxLeaf >= 0 && pureLeaf(forest.trees[anchor], boxLeaf, forest.training.weighted === true);
      return proven ? { target: valuesOf(forest.trees[anchor])![boxLeaf] } : { estimate: sum / forest.trees.length };
    },
    (certified, withoutLabel, rows) =>
      !means
        ? `the trees store no mean targets (${whyNoMeanTargets(forest)}): no target is certified and each row has the root's value`
        : `${certified > 0 ? `${plural(certified, 'row')} certified with ${certified === 1 ? 'its' : 'their'} target: each lies` : 'no row certified with its target: no proven box lies'} in a leaf of tree ${anchor} that holds one distinct training row or rows of one target (zero variance), whose stored value is that target${rows - certified > 0 ? `; ${pluralPossessive(rows - certified, 'row')} ${rows - certified === 1 ? 'target is' : 'targets are'} the ${forest.trees.length === 1 ? "tree's" : "forest's"} prediction at ${rows - certified === 1 ? 'its' : 'their'} point (an estimate)${withoutLabel > 0 ? `, ${formatCount(withoutLabel)} of them in proven boxes` : ''}` : ''}`,
    { stop, standIn: () => ({ value: fallback, words: "the root's value (the training rows' mean target)" }) },
  );
}

/**
 * Targets past the budget: `stop` says when to give up walking trees, `standIn` what the rest carry
 * (`words` names it). The stand-in is asked for only once the budget has run out.
 */
export interface LateTargets {
  stop: () => boolean;
  standIn: () => { value: number; words: string };
}

/**
 * A box method's result (run on a count view: rows with boxes, no target) with targets: per row
 * either a certified target or an estimated one. A certified row without a certified target keeps
 * its box as proven (`certifiedWithoutLabel`). `describe` says how the targets were found.
 */
export function withTargets(
  result: ReconstructionResult,
  targetOf: (row: ReconstructedRow) => { target: number } | { estimate: number },
  describe: (certified: number, withoutLabel: number, rows: number) => string,
  late?: LateTargets,
): ReconstructionResult {
  let certified = 0;
  let withoutLabel = 0;
  // Each target walks every tree: 168,864 rows of a 950-tree booster took 40 s after a 5 s budget.
  let lateRows = 0;
  let stopped = false;
  let standIn: { value: number; words: string } | undefined;
  // Rows that share their arrays (a group's rows standing at its box: 94,392 rows of a public
  // XGBRegressor in 29 leaf boxes of 1,391 features) share their target and their proven values:
  // one walk and one array per box, not per row (that booster ran out of 1 GB on per-row copies).
  type Found = ReturnType<typeof targetOf>;
  const found = new WeakMap<object, { intervals: unknown; certified: boolean; value: Found }[]>();
  const targetFor = (row: ReconstructedRow): Found => {
    const seen = found.get(row.values);
    const hit = seen?.find((e) => e.intervals === row.intervals && e.certified === row.certified);
    if (hit) return hit.value;
    const value = targetOf(row);
    const entry = { intervals: row.intervals, certified: row.certified, value };
    if (seen) seen.push(entry);
    else found.set(row.values, [entry]);
    return value;
  };
  const provenValues = new WeakMap<object, boolean[]>();
  const provenValuesOf = (bounds: readonly unknown[]): boolean[] => {
    let proven = provenValues.get(bounds);
    if (!proven) provenValues.set(bounds, (proven = bounds.map((bound) => bound !== null)));
    return proven;
  };
  const reconstruction: ReconstructedRow[] = result.reconstruction.map((row, r) => {
    if (late && !stopped && r % 256 === 0) stopped = late.stop();
    if (stopped) {
      lateRows++;
      standIn ??= late!.standIn();
    }
    const answer = standIn ? { estimate: standIn.value } : targetFor(row);
    if ('target' in answer) {
      certified++;
      return { ...row, label: answer.target };
    }
    const label = answer.estimate;
    if (!row.certified) return { ...row, label };
    withoutLabel++;
    // The box is proven, the target is not: the values count as proven where the box bounds them.
    return { ...row, label, certified: false, certifiedValues: provenValuesOf(row.intervals ?? row.values) };
  });
  const rows = reconstruction.length;
  // A model too wide to list every row (compact-features.ts, `listedRows`): the proven rows past the
  // listing keep their proven boxes without a target (none was computed for them). Sweep 17: a
  // public 6,683-column forest read "1,795 rows proven as boxes" of the 37,786 its tree proved.
  if (result.listedRows !== undefined) {
    const listedProven = result.reconstruction.reduce((n, row) => n + (row.certified ? 1 : 0), 0);
    withoutLabel += Math.max(0, result.certifiedRows - listedProven);
  }
  const { certifiedWithoutLabel: _, ...rest } = result;
  const lateText = lateRows > 0 ? `the time budget ran out before the targets of ${lateRows.toLocaleString('en-US')} rows were computed: they carry ${standIn!.words}` : '';
  return {
    ...rest,
    status: lateRows > 0 ? 'timeout' : result.status === 'exact' && certified < rows ? 'bounded' : result.status,
    reason: [result.reason, describe(certified, withoutLabel, rows), lateText].filter((x) => x).join('; '),
    certifiedRows: certified,
    ...(withoutLabel > 0 ? { certifiedWithoutLabel: withoutLabel } : {}),
    reconstruction,
  };
}

/**
 * Why a count-read model's trees carry no mean targets, for the reasons: medians (criterion
 * absolute_error), or a model the reader could only read as row counts (a classifier among them:
 * multi-class boosting, other losses; the model's notes say which).
 */
export function whyNoMeanTargets(forest: Forest): string {
  if (forest.hyperParameters.criterion === 'absolute_error' || forest.hyperParameters.criterion === 'mae') return 'criterion absolute_error stores medians';
  if (/Classifier$/.test(forest.estimator ?? '')) return `the ${forest.estimator} is read as row counts only, without classes (the model's notes say why)`;
  return 'the model is read as row counts only (the model\'s notes say why)';
}
