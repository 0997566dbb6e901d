/**
 * Certified reconstruction of a forest's training set (issue 3). `reconstruct()` picks the
 * formulation that fits the model (`method` on the result says which) and runs it within a budget:
 *
 *   context.ts      clock, budget, abort signal, progress and statistics shared by every method
 *   leaves.ts       the forest as leaves with path literals (ranges of interval indices per feature;
 *                   0 or 1 on binary features) and integer class counts, or why the engine does not apply
 *   aggregated.ts   no bootstrap, exact counts: integer multiplicities of cells, then a certificate
 *                   (gives up past a cell limit or its share of the budget: see `dispatch`)
 *     cells.ts        the cells of feature space the forest tells apart, with sound pruning
 *                     (leaf-masks.ts: leaf sets as bit masks; groups.ts: declared one-hot groups)
 *     merge.ts        cells every tree sends to the same leaves become one
 *     formulation.ts  one integer unknown per (cell, class); every leaf's per-class count an equality
 *     propagation.ts  integer bounds implied by the equalities, and probing (bootstrap/ uses it too)
 *     certify.ts      proven lower bounds per (cell, class): rows certainly in the training data
 *     dual-bounds.ts  the weak-duality arithmetic the certificate's soundness rests on
 *     rows.ts         multiplicities back to rows (null where the model does not determine a value)
 *   dp/             differentially private (noised) counts: the DRAFT-DP maximum-likelihood
 *                   estimate over the same cells (dp/likelihood.ts), never certified
 *   boxes/estimate.ts  counts that are not shared row counts (bootstrap on numeric features, class
 *                   or sample weights, noised numeric counts): single-class leaves certify boxes
 *   boxes/          too many cells (numeric forests): rows in groups with proven boxes, narrowed by
 *                   sound propagation over every tree's counts, then completed to one training set
 *   bounded-search.ts  the earlier answer to too many cells, kept as the benchmark's baseline: the
 *                   best reconstruction a sampled search finds
 *     row-walk.ts      rows as one leaf box per tree, intersected (per-row propagation)
 *   feature-axes.ts numeric and ordinal features as intervals between the forest's thresholds
 *   regression-forest.ts  regression forests as count trees of one class: without bootstrap the
 *                   aggregated formulation (labels from the leaf means, regression-labels.ts) or
 *                   row-boxes past the cell limit; with bootstrap or sample weights box-estimate;
 *                   after a box method, targets from one-row leaves (regression-box-labels.ts)
 *   boosting.ts     XGBoost models: which of the two methods below reads them (a dump: the
 *                   objective first-tree probing settled on)
 *   boosting-hessians.ts  XGBoost binary:logistic: tree 0's probed counts, then each later tree's
 *                   hessian and gradient sums matched tree by tree (an estimate, never certified)
 *   boosting-counts.ts  XGBoost reg:squarederror (every tree's covers count rows; labels from the
 *                   gradient sums, regression-labels.ts; past the cell limit row-boxes, targets
 *                   from one-row leaves, boosted-box-labels.ts) and multi-class (the first K trees,
 *                   multiclass-formulation.ts): the aggregated formulation, certified
 *   bootstrap/      forests trained with bootstrap: replayed draws (certified), or a likelihood estimate
 *   highs/          the only code that touches HiGHS (WebAssembly): loading (withHighs), one sparse
 *                   problem type, integer solves, the persistent-model minimizer (highs.ts re-exports it)
 *
 * Everything runs in the calling thread. Long loops yield to the event loop and check the
 * AbortSignal; a HiGHS solve is synchronous and bounded by the remaining budget (HiGHS's own time
 * limit), so an abort during a solve takes effect when it returns. The reconstruction worker
 * (server/src/jobs/reconstruction-worker.ts) runs this off the server's thread and can terminate it.
 */
import { mayMixFits, WARM_START_REASON } from '../../forest/warm-start';
import type { Forest } from '../../forest/schema';
import { inputColumnCount } from '../../forest/set-splits';
import { largerChildDirections, missingValueReading } from '../missing-values';
import { numericBoxTightness } from './boxes/row-tightness';
import { reconstructAggregated, type ReconstructionDetails } from './aggregated';
import { reconstructByBoxes } from './boxes';
import { estimateFromCounts } from './boxes/estimate';
import { reconstructBoosting } from './boosting';
import { certifiedEstimate, countTreeLeafRows, reconstructFromLeafRegions, withoutMissingDirections } from './first-tree-regions';
import { reconstructBootstrap } from './bootstrap';
import { RunContext } from './context';
import { reconstructDp } from './dp/likelihood';
import { featureAxes, type FeatureAxes } from './feature-axes';
import { groupsSplitAsBinary } from './groups';
import { buildLeafTable } from './leaves';
import { hasIntervalFeature } from './rows';
import { reconstructRegressionForest, reconstructRegressionWithBootstrap } from './regression-forest';
import type { CategoricalGroup, ReconstructionOptions, ReconstructionResult } from './types';
import { compactFeatures, expandResult, listedNote, listWithinCap } from './compact-features';
import { probeFirstTrees } from '../first-tree-probe';
import { maxOf } from '../../util/numbers';

