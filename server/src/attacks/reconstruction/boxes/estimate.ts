/**
 * An estimate where the counts are not row counts every tree shares: forests trained with
 * bootstrap on numeric features (each tree saw its own draws), counts weighted by class or sample
 * weights, noised counts of differentially private forests. What still holds, and is certified:
 * a leaf stores how many distinct training rows reached it (`n_node_samples`), so a leaf whose
 * (non-noised) weights name one class alone holds that many distinct training rows of that class
 * inside its box. The anchor tree is the tree whose such leaves hold the most rows; their boxes are
 * the certified rows, except for a class another tree certifies more rows of: rows of different
 * classes are different rows, so that class's rows are certified by that tree's leaves instead
 * (each leaf's proven rows given to the walked rows of the class that lie in it; claim-trees.ts).
 * Everything else is an estimate: every tree's leaves get estimated row counts per class (distinct
 * rows split by the class weights, or the released counts), scaled so that each tree holds N rows,
 * and rows are walked against them (complete.ts) from the anchor's leaves.
 */
import type { Forest } from '../../../forest/schema';
import { classCount } from '../../../forest/structure';
import type { RunContext } from '../context';
import { buildLeafTable, type LeafTable } from '../leaves';
import { boxToRow, hasIntervalFeature } from '../rows';
import type { ReconstructedRow, ReconstructionResult } from '../types';
import { boxForest, leafBoxReader } from './box-forest';
import { bestClaimTrees, leafHolding } from './claim-trees';
import { completeRows } from './complete';
import { anchorGroups } from './row-groups';
import { boxTightness } from './tightness';

export interface EstimateInput {
  /** Training rows N (stated, replayed from the seeds, or estimated). */
  rows: number;
  /** How N was found, for the reason. */
  rowsSource: string;
  /** Why this model gets an estimate, first words of the reason. */
  why: string;
  /**
   * The tree whose leaves certify, when the caller needs one (boosted subsamples: tree 0, whose
   * one-row leaves prove targets); by default the tree whose leaves prove the most rows.
   */
  anchorTree?: number;
}

