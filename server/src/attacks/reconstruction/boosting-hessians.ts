/**
 * Reconstruction of an XGBoost binary:logistic model's training set through its hessians
 * (issue 4, item 3; TimberStrike, PETS 2025, section 5, done tree by tree).
 *
 * Tree 0 gives exact counts: first-tree probing (../first-tree-probe.ts) reads, per leaf, the rows
 * and the positives. After that a row's state is (its box of feature intervals, its label, its
 * margin = base margin + the values of the leaves it reached). Rows in the same state are
 * interchangeable, so they are kept as groups with a count. Tree t's leaves then state, for the
 * rows that reached them, sum p(1 - p) = cover and sum (p - y) = G = -w (cover + lambda), where
 * p = sigmoid(margin) is a known constant per group: linear equations over how many rows of each
 * group went to each leaf a group's box can reach. One small integer program per tree (HiGHS)
 * assigns them, the equations kept as equalities up to slack that the objective minimises (covers
 * are float32 sums; a slack above that tolerance means the earlier trees' assignment was not the
 * real one). The groups then split by leaf, their boxes shrink to the leaf's, their margins grow.
 *
 * What it is and is not: a reconstruction that fits every tree matched (the leaf-equation error
 * in `stats.leafEquationError` says how well), built greedily tree after tree, never proven
 * unique: status `bounded` and no certified rows. Trees left when the budget runs out are not used
 * (status `timeout`, with the rows found so far).
 */
import type { Forest } from '../../forest/schema';
import { forEachLeaf, pathBox } from '../../forest/structure';
import { probeFirstTrees } from '../first-tree-probe';
import { yieldToEventLoop, type RunContext } from './context';
import { featureAxes, intervalIndexRange, type FeatureAxes } from './feature-axes';
import { loadHighs, solveMilpFromStart, type SparseMilp } from './highs';
import { boxToRow } from './rows';
import type { ReconstructedRow, ReconstructionResult } from './types';

/** One leaf of a boosted tree: its box (interval indices), what it adds to the margin, its sums. */
interface BoostedLeaf {
  low: Int32Array;
  high: Int32Array;
  value: number;
  /** Sum of the hessians of its rows (cover). */
  hessians: number;
  /** Sum of the gradients of its rows, -w (H + lambda); undefined when the weight does not give it. */
  gradients?: number;
}

/** Rows in the same state: same box, label and margin (so the same hessian and gradient in the next tree). */
export interface RowGroup {
  low: Int32Array;
  high: Int32Array;
  label: 0 | 1;
  margin: number;
  count: number;
}

const sigmoid = (m: number) => 1 / (1 + Math.exp(-m));

/** Why this method does not apply, or what it needs: eta, lambda, and whether G is usable. */
function applicability(forest: Forest): { ok: false; reason: string } | { ok: true; eta: number; lambda: number; gradients: boolean; probe: ReturnType<typeof probeFirstTrees> } {
  const b = forest.boosting;
  if (!b) return { ok: false, reason: 'not a boosted model' };
  if (b.objective !== 'binary:logistic' || b.outputGroups !== 1) return { ok: false, reason: `the hessian reconstruction handles binary:logistic models; this one is ${b.objective}` };
  if (forest.training.weighted) return { ok: false, reason: 'the rows carry sample weights, so hessian sums do not count rows' };
  const subsample = forest.hyperParameters.subsample;
  if (typeof subsample === 'number' && subsample < 1) return { ok: false, reason: `subsample=${subsample}: each tree saw a different draw of the rows` };
  if (forest.trees.some((t) => !t.boosting?.cover)) return { ok: false, reason: 'the file stores no hessian sums (cover) for every tree' };
  const probe = probeFirstTrees(forest);
  if (probe.status !== 'exact' || !probe.trees[0] || probe.trees[0].tree !== 0) {
    return { ok: false, reason: `first-tree probing did not give exact counts (${probe.status}${probe.reason ? `: ${probe.reason}` : ''})` };
  }
  const eta = probe.parameters.eta?.value;
  const lambda = probe.parameters.lambda?.value ?? 1;
  if (eta === undefined || !(eta > 0)) return { ok: false, reason: 'the learning rate could not be read or inferred' };
  // L1 alpha and max_delta_step change the weight's relation to G: keep the hessian equations only.
  const gradients = !(probe.parameters.alpha && probe.parameters.alpha.value > 0) && !(probe.parameters.maxDeltaStep && probe.parameters.maxDeltaStep.value > 0);
  return { ok: true, eta, lambda, gradients, probe };
}