export type * from './types';
export type { ReconstructionDetails } from './aggregated';

export async function reconstruct(forest: Forest, options: ReconstructionOptions = {}): Promise<ReconstructionResult> {
  return (await reconstructWithDetails(forest, options)).result;
}

/**
 * Training rows past which the engine does not start: every method keeps each row (a box, a
 * point, a group member) in memory. A public HistGradientBoostingClassifier on 4,794,862 rows ran
 * out of the 1 GB ceiling after 13 s with nothing but "failed", and of 6 GB after 75 s. The
 * findings (counts, singleton leaves, no-bootstrap) stand without it.
 */
export const MAX_RECONSTRUCTED_ROWS = 1_000_000;

export async function reconstructWithDetails(forest: Forest, options: ReconstructionOptions = {}): Promise<{ result: ReconstructionResult; details?: ReconstructionDetails }> {
  const rows = forest.training.rows ?? (forest.boosting ? boostedRows(forest) : rootRows(forest));
  if (rows !== undefined && rows > MAX_RECONSTRUCTED_ROWS) {
    const ctx = new RunContext(options);
    // A boosted model's first tree may count a draw of the rows (subsample): said as such, not as N
    // (sweep 18: "1,212,500 training rows" beside a finding of N about 1,515,625).
    const drawn = forest.training.rows === undefined && forest.boosting !== undefined && firstTreeDrew(forest);
    const reason = `${rows.toLocaleString('en-US')} ${drawn ? 'rows drawn for the first tree' : 'training rows'}: past the ${MAX_RECONSTRUCTED_ROWS.toLocaleString('en-US')} the reconstruction keeps in memory, so it was not started (the findings above do not depend on it)`;
    return { result: ctx.answer({ status: 'skipped', reason, rows, certifiedRows: 0 }) };
  }
  // Declared groups speak of 0/1 features: one naming a feature the forest splits as a number is left out.
  const fitting = fittingGroups(forest, options.groups ?? []);
  options = { ...options, groups: fitting.groups };
  const withNote = (result: ReconstructionResult): ReconstructionResult => (fitting.note ? { ...result, reason: result.reason ? `${result.reason}; ${fitting.note}` : fitting.note } : result);
  // Wide models split on few of their features: the engine runs on those (compact-features.ts).
  const compacted = compactFeatures(forest, options.groups ?? []);
  if (compacted) {
    const ctx = new RunContext({ ...options, groups: compacted.groups });
    ctx.listColumns = forest.features.length;
    const result = await dispatch(compacted.forest, ctx, () => undefined);
    const expanded = { ...expandResult(withNumericBoxes(compacted.forest, result), compacted.used, forest.features.length, options.listedCellCap), seconds: elapsed(ctx) };
    const note = [`run on the ${compacted.used.length.toLocaleString('en-US')} features the trees split on, of ${forest.features.length.toLocaleString('en-US')}`, listedNote(expanded, inputColumnCount(forest.features))].filter((x) => x).join('; ');
    return { result: withNote({ ...expanded, reason: result.reason ? `${result.reason}; ${note}` : note }) };
  }
  let details: ReconstructionDetails | undefined;
  const ctx = new RunContext(options);
  const result = await dispatch(forest, ctx, (d) => (details = d));
  return { result: withNote({ ...listWithinCap(withNumericBoxes(forest, result), forest.features.length, options.listedCellCap, inputColumnCount(forest.features)), seconds: elapsed(ctx) }), details };
}

function fittingGroups(forest: Forest, groups: readonly CategoricalGroup[]): { groups: CategoricalGroup[]; note?: string } {
  if (groups.length === 0) return { groups: [] };
  const axes = featureAxes(forest);
  // Axes the forest cannot have: the methods say why themselves.
  if (!axes.ok) return { groups: [...groups] };
  return groupsSplitAsBinary(groups, axes.axes, (f) => forest.features[f]?.name ?? `x${f}`);
}

/** The whole run's time, work after the method included (targets, box widths): the time the answer took. */
function elapsed(ctx: RunContext): number {
  return (Date.now() - ctx.started) / 1000;
}

