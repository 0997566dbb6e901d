/**
 * Reconstruction of an XGBoost binary:logistic model's training set through its hessians
 * (issue 4, item 3; TimberStrike, PETS 2025, section 5.2, over windows of trees).
 *
 * Tree 0 gives exact counts: first-tree probing (../first-tree-probe.ts) reads, per leaf, the rows
 * and the positives. After that a row's state is (its box of feature intervals, its label, its
 * margin = base margin + the values of the leaves it reached). Rows in the same state are
 * interchangeable, so they are kept as groups with a count. Tree t's leaves then state, for the
 * rows that reached them, sum p(1 - p) = cover and sum (p - y) = G = -w (cover + lambda), where
 * p = sigmoid(margin) is a known constant per group: linear equations over how many rows of each
 * group went to each leaf a group's box can reach. One small integer program per window of
 * consecutive trees (HiGHS) assigns them to paths through the window's leaves, the equations
 * kept as equalities up to slack that the objective minimises (covers are float32 sums; a slack
 * above that tolerance means an earlier assignment was not the real one). The groups then split by leaf, their boxes shrink to the leaf's, their margins grow.
 *
 * Subsample below 1: each tree was grown on its own draw of the rows, which the file does not
 * record, so the later trees' sums are over unknown subsets and cannot be matched. Tree 0's exact
 * counts still give the rows it drew, in its leaves' boxes with their labels; those rows are the
 * answer (an estimate of that part of the training set), N is estimated as their number over
 * `subsample`, and the reason says how many rows are left out.
 *
 * What it is and is not: a reconstruction that fits every tree matched (the leaf-equation error
 * in `stats.leafEquationError` says how well), built greedily window after window, never proven
 * unique: status `bounded`. What is certified is tree 0's: each row with its label and, as its
 * box, its tree-0 leaf's region (first-tree-claims.ts). Trees left when the budget runs out are not used
 * (status `timeout`, with the rows found so far).
 *
 * Missing values (../missing-values.ts). When every split of a feature sends a missing value one
 * way, a missing value reads as that end's interval (as in boosting-counts), and the reason says so.
 * A feature whose splits send it left at some nodes and right at others ('mixed': the training data
 * had missing values of it) gets a missing value of its own: per feature a box is an interval range
 * and, for a mixed feature, a flag saying whether "missing" is allowed. A leaf's flag is set when
 * every split on the feature along its path sends a missing value toward the leaf (the split's
 * default direction); intersections AND the flags, and a box is empty on a feature when its range
 * is empty and missing is not allowed. A row whose range ends empty is missing that value; a row
 * whose box allows both is given the range's representative value (the model cannot tell which,
 * and a value is the likelier guess when most rows have one): the reason says so.
 */
import { formatCount, formatNumber } from '../../util/wording';
import type { Highs } from 'highs';
import type { Forest } from '../../forest/schema';
import { baseMargin, isLogistic, positiveWeight } from '../../forest/boosting';
import { forEachLeaf, pathBox } from '../../forest/structure';
import { ownDrawEvidence, probeFirstTrees, weightedReason } from '../first-tree-probe';
import { missingValueRouting, mixedMissingWords, uniformMissingNote } from '../missing-values';
import { yieldToEventLoop, type RunContext } from './context';
import { HESSIAN_MATCH_CELL_CAP, millions } from './memory';
import { certifyFirstTreeLeaves } from './first-tree-claims';
import { firstTreeRows } from './first-tree-rows';
import { featureAxes, intervalIndexRange, type FeatureAxes } from './feature-axes';
import { solveMilpWithin, withHighs, type SparseProblem } from './highs';
import { boxToRow } from './rows';
import { featureLabel } from '../../forest/pipeline-input';
import type { ReconstructedRow, ReconstructionResult } from './types';

/** One leaf of a boosted tree: its box (interval indices), what it adds to the margin, its sums. */
export interface BoostedLeaf {
  low: Int32Array;
  high: Int32Array;
  /** Per feature: 1 when a row missing it can reach the leaf (set on mixed features only). */
  missing: Uint8Array;
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
  /** Per feature: 1 when the rows may be missing it (mixed features only); low > high: they all are. */
  missing: Uint8Array;
  label: 0 | 1;
  margin: number;
  count: number;
}

