/**
 * An estimate where the counts are not row counts every tree shares: forests trained with
 * bootstrap on numeric features (each tree saw its own draws), counts weighted by class or sample
 * weights, noised counts of differentially private forests. What still holds, and is certified:
 * a leaf stores how many distinct training rows reached it (`n_node_samples`), so a leaf whose
 * (non-noised) weights name one class alone holds that many distinct training rows of that class
 * inside its box. Rows of different classes are different rows, so each class has an anchor tree of
 * its own: the tree whose such leaves hold the most rows of that class, chosen from the model alone
 * (class-rows.ts). Its leaves' boxes are the certified rows of the class. Everything else is an
 * estimate: every tree's leaves get estimated row counts per class (distinct rows split by the
 * class weights, or the released counts), each class scaled to one total shared by all trees, and
 * rows are walked against them (complete.ts) from their anchors' leaves.
 */
import { formatCount } from '../../../util/wording';
import type { Forest } from '../../../forest/schema';
import { classCount } from '../../../forest/structure';
import { mayMixFits } from '../../../forest/warm-start';
import type { RunContext } from '../context';
import { buildLeafTable, type LeafTable } from '../leaves';
import { boxToRow, hasIntervalFeature } from '../rows';
import type { ReconstructedRow, ReconstructionResult, RowsKind } from '../types';
import { boxForest, leafBoxReader } from './box-forest';
import { classAnchors, classRowTargets, provenOfClass, scaleToClassRows } from './class-rows';
import { completeRows } from './complete';
import { classAnchorGroups, type RowGroup } from './row-groups';
import { boxTightness } from './tightness';
import { WALK_CELL_CAP } from '../memory';
import { EXPANDED_CELL_CAP } from '../compact-features';

export interface EstimateInput {
  /** Training rows N (stated, replayed from the seeds, or estimated). */
  rows: number;
  /** How N was found, for the reason. */
  rowsSource: string;
  /** Why this model gets an estimate, first words of the reason. */
  why: string;
  /** When N is an estimate or a lower bound (ReconstructionResult.rowsKind); absent when stated or determined. */
  rowsKind?: RowsKind;
  /**
   * The tree whose leaves certify, when the caller needs one (boosted subsamples: tree 0, whose
   * one-row leaves prove targets); by default the tree whose leaves prove the most rows.
   */
  anchorTree?: number;
}