/** The certified rows' box widths where the method stated none and the forest has numeric features. */
function withNumericBoxes(forest: Forest, result: ReconstructionResult): ReconstructionResult {
  if (result.boxes || (result.certifiedRows === 0 && !result.certifiedWithoutLabel)) return result;
  const boxes = numericBoxTightness(forest, result.reconstruction);
  return boxes ? { ...result, boxes } : result;
}

/**
 * Chooses the formulation. Each method owns one module; a method that does not apply says why,
 * and the reason of the most specific one is what a skipped result reports.
 */
async function dispatch(forest: Forest, ctx: RunContext, expose: (details: ReconstructionDetails) => void): Promise<ReconstructionResult> {
  // Noised counts satisfy no equality: the likelihood method, whatever else the model is.
  if (forest.privacy) {
    ctx.method = 'dp-likelihood';
    const noised = await reconstructDp(forest, ctx);
    // The likelihood is written over binary features; numeric ones get the estimate.
    if (noised.status !== 'skipped') return noised;
    return estimateFromCounts(forest, ctx, 'differentially private counts over numeric features (the likelihood method is written over binary ones)') ?? noised;
  }
  // Trees of several fit calls: each class certified from one tree's leaves, the rest an estimate.
  // The stated N is the last fit's: the training rows of all fits are at least it and at least the
  // rows certified (distinct rows of some fit).
  if (mayMixFits(forest) && !forest.boosting) {
    if (forest.task !== 'classification') return firstFitTree(forest, ctx, expose);
    const estimate = await estimateFromCounts(forest, ctx, WARM_START_REASON);
    if (!estimate) return ctx.answer({ status: 'skipped', reason: WARM_START_REASON, rows: forest.training.rows ?? null, certifiedRows: 0 });
    return { ...estimate, rows: Math.max(estimate.rows ?? 0, estimate.certifiedRows), rowsKind: 'at-least' };
  }
  // Boosted models read missing values their own way (boosting-hessians.ts, boosting-counts.ts). For
  // count trees, a missing value some splits send left and others right is no interval the cells
  // count with: a row missing it could be certified in a cell it does not lie in.
  if (!forest.boosting && forest.trees.some((tree) => tree.defaultLeft)) {
    const missing = missingValueReading(forest);
    if (!missing.ok) {
      // One tree's leaves still prove their rows, as boxes that leave such a feature open where a missing value reaches them.
      const sources = countTreeLeafRows(forest);
      if (!sources) return ctx.answer({ status: 'skipped', reason: missing.reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
      // Directions all to the larger child (scikit-learn's histogram boosting, which may or may not
      // have seen missing values): the counts over every tree, read as without missing values, give
      // the points, and the leaf regions certify them.
      if (largerChildDirections(forest)) {
        const estimate = await dispatch(withoutMissingDirections(forest), ctx, expose);
        if (estimate.reconstruction.length > 0) return certifiedEstimate(forest, ctx, estimate, sources, missing.reason);
      }
      return reconstructFromLeafRegions(forest, ctx, missing.reason, sources, forest.training.rows ?? null);
    }
  }
  // Bootstrap: the module says which of its cases applied (replayed seeds, or the likelihood estimate).
  if (forest.training.bootstrap) return forest.task !== 'classification' ? reconstructRegressionWithBootstrap(forest, ctx) : reconstructBootstrap(forest, ctx);
  // Boosted models store hessian sums, not counts: their own methods (they say when they do not apply).
  if (forest.boosting) return reconstructBoosting(forest, ctx, expose, { cells: CELL_LIMIT, share: ENUMERATION_SHARE });
  // Regression forests (and outlier detectors, whose rows have no label): rows certified through
  // the counts, labels from the leaf means where the trees store them.
  if (forest.task !== 'classification') return reconstructRegressionForest(forest, ctx, expose, (axes) => enumerationLimits(ctx, axes));
  const prepared = buildLeafTable(forest);
  if (!prepared.ok) {
    const skipped = ctx.answer({ status: 'skipped', reason: prepared.reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
    // Weighted counts (sample weights, or class weights not divided back out): the estimate.
    return forest.training.weighted || /not a whole number/.test(prepared.reason) ? (estimateFromCounts(forest, ctx, prepared.reason) ?? skipped) : skipped;
  }
  ctx.method = 'aggregated';
  const aggregated = await reconstructAggregated(forest, prepared.table, ctx, expose, enumerationLimits(ctx, prepared.table.axes));
  if (!('tooManyCells' in aggregated)) return aggregated;
  return reconstructByBoxes(forest, prepared.table, ctx, aggregated.tooManyCells);
}

/**
 * A warm-started regressor (or outlier detector): its first tree was grown by the first fit call on
 * that call's rows alone, so it is reconstructed as a one-tree forest of those rows. Its certified
 * rows are training rows of some fit; N is the first fit's at least (its root's rows), and the
 * answer is never `exact`, since later fits' rows may be others. The one-tree-per-class estimate
 * classifiers get (estimateFromCounts) is written for class counts, not targets.
 */
async function firstFitTree(forest: Forest, ctx: RunContext, expose: (details: ReconstructionDetails) => void): Promise<ReconstructionResult> {
  const first = forest.trees[0];
  // The first fit's N: its root's distinct rows (its draws are of that N, which the file does not
  // state when later fits had another), else unknown and found by the method as for any one tree.
  const rootRows = first.distinctRows?.[0];
  const { rows: _lastFit, ...training } = forest.training;
  const firstFit: Forest = {
    ...forest,
    trees: [first],
    hyperParameters: { ...forest.hyperParameters, warm_start: false, n_estimators: 1 },
    training: !forest.training.bootstrap && rootRows !== undefined ? { ...training, rows: rootRows } : training,
  };
  const result = await dispatch(firstFit, ctx, expose);
  const why = `${WARM_START_REASON}: the first tree (grown by the first fit) is reconstructed alone`;
  const reason = result.reason ? `${why}; ${result.reason}` : why;
  // At least: the model's stated N (its last fit's), the rows certified, and the first fit's N
  // where the method determined it (an estimated N bounds nothing).
  const firstFitRows = result.rowsKind === 'estimate' ? 0 : (result.rows ?? 0);
  const rows = Math.max(firstFitRows, forest.training.rows ?? 0, result.certifiedRows) || null;
  return { ...result, status: result.status === 'exact' ? 'bounded' : result.status, reason, rows, ...(rows !== null ? { rowsKind: 'at-least' as const } : {}) };
}

/**
 * The exact enumeration gets a share of the budget and a cell limit; past either, the box methods
 * answer with the rest of the budget. Numeric features multiply the cells: the enumeration gets a
 * smaller share before the boxes take over.
 */
function enumerationLimits(ctx: RunContext, axes: FeatureAxes): { cells: number; deadline: number } {
  const share = hasIntervalFeature(axes) ? NUMERIC_ENUMERATION_SHARE : ENUMERATION_SHARE;
  return { cells: CELL_LIMIT, deadline: ctx.started + (ctx.deadline - ctx.started) * share };
}

/**
 * Cells beyond which the exact formulation is not attempted: measured on Pima (10 trees, depth 5),
 * 384k cells (26k merged) enumerated in 8 s, then an integer solve that did not finish in 30 s.
 */
const CELL_LIMIT = 20_000;
/** Share of the budget the exact enumeration may take before the bounded search takes over. */
const ENUMERATION_SHARE = 0.4;
/**
 * The same with interval features: a default forest on 1,000 numeric Default Credit rows found no
 * cell in 24 s; small numeric forests (10 trees of depth 5) finish well within 10% of 30 s.
 */
const NUMERIC_ENUMERATION_SHARE = 0.1;

/** The rows the first tree's root counts (distinct rows, else its weight), when the file states no N. */
/**
 * A boosted model's training rows as its first trees state them (their hessians: the probe the
 * findings report), not its root's hessian sum, which is rows only under squared error: two
 * public XGBoost models of 8 and 50 million rows started the engine and ran out of memory (sweep 8).
 */
/** Whether a boosted model's first tree grew on a draw of the rows: subsample stated below 1, or shown by tree 1's cover. */
function firstTreeDrew(forest: Forest): boolean {
  const subsample = forest.hyperParameters.subsample;
  return (typeof subsample === 'number' && subsample < 1) || probeFirstTrees(forest).ownDraw !== undefined;
}

function boostedRows(forest: Forest): number | undefined {
  const probe = probeFirstTrees(forest);
  return probe.rows ?? (probe.trees.length > 0 ? maxOf(probe.trees.map((t) => t.rows)) : undefined);
}

function rootRows(forest: Forest): number | undefined {
  const tree = forest.trees[0];
  if (!tree) return undefined;
  const distinct = tree.distinctRows?.[0];
  if (distinct !== undefined) return distinct;
  const k = Math.max(1, forest.classes.length);
  let weight = 0;
  for (let c = 0; c < k; c++) weight += tree.classWeights[c] ?? 0;
  return Number.isFinite(weight) && weight > 0 ? Math.round(weight) : undefined;
}