const sigmoid = (m: number) => 1 / (1 + Math.exp(-m));

/** Why this method does not apply, or what it needs: eta, lambda, and whether G is usable. */
/** Milliseconds per row kept back for the work after the matching (see matchAndAnswer). */
const CLAIMS_MS_PER_ROW = 1e-3;

function applicability(
  forest: Forest,
): { ok: false; reason: string; rowsOnly?: { probe: ReturnType<typeof probeFirstTrees>; subsample?: number } } | { ok: true; eta: number; lambda: number; gradients: boolean; probe: ReturnType<typeof probeFirstTrees>; mixed: Uint8Array; subsample?: number; note?: string } {
  const b = forest.boosting;
  if (!b) return { ok: false, reason: 'not a boosted model' };
  if (!isLogistic(b.objective) || b.outputGroups !== 1) return { ok: false, reason: `the hessian reconstruction handles the logistic objectives (binary:logistic, binary:logitraw, reg:logistic); this one is ${b.objective}` };
  if (forest.training.weighted) return { ok: false, reason: 'the rows carry sample weights, so hessian sums do not count rows' };
  const stated = forest.hyperParameters.subsample;
  // Each tree saw its own draw: tree 0 alone is read (see the header).
  const subsample = typeof stated === 'number' && stated > 0 && stated < 1 ? stated : undefined;
  // Random-forest mode: the trees of a round were grown from the same margins, not one after the
  // other, which the tree-by-tree matching assumes.
  const parallel = forest.hyperParameters.num_parallel_tree;
  const sideBySide = typeof parallel === 'number' && parallel > 1 && subsample === undefined;
  if (forest.trees.some((t) => !t.boosting?.cover)) return { ok: false, reason: 'the file stores no hessian sums (cover) for every tree' };
  // Mixed features are modelled with a missing value of their own; uniform ones fold it into an end interval.
  const mixed = Uint8Array.from(missingValueRouting(forest).routes, (r) => (r === 'mixed' ? 1 : 0));
  const mixedNames = forest.features.flatMap((_, f) => (mixed[f] ? [featureLabel(forest, f)] : []));
  const notes = [
    ...(mixedNames.length
      ? [
          `${mixedMissingWords(forest, mixedNames)}: modelled with a missing value of their own, ` +
            'which a row has when no interval of the feature fits it; rows that could be missing or not are given a value',
        ]
      : []),
    ...[uniformMissingNote(forest)].filter((x): x is string => x !== undefined),
  ];
  const probe = probeFirstTrees(forest);
  // Side by side without a stated subsample: read (tree 0 alone) only when the first round's roots
  // show that each tree drew its own rows; on the same rows they are trees the matching does not model.
  if (sideBySide && !probe.ownDraw) {
    return { ok: false, reason: `num_parallel_tree=${parallel} without subsample: the trees of a round were grown side by side from the same predictions, which the tree-by-tree matching does not model yet` };
  }
  if (probe.weightedCounts) return { ok: false, reason: weightedReason(probe) };
  // Tree 0's rows without (all) its positives, or without the learning rate: tree 0 alone (first-tree-rows.ts).
  const rowsOnly = probe.rows !== undefined && probe.trees[0]?.tree === 0 && probe.status !== 'not-applicable' ? { probe, ...(subsample !== undefined ? { subsample } : {}) } : undefined;
  if (probe.status !== 'exact' || !probe.trees[0] || probe.trees[0].tree !== 0) {
    return { ok: false, reason: `first-tree probing did not give exact counts (${probe.status}${probe.reason ? `: ${probe.reason}` : ''})`, rowsOnly };
  }
  const eta = probe.parameters.eta?.value;
  const lambda = probe.parameters.lambda?.value ?? 1;
  if (eta === undefined || !(eta > 0)) return { ok: false, reason: 'the learning rate could not be read or inferred', rowsOnly };
  // L1 alpha and max_delta_step change the weight's relation to G: keep the hessian equations only.
  const gradients = !(probe.parameters.alpha && probe.parameters.alpha.value > 0) && !(probe.parameters.maxDeltaStep && probe.parameters.maxDeltaStep.value > 0);
  return { ok: true, eta, lambda, gradients, probe, mixed, ...(subsample !== undefined ? { subsample } : {}), ...(notes.length ? { note: notes.join('; ') } : {}) };
}