export async function reconstructByEstimate(forest: Forest, table: LeafTable, ctx: RunContext, input: EstimateInput): Promise<ReconstructionResult> {
  ctx.method = 'box-estimate';
  ctx.rowsKind = input.rowsKind;
  const classes = classCount(forest);
  const N = input.rows;
  const noised = forest.privacy !== undefined;
  const exactClassRows = !noised && forest.training.withoutReplacement === true && !forest.training.weighted;
  const guesses: Float64Array[] = [];
  const proven: Int32Array[] = [];
  forest.trees.forEach((tree) => {
    const nodes = tree.left.length;
    const guess = new Float64Array(nodes * classes);
    const sure = new Int32Array(nodes * classes);
    for (let n = 0; n < nodes; n++) {
      if (tree.left[n] !== -1) continue;
      let weight = 0;
      let present = 0;
      let only = -1;
      for (let c = 0; c < classes; c++) {
        const w = Math.max(0, tree.classWeights[n * classes + c]);
        weight += w;
        if (w > 0) {
          present++;
          only = c;
        }
      }
      if (weight <= 0) continue;
      const distinct = tree.distinctRows?.[n];
      for (let c = 0; c < classes; c++) {
        const w = Math.max(0, tree.classWeights[n * classes + c]);
        // Distinct rows split by the class weights; without them, the (released) counts themselves.
        guess[n * classes + c] = distinct !== undefined ? (distinct * w) / weight : w;
      }
      if (!noised && distinct !== undefined && present === 1) sure[n * classes + only] = distinct;
      // Draws without replacement, unweighted: every drawn row counts once, so each class's count is
      // its distinct rows, in mixed leaves too.
      if (exactClassRows && distinct !== undefined && Math.abs(weight - distinct) < 1e-9) {
        for (let c = 0; c < classes; c++) sure[n * classes + c] = Math.round(Math.max(0, tree.classWeights[n * classes + c]));
      }
    }
    guesses.push(guess);
    proven.push(sure);
  });

  // Each class's rows are seeded and certified by a tree of its own (rows of different classes are
  // different rows): the tree whose leaves prove the most rows of that class. Chosen from the model
  // alone, so the same file gives the same certified rows on any machine and at any budget.
  const anchors = input.anchorTree !== undefined && input.anchorTree >= 0 && input.anchorTree < forest.trees.length ? new Array<number>(classes).fill(input.anchorTree) : classAnchors(proven, table, classes);
  const provenRows = anchors.map((t, c) => provenOfClass(proven[t], c, classes));
  const classRows = classRowTargets(guesses, classes, N, provenRows);
  const estimated = guesses.map((guess, t) => scaleToClassRows(forest.trees[t].left, guess, classRows, classes, anchors.map((a) => (a === t ? proven[t] : undefined))));

  const walk = boxForest(forest, table, estimated);
  const leafBox = leafBoxReader(walk, table);
  const groups = classAnchorGroups(walk, anchors, leafBox);
  // One class (regression forests' count view): the tree whose leaves hold the certified rows,
  // which regression-box-labels.ts reads their targets from.
  ctx.stats.anchorTree = anchors[0];
  // The first members of each group are the rows its anchor leaf proves (as many as it proves).
  const certifiedOf = groups.map((group) => {
    const t = anchors[group.classIndex];
    return Math.min(group.size, proven[t][group.leaf[t] * classes + group.classIndex]);
  });
  const claimTrees = [...new Set(anchors)];
  // AdaBoost.R2's resampled trees: draws only, no distinct rows (the words say so, not "under a single class").
  const withoutDistinct = forest.trees.every((tree) => tree.distinctRows === undefined);
  // N as a lower bound cannot be below the distinct rows proven (warm-started forests: the last
  // fit's rows, while the certified rows may come from several fits).
  const sizeWords = (certifiedRows: number) => (input.rowsKind === 'at-least' ? `at least ${formatCount(Math.max(N, certifiedRows))}` : formatCount(N));
  // What is certified, in words, once the certified rows and their boxes' median width are known.
  const claim = (certifiedRows: number, medianWidth: number) =>
    noised
      ? `nothing certified: noised counts prove no row (training-set size ${formatCount(N)}: ${input.rowsSource})`
      : certifiedRows > 0
        ? `${formatCount(certifiedRows)} of ${sizeWords(certifiedRows)} rows (training-set size: ${input.rowsSource}) certified as boxes: the ${classes > 1 && !exactClassRows ? 'single-class ' : ''}leaves of ${claimTrees.length === 1 ? `tree ${anchors[0]}` : `trees ${anchors.map((t, c) => `${t} (class ${String(forest.classes[c])})`).join(', ')}, one per class,`} hold that many distinct training rows${exactClassRows && classes > 1 ? ' of each class (each drawn row counted once)' : ''} (median box width ${(100 * medianWidth).toFixed(1)}% of the thresholds' range)`
        : withoutDistinct
          ? `nothing certified: the trees store no distinct-row counts (their counts are draws), so no leaf proves how many distinct rows it holds (training-set size ${formatCount(N)}: ${input.rowsSource})`
          : `nothing certified: no leaf stores its distinct rows under a single class (training-set size ${formatCount(N)}: ${input.rowsSource})`;
  const walkCap = ctx.options.walkCellCap ?? WALK_CELL_CAP;
  if (N * forest.features.length > walkCap) {
    const past = `the other rows are not estimated: ${N.toLocaleString('en-US')} rows x ${forest.features.length.toLocaleString('en-US')} features are past the ${walkCap.toLocaleString('en-US')} cells the estimate's walks keep in memory`;
    return certifiedOnly(forest, table, ctx, N, groups, certifiedOf, (rows, width) => [input.why, claim(rows, width), past].join('; '));
  }
  ctx.progress('search', { done: 0, total: N });
  // After the walks every row becomes a point and its box a width (and a caller may label them):
  // kept from the walks' time so that the answer ends within the budget.
  ctx.reserve(finishingMs(N, forest.features.length), "the rows' points");
  const completed = await completeRows(walk, groups, () => ctx.stopped(), ctx.deadline, () => ctx.progress('search'), ctx.options.walkedLeafCap);
  ctx.stats.leafCountError = completed.leafCountError;
  ctx.stats.mergedCells = groups.length;
  const seen = new Int32Array(groups.length);
  const certifiedBoxes: { low: Int32Array; high: Int32Array }[] = [];
  const groupBoxes = groups.map((group) => boxToRow(table.axes, group.low, group.high).intervals);
  const reconstruction: ReconstructedRow[] = completed.rows.map((row) => {
    const point = boxToRow(table.axes, row.low, row.high);
    const label = forest.classes[row.classIndex];
    const certified = seen[row.group]++ < certifiedOf[row.group];
    if (certified) certifiedBoxes.push(groups[row.group]);
    return { values: point.values, intervals: certified ? groupBoxes[row.group].slice() : point.intervals, label, certified };
  });
  const certifiedRows = certifiedBoxes.length;
  const boxes = boxTightness(table.axes, certifiedBoxes, 0);
  const reason = [
    input.why,
    claim(certifiedRows, boxes.medianWidth),
    `the whole reconstruction is an estimate: rows walked against every tree's ${noised ? 'released counts' : withoutDistinct ? 'counts' : classes > 1 ? 'distinct rows split by class weight' : 'distinct rows'}, scaled in every tree to ${classes > 1 ? `each class's mean share of the ${N.toLocaleString('en-US')} rows` : `${N.toLocaleString('en-US')} rows`} (the rows miss the stored counts by ${completed.leafCountError.toLocaleString('en-US')}, summed over every tree's leaves)`,
    completed.unrepaired,
    completed.walkedAll ? undefined : `${ctx.stopReason()} while placing rows`,
  ].filter((x) => x).join('; ');
  return { ...ctx.answer({ status: completed.walkedAll ? 'bounded' : 'timeout', reason, rows: N, certifiedRows, reconstruction }), boxes };
}

/**
 * Time the estimate's rows take after the walks: a point and an interval per row and feature, the
 * widths of the certified boxes, and the class labelling callers add. Measured on a public forest
 * of 135,691 rows x 16 features and 300 trees: 2.1 s, on a machine running a test suite beside it;
 * 1 us a cell keeps that with room.
 */
export function finishingMs(rows: number, features: number): number {
  return rows * features * 1.5e-3;
}

/**
 * Past WALK_CELL_CAP: the rows the anchor leaves prove (`certifiedOf`, per group), listed alone,
 * each with its leaf's box; the other rows are not estimated (walking them would not fit in
 * memory), and `reason` says so.
 */
function certifiedOnly(
  forest: Forest,
  table: LeafTable,
  ctx: RunContext,
  N: number,
  groups: readonly RowGroup[],
  certifiedOf: readonly number[],
  reason: (certifiedRows: number, medianWidth: number) => string,
): ReconstructionResult {
  const reconstruction: ReconstructedRow[] = [];
  // Widths are measured once per group, weighted by its certified rows (not once per row: 94,392
  // rows x 1,391 features were 131M widths to sort).
  const certifiedBoxes: RowGroup[] = [];
  const weights: number[] = [];
  // Only the rows the listing will keep are built (compact-features.ts EXPANDED_CELL_CAP): a
  // public forest over 72,514 columns built 4,731 rows of 10,598 values each, 590 MB, to list 165.
  const listable = Math.max(1, Math.floor((ctx.options.listedCellCap ?? EXPANDED_CELL_CAP) / Math.max(1, ctx.listColumns ?? forest.features.length)));
  let rows = 0;
  groups.forEach((group, g) => {
    if (certifiedOf[g] === 0) return;
    certifiedBoxes.push(group);
    weights.push(certifiedOf[g]);
    rows += certifiedOf[g];
    if (reconstruction.length >= listable) return;
    // The rows of a group share their box's arrays (rows are read, never changed, once answered):
    // a public XGBRegressor of 94,392 rows x 1,650 features ran out of 4 GB with a copy per row.
    const { values, intervals } = boxToRow(table.axes, group.low, group.high);
    const label = forest.classes[group.classIndex];
    for (let k = 0; k < certifiedOf[g] && reconstruction.length < listable; k++) reconstruction.push({ values, intervals, label, certified: true });
  });
  const boxes = boxTightness(table.axes, certifiedBoxes, 0, weights);
  const answer = ctx.answer({ status: 'bounded', reason: reason(rows, boxes.medianWidth), rows: N, certifiedRows: rows, reconstruction });
  return { ...answer, boxes, ...(reconstruction.length < rows ? { reconstructedRows: rows, listedRows: reconstruction.length } : {}) };
}

/**
 * This estimate for a model whose counts are not row counts every tree shares (sample or class
 * weights, noised counts), when it applies (undefined otherwise). N: stated, else the first tree's
 * distinct rows at its root, else the trees' mean total (noised counts).
 */
export function estimateFromCounts(forest: Forest, ctx: RunContext, why: string): Promise<ReconstructionResult> | undefined {
  if (forest.task !== 'classification' || forest.boosting) return undefined;
  const table = buildLeafTable(forest, { anyCounts: true });
  if (!table.ok) return undefined;
  // Noised counts over binary features stay with the likelihood's answer (it says why it skipped).
  if (forest.privacy && !hasIntervalFeature(table.table.axes)) return undefined;
  const rootDistinct = forest.trees[0].distinctRows?.[0];
  const rows = forest.training.rows ?? rootDistinct ?? Math.max(1, Math.round(meanReleasedTotal(forest)));
  // Trees of several fit calls: the stated N is the last call's, and all calls together hold at least it.
  const mixed = mayMixFits(forest);
  const rowsSource = forest.training.rows !== undefined ? (mixed ? `the last fit call's ${formatCount(forest.training.rows)} stated by the model, or the rows certified if more` : 'stated by the model') : rootDistinct !== undefined ? 'the rows at the first root' : 'the trees\' mean released total';
  // A root's distinct rows are N without bootstrap, the rows drawn with it; noised totals estimate N.
  const rowsKind = mixed ? 'at-least' : forest.training.rows !== undefined ? undefined : rootDistinct !== undefined ? (forest.training.bootstrap ? 'at-least' : undefined) : 'estimate';
  return reconstructByEstimate(forest, table.table, ctx, { rows, rowsSource, why, ...(rowsKind ? { rowsKind } : {}) });
}

/** The trees' mean total of (non-negative) leaf counts: N's estimate from noised counts. */
function meanReleasedTotal(forest: Forest): number {
  const classes = forest.classes.length;
  let sum = 0;
  for (const tree of forest.trees) {
    for (let n = 0; n < tree.left.length; n++) if (tree.left[n] === -1) for (let c = 0; c < classes; c++) sum += Math.max(0, tree.classWeights[n * classes + c]);
  }
  return sum / forest.trees.length;
}
