/**
 * Boosted models whose covers are row counts, reconstructed with the aggregated formulation
 * (aggregated.ts) and so certified like a forest without bootstrap:
 *  - reg:squarederror: every row's hessian is 1 in every tree, so every tree's leaf covers are row
 *    counts (../boosted-covers.ts): the trees are read as single-class count trees. The labels then
 *    come from the gradient sums, tree by tree (regression-labels.ts). Past the cell limit (deep
 *    trees on numeric features) row-boxes proves every row's box, and one-row leaves prove the
 *    targets of the rows whose boxes fix their leaves (boosted-box-labels.ts).
 *  - multi:softprob / multi:softmax with K classes: in the first round every row has the same
 *    hessian 2p(1 - p), p = 1/K (XGBoost's softmax hessian), so the first K trees' covers are row
 *    counts and their gradient sums give each leaf's rows of the tree's class (first-tree-probe.ts);
 *    the cells of those K trees carry one unknown per class (multiclass-formulation.ts). Later
 *    rounds start from predictions that differ per row and are not used.
 * Either way the model is read as a view: a forest of count trees without boosting, which
 * buildLeafTable and the cell enumeration already understand.
 */
import type { Forest } from '../../forest/schema';
import { everyTreeRowCounts, isSquaredError, squaredErrorRootsDiffer } from '../boosted-covers';
import { probeFirstTrees, weightedReason, type FirstTreeProbe, type ProbedTree } from '../first-tree-probe';
import { largerChildDirections, missingValueReading } from '../missing-values';
import { reconstructAggregated, type ReconstructionDetails } from './aggregated';
import { labelBoostedBoxes } from './boosted-box-labels';
import { reconstructSubsampled, subsampledRows, type SubsampledRows } from './boosted-subsample';
import { reconstructByBoxes } from './boxes';
import type { RunContext } from './context';
import { featureAxes } from './feature-axes';
import { buildLeafTable, type LeafTable } from './leaves';
import { labelMulticlassBoxes } from './multiclass-box-labels';
import { oneVsRestFormulation } from './multiclass-formulation';
import type { MergedCell } from './merge';
import { labellingMs } from './regression-box-labels';
import { regressionLabels, type CellLabels } from './regression-labels';
import { boxToRow, fillUnbounded } from './rows';
import { reconstructClassDraws } from './class-draw-rows';
import { certifiedEstimate, reconstructFromLeafRegions, withoutMissingDirections, type LeafRows } from './first-tree-regions';
import type { ReconstructedRow, ReconstructionResult } from './types';
import { formatCount, formatNumber, pluralPossessive } from '../../util/wording';

export const isMultiClass = (forest: Forest) => forest.boosting?.objective === 'multi:softprob' || forest.boosting?.objective === 'multi:softmax';

/** What the count view needs, or why it does not apply. */
/** `probe`: the first-tree probe of the model (undefined only for weighted rows, refused first). */
/**
 * Why the leaf weights give no targets, in words: which of the settings the target equations do
 * not model applies (sweep 11: "not readable: L1 alpha, max_delta_step or an unknown learning
 * rate" beside a first-tree finding that read the labels with the stated alpha).
 */
function unreadWeightsWhy(probe: FirstTreeProbe): string {
  const p = probe.parameters;
  const why: string[] = [];
  if (p.alpha && p.alpha.value > 0) why.push(`L1 alpha=${formatNumber(p.alpha.value)} shrinks every later tree's leaf weights, which the target equations do not model (the first tree's labels, read with it, are in its finding)`);
  if (p.maxDeltaStep && p.maxDeltaStep.value > 0) why.push(`max_delta_step=${formatNumber(p.maxDeltaStep.value)} caps the leaf weights`);
  if (p.eta === undefined) why.push('the learning rate is not known');
  if (probe.status === 'rows-only') why.push("the first tree's probe read its rows, not its leaves' label sums");
  else if (probe.status === 'partial') why.push("the first tree's probe read the label sums of some leaves only");
  else if (probe.status !== 'exact') why.push(`first-tree probing ended ${probe.status}`);
  return `targets not determined (${why.length > 0 ? why.join('; ') : 'the leaf weights are not readable'})`;
}