function leavesOf(forest: Forest, t: number, axes: FeatureAxes, eta: number, lambda: number, gradients: boolean, mixed: Uint8Array): Map<number, BoostedLeaf> {
  const tree = forest.trees[t];
  const b = tree.boosting!;
  const features = forest.features.length;
  const out = new Map<number, BoostedLeaf>();
  // Paths carry no node ids: a parent per node lets a leaf's splits be walked back for their default direction.
  const parent = new Int32Array(tree.left.length).fill(-1);
  tree.left.forEach((child, node) => {
    if (child === -1) return;
    parent[child] = node;
    parent[tree.right[node]] = node;
  });
  forEachLeaf(tree, (node, path) => {
    const missing = Uint8Array.from(mixed);
    for (let child = node, up = parent[node]; up !== -1; child = up, up = parent[up]) {
      const f = tree.feature[up];
      // A tree that states no directions leaves both children open to a missing value (never unsound).
      if (mixed[f] && tree.defaultLeft && (child === tree.left[up]) !== Boolean(tree.defaultLeft[up])) missing[f] = 0;
    }
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
    out.set(node, { low, high, missing, value: b.leafValue[node], hessians, ...(gradients ? { gradients: -weight * (hessians + lambda) } : {}) });
  });
  return out;
}


/** Slack per unit of hessian weighs like rows (a row's hessian is at most 1/4). */
const HESSIAN_SLACK_COST = 4;
const GRADIENT_SLACK_COST = 1;
/**
 * Half-width of the band each leaf sum may fall in at no cost. An exact fit is then a whole region,
 * which HiGHS's heuristics find far sooner than a point (measured on tree 1 of bin_pima: as exact
 * equalities, no zero-slack point in 10 s). Yet the band is also what lets a wrong assignment pass
 * for a fit: the true rows meet every leaf's sums far closer than 1e-3 (largest residual of the
 * true assignment over all leaves of the TimberStrike bench models, Pima and Stroke, depths 3 and
 * 8: 3.6e-5; float32 covers, margins summed in float32), so a band of 1e-3 admitted about 20
 * times as many spurious integer fits as needed. 1e-4 keeps the true rows inside with a margin of 3.
 */
export const BAND = 1e-4;
/** Float32 covers: a leaf fits when its residuals are below this (absolute) plus a relative part. */
const fits = (residual: number, total: number) => residual <= 1e-3 + 1e-5 * Math.abs(total);

/**
 * A window of trees matched together: a group's rows are split over the paths (one leaf per tree
 * of the window) their box can follow. Matching trees one at a time, a fit of tree t is often the
 * wrong one among several, which only tree t + 1 reveals; matching them jointly lets it.
 * Measured on bin_pima (10 trees, depth 3, 20 s): leaf-equation error 20 one tree at a time, 11.5
 * with windows of 2, 10.3 with 4 (and twice the time); the accuracy barely moved (0.47-0.48).
 */
export const MAX_WINDOW = 2;
/** Paths (columns) beyond which the window is not widened: keeps each integer program small. */
export const PATH_LIMIT = 4_000;

interface Path {
  group: number;
  /** Leaf index in each tree of the window. */
  leaves: number[];
  /** Margin before each tree of the window. */
  margins: number[];
  low: Int32Array;
  high: Int32Array;
  missing: Uint8Array;
  margin: number;
}

/** Whether some row in the box can reach the leaf: per feature a common interval, or both allow missing. */
function intersectsBox(low: Int32Array, high: Int32Array, missing: Uint8Array, leaf: BoostedLeaf): boolean {
  for (let f = 0; f < low.length; f++) if (Math.max(low[f], leaf.low[f]) > Math.min(high[f], leaf.high[f]) && !(missing[f] & leaf.missing[f])) return false;
  return true;
}