function leavesOf(forest: Forest, t: number, axes: FeatureAxes, eta: number, lambda: number, gradients: boolean): Map<number, BoostedLeaf> {
  const tree = forest.trees[t];
  const b = tree.boosting!;
  const features = forest.features.length;
  const out = new Map<number, BoostedLeaf>();
  forEachLeaf(tree, (node, path) => {
    const low = new Int32Array(features);
    const high = Int32Array.from(axes.intervals, (k) => k - 1);
    for (const interval of pathBox(path)) {
      const [lo, hi] = intervalIndexRange(axes, interval);
      low[interval.feature] = Math.max(low[interval.feature], lo);
      high[interval.feature] = Math.min(high[interval.feature], hi);
    }
    const hessians = b.cover![node];
    // The leaf's weight is its value over the learning rate (hist stores eta x w on leaves).
    const weight = b.leafValue[node] / eta;
    out.set(node, { low, high, value: b.leafValue[node], hessians, ...(gradients ? { gradients: -weight * (hessians + lambda) } : {}) });
  });
  return out;
}

function intersects(g: RowGroup, leaf: BoostedLeaf): boolean {
  for (let f = 0; f < g.low.length; f++) if (Math.max(g.low[f], leaf.low[f]) > Math.min(g.high[f], leaf.high[f])) return false;
  return true;
}

/** Slack per unit of hessian weighs like rows (a row's hessian is at most 1/4). */
const HESSIAN_SLACK_COST = 4;
const GRADIENT_SLACK_COST = 1;
/** Float32 covers: a leaf fits when its residuals are below this (absolute) plus a relative part. */
/** Half-width of the band each leaf sum may fall in at no cost (float32 sums of hundreds of rows). */
const BAND = 1e-3;
const fits = (residual: number, total: number) => residual <= 1e-3 + 1e-5 * Math.abs(total);

/**
 * Assigns the groups' rows to tree t's leaves: minimises the slack of the leaf equations.
 * Returns the new groups and the residual error, or undefined when HiGHS returned no point.
 */