function prepare(forest: Forest, probe: FirstTreeProbe | undefined): { ok: false; reason: string } | { ok: true; view: Forest; table: LeafTable; classOfTree?: number[]; classTrees?: ProbedTree[]; eta?: number; lambda: number; gradients: boolean; meanLabel: number; note?: string; subsample?: SubsampledRows; unreadWeights?: string } {
  const b = forest.boosting!;
  if (forest.training.weighted) return { ok: false, reason: 'the rows carry sample weights, so hessian sums do not count rows' };
  const stated = forest.hyperParameters.subsample;
  if (typeof stated === 'number' && stated < 1 && !isSquaredError(forest)) return { ok: false, reason: `subsample=${formatNumber(stated)}: each tree saw a different draw of the rows` };
  const missing = missingValueReading(forest);
  if (!missing.ok) return missing;
  if (!probe) return { ok: false, reason: 'first-tree probing did not run' };
  if (probe.weightedCounts) return { ok: false, reason: weightedReason(probe) };
  if (probe.rows === undefined || probe.status === 'not-applicable') return { ok: false, reason: `first-tree probing found no row counts (${probe.reason ?? probe.status})` };
  const p = probe.parameters;
  const lambda = p.lambda?.value ?? 1;
  const gradients = probe.status === 'exact' && !(p.alpha && p.alpha.value > 0) && !(p.maxDeltaStep && p.maxDeltaStep.value > 0) && p.eta !== undefined;
  const rows = probe.rows;
  if (isSquaredError(forest)) {
    const wholeCovers = everyTreeRowCounts(forest, { sameRows: false });
    if (!wholeCovers.ok) return wholeCovers;
    const subsample = subsampledRows(forest.trees.map((tree) => Math.round(tree.boosting!.cover![0])), stated);
    const covers = subsample ? wholeCovers : everyTreeRowCounts(forest);
    if (!covers.ok) return covers;
    const common = { eta: p.eta?.value, lambda, gradients, meanLabel: (probe.labelSum ?? 0) / Math.max(1, rows), ...(missing.note ? { note: missing.note } : {}), unreadWeights: unreadWeightsWhy(probe) };
    if (subsample) {
      // Each tree's covers count the distinct rows of its own draw: a view with bootstrap, whose
      // leaves state their distinct rows, for box-estimate (boosted-subsample.ts). N is estimated.
      const view: Forest = {
        ...forest,
        task: 'classification',
        classes: ['row'],
        boosting: undefined,
        training: { ...forest.training, rows: subsample.rows, bootstrap: true },
        trees: forest.trees.map((tree) => {
          const counts = tree.boosting!.cover!.map((h) => Math.round(h));
          return { ...tree, classWeights: counts, distinctRows: counts };
        }),
      };
      const built = buildLeafTable(view, { anyCounts: true });
      if (!built.ok) return built;
      return { ok: true, view, table: built.table, ...common, subsample };
    }
    // Every tree as a count tree with one class: its covers.
    const view: Forest = {
      ...forest,
      task: 'classification',
      classes: ['row'],
      boosting: undefined,
      training: { ...forest.training, rows, bootstrap: false },
      trees: forest.trees.map((tree) => ({ ...tree, classWeights: tree.boosting!.cover!.map((h) => Math.round(h)) })),
    };
    const built = buildLeafTable(view);
    if (!built.ok) return built;
    return { ok: true, view, table: built.table, ...common };
  }
  if (!isMultiClass(forest)) return { ok: false, reason: `the count reconstruction handles reg:squarederror and multi:softprob/softmax; this model is ${b.objective}` };
  if (probe.status !== 'exact') return { ok: false, reason: `first-tree probing did not give every leaf's class count (${probe.status}${probe.caveats.length ? `: ${probe.caveats.join(' ')}` : ''})` };
  const K = b.outputGroups;
  const classOfTree = probe.trees.map((pt) => pt.group);
  // The first K trees as count trees with K classes: the tree's class holds its count, every other
  // class the rest (an upper bound on each, see multiclass-formulation.ts).
  const trees = probe.trees.map((pt) => {
    const tree = forest.trees[pt.tree];
    const weights = new Array<number>(tree.left.length * K).fill(0);
    for (const leaf of pt.leaves) {
      for (let k = 0; k < K; k++) weights[leaf.node * K + k] = k === pt.group ? leaf.positives! : leaf.rows - leaf.positives!;
    }
    return { ...tree, classWeights: weights };
  });
  const view: Forest = { ...forest, boosting: undefined, training: { ...forest.training, rows, bootstrap: false }, trees };
  const built = buildLeafTable(view, { released: true });
  if (!built.ok) return built;
  built.table.rows = rows;
  return { ok: true, view, table: built.table, classOfTree, classTrees: probe.trees, lambda, gradients: false, meanLabel: 0, ...(missing.note ? { note: missing.note } : {}) };
}

