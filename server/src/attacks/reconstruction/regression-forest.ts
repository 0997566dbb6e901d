/**
 * Regression forests (scikit-learn's tree regressors), read as count trees with one class (a row):
 * the one count column holds each node's rows (draws, with bootstrap). The rows' boxes come from
 * the classifiers' methods on that view; the targets from the leaf values.
 *
 * Without bootstrap every tree was grown on all N rows, so its leaf counts are exact row counts:
 *  - up to the cell limit, the aggregated formulation certifies the rows' feature intervals as for
 *    a classifier, and a leaf's mean target times its rows is the sum of its rows' targets, one
 *    linear equation per leaf of every tree over the cells' label sums (regression-labels.ts); a
 *    one-row cell whose sum the equations determine has that row's target. A row is certified when
 *    its target is determined too; the others count as `certifiedWithoutLabel` when their intervals
 *    are proven (as for XGBoost reg:squarederror, boosting-counts.ts);
 *  - past it (deep trees, ExtraTreesRegressor's defaults), row-boxes certifies every row as a box.
 * With bootstrap (RandomForestRegressor's default), box-estimate certifies the boxes of one tree's
 * in-bag rows (its leaves' distinct rows) and estimates the rest. After either box method, a row in
 * a one-row leaf of the anchor tree gets that leaf's value as its certified target
 * (regression-box-labels.ts).
 */
import { formatCount } from '../../util/wording';
import type { Forest } from '../../forest/schema';
import { reconstructAggregated, type ReconstructionDetails } from './aggregated';
import { estimateBootstrap } from './bootstrap';
import { reconstructByBoxes } from './boxes';
import { estimateFromCounts } from './boxes/estimate';
import { labelRegressionRows, type LabelSource } from './boosting-counts';
import type { RunContext } from './context';
import type { FeatureAxes } from './feature-axes';
import { labelCountedClasses } from './counted-class-labels';
import { buildLeafTable } from './leaves';
import { labellingMs, labelRegressionBoxes, whyNoMeanTargets } from './regression-box-labels';
import { labelsFromLeafSums } from './regression-labels';
import type { ReconstructionResult } from './types';
import { hasNoLabels } from '../../forest/task';
import { withoutLabels } from './unlabelled-rows';