function matchTree(
  highs: Awaited<ReturnType<typeof loadHighs>>,
  groups: RowGroup[],
  leaves: BoostedLeaf[],
  deadline: number,
  shouldStop: () => boolean,
): { groups: RowGroup[]; error: number; fitted: boolean; optimal: boolean } | undefined {
  const L = leaves.length;
  const pairs: { g: number; l: number }[] = [];
  for (let g = 0; g < groups.length; g++) for (let l = 0; l < L; l++) if (intersects(groups[g], leaves[l])) pairs.push({ g, l });
  // Rows: one per group (its rows all go somewhere), then per leaf its hessian and gradient sums.
  const numRows = groups.length + 2 * L;
  const slackCols = 4 * L;
  const numCols = pairs.length + slackCols;
  const starts = new Int32Array(numCols + 1);
  const indices: number[] = [];
  const values: number[] = [];
  const cost = new Float64Array(numCols);
  const colUpper = new Float64Array(numCols).fill(Infinity);
  const integer = new Uint8Array(numCols);
  const h = groups.map((g) => sigmoid(g.margin) * (1 - sigmoid(g.margin)));
  const grad = groups.map((g) => sigmoid(g.margin) - g.label);
  pairs.forEach(({ g, l }, j) => {
    starts[j] = indices.length;
    indices.push(g, groups.length + 2 * l, groups.length + 2 * l + 1);
    values.push(1, h[g], grad[g]);
    colUpper[j] = groups[g].count;
    integer[j] = 1;
  });
  for (let l = 0; l < L; l++) {
    const withGradient = leaves[l].gradients !== undefined;
    for (let k = 0; k < 4; k++) {
      const j = pairs.length + 4 * l + k;
      starts[j] = indices.length;
      const row = groups.length + 2 * l + (k >> 1);
      indices.push(row);
      values.push(k % 2 === 0 ? 1 : -1);
      cost[j] = k < 2 ? HESSIAN_SLACK_COST : withGradient ? GRADIENT_SLACK_COST : 0;
    }
  }
  starts[numCols] = indices.length;
  const rowLower = new Float64Array(numRows);
  groups.forEach((g, i) => (rowLower[i] = g.count));
  leaves.forEach((leaf, l) => {
    rowLower[groups.length + 2 * l] = leaf.hessians;
    rowLower[groups.length + 2 * l + 1] = leaf.gradients ?? 0;
  });
  // A start: every group to its first reachable leaf, slacks taking up the difference.
  const start = new Float64Array(numCols);
  const activity = new Float64Array(2 * L);
  const taken = new Uint8Array(groups.length);
  pairs.forEach(({ g, l }, j) => {
    if (taken[g]) return;
    taken[g] = 1;
    start[j] = groups[g].count;
    activity[2 * l] += h[g] * groups[g].count;
    activity[2 * l + 1] += grad[g] * groups[g].count;
  });
  if (taken.some((x) => x === 0)) return undefined; // a group no leaf can hold: the boxes are inconsistent
  for (let l = 0; l < L; l++) {
    for (let k = 0; k < 2; k++) {
      const gap = rowLower[groups.length + 2 * l + k] - activity[2 * l + k];
      start[pairs.length + 4 * l + 2 * k + (gap >= 0 ? 0 : 1)] = Math.abs(gap);
    }
  }
  const milp: SparseMilp = {
    numCols, numRows, cost, colLower: new Float64Array(numCols), colUpper,
    // The leaf rows hold within the float32 tolerance at no cost: an exact fit is then a whole
    // region, which HiGHS's heuristics find far sooner than a point (measured on tree 1 of bin_pima:
    // as exact equalities no zero-slack point in 10 s). Greedy tree by tree, a fit of one tree can
    // still be the wrong one among several, which later trees then show as slack.
    rowLower: Float64Array.from(rowLower, (v, i) => (i < groups.length ? v : v - BAND)),
    rowUpper: Float64Array.from(rowLower, (v, i) => (i < groups.length ? v : v + BAND)),
    starts, indices: Int32Array.from(indices), values: Float64Array.from(values), integer,
  };
  const outcome = solveMilpFromStart(highs, milp, start, { deadline, shouldStop });
  const x = outcome.status === 'none' ? start : outcome.values;
  const next = new Map<string, RowGroup>();
  const used = new Float64Array(groups.length);
  const sums = new Float64Array(2 * L);
  const place = (g: number, l: number, n: number) => {
    used[g] += n;
    sums[2 * l] += h[g] * n;
    sums[2 * l + 1] += grad[g] * n;
    add(next, groups[g], leaves[l], n);
  };
  pairs.forEach(({ g, l }, j) => {
    const n = Math.round(x[j]);
    if (n > 0) place(g, l, n);
  });
  // The group's equality makes a shortfall rare (rounding of a time-limited point); keep every row.
  groups.forEach((g, i) => {
    if (used[i] < g.count) place(i, pairs.find((p) => p.g === i)!.l, g.count - used[i]);
  });
  let error = 0;
  let fitted = true;
  leaves.forEach((leaf, l) => {
    const eh = Math.abs(sums[2 * l] - leaf.hessians);
    const eg = leaf.gradients === undefined ? 0 : Math.abs(sums[2 * l + 1] - leaf.gradients);
    error += eh + eg;
    if (!fits(eh, leaf.hessians) || !fits(eg, leaf.gradients ?? 0)) fitted = false;
  });
  return { groups: [...next.values()], error, fitted, optimal: outcome.status === 'optimal' };
}

function add(into: Map<string, RowGroup>, g: RowGroup, leaf: BoostedLeaf, count: number): void {
  const low = Int32Array.from(g.low, (v, f) => Math.max(v, leaf.low[f]));
  const high = Int32Array.from(g.high, (v, f) => Math.min(v, leaf.high[f]));
  const margin = g.margin + leaf.value;
  const key = `${g.label}|${margin}|${low.join(',')}|${high.join(',')}`;
  const known = into.get(key);
  if (known) known.count += count;
  else into.set(key, { low, high, label: g.label, margin, count });
}