/**
 * What the probed first trees prove per leaf, for first-tree-regions.ts: a multi-class model's K
 * trees, each its class's rows (when every leaf's are determined); else tree 0's rows, labels
 * unknown. Undefined when the probe found no row counts or rests on assumptions (a dump).
 */
function probedLeafRows(forest: Forest, probe: FirstTreeProbe): LeafRows[] | undefined {
  if (probe.rows === undefined || probe.status === 'not-applicable' || probe.weightedCounts || probe.classDraws) return undefined;
  if (probe.objectiveAssumed || forest.boosting?.source === 'dump' || forest.boosting?.baseScoreStated === false) return undefined;
  const perNode = (tree: number, value: (leaf: ProbedTree['leaves'][number]) => number) => {
    const rows = new Array<number>(forest.trees[tree].left.length).fill(0);
    return { rows, fill: (leaves: ProbedTree['leaves']) => leaves.forEach((leaf) => (rows[leaf.node] = value(leaf))) };
  };
  if (isMultiClass(forest)) {
    if (probe.status !== 'exact' || probe.trees.some((pt) => pt.leaves.some((l) => l.positives === undefined))) return undefined;
    return probe.trees.map((pt) => {
      const { rows, fill } = perNode(pt.tree, (leaf) => leaf.positives!);
      fill(pt.leaves);
      return { tree: pt.tree, rows, label: forest.classes[pt.group] ?? pt.group };
    });
  }
  const first = probe.trees[0];
  const { rows, fill } = perNode(first.tree, (leaf) => leaf.rows);
  fill(first.leaves);
  return [{ tree: first.tree, rows }];
}

/** The first round's trees (`view`, K classes) as count trees of one class: each leaf's rows. */
function asRowCounts(view: Forest, classTrees: readonly ProbedTree[]): Forest {
  return {
    ...view,
    classes: ['row'],
    trees: classTrees.map((pt, t) => {
      const tree = view.trees[t];
      const rows = new Array<number>(tree.left.length).fill(0);
      for (const leaf of pt.leaves) rows[leaf.node] = leaf.rows;
      // Every node holds its leaves' rows (children come after their parent in the arrays).
      for (let n = tree.left.length - 1; n >= 0; n--) if (tree.left[n] !== -1) rows[n] = rows[tree.left[n]] + rows[tree.right[n]];
      return { ...tree, classWeights: rows };
    }),
  };
}

/** Whether the trees grew on draws of the rows (subsample stated, or shown by their roots), so that tree 0's rows are not N. */
function drewRows(forest: Forest, probe: FirstTreeProbe): boolean {
  const stated = forest.hyperParameters.subsample;
  return (typeof stated === 'number' && stated < 1) || probe.ownDraw !== undefined || (isSquaredError(forest) && squaredErrorRootsDiffer(forest));
}

/** Undefined when the model is not one this method reads (the caller then says why). */
export async function reconstructBoostedCounts(forest: Forest, ctx: RunContext, expose: (details: ReconstructionDetails) => void, limits: { cells: number; share: number }): Promise<ReconstructionResult> {
  const result = await reconstructFromCounts(forest, ctx, expose, limits);
  // The multi-class view holds the first round's trees only: a value they leave unbounded gets
  // its point from the thresholds of every tree (rows.ts, fillUnbounded). Other views hold every
  // tree, whose thresholds already gave it.
  const whole = isMultiClass(forest) && result.reconstruction.length > 0 ? featureAxes(forest) : undefined;
  return whole?.ok ? { ...result, reconstruction: fillUnbounded(result.reconstruction, whole.axes) } : result;
}