/** The box's intersection with the leaf's; an empty range is written [1, 0], so equal states share a key. */
function intersection(low: Int32Array, high: Int32Array, missing: Uint8Array, leaf: BoostedLeaf): { low: Int32Array; high: Int32Array; missing: Uint8Array } {
  const lo = Int32Array.from(low, (v, f) => Math.max(v, leaf.low[f]));
  const hi = Int32Array.from(high, (v, f) => Math.min(v, leaf.high[f]));
  for (let f = 0; f < lo.length; f++) {
    if (lo[f] > hi[f]) {
      lo[f] = 1;
      hi[f] = 0;
    }
  }
  return { low: lo, high: hi, missing: Uint8Array.from(missing, (m, f) => m & leaf.missing[f]) };
}

/** Every path of every group through the window's trees, or undefined past `limit`. */
function enumeratePaths(groups: RowGroup[], window: BoostedLeaf[][], limit: number): Path[] | undefined {
  const paths: Path[] = [];
  const walk = (group: number, k: number, low: Int32Array, high: Int32Array, missing: Uint8Array, margin: number, leaves: number[], margins: number[]): boolean => {
    if (k === window.length) {
      paths.push({ group, leaves: [...leaves], margins: [...margins], low, high, missing, margin });
      return paths.length <= limit;
    }
    const tree = window[k];
    for (let l = 0; l < tree.length; l++) {
      const leaf = tree[l];
      if (!intersectsBox(low, high, missing, leaf)) continue;
      const box = intersection(low, high, missing, leaf);
      leaves.push(l);
      margins.push(margin);
      const ok = walk(group, k + 1, box.low, box.high, box.missing, margin + leaf.value, leaves, margins);
      leaves.pop();
      margins.pop();
      if (!ok) return false;
    }
    return true;
  };
  for (let g = 0; g < groups.length; g++) if (!walk(g, 0, groups[g].low, groups[g].high, groups[g].missing, groups[g].margin, [], [])) return undefined;
  return paths;
}

/**
 * Assigns the groups' rows to paths through the window's trees: minimises the slack of the leaf
 * equations. Returns the new groups, the residual error and how many trees have a leaf that does
 * not fit; undefined when some group's box reaches no leaf (the model is not read as built).
 */