/** Tree 0's probed leaves as groups: exact rows and positives per leaf. */
export function probedGroups(forest: Forest, axes: FeatureAxes, probe: ReturnType<typeof probeFirstTrees>, eta: number, lambda: number): RowGroup[] {
  const leaves = leavesOf(forest, 0, axes, eta, lambda, false);
  const base = forest.boosting!.baseScore[0];
  const baseMargin = Math.log(base / (1 - base));
  const groups: RowGroup[] = [];
  for (const probed of probe.trees[0].leaves) {
    const leaf = leaves.get(probed.node)!;
    const margin = baseMargin + leaf.value;
    const positives = probed.positives!;
    if (probed.rows - positives > 0) groups.push({ low: leaf.low, high: leaf.high, label: 0, margin, count: probed.rows - positives });
    if (positives > 0) groups.push({ low: leaf.low, high: leaf.high, label: 1, margin, count: positives });
  }
  return groups;
}

export function groupsToRows(forest: Forest, axes: FeatureAxes, groups: RowGroup[]): ReconstructedRow[] {
  const rows: ReconstructedRow[] = [];
  for (const g of groups) {
    const { values, intervals } = boxToRow(axes, g.low, g.high);
    for (let i = 0; i < g.count; i++) rows.push({ values: [...values], intervals: intervals.map((x) => (x ? [x[0], x[1]] : null)), label: forest.classes[g.label], certified: false });
  }
  return rows;
}

export async function reconstructBoostedHessians(forest: Forest, ctx: RunContext): Promise<ReconstructionResult> {
  const app = applicability(forest);
  if (!app.ok) return ctx.answer({ status: 'skipped', reason: app.reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  const cut = featureAxes(forest);
  if (!cut.ok) return ctx.answer({ status: 'skipped', reason: cut.reason, rows: app.probe.rows ?? null, certifiedRows: 0 });
  ctx.method = 'boosting-hessians';
  const axes = cut.axes;
  const rows = app.probe.rows!;
  let groups = probedGroups(forest, axes, app.probe, app.eta, app.lambda);
  const highs = await loadHighs();
  const trees = forest.trees.length;
  let matched = 1;
  let error = 0;
  let unfitted = 0;
  const started = Date.now();
  for (let t = 1; t < trees; t++) {
    if (ctx.stopped()) break;
    ctx.progress('milp', { done: t, total: trees });
    // Each remaining tree gets an equal share of what is left of the budget.
    const deadline = Date.now() + (ctx.deadline - Date.now()) / (trees - t);
    const leaves = [...leavesOf(forest, t, axes, app.eta, app.lambda, app.gradients).values()];
    const result = matchTree(highs, groups, leaves, deadline, () => ctx.aborted);
    if (!result) return ctx.answer({ status: 'failed', reason: `tree ${t}: some rows reach no leaf of it, so the model is not read as XGBoost built it`, rows, certifiedRows: 0 });
    groups = result.groups;
    error += result.error;
    if (!result.fitted) unfitted++;
    matched++;
    ctx.stats.columns = Math.max(ctx.stats.columns, groups.length);
    await yieldToEventLoop();
  }
  ctx.stats.milpMs = Date.now() - started;
  ctx.stats.cells = groups.length;
  ctx.stats.mergedCells = groups.length;
  ctx.stats.leafEquationError = error;
  ctx.stats.treesMatched = matched;
  const reconstruction = groupsToRows(forest, axes, groups);
  const fitNote = unfitted === 0 ? 'every matched leaf fits its cover and gradient sum within float32 tolerance' : `${unfitted} of the ${matched - 1} later trees matched have a leaf the assignment does not fit (error ${error.toPrecision(3)})`;
  if (matched < trees) {
    return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason()} after ${matched} of ${trees} trees; the rows fit tree 0 exactly, ${fitNote}`, rows, certifiedRows: 0, reconstruction });
  }
  return ctx.answer({
    status: 'bounded',
    reason: `tree 0's counts exact, trees 1..${trees - 1} matched one by one through their hessians: ${fitNote}; not proven unique, nothing certified`,
    rows,
    certifiedRows: 0,
    reconstruction,
  });
}