export async function reconstructRegressionForest(
  forest: Forest,
  ctx: RunContext,
  expose: (details: ReconstructionDetails) => void,
  /** The enumeration's cell limit and deadline for these axes (the classifiers' own, index.ts). */
  limits: (axes: FeatureAxes) => { cells: number; deadline: number },
): Promise<ReconstructionResult> {
  const skip = (reason: string) => ctx.answer({ status: 'skipped', reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  const counted = countView(forest);
  if ('reason' in counted) return skip(counted.reason);
  const view = counted.view;
  const means = forest.trees.every((tree) => tree.targetMean !== undefined);
  const built = buildLeafTable(view);
  if (!built.ok) {
    // Sample weights: the counts are not rows, but each leaf still stores its distinct rows.
    // An outlier detector has no targets to label: it keeps the whole budget.
    if (!hasNoLabels(forest)) ctx.reserve(labellingMs(forest, rowsAbout(forest)));
    const estimated = forest.training.weighted || /not a whole number/.test(built.reason) ? estimateFromCounts(view, ctx, built.reason) : undefined;
    return estimated ? labelBoxes(forest, await estimated, ctx) : skip(built.reason);
  }
  const table = built.table;
  ctx.method = 'aggregated';
  let details: ReconstructionDetails | undefined;
  const keep = (d: ReconstructionDetails) => {
    details = d;
    expose(d);
  };
  const meanLabel = forest.trees[0].targetMean?.[0] ?? 0;
  // Cells that far outnumber the leaves' counts leave the integer solve hopeless (the counts cannot
  // single out a training set), and HiGHS overran its time limit by 12 s on one (AdaBoost's 50
  // stumps on 800 COMPAS rows: 16,384 cells, 100 leaves): past CELLS_PER_LEAF, row-boxes answers.
  const leaves = table.trees.reduce((n, tree) => n + tree.nodes.length, 0);
  const enumeration = limits(table.axes);
  const perLeaf = CELLS_PER_LEAF * leaves;
  const answer = await reconstructAggregated(view, table, ctx, keep, perLeaf < enumeration.cells ? { ...enumeration, cells: perLeaf, cellsWhy: `${CELLS_PER_LEAF} per leaf of the ${leaves.toLocaleString('en-US')} leaves: more cells than that leave the counts no single training set to find` } : enumeration);
  const what = forest.trees.length === 1 ? "the tree's leaf counts read as row counts" : `all ${formatCount(forest.trees.length)} trees' leaf counts read as row counts`;
  const withNote = (reason: string | undefined) => reason;
  if ('tooManyCells' in answer) {
    if (!hasNoLabels(forest)) ctx.reserve(labellingMs(forest, table.rows));
    // An outlier detector has no label to read later: its boxes are its certified rows.
    return labelBoxes(forest, await reconstructByBoxes(view, table, ctx, answer.tooManyCells, undefined, !hasNoLabels(forest)), ctx);
  }
  if (answer.status === 'skipped' || answer.status === 'failed') return { ...answer, reason: [answer.reason, what].filter((x) => x).join('; ') };
  const labels: LabelSource = {
    table,
    meanLabel,
    // The leaf's mean target times its rows (the stored count) is the sum of its rows' targets.
    solve: means ? (cells, counts, deadline) => labelsFromLeafSums(table, cells, counts, meanLabel, deadline, (t, node) => forest.trees[t].targetMean![node] * forest.trees[t].classWeights[node]) : undefined,
    unsolvable: forest.countedClasses ? 'their classes from the first round\'s trees, below' : `labels not determined (the trees store no mean targets: ${whyNoMeanTargets(forest)}); each row has the mean label`,
    source: 'the leaf means',
    ...(forest.countedClasses ? { classes: true } : {}),
  };
  // An outlier detector's proven cells are its whole rows: there is no label to find.
  const unlabelled = hasNoLabels(forest);
  const labelled = unlabelled ? withoutLabels({ ...answer, reason: [answer.reason, what].filter((x) => x).join('; ') }) : labelRegressionRows(ctx.deadline, labels, answer, details, what, withNote);
  // A classifier read as counts: the rows of its proven cells (certifiedValues) with the classes its class trees prove.
  const cellRows = forest.countedClasses ? labelCountedClasses(forest, forest.countedClasses, labelled, (row) => row.certified || row.certifiedValues !== undefined) : labelled;
  // Cells whose counts the leaves leave open prove few rows, and a row's label needs its cell
  // unique. row-boxes proves every row a box (of a leaf at least), whose label a pure leaf can
  // prove (a class tree's, for a classifier read as counts): with time left it answers instead
  // when it certifies more rows with their labels.
  const proven = (r: ReconstructionResult) => r.certifiedRows + (r.certifiedWithoutLabel ?? 0);
  const rows = cellRows.rows ?? table.rows;
  if (cellRows.status === 'exact' || cellRows.certifiedRows >= rows || Date.now() >= ctx.deadline) return cellRows;
  if (!unlabelled) ctx.reserve(labellingMs(forest, rows));
  const boxes = labelBoxes(forest, await reconstructByBoxes(view, table, ctx, `the exact enumeration proved ${proven(cellRows)} of ${rows} rows' cells${unlabelled ? '' : ` and ${cellRows.certifiedRows} labels`}`, undefined, !unlabelled), ctx);
  return boxes.certifiedRows > cellRows.certifiedRows ? boxes : cellRows;
}

/**
 * With bootstrap: box-estimate on the count view (each leaf's distinct rows are in-bag rows; N
 * replayed from the stored seeds where they replay), then the targets.
 */
export async function reconstructRegressionWithBootstrap(forest: Forest, ctx: RunContext): Promise<ReconstructionResult> {
  const counted = countView(forest);
  if ('reason' in counted) return ctx.answer({ status: 'skipped', reason: counted.reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  if (!hasNoLabels(forest)) ctx.reserve(labellingMs(forest, rowsAbout(forest)));
  const drawnBy = typeof forest.hyperParameters.subsample === 'number' ? 'subsample' : 'max_samples';
  const why = forest.training.withoutReplacement ? `trees grown on draws of the rows without replacement (${drawnBy}), read as row counts` : bootstrapWords(forest);
  return labelBoxes(forest, await estimateBootstrap(counted.view, ctx, why), ctx);
}

/**
 * What the estimate reads, in words. Stored seeds that replay the draws are said not to be used
 * here (the replayed formulations are written over 0/1 features and classes), so that the share
 * certified is not read as all the seeds give away; AdaBoost.R2 is no bagged forest.
 */
function bootstrapWords(forest: Forest): string {
  if (/^AdaBoost/.test(forest.estimator)) return "AdaBoost.R2's trees, each grown on a weighted resample of the rows";
  const kind = hasNoLabels(forest) ? 'outlier detector' : 'regression forest';
  const seeded = forest.trees.length > 0 && forest.trees.every((tree) => tree.training?.seed !== undefined);
  return seeded
    ? `${kind} trained with bootstrap; its stored seeds replay every tree's draws, which this estimate does not use (the replayed reconstruction handles 0/1 features and classes only), so more may be recoverable`
    : `${kind} trained with bootstrap`;
}

/** A box method's rows (on the count view) with targets, or with classes for a classifier read as counts. */
function labelBoxes(forest: Forest, result: ReconstructionResult, ctx: RunContext): ReconstructionResult {
  if (hasNoLabels(forest)) return withoutLabels(result);
  return forest.countedClasses ? labelCountedClasses(forest, forest.countedClasses, result, (row) => row.certified) : labelRegressionBoxes(forest, result, () => ctx.overBudget());
}

/** Cells per leaf of the count trees past which the count view goes to row-boxes (see above). */
const CELLS_PER_LEAF = 50;

/** N for the labelling's reserve: stated, else the first root's distinct rows. */
function rowsAbout(forest: Forest): number {
  return forest.training.rows ?? forest.trees[0].distinctRows?.[0] ?? 0;
}

/** The count view: a classifier of one class ("a row") whose one column of classWeights holds each node's rows. */
function countView(forest: Forest): { view: Forest } | { reason: string } {
  // One count column per node (the schema's regression layout); classes would mean class counts.
  if (forest.classes.length > 1) return { reason: `a regression forest stores one row count per node, but this one names ${forest.classes.length} classes` };
  return { view: { ...forest, task: 'classification', classes: ['row'] } };
}