async function matchWindow(
  highs: Highs,
  groups: RowGroup[],
  window: BoostedLeaf[][],
  paths: Path[],
  positiveWeight: number,
  deadline: number,
  shouldStop: () => boolean,
): Promise<{ groups: RowGroup[]; error: number; unfitted: number } | undefined> {
  // Rows: one per group (its rows all go somewhere), then per tree and leaf its hessian and gradient sums.
  const leafRow: number[] = [];
  let numRows = groups.length;
  for (const tree of window) {
    leafRow.push(numRows);
    numRows += 2 * tree.length;
  }
  const slackCols = numRows - groups.length;
  const numCols = paths.length + 2 * slackCols;
  const starts = new Int32Array(numCols + 1);
  const indices: number[] = [];
  const values: number[] = [];
  const cost = new Float64Array(numCols);
  const colUpper = new Float64Array(numCols).fill(Infinity);
  const integer = new Uint8Array(numCols);
  const covered = new Uint8Array(groups.length);
  paths.forEach((path, j) => {
    starts[j] = indices.length;
    const group = groups[path.group];
    covered[path.group] = 1;
    indices.push(path.group);
    values.push(1);
    path.leaves.forEach((l, k) => {
      const p = sigmoid(path.margins[k]);
      // scale_pos_weight weighs a positive row's hessian and gradient (XGBoost's binary objectives).
      const w = group.label === 1 ? positiveWeight : 1;
      indices.push(leafRow[k] + 2 * l, leafRow[k] + 2 * l + 1);
      values.push(w * p * (1 - p), w * (p - group.label));
    });
    colUpper[j] = group.count;
    integer[j] = 1;
  });
  if (covered.some((x) => x === 0)) return undefined;
  const rowTarget = new Float64Array(numRows);
  groups.forEach((g, i) => (rowTarget[i] = g.count));
  window.forEach((tree, k) =>
    tree.forEach((leaf, l) => {
      rowTarget[leafRow[k] + 2 * l] = leaf.hessians;
      rowTarget[leafRow[k] + 2 * l + 1] = leaf.gradients ?? 0;
    }),
  );
  // Two slack columns per leaf row (above and below), weighed by what the row measures.
  for (let r = 0; r < slackCols; r++) {
    const row = groups.length + r;
    const tree = window.findIndex((_, k) => row >= leafRow[k] && (k + 1 === window.length || row < leafRow[k + 1]));
    const leaf = window[tree][(row - leafRow[tree]) >> 1];
    const isGradient = (row - leafRow[tree]) % 2 === 1;
    for (const sign of [1, -1]) {
      const j = paths.length + 2 * r + (sign === 1 ? 0 : 1);
      starts[j] = indices.length;
      indices.push(row);
      values.push(sign);
      cost[j] = !isGradient ? HESSIAN_SLACK_COST : leaf.gradients !== undefined ? GRADIENT_SLACK_COST : 0;
    }
  }
  starts[numCols] = indices.length;
  // A start: every group on its first path, slacks taking up the difference.
  const start = new Float64Array(numCols);
  const activity = new Float64Array(numRows);
  const taken = new Uint8Array(groups.length);
  paths.forEach((path, j) => {
    if (taken[path.group]) return;
    taken[path.group] = 1;
    start[j] = groups[path.group].count;
    for (let e = starts[j]; e < starts[j + 1]; e++) activity[indices[e]] += values[e] * start[j];
  });
  for (let r = 0; r < slackCols; r++) {
    const gap = rowTarget[groups.length + r] - activity[groups.length + r];
    start[paths.length + 2 * r + (gap >= 0 ? 0 : 1)] = Math.abs(gap);
  }
  const problem: SparseProblem = {
    numCols, numRows, rowRhs: rowTarget, cost, integer,
    rowLower: Float64Array.from(rowTarget, (v, i) => (i < groups.length ? v : v - BAND)),
    rowUpper: Float64Array.from(rowTarget, (v, i) => (i < groups.length ? v : v + BAND)),
    colStart: starts, colRow: Int32Array.from(indices), colCoef: Float64Array.from(values),
  };
  const x = (await solveMilpWithin(highs, problem, { lower: new Float64Array(numCols), upper: colUpper }, { deadline, start, shouldStop })).colValue ?? start;
  const next = new Map<string, RowGroup>();
  const used = new Float64Array(groups.length);
  const sums = new Float64Array(numRows);
  const place = (j: number, n: number) => {
    const path = paths[j];
    used[path.group] += n;
    for (let e = starts[j]; e < starts[j + 1]; e++) sums[indices[e]] += values[e] * n;
    add(next, groups[path.group], path, n);
  };
  paths.forEach((_, j) => {
    const n = Math.round(x[j]);
    if (n > 0) place(j, n);
  });
  // The group's equality makes a shortfall rare (rounding of a time-limited point); keep every row.
  groups.forEach((g, i) => {
    if (used[i] < g.count) place(paths.findIndex((p) => p.group === i), g.count - used[i]);
  });
  let error = 0;
  let unfitted = 0;
  window.forEach((tree, k) => {
    let fitted = true;
    tree.forEach((leaf, l) => {
      const eh = Math.abs(sums[leafRow[k] + 2 * l] - leaf.hessians);
      const eg = leaf.gradients === undefined ? 0 : Math.abs(sums[leafRow[k] + 2 * l + 1] - leaf.gradients);
      error += eh + eg;
      if (!fits(eh, leaf.hessians) || !fits(eg, leaf.gradients ?? 0)) fitted = false;
    });
    if (!fitted) unfitted++;
  });
  return { groups: [...next.values()], error, unfitted };
}

function add(into: Map<string, RowGroup>, g: RowGroup, path: Path, count: number): void {
  const { low, high, missing, margin } = path;
  const key = `${g.label}|${margin}|${low.join(',')}|${high.join(',')}|${missing.join('')}`;
  const known = into.get(key);
  if (known) known.count += count;
  else into.set(key, { low, high, missing, label: g.label, margin, count });
}