async function reconstructFromCounts(forest: Forest, ctx: RunContext, expose: (details: ReconstructionDetails) => void, limits: { cells: number; share: number }): Promise<ReconstructionResult> {
  const probe = forest.training.weighted ? undefined : probeFirstTrees(forest);
  // Class trees that each drew their own rows (subsample): each proves its own class's rows.
  if (probe && isMultiClass(forest) && probe.classDraws && !probe.weightedCounts) return reconstructClassDraws(forest, probe, ctx);
  const prepared = prepare(forest, probe);
  if (!prepared.ok) {
    // Missing values sent both ways: the first trees' probed leaves still prove their rows as boxes.
    const missing = missingValueReading(forest);
    const sources = !missing.ok && probe ? probedLeafRows(forest, probe) : undefined;
    if (sources && !missing.ok && largerChildDirections(forest)) {
      // Every direction to the larger child (scikit-learn's histogram boosting): reconstructed as if
      // without missing values, an estimate whose rows tree 0's leaf regions certify.
      const estimate = await reconstructFromCounts(withoutMissingDirections(forest), ctx, expose, limits);
      if (estimate.reconstruction.length > 0) return certifiedEstimate(forest, ctx, estimate, sources, missing.reason);
    }
    // Tree 0's rows are N only when every tree grew on every row (a subsampled model's roots
    // differ: its N is unknown, not tree 0's draw; sweep 15).
    if (sources) return reconstructFromLeafRegions(forest, ctx, missing.ok ? prepared.reason : missing.reason, sources, drewRows(forest, probe!) ? null : (probe!.rows ?? null));
    return ctx.answer({ status: 'skipped', reason: prepared.reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  }
  if (prepared.subsample) {
    const weights = prepared.gradients && prepared.eta !== undefined ? { eta: prepared.eta, lambda: prepared.lambda, trees: 1, treesWhy: 'subsample' } : undefined;
    const labelled = await reconstructSubsampled(forest, prepared.view, prepared.table, ctx, prepared.subsample, weights, prepared.unreadWeights);
    return prepared.note ? { ...labelled, reason: `${labelled.reason}; ${prepared.note}` } : labelled;
  }
  ctx.method = 'boosting-counts';
  const { view, table, classOfTree, note } = prepared;
  let details: ReconstructionDetails | undefined;
  const keep = (d: ReconstructionDetails) => {
    details = d;
    expose(d);
  };
  const deadline = ctx.started + (ctx.deadline - ctx.started) * limits.share;
  const answer = await reconstructAggregated(view, table, ctx, keep, { cells: limits.cells, deadline }, classOfTree ? oneVsRestFormulation(classOfTree) : undefined);
  const what = classOfTree ? `the first ${classOfTree.length} trees (one per class) read as class counts; later rounds are not used` : `${forest.trees.length === 2 ? 'both' : `all ${formatCount(forest.trees.length)}`} trees' covers read as row counts`;
  const withNote = (reason: string | undefined) => [reason, note].filter((x) => x).join('; ') || undefined;
  if ('tooManyCells' in answer) {
    if (classOfTree) {
      // The first round's trees as row counts: every row a proven box, then the classes the
      // leaves prove (multiclass-box-labels.ts).
      const rowsView = asRowCounts(view, prepared.classTrees!);
      const built = buildLeafTable(rowsView);
      if (!built.ok) return ctx.answer({ status: 'skipped', reason: `${answer.tooManyCells}; ${built.reason}`, rows: table.rows, certifiedRows: 0 });
      ctx.reserve(2 * labellingMs(forest, table.rows));
      const boxes = await reconstructByBoxes(rowsView, built.table, ctx, answer.tooManyCells, undefined, true);
      const labelled = labelMulticlassBoxes(forest, prepared.classTrees!, boxes);
      return { ...labelled, method: 'boosting-counts', reason: withNote(`${what}; ${labelled.reason ?? ''}`) };
    }
    // Too many cells (deep trees, numeric features): every row as a proven box, then the targets
    // that one-row leaves prove (boosted-box-labels.ts).
    // Two walks per row (the certified target through the box, the prediction at the point).
    ctx.reserve(2 * labellingMs(forest, table.rows));
    const boxes = await reconstructByBoxes(view, table, ctx, answer.tooManyCells, 0, true);
    ctx.method = 'boosting-counts';
    const dart = forest.boosting!.booster === 'dart';
    const weights = prepared.gradients && prepared.eta !== undefined ? { eta: prepared.eta, lambda: prepared.lambda, trees: dart ? 1 : forest.trees.length, ...(dart ? { treesWhy: 'dart' } : {}) } : undefined;
    const labelled = labelBoostedBoxes(forest, boxes, weights, prepared.unreadWeights ?? 'targets not determined (the leaf weights are not readable)', () => ctx.overBudget());
    return { ...labelled, method: 'boosting-counts', reason: withNote(`${what}; ${labelled.reason ?? ''}`) };
  }
  if (classOfTree || answer.status === 'skipped' || answer.status === 'failed') return { ...answer, reason: withNote([answer.reason, what].filter((x) => x).join('; ')) };
  const { eta, lambda, meanLabel } = prepared;
  const labels: LabelSource = {
    table,
    meanLabel,
    // dart fitted each later tree to predictions with trees dropped: their gradient sums are not these.
    solve: prepared.gradients && eta !== undefined && forest.boosting!.booster !== 'dart' ? (cells, counts, deadline) => regressionLabels(forest, table, cells, counts, eta, lambda, meanLabel, deadline) : undefined,
    unsolvable: forest.boosting!.booster === 'dart' ? 'labels not determined (dart: the later trees were fitted with trees dropped); each row has the mean label' : 'labels not determined (the gradient sums are not readable: L1 alpha, max_delta_step or an unknown learning rate); each row has the mean label',
    source: 'the gradient sums',
  };
  return labelRegressionRows(ctx.deadline, labels, answer, details, what, withNote);
}

/** How a regression model's labels are read once its rows' cells are known (labelRegressionRows). */
export interface LabelSource {
  table: LeafTable;
  meanLabel: number;
  /** The cells' label sums, when the model's leaves give them; undefined when they are not readable. */
  solve?: (cells: readonly MergedCell[], counts: Float64Array, deadline: number) => CellLabels | undefined;
  /** Why the labels cannot be solved for, when `solve` is absent. */
  unsolvable: string;
  /** What determines the labels, for the reason: 'the gradient sums', 'the leaf means'. */
  source: string;
  /** The labels are classes a later step proves (a classifier read as counts), not targets. */
  classes?: boolean;
}

/** Replaces the single class 'row' by label estimates; a row is certified only if its label is determined. */
export function labelRegressionRows(
  deadline: number,
  prepared: LabelSource,
  answer: ReconstructionResult,
  details: ReconstructionDetails | undefined,
  what: string,
  withNote: (reason: string | undefined) => string | undefined,
): ReconstructionResult {
  if (!details) return answer;
  const { formulation, cells, solution, lower } = details;
  const counts = new Float64Array(cells.length);
  const proven = new Float64Array(cells.length);
  const complete = solution !== undefined && (answer.status === 'exact' || answer.status === 'bounded');
  for (let j = 0; j < formulation.numCols; j++) {
    counts[formulation.colCell[j]] += (solution ?? lower)[j];
    proven[formulation.colCell[j]] += lower[j];
  }
  // The labels need the full set of rows: the leaf equations hold only for it.
  const labels = complete && prepared.solve ? prepared.solve(cells, counts, deadline) : undefined;
  // Cell multiplicities unique: a determined label sum of a one-row cell is that row's label.
  const unique = answer.status === 'exact';
  const rows: ReconstructedRow[] = [];
  let certified = 0;
  let withoutLabel = 0;
  let determinedRows = 0;
  cells.forEach((cell, c) => {
    if (counts[c] === 0) return;
    const box = boxToRow(prepared.table.axes, cell.low, cell.high);
    const label = labels ? labels.sums[c] / counts[c] : prepared.meanLabel;
    const labelKnown = labels !== undefined && labels.determined[c] === 1 && counts[c] === 1;
    for (let k = 0; k < counts[c]; k++) {
      const valuesProven = k < proven[c];
      const whole = unique && labelKnown && valuesProven;
      if (whole) certified++;
      else if (valuesProven) withoutLabel++;
      if (labelKnown) determinedRows++;
      rows.push({
        values: box.values.slice(),
        intervals: box.intervals.slice(),
        label,
        certified: whole,
        ...(!whole && valuesProven ? { certifiedValues: box.values.map((v) => v !== null) } : {}),
      });
    }
  });
  const featureRows = answer.certifiedRows;
  const labelText = !labels
    ? prepared.solve
      ? complete
        ? 'labels not solved for (too many cells and leaves for the label equations, or the budget ran out): each row carries the mean label as its estimate'
        : 'labels not solved for (no complete reconstruction): each row carries the mean label as its estimate'
      : prepared.unsolvable
    : `${pluralPossessive(determinedRows, 'row')} labels determined by ${prepared.source} in one-row cells${unique ? '' : ', given these cells, which are not unique'}, the others estimated as their cell's mean (largest equation residual ${labels.residual.toPrecision(2)})`;
  const status = answer.status === 'exact' && certified < rows.length ? 'bounded' : answer.status;
  return {
    ...answer,
    status,
    certifiedRows: certified,
    ...(withoutLabel > 0 ? { certifiedWithoutLabel: withoutLabel } : {}),
    reconstruction: rows,
    reconstructedRows: rows.length,
    reason: withNote(`${answer.reason ? `${answer.reason}; ` : ''}${what}; ${prepared.classes ? `${featureRows === 1 ? '1 row proven in a cell of its own (its feature intervals)' : `${formatCount(featureRows)} rows proven in cells of their own (their feature intervals)`}, ${labelText}` : `${pluralPossessive(featureRows, 'row')} feature intervals certified, ${labelText}; a row is certified when its label is too`}`),
  };
}
