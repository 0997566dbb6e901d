/**
 * The forest as the reconstruction sees it: per tree, its leaves, each with the literals on its
 * path and its integer per-class training counts. Also decides whether this engine applies at
 * all: forests without bootstrap, exact counts.
 *
 * Every feature's axis is cut into intervals (feature-axes.ts): a binary feature into two (0 and
 * 1), a numeric or ordinal one by all the thresholds the forest splits it at. A literal says which
 * contiguous range of interval indices a leaf's path allows for one feature; on a binary feature
 * that is `x[f] = 0` ([0, 0]) or `x[f] = 1` ([1, 1]), as before intervals existed.
 */
import type { Forest } from '../../forest/schema';
import { classCount, forEachLeaf, nodeWeight, pathBox } from '../../forest/structure';
import { featureAxes, intervalIndexRange, type FeatureAxes } from './feature-axes';

export interface TreeLeaves {
  /** Node id (in the tree) of each leaf, for messages. */
  nodes: Int32Array;
  /**
   * Literals of leaf l are `literal*[literalStart[l] .. literalStart[l + 1])`, one per feature its
   * path tests (in order of first use): the path allows interval indices literalLow..literalHigh.
   */
  literalStart: Int32Array;
  literalFeature: Int32Array;
  literalLow: Int32Array;
  literalHigh: Int32Array;
  /** The binary view kept for binary-only code: the value (0/1) on binary features, 255 on interval features. */
  literalValue: Uint8Array;
  /** Training rows of class c in leaf l: `counts[l * classes + c]` (draws, with bootstrap). */
  counts: Int32Array;
  /** Distinct training rows in leaf l (scikit-learn's `n_node_samples`), when stored; read with `bootstrap` only. */
  distinct?: Int32Array;
}

export interface LeafTable {
  features: number;
  classes: number;
  /** Training rows N: every tree saw each of them exactly once. */
  rows: number;
  trees: TreeLeaves[];
  /** How each feature's axis is cut into intervals. */
  axes: FeatureAxes;
}

export type LeafTableResult = { ok: true; table: LeafTable } | { ok: false; reason: string };

/** Counts read back from floating point (scikit-learn stores them as doubles) must be this close to an integer. */
const INTEGER_TOLERANCE = 1e-6;

/**
 * `bootstrap`: read a forest trained with bootstrap (the bootstrap/ methods): its trees saw
 * different draws, so roots need not agree on N, and the distinct in-bag counts are kept.
 * `released`: read the released counts of a differentially private forest (dp/) as they are:
 * whole numbers that may be negative and need not add up to the same N in every tree.
 * `anyCounts`: the leaves' boxes only, whatever the counts are (weighted, noised, drawn): the
 * estimate (boxes/estimate.ts) reads the counts itself; they are kept rounded here.
 */
export function buildLeafTable(
  forest: Forest,
  { bootstrap = false, released = false, anyCounts = false }: { bootstrap?: boolean; released?: boolean; anyCounts?: boolean } = {},
): LeafTableResult {
  const unsupported = released || anyCounts ? undefined : unsupportedModel(forest, bootstrap);
  if (unsupported) return { ok: false, reason: unsupported };
  const cut = featureAxes(forest);
  if (!cut.ok) return cut;
  const axes = cut.axes;
  const classes = classCount(forest);
  const trees: TreeLeaves[] = [];
  let rows: number | undefined = forest.training.rows;
  for (let t = 0; t < forest.trees.length; t++) {
    const tree = forest.trees[t];
    const rootRows = nodeWeight(tree, 0, classes);
    // Without bootstrap every tree is grown on all N rows: each root holds N.
    rows ??= bootstrap || released || anyCounts ? undefined : Math.round(rootRows);
    if (!bootstrap && !released && !anyCounts && Math.abs(rootRows - rows!) > INTEGER_TOLERANCE) {
      return { ok: false, reason: `tree ${t} was trained on ${rootRows} rows, not the model's ${rows}; the trees did not all see the same rows` };
    }
    const nodes: number[] = [];
    const literalStart: number[] = [0];
    const literalFeature: number[] = [];
    const literalLow: number[] = [];
    const literalHigh: number[] = [];
    const literalValue: number[] = [];
    const counts: number[] = [];
    let problem: string | undefined;
    forEachLeaf(tree, (leaf, path) => {
      nodes.push(leaf);
      for (const interval of pathBox(path)) {
        const [low, high] = intervalIndexRange(axes, interval);
        literalFeature.push(interval.feature);
        literalLow.push(low);
        literalHigh.push(high);
        literalValue.push(axes.binary[interval.feature] && low === high ? low : 255);
      }
      literalStart.push(literalFeature.length);
      for (let c = 0; c < classes; c++) {
        const weight = tree.classWeights[leaf * classes + c];
        const count = Math.round(weight);
        if (!anyCounts && ((count < 0 && !released) || Math.abs(weight - count) > INTEGER_TOLERANCE)) {
          problem ??= `tree ${t} node ${leaf} stores ${weight} rows of class ${String(forest.classes[c])}, not a whole number (sample or class weights)`;
        }
        counts.push(count);
      }
    });
    if (problem) return { ok: false, reason: problem };
    const distinct = (bootstrap || anyCounts) && tree.distinctRows ? { distinct: Int32Array.from(nodes, (node) => tree.distinctRows![node]) } : {};
    trees.push({
      ...distinct,
      nodes: Int32Array.from(nodes),
      literalStart: Int32Array.from(literalStart),
      literalFeature: Int32Array.from(literalFeature),
      literalLow: Int32Array.from(literalLow),
      literalHigh: Int32Array.from(literalHigh),
      literalValue: Uint8Array.from(literalValue),
      counts: Int32Array.from(counts),
    });
  }
  return { ok: true, table: { features: forest.features.length, classes, rows: rows ?? 0, trees, axes } };
}

/** Why the engine does not apply to this kind of model yet, if it does not. */
function unsupportedModel(forest: Forest, bootstrap: boolean): string | undefined {
  // Regression forests are read through their count view (regression-forest.ts), never directly.
  if (forest.task !== 'classification') return 'a regression forest is read through its row counts (a one-class view), not as a classifier';
  if (forest.privacy) return 'differentially private forests (noised counts) are not reconstructed yet';
  if (forest.boosting) return 'boosted models (XGBoost) store hessian sums, not class counts; they are not reconstructed yet';
  if (forest.training.bootstrap && !bootstrap) return 'forests trained with bootstrap are not reconstructed yet';
  // A leaf's distinct rows (n_node_samples) still count rows: only the per-class counts are weights
  // (sweep 11: "do not count rows" beside "the leaves hold that many distinct training rows").
  if (forest.training.weighted) {
    return forest.classes.length > 1
      ? "the per-class counts are weighted (class or sample weights), so they count no rows of each class, but the leaves' distinct rows do"
      : "the counts are sample-weighted, so they count no rows, but the leaves' distinct rows do";
  }
  return undefined;
}