/** Tree 0's probed leaves as groups: exact rows and positives per leaf. */
export function probedGroups(forest: Forest, axes: FeatureAxes, probe: ReturnType<typeof probeFirstTrees>, eta: number, lambda: number, mixed: Uint8Array): RowGroup[] {
  const leaves = leavesOf(forest, 0, axes, eta, lambda, false, mixed);
  const startMargin = baseMargin(forest.boosting!);
  const groups: RowGroup[] = [];
  for (const probed of probe.trees[0].leaves) {
    const leaf = leaves.get(probed.node)!;
    const margin = startMargin + leaf.value;
    // Tree 0's box, its empty ranges written [1, 0] as the matching writes them.
    const { low, high, missing } = intersection(leaf.low, leaf.high, leaf.missing, leaf);
    const positives = probed.positives!;
    if (probed.rows - positives > 0) groups.push({ low, high, missing, label: 0, margin, count: probed.rows - positives });
    if (positives > 0) groups.push({ low, high, missing, label: 1, margin, count: positives });
  }
  return groups;
}

/**
 * The groups as rows. On a mixed feature (`mixed`), a group whose range is empty is missing the
 * value: its value and interval are null and `missing` says so (the RA metric counts a null as
 * right exactly where the true value is missing). A group whose box allows both a missing value
 * and an interval is given the interval's representative, as a row that has the value. Measured on
 * bin_missing (120 rows, 37 missing Glucose; 20 s): no row's range empties there, so 0 rows come
 * out missing (RA on Glucose 0.217); writing every either-or row as missing instead gave 45 missing
 * rows and RA on Glucose 0.442, so which guess is better depends on how many rows are missing.
 */
export function groupsToRows(forest: Forest, axes: FeatureAxes, groups: RowGroup[], mixed: Uint8Array): ReconstructedRow[] {
  const rows: ReconstructedRow[] = [];
  const modelled = mixed.some((m) => m === 1);
  for (const g of groups) {
    const absent = Array.from(g.low, (lo, f) => mixed[f] === 1 && lo > g.high[f]);
    // An absent value reads as the whole axis (null interval, and its value is emptied), then is marked missing.
    const low = Int32Array.from(g.low, (lo, f) => (absent[f] ? 0 : lo));
    const high = Int32Array.from(g.high, (hi, f) => (absent[f] ? axes.intervals[f] - 1 : hi));
    const { values, intervals } = boxToRow(axes, low, high);
    // A missing value has no point (a training CSV leaves it empty).
    absent.forEach((a, f) => a && (values[f] = null));
    // The rows of a group share their arrays (rows are read, never changed, once answered): a
    // model of a million rows holds a million small objects, not a million copies of its box.
    const missing = modelled ? { missing: absent } : {};
    for (let i = 0; i < g.count; i++) {
      // reg:logistic has no classes: its 0/1 targets are the labels.
      rows.push({ values, intervals, label: forest.classes[g.label] ?? g.label, certified: false, ...missing });
    }
  }
  return rows;
}

/**
 * Every tree's leaves as the equations the matching uses (in the order of `forEachLeaf`, with
 * their node ids) and the base margin: for tests and inspection. Undefined when the method does
 * not apply.
 */
export function boostedLeafEquations(forest: Forest): { trees: { nodes: number[]; leaves: BoostedLeaf[] }[]; baseMargin: number } | undefined {
  const app = applicability(forest);
  const cut = featureAxes(forest);
  if (!app.ok || !cut.ok) return undefined;
  const trees = forest.trees.map((_, t) => {
    const leaves = leavesOf(forest, t, cut.axes, app.eta, app.lambda, app.gradients, app.mixed);
    return { nodes: [...leaves.keys()], leaves: [...leaves.values()] };
  });
  return { trees, baseMargin: baseMargin(forest.boosting!) };
}