export async function reconstructByEstimate(forest: Forest, table: LeafTable, ctx: RunContext, input: EstimateInput): Promise<ReconstructionResult> {
  ctx.method = 'box-estimate';
  const classes = classCount(forest);
  const N = input.rows;
  const noised = forest.privacy !== undefined;
  const exactClassRows = !noised && forest.training.withoutReplacement === true && !forest.training.weighted;
  const estimated: Int32Array[] = [];
  const proven: Int32Array[] = [];
  forest.trees.forEach((tree) => {
    const nodes = tree.left.length;
    const guess = new Float64Array(nodes * classes);
    const sure = new Int32Array(nodes * classes);
    let total = 0;
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
        const rows = distinct !== undefined ? (distinct * w) / weight : w;
        guess[n * classes + c] = rows;
        total += rows;
      }
      if (!noised && distinct !== undefined && present === 1) sure[n * classes + only] = distinct;
      // Draws without replacement, unweighted: every drawn row counts once, so each class's count is
      // its distinct rows, in mixed leaves too.
      if (exactClassRows && distinct !== undefined && Math.abs(weight - distinct) < 1e-9) {
        for (let c = 0; c < classes; c++) sure[n * classes + c] = Math.round(Math.max(0, tree.classWeights[n * classes + c]));
      }
    }
    estimated.push(scaleToRows(tree.left, guess, total, N, classes));
    proven.push(sure);
  });

  let anchor = 0;
  let anchorProven = -1;
  proven.forEach((sure, t) => {
    let sum = 0;
    for (const v of sure) sum += v;
    const leaves = table.trees[t].nodes.length;
    if (sum > anchorProven || (sum === anchorProven && leaves > table.trees[anchor].nodes.length)) {
      anchor = t;
      anchorProven = sum;
    }
  });

  if (input.anchorTree !== undefined && input.anchorTree >= 0 && input.anchorTree < forest.trees.length) anchor = input.anchorTree;

  const walk = boxForest(forest, table, estimated);
  const leafBox = leafBoxReader(walk, table);
  const groups = anchorGroups(walk, anchor, leafBox);
  ctx.stats.anchorTree = anchor;
  ctx.progress('search', { done: 0, total: N });
  const completed = await completeRows(walk, groups, () => ctx.stopped(), ctx.deadline, () => ctx.progress('search'));
  ctx.stats.leafCountError = completed.leafCountError;
  ctx.stats.mergedCells = groups.length;

  // Which tree's leaves certify each class: rows of different classes are different rows, so each
  // class may take the tree whose leaves give the most of its walked rows a proof (the anchor's
  // groups are exact; another tree's leaf proves as many of the rows the walk put in it as it holds).
  // Chosen on the rows of the first walks, which do not depend on the clock: chosen on the final
  // rows, a real Pipeline's class-1 tree changed from run to run (53, 15, 43), and with it the
  // boxes' median width (100% or 93%) and so the finding's severity and the exit code.
  const claimTree = input.anchorTree !== undefined ? new Array<number>(classes).fill(anchor) : bestClaimTrees(walk, completed.walkedRows, proven, groups, anchor);
  // One class (regression forests' count view): the tree whose leaves hold the certified rows,
  // which regression-box-labels.ts reads their targets from.
  if (classes === 1) ctx.stats.anchorTree = claimTree[0];
  // The first members of each anchor group are the rows its leaf proves (as many as it proves).
  const certifiedOf = groups.map((group) => (claimTree[group.classIndex] === anchor ? Math.min(group.size, proven[anchor][group.leaf[anchor] * classes + group.classIndex]) : 0));
  // Elsewhere each proving leaf's rows go to the walked rows of its class that lie in it.
  const room = claimTree.map((t) => proven[t].slice());
  const seen = new Int32Array(groups.length);
  const certifiedBoxes: { low: Int32Array; high: Int32Array }[] = [];
  const groupBoxes = groups.map((group) => boxToRow(table.axes, group.low, group.high).intervals);
  const reconstruction: ReconstructedRow[] = completed.rows.map((row) => {
    const group = groups[row.group];
    const c = row.classIndex;
    const point = boxToRow(table.axes, row.low, row.high);
    const label = forest.classes[c];
    if (claimTree[c] !== anchor) {
      // The rows the search left in a proving leaf (their number may differ by a few from run to
      // run; certifying the first walks' rows instead, and keeping them there, fixed it but cost
      // the search's gain: wine's RA 53.2% -> 50.7%).
      const t = claimTree[c];
      const leaf = leafHolding(walk.trees[t], row.low, row.high);
      if (leaf < 0 || room[c][leaf * classes + c] <= 0) return { values: point.values, intervals: point.intervals, label, certified: false };
      room[c][leaf * classes + c]--;
      const low = new Int32Array(table.axes.intervals.length);
      const high = Int32Array.from(table.axes.intervals, (k) => k - 1);
      leafBox(t, leaf, low, high);
      certifiedBoxes.push({ low, high });
      return { values: point.values, intervals: boxToRow(table.axes, low, high).intervals, label, certified: true };
    }
    const certified = seen[row.group]++ < certifiedOf[row.group];
    if (certified) certifiedBoxes.push(group);
    return { values: point.values, intervals: certified ? groupBoxes[row.group].slice() : point.intervals, label, certified };
  });
  const claimTrees = [...new Set(claimTree)];
  const certifiedRows = certifiedBoxes.length;
  const boxes = boxTightness(table.axes, certifiedBoxes, 0);
  const reason = [
    input.why,
    noised
      ? `nothing certified: noised counts prove no row (N = ${N}, ${input.rowsSource})`
      : certifiedRows > 0
        ? `${certifiedRows} of ${N} rows (N ${input.rowsSource}) certified as boxes: the ${classes > 1 && !exactClassRows ? 'single-class ' : ''}leaves of ${claimTrees.length === 1 ? `tree ${anchor}` : `trees ${claimTree.map((t, c) => `${t} (class ${String(forest.classes[c])})`).join(', ')}, one per class,`} hold that many distinct training rows${exactClassRows && classes > 1 ? ' of each class (each drawn row counted once)' : ''} (median box width ${(100 * boxes.medianWidth).toFixed(1)}% of the thresholds' range)`
        : `nothing certified: no leaf stores its distinct rows under a single class (N = ${N}, ${input.rowsSource})`,
    `the whole reconstruction is an estimate: rows walked against every tree's ${noised ? 'released counts' : classes > 1 ? 'distinct rows split by class weight' : 'distinct rows'}, scaled to N rows a tree (missing them by ${completed.leafCountError})`,
    completed.walkedAll ? undefined : `${ctx.stopReason()} while placing rows`,
  ].filter((x) => x).join('; ');
  return { ...ctx.answer({ status: completed.walkedAll ? 'bounded' : 'timeout', reason, rows: N, certifiedRows, reconstruction }), boxes };
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
  const rowsSource = forest.training.rows !== undefined ? 'stated by the model' : rootDistinct !== undefined ? 'the rows at the first root' : 'the trees\' mean released total';
  return reconstructByEstimate(forest, table.table, ctx, { rows, rowsSource, why });
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

/**
 * Per leaf and class, `guess * N / total` rounded to whole rows so that the tree holds exactly N
 * (largest remainders get the rows the floors leave over).
 */
function scaleToRows(left: ArrayLike<number>, guess: Float64Array, total: number, N: number, classes: number): Int32Array {
  const counts = new Int32Array(guess.length);
  if (total <= 0) return counts;
  const factor = N / total;
  let placed = 0;
  const remainders: { at: number; rest: number }[] = [];
  for (let n = 0; n < left.length; n++) {
    if (left[n] !== -1) continue;
    for (let c = 0; c < classes; c++) {
      const exact = guess[n * classes + c] * factor;
      if (exact <= 0) continue;
      const whole = Math.floor(exact);
      counts[n * classes + c] = whole;
      placed += whole;
      remainders.push({ at: n * classes + c, rest: exact - whole });
    }
  }
  remainders.sort((a, b) => b.rest - a.rest);
  for (let k = 0; k < N - placed && k < remainders.length; k++) counts[remainders[k].at]++;
  return counts;
}