export async function reconstructBoostedHessians(forest: Forest, ctx: RunContext): Promise<ReconstructionResult> {
  const app = applicability(forest);
  if (!app.ok && app.rowsOnly) return firstTreeRows(forest, app.rowsOnly.probe, ctx, `${app.reason}, which the matching of the later trees needs`, app.rowsOnly.subsample);
  if (!app.ok) return ctx.answer({ status: 'skipped', reason: app.reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  const cut = featureAxes(forest);
  if (!cut.ok) return ctx.answer({ status: 'skipped', reason: cut.reason, rows: app.probe.rows ?? null, certifiedRows: 0 });
  ctx.method = 'boosting-hessians';
  const axes = cut.axes;
  const rows = app.probe.rows!;
  let groups = probedGroups(forest, axes, app.probe, app.eta, app.lambda, app.mixed);
  if (app.subsample === undefined && app.probe.ownDraw) {
    // Tree 1's cover does not fit tree 0's rows: each tree drew its own rows at a rate the file
    // does not state, so tree 0's rows are read alone and N is not known.
    ctx.stats.cells = groups.length;
    ctx.stats.mergedCells = groups.length;
    ctx.stats.treesMatched = 1;
    const claims = certifyFirstTreeLeaves(forest, app.probe, groupsToRows(forest, axes, groups, app.mixed));
    return ctx.answer({
      status: 'bounded',
      reason:
        `${ownDrawEvidence(app.probe.ownDraw, rows)}: each tree grew on its own draw of the rows (subsample below 1, which the file does not record), so only tree 0 is read: ` +
        `its exact counts give the ${formatCount(rows)} rows it drew in its leaves' boxes with their labels; the training set holds at least these rows (its size is unknown), and any others are not reconstructed; ${claims.note}${app.note ? `; ${app.note}` : ''}`,
      rows: null,
      certifiedRows: claims.certified,
      ...(claims.withoutLabel > 0 ? { certifiedWithoutLabel: claims.withoutLabel } : {}),
      ...(claims.boxes ? { boxes: claims.boxes } : {}),
      reconstruction: claims.rows,
    });
  }
  /** Tree 0 alone: its exact counts certify its rows in its leaves' boxes with their labels. */
  const firstTreeOnly = (why: string, trainingRows: number): ReconstructionResult => {
    ctx.stats.cells = groups.length;
    ctx.stats.mergedCells = groups.length;
    ctx.stats.treesMatched = 1;
    const claims = certifyFirstTreeLeaves(forest, app.probe, groupsToRows(forest, axes, groups, app.mixed));
    return ctx.answer({
      status: 'bounded',
      reason: `${why}; ${claims.note}${app.note ? `; ${app.note}` : ''}`,
      rows: trainingRows,
      certifiedRows: claims.certified,
      ...(claims.withoutLabel > 0 ? { certifiedWithoutLabel: claims.withoutLabel } : {}),
      ...(claims.boxes ? { boxes: claims.boxes } : {}),
      reconstruction: claims.rows,
    });
  };
  if (app.subsample !== undefined) {
    const estimated = Math.round(rows / app.subsample);
    ctx.rowsKind = 'estimate';
    return firstTreeOnly(
      `subsample=${formatNumber(app.subsample)}: each tree was grown on its own draw of the rows, and which rows each drew is not recorded, so only tree 0 is read: ` +
        `its exact counts give the ${formatCount(rows)} rows it drew (about ${Math.round(app.subsample * 100)}% of the training set, N about ${formatCount(estimated)}) in its leaves' boxes with their labels; ` +
        `the other ~${formatCount(Math.max(0, estimated - rows))} rows are not reconstructed`,
      estimated,
    );
  }
  const cellCap = ctx.options.hessianMatchCellCap ?? HESSIAN_MATCH_CELL_CAP;
  if (rows * forest.features.length > cellCap) {
    return firstTreeOnly(
      `${rows.toLocaleString('en-US')} rows x ${forest.features.length} features: past the ${millions(cellCap)} cells the matching of the later trees holds within the memory ceiling, ` +
        `so only tree 0 is read: its exact counts give every row in its leaves' boxes with their labels, and the later trees do not narrow them`,
      rows,
    );
  }
  /** Trees 1.. matched to the groups window by window, then the answer. */
  const matchAndAnswer = async (highs: Highs): Promise<ReconstructionResult> => {
    // The rows, tree 0's claims on each and their widths come after the matching and do not look
    // at the clock: on 878,242 rows they took 0.7-1.5 s, and a 3 s budget ended at 5 s (sweep 18).
    ctx.reserve(rows * CLAIMS_MS_PER_ROW, "tree 0's claims on every row");
    const trees = forest.trees.length;
    let matched = 1;
    let error = 0;
    let unfitted = 0;
    const started = Date.now();
    const leavesOfTree = (t: number) => [...leavesOf(forest, t, axes, app.eta, app.lambda, app.gradients, app.mixed).values()];
    for (let t = 1; t < trees; ) {
      if (ctx.stopped()) break;
      ctx.progress('milp', { done: t, total: trees });
      // The widest window (up to MAX_WINDOW trees) whose paths stay within PATH_LIMIT; always one tree.
      let window = [leavesOfTree(t)];
      let paths = enumeratePaths(groups, window, Number.MAX_SAFE_INTEGER)!;
      while (t + window.length < trees && window.length < MAX_WINDOW) {
        const wider = [...window, leavesOfTree(t + window.length)];
        const more = enumeratePaths(groups, wider, PATH_LIMIT);
        if (!more) break;
        window = wider;
        paths = more;
      }
      // Each remaining tree gets an equal share of what is left of the budget.
      const deadline = Date.now() + (Math.max(0, ctx.deadline - Date.now()) * window.length) / (trees - t);
      const result = await matchWindow(highs, groups, window, paths, positiveWeight(forest), deadline, () => ctx.aborted);
      if (!result) return ctx.answer({ status: 'failed', reason: `trees ${t}..${t + window.length - 1}: some rows reach no leaf, so the model is not read as XGBoost built it`, rows, certifiedRows: 0 });
      groups = result.groups;
      error += result.error;
      unfitted += result.unfitted;
      matched += window.length;
      t += window.length;
      ctx.stats.columns = Math.max(ctx.stats.columns, paths.length);
      await yieldToEventLoop();
    }
    ctx.stats.milpMs = Date.now() - started;
    ctx.stats.cells = groups.length;
    ctx.stats.mergedCells = groups.length;
    ctx.stats.leafEquationError = error;
    ctx.stats.treesMatched = matched;
    // Tree 0's leaves prove their rows and labels; the matched boxes inside them stay an estimate.
    const claims = certifyFirstTreeLeaves(forest, app.probe, groupsToRows(forest, axes, groups, app.mixed));
    const reconstruction = claims.rows;
    const certified = { certifiedRows: claims.certified, ...(claims.withoutLabel > 0 ? { certifiedWithoutLabel: claims.withoutLabel } : {}), ...(claims.boxes ? { boxes: claims.boxes } : {}) };
    const fitNote = (unfitted === 0 ? 'every matched leaf fits its cover and gradient sum within float32 tolerance' : `the matching misses some leaf's cover or gradient sum beyond float32 tolerance in ${unfitted === matched - 1 ? (matched - 1 === 1 ? 'the one later tree' : `every one of the ${matched - 1} later trees`) : `${unfitted} of the ${matched - 1} later trees`} it matched, so there it narrows the points only roughly`) + (app.note ? `; ${app.note}` : '');
    if (matched < trees) {
      return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason()} after ${matched} of ${trees} trees; the rows fit tree 0 exactly, ${fitNote}; ${claims.note}`, rows, ...certified, reconstruction });
    }
    return ctx.answer({
      status: 'bounded',
      // One tree: nothing to match (sweep 19: "trees 1..0 matched through their hessians").
      reason:
        trees === 1
          ? `the model's one tree: its counts exact; ${claims.note}`
          : `tree 0's counts exact, ${trees === 2 ? 'tree 1' : `trees 1..${trees - 1}`} matched through their hessians${trees === 2 ? '' : `, up to ${MAX_WINDOW} at a time`}: ${fitNote}; the matching is not proven unique, so the boxes it narrows are an estimate; ${claims.note}`,
      rows,
      ...certified,
      reconstruction,
    });
  };
  return withHighs(matchAndAnswer, (reason) => ctx.answer({ status: 'failed', reason, rows, certifiedRows: 0 }));
}
