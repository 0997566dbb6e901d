/**
 * First-tree probing (TimberStrike, PETS 2025, section 5.1 and appendix E.1), exact and without
 * running anything. XGBoost stores, per node, the hessian sum H (cover) and the weight
 * w = -G / (H + lambda). While the first tree grows, every row has the same prediction (the base
 * score), hence the same hessian h:
 *   binary:logistic   h = p (1 - p), p = base_score;  g = p - y
 *                     (reg:logistic the same; binary:logitraw with p = sigmoid(base_score))
 *   multi:softprob    h = 2 p (1 - p), p = 1 / K (XGBoost's softmax hessian); g = p - [y = c]
 *   reg:squarederror  h = 1 (every tree, not only the first); g = prediction - y
 * so a leaf's rows are H / h, and its positives (class-c rows, label sum) follow from G:
 *   positives = rows p - G        (with scale_pos_weight s: H / h = n0 + s n1, G = p H/h - s n1)
 * The probe checks itself: rows and positives must come out as integers in range, or it says
 * which assumption failed instead of reporting numbers.
 *
 * What can break the assumptions, and what stays sound:
 *  - L1 `alpha` shifts G by +-alpha (rows exact; positives exact once alpha is known or inferred);
 *  - `max_delta_step` clips |w| (rows exact; clipped leaves give one-sided bounds);
 *  - `subsample` < 1: the counts are those of the rows drawn for the first tree;
 *  - sample weights or a custom objective: rows are not integers; nothing is reported.
 * The learning rate and lambda are not stored by save_model: the learning rate is leaf value /
 * weight, and lambda (and alpha) follow from G being additive: G(node) = G(left) + G(right).
 */
import type { Forest, Tree } from '../forest/schema';
import { baseMargin, isLogistic, nativeNodeId } from '../forest/boosting';
import { forEachLeaf, pathBox, type FeatureInterval } from '../forest/structure';
import { heldOutSentence } from '../forest/held-out';
import { isSquaredError, squaredErrorRootsDiffer } from './boosted-covers';
import { columnRoutes, missingValueReading, mixedMissingFeatures, mixedMissingWords } from './missing-values';
import { capitalised, formatNumber } from '../util/wording';

export type ParameterSource = 'stated' | 'inferred' | 'assumed';

export interface ProbeParameter {
  value: number;
  source: ParameterSource;
}

export interface ProbedLeaf {
  /** IR node id and the node's id in the file. */
  node: number;
  nativeId: number;
  rows: number;
  /** Rows (class-c rows for multi-class; rows with label 1 for binary) when determined exactly. */
  positives?: number;
  /** One-sided or two-sided bounds when the weight was clipped (max_delta_step) or zeroed (alpha). */
  positivesAtLeast?: number;
  positivesAtMost?: number;
  /** Regression: sum of the labels of the leaf's rows. */
  labelSum?: number;
  /** The leaf's region: one interval per feature on its path (`lower <= x < upper` for XGBoost). */
  box: FeatureInterval[];
}

export interface ProbedTree {
  tree: number;
  /** Output group: the class a multi-class tree scores. */
  group: number;
  rows: number;
  leaves: ProbedLeaf[];
}

export type ProbeStatus = 'exact' | 'partial' | 'rows-only' | 'not-applicable';

export interface FirstTreeProbe {
  status: ProbeStatus;
  /** Why nothing could be probed (status not-applicable). */
  reason?: string;
  objective: string;
  /** Objective used when the file does not state it (dumps). */
  objectiveAssumed?: boolean;
  /** Every row's hessian in the probed trees. */
  hessianPerRow?: number;
  /** Training rows N (the rows the first tree was grown on; see caveats for subsample). */
  rows?: number;
  /** Rows per class (binary: [negatives, positives]) when every leaf's positives are exact. */
  classCounts?: number[];
  /** Regression: sum of all labels, when every leaf's is known. */
  labelSum?: number;
  trees: ProbedTree[];
  parameters: { eta?: ProbeParameter; lambda?: ProbeParameter; alpha?: ProbeParameter; maxDeltaStep?: ProbeParameter };
  /** Leaves whose positives are not determined, over all probed trees. */
  undeterminedLeaves: number;
  /** Assumptions that do not hold, or that the file cannot confirm, and what stays sound. */
  caveats: string[];
  /**
   * Binary logistic models whose file states no subsample: tree 1's root cover is not the hessian
   * sum of tree 0's rows after tree 0, so tree 1 grew on other rows and tree 0's are a draw of the
   * training set (subsample below 1), whose size the file does not give. `sideBySide`: random-forest
   * mode (num_parallel_tree), where that tree of the first round, grown from the same predictions as
   * tree 0, has another root cover (`actual`) than tree 0's (`predicted`).
   */
  ownDraw?: { predicted: number; actual: number; sideBySide?: number };
  /**
   * Multi-class models whose first-round class trees each grew on their own draw of the rows
   * (subsample below 1, stated or shown by their root covers): each tree's leaves count its own
   * draw exactly, so `rows` and `classCounts` are undefined and each tree's `rows` is its draw.
   */
  classDraws?: true;
  /**
   * Labels whose count in every leaf is a multiple of one factor: the rows of that label probably
   * carry that integer sample weight, which the file does not record (weightedLabels). The counts
   * are then weights, not rows: N and the rows are not claimed.
   */
  weightedCounts?: { label: number; factor: number; leaves: number }[];
  /**
   * Binary models with a leaf whose positives come out fractional under the parameters that make
   * the others whole: the labels are not all 0 or 1 (XGBoost's logistic objectives take any label in
   * [0, 1]), so no leaf's positives are read; the rows stay exact.
   */
  fractionalLabels?: true;
}

// ------------------------------------------------------------------------------------------------

interface Hypothesis {
  objective: string;
  assumed: boolean;
  kind: 'binary' | 'multi' | 'regression';
  /** Probability (binary, multi) or prediction (regression) of every row before the first tree. */
  p: number;
  h: number;
  groups: number;
  /**
   * Multi-class models whose classes start from different margins (XGBoost 2+ stores a base score
   * per class): each class tree's p and hessian per row, by output group.
   */
  perGroup?: { p: number; h: number }[];
  /**
   * How much a positive row lowers G beyond p (binary): G = p rows - step x positives. 1 for the
   * logistic objectives (g = p - y); 2 for binary:hinge (g = 1 - 2y while the margin is below 1).
   */
  positiveStep?: number;
  /** The leaf weights are not -G / (H + lambda) (reg:absoluteerror refreshes them): rows only. */
  noGradient?: boolean;
}

const nearInteger = (x: number, tolerance: number) => Math.abs(x - Math.round(x)) <= tolerance;
/**
 * Covers are float32 sums: allow their relative precision on top of an absolute slack. A dump
 * prints them: XGBoost's text dumps before 1.0 (and R's) at the stream's default 6 significant
 * digits, half a unit of the last one up to 5e-6 of the value (a public R dump's 1224.44 is
 * 2,754.99 rows of hessian 4/9; 22,600 rows print as 10044.4, 22,599.9 rows), so a dump's
 * covers get that much, up to a quarter row: beyond it (some 40,000 rows) the printed digits no
 * longer tell the whole number, and such a cover is not read as one.
 */
const FLOAT32_SUMS = 2e-6;
const PRINTED_DIGITS = 6e-6;
const relativePrecision = (forest: Forest) => (forest.boosting?.source === 'dump' ? PRINTED_DIGITS : FLOAT32_SUMS);
const rowTolerance = (rows: number, relative: number) =>
  Math.max(0.01, FLOAT32_SUMS * rows, relative > FLOAT32_SUMS ? Math.min(0.25, relative * rows) : 0);

/** The p and per-row hessian of a first-round tree: its class's, where the classes start apart. */
function groupHessian(hyp: Hypothesis, tree: Tree): { p: number; h: number } {
  return hyp.perGroup?.[tree.boosting?.group ?? 0] ?? { p: hyp.p, h: hyp.h };
}

function numberParam(forest: Forest, name: string): number | undefined {
  const v = forest.hyperParameters[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The stated learning rate over the trees grown per round (num_parallel_tree), the factor a leaf's weight is scaled by. */
function perParallelTree(forest: Forest, eta: number | undefined): number | undefined {
  const parallel = numberParam(forest, 'num_parallel_tree') ?? 1;
  return eta === undefined || parallel <= 1 ? eta : eta / parallel;
}

/** The first tree of each output group (boosting round 1), in group order. */
function firstTrees(forest: Forest, groups: number, interleaved: boolean): number[] | undefined {
  // A dump does not say which class a tree scores; XGBoost writes round r's K trees in class order.
  if (interleaved) return forest.trees.length >= groups ? Array.from({ length: groups }, (_, g) => g) : undefined;
  const first: number[] = [];
  forest.trees.forEach((tree, t) => {
    const g = tree.boosting?.group ?? 0;
    if (g < groups && first[g] === undefined) first[g] = t;
  });
  for (let g = 0; g < groups; g++) if (first[g] === undefined) return undefined;
  return first;
}

function leavesOf(tree: Tree): { node: number; box: FeatureInterval[] }[] {
  const out: { node: number; box: FeatureInterval[] }[] = [];
  forEachLeaf(tree, (leaf, path) => out.push({ node: leaf, box: pathBox(path) }));
  return out;
}

function rowsIntegral(tree: Tree, h: number, relative: number): boolean {
  const cover = tree.boosting?.cover;
  if (!cover) return false;
  for (let i = 0; i < cover.length; i++) {
    const rows = cover[i] / h;
    // A leaf of cover 0 behind a split at `x < inf` (probeWith) holds no row.
    if (cover[i] === 0 && tree.left[i] === -1) continue;
    if (!(rows >= 0.5 - rowTolerance(rows, relative)) || !nearInteger(rows, rowTolerance(rows, relative))) return false;
  }
  return true;
}

/**
 * A logistic model's starting p and hessian as XGBoost computes them, in float32: the margin
 * -logf(1 / base_score - 1) (ProbToMargin; logitraw states it), p = 1 / (1 + expf(-margin))
 * (common::Sigmoid) and h = p (1 - p) (SecondOrderGradient). expf may differ from the rounded
 * double by an ulp; the covers' tolerance absorbs that.
 */
function float32Logistic(b: Forest['boosting'] & object): { p: number; h: number } {
  const f = Math.fround;
  const base = f(b.baseScore[0]);
  const margin = b.objective === 'binary:logitraw' ? base : f(-Math.log(f(f(1 / base) - 1)));
  const p = f(1 / f(1 + f(Math.exp(-margin))));
  return { p, h: f(p * f(1 - p)) };
}

function hypotheses(forest: Forest): Hypothesis[] | string {
  const b = forest.boosting!;
  const base = b.baseScore[0];
  const objective = b.objective;
  if (isLogistic(objective)) {
    // logitraw stores the starting margin itself, the others its probability (baseMargin).
    if (objective !== 'binary:logitraw' && !(base > 0 && base < 1)) return `the base score ${base} is not a probability`;
    // XGBoost computes each row's p and hessian in float32; in double, an imbalanced model (p 0.988)
    // over 594,234 rows missed whole rows at 54 of 125 nodes (sweep 9). Double stays as a fallback.
    const single = float32Logistic(b);
    const p = 1 / (1 + Math.exp(-baseMargin(b)));
    return [
      { objective, assumed: false, kind: 'binary', p: single.p, h: single.h, groups: 1 },
      { objective, assumed: false, kind: 'binary', p, h: p * (1 - p), groups: 1 },
    ];
  }
  if (objective === 'multi:softprob' || objective === 'multi:softmax') {
    const k = b.outputGroups;
    if (k < 2) return 'a multi-class model needs at least two classes';
    if (b.baseScore.every((x) => x === base)) {
      const p = 1 / k;
      // XGBoost's softmax hessian in float32 (2.0f * p * (1.0f - p)), then in double.
      const p32 = Math.fround(p);
      const h32 = Math.fround(Math.fround(2 * p32) * Math.fround(1 - p32));
      return [
        { objective, assumed: false, kind: 'multi', p: p32, h: h32, groups: k },
        { objective, assumed: false, kind: 'multi', p, h: 2 * p * (1 - p), groups: k },
      ];
    }
    // A base score per class (XGBoost 2+): margins, the same for every row, so each class tree of
    // round 1 still has one p and one hessian 2p(1 - p) for all rows, softmax of the margins.
    if (b.baseScore.length !== k) return `the model states ${b.baseScore.length} base scores for ${k} classes`;
    const top = Math.max(...b.baseScore);
    const e = b.baseScore.map((m) => Math.exp(m - top));
    const sum = e.reduce((x, y) => x + y, 0);
    const perGroup = e.map((x) => ({ p: x / sum, h: 2 * (x / sum) * (1 - x / sum) }));
    if (perGroup.some((g) => !(g.h > 0))) return 'a class starts from a probability of 0 or 1, so its first tree has no hessian to count rows by';
    return [{ objective, assumed: false, kind: 'multi', p: perGroup[0].p, h: perGroup[0].h, groups: k, perGroup }];
  }
  if (objective === 'reg:squarederror' || objective === 'reg:linear') {
    return [{ objective, assumed: false, kind: 'regression', p: base, h: 1, groups: 1 }];
  }
  // Objectives whose first-tree hessian is one number for every row (checked on XGBoost 1.7.4):
  //  - count:poisson: g = mu - y, h = mu e^max_delta_step (the objective's own, 0.7 unless set),
  //    mu = base score (the margin is its log): rows and label sums, as squared error;
  //  - binary:hinge: the margin starts at the base score (0.5), below 1 for every row, so
  //    g = 1 - 2y and h = 1: rows and positives (G = rows - 2 positives);
  //  - reg:absoluteerror, reg:quantileerror: h = 1 in every tree, but the leaf values are refreshed
  //    from the residuals' quantiles, so G is not read from them: rows only.
  if (objective === 'count:poisson') {
    if (!(base > 0)) return `the base score ${base} is not a positive mean count`;
    const step = numberParam(forest, 'poisson_max_delta_step') ?? 0.7;
    return [{ objective, assumed: false, kind: 'regression', p: base, h: base * Math.exp(step), groups: 1 }];
  }
  if (objective === 'binary:hinge') {
    if (!(Math.abs(base) < 1)) return `the base score ${base} is not a margin below 1, where every row's hinge hessian is 1`;
    return [{ objective, assumed: false, kind: 'binary', p: 1, h: 1, groups: 1, positiveStep: 2 }];
  }
  if (objective === 'reg:absoluteerror' || objective === 'reg:quantileerror') {
    return [{ objective, assumed: false, kind: 'regression', p: base, h: 1, groups: 1, noGradient: true }];
  }
  if (objective !== 'unknown') return `the objective ${objective} is not one the probe models (binary:logistic, binary:hinge, multi:softprob/softmax, reg:squarederror, reg:absoluteerror, count:poisson)`;
  // A dump: try what the numbers allow, most common first; each must make every cover integral.
  const list: Hypothesis[] = [];
  const trees = forest.trees;
  if (trees.length >= 2 && trees.every((t) => rowsIntegral(t, 1, relativePrecision(forest)))) {
    list.push({ objective: 'reg:squarederror', assumed: true, kind: 'regression', p: 0.5, h: 1, groups: 1 });
  }
  list.push({ objective: 'binary:logistic', assumed: true, kind: 'binary', p: 0.5, h: 0.25, groups: 1 });
  for (let k = 3; k <= Math.min(20, trees.length); k++) {
    if (trees.length % k !== 0) continue;
    const p = 1 / k;
    list.push({ objective: 'multi:softprob', assumed: true, kind: 'multi', p, h: 2 * p * (1 - p), groups: k });
  }
  return list;
}

// ------------------------------------------------------------------------------------------------
// Learning rate, lambda, alpha, max_delta_step

interface Regularisation {
  eta?: ProbeParameter;
  lambda?: ProbeParameter;
  alpha?: ProbeParameter;
  maxDeltaStep?: ProbeParameter;
  gradientUnknown?: boolean;
}

/** Weight of each node: stored (models) or leaf value / learning rate (dumps; leaves only). */
function weightsOf(tree: Tree, eta: number | undefined): number[] | undefined {
  const stored = tree.boosting?.baseWeight;
  if (stored) return stored;
  if (eta === undefined || eta <= 0) return undefined;
  return tree.boosting!.leafValue.map((v) => v / eta);
}

function inferEta(trees: Tree[]): number | undefined {
  const ratios: number[] = [];
  for (const tree of trees) {
    const w = tree.boosting?.baseWeight;
    if (!w) return undefined;
    for (let i = 0; i < w.length; i++) {
      if (tree.left[i] === -1 && Math.abs(w[i]) > 1e-6) ratios.push(tree.boosting!.leafValue[i] / w[i]);
    }
  }
  if (ratios.length === 0) return undefined;
  ratios.sort((a, b) => a - b);
  return ratios[Math.floor(ratios.length / 2)];
}

/** The tree with leaf weights leaf value / eta (what the exact updater stores; hist stores eta x w). */
function withLeafWeights(tree: Tree, eta: number): Tree {
  const b = tree.boosting!;
  const weights = b.baseWeight!.map((w, i) => (tree.left[i] === -1 ? b.leafValue[i] / eta : w));
  return { ...tree, boosting: { ...b, baseWeight: weights } };
}

/**
 * The learning rate from additivity alone, for files whose leaf weights already include it
 * (xgboost's hist updater stores eta x w on leaves, -G/(H + lambda) on internal nodes). With
 * k = 1/eta and mu = k lambda, every internal node gives a linear equation
 *   w_n H_n - sum_int w_x H_x + lambda (w_n - sum_int w_x) - k sum_leaf v_x H_x - mu sum_leaf v_x = 0;
 * least squares over at least four nodes, accepted when mu = k lambda holds and every node fits.
 */
function inferEtaFromAdditivity(trees: Tree[]): { eta: number; lambdaAssumed?: true } | undefined {
  const rows: number[][] = [];
  for (const tree of trees) {
    const b = tree.boosting!;
    const w = b.baseWeight!;
    const H = b.cover!;
    for (let n = 0; n < w.length; n++) {
      if (tree.left[n] === -1) continue;
      let a = w[n] * H[n];
      let cl = w[n];
      let ck = 0;
      let cm = 0;
      for (const x of [tree.left[n], tree.right[n]]) {
        if (tree.left[x] === -1) {
          ck -= b.leafValue[x] * H[x];
          cm -= b.leafValue[x];
        } else {
          a -= w[x] * H[x];
          cl -= w[x];
        }
      }
      if (ck !== 0) rows.push([a, cl, ck, cm]);
    }
  }
  if (rows.length < 4) {
    const eta = etaWithDefaultLambda(rows);
    return eta === undefined ? undefined : { eta, lambdaAssumed: true };
  }
  // Normal equations M u = -r for u = (lambda, k, mu).
  const M = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
  const r = [0, 0, 0];
  for (const [a, ...c] of rows) {
    for (let i = 0; i < 3; i++) {
      r[i] += c[i] * a;
      for (let j = 0; j < 3; j++) M[i][j] += c[i] * c[j];
    }
  }
  const u = solve3(M, r.map((x) => -x));
  const fitted = u && fitsAll(rows, u);
  if (fitted) return { eta: 1 / u[1] };
  // Hessian sums of thousands of rows leave lambda's share of each node's H + lambda too small to
  // fit (a public XGBoost 3.1 JSON of 860,719 rows: the nodes agree on eta 0.05 with lambda 1 to
  // 2e-7, the three-way fit fails; sweep 18): eta with the default lambda, which stays assumed.
  const eta = etaWithDefaultLambda(rows);
  return eta === undefined ? undefined : { eta, lambdaAssumed: true };
}

/** Whether (lambda, k, mu) is a solution: mu = k lambda, lambda not negative, every node's equation met. */
function fitsAll(rows: readonly number[][], [lambda, k, mu]: number[]): boolean {
  if (!(k > 0) || lambda < -1e-3 || Math.abs(mu - k * lambda) > 1e-3 * Math.max(1, Math.abs(mu))) return false;
  return rows.every(([a, cl, ck, cm]) => Math.abs(a + cl * lambda + ck * k + cm * mu) <= 1e-4 * (1 + Math.abs(a)));
}

/**
 * Too few internal nodes to fit lambda and eta together (a tree of depth 2 has three): with
 * XGBoost's default lambda 1 (and alpha 0), each node alone gives k = 1/eta; accepted when at
 * least two nodes give the same k. The probe then reports lambda as assumed, so the positives it
 * reads rest on that assumption and certify no label (first-tree-claims.ts). A public XGBoost 3.1
 * JSON with four leaves read eta 1 and no positives, where eta 0.05 fits every leaf with whole
 * positives, as its pickled copy, which states eta, reads them (sweep 18).
 */
function etaWithDefaultLambda(rows: readonly number[][]): number | undefined {
  if (rows.length < 2) return undefined;
  const ks = rows.map(([a, cl, ck, cm]) => (ck + cm === 0 ? NaN : -(a + cl) / (ck + cm)));
  const k = ks[0];
  if (!(k > 0) || !ks.every((x) => Math.abs(x - k) <= 1e-4 * k)) return undefined;
  return 1 / k;
}

function solve3(M: number[][], b: number[]): number[] | undefined {
  const A = M.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < 3; c++) {
    let pivot = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(A[r][c]) > Math.abs(A[pivot][c])) pivot = r;
    if (Math.abs(A[pivot][c]) < 1e-12) return undefined;
    [A[c], A[pivot]] = [A[pivot], A[c]];
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let k = c; k < 4; k++) A[r][k] -= f * A[c][k];
    }
  }
  return [A[0][3] / A[0][0], A[1][3] / A[1][1], A[2][3] / A[2][2]];
}

/**
 * A |w| that several nodes share exactly and that bounds every |w|: a candidate max_delta_step
 * clip (see sharedMaximumIsPure for when it is not one).
 */
function inferClip(trees: Tree[]): number | undefined {
  let max = 0;
  let count = 0;
  for (const tree of trees) {
    for (const w of tree.boosting?.baseWeight ?? []) {
      const a = Math.abs(w);
      if (a > max) {
        max = a;
        count = 1;
      } else if (a === max && a > 0) count++;
    }
  }
  return count >= 2 ? max : undefined;
}

/**
 * Whether every node whose |w| is the shared maximum is pure (all its rows one class) when read
 * without a clip, under lambda and alpha. Such a node was not clipped: for a node of n rows the
 * unclipped |w| is largest when the node is pure (|G| is then largest, H is fixed), so a clip
 * that bit would have left its |w| below the pure value, not at it. The case this settles: with
 * lambda = 0 a pure node's w is (y - p) / h whatever its size (+-2 at p = 0.5), so pure leaves
 * share the largest |w| exactly, as a clip would make them. Regression has no such bound.
 */
function sharedMaximumIsPure(trees: Tree[], max: number, hyp: Hypothesis, spw: number, lambda: number, alpha: number): boolean {
  if (hyp.kind === 'regression') return false;
  for (const tree of trees) {
    const w = tree.boosting!.baseWeight!;
    const cover = tree.boosting!.cover!;
    const own = groupHessian(hyp, tree);
    for (let n = 0; n < w.length; n++) {
      if (Math.abs(w[n]) !== max) continue;
      const a = cover[n] / own.h;
      // The probe's own reading of G and the positives (probeWith), without a clip.
      const g = -w[n] * (cover[n] + lambda) + (w[n] < 0 ? alpha : -alpha);
      const positives = (a * own.p - g) / (spw * (hyp.positiveStep ?? 1));
      const rows = hyp.kind === 'binary' ? a - (spw - 1) * positives : a;
      const tolerance = Math.max(0.02, 2e-6 * a);
      if (!(Math.abs(positives) <= tolerance || Math.abs(positives - rows) <= tolerance)) return false;
    }
  }
  return true;
}

/**
 * lambda and alpha from additivity: for an internal node n with children l, r and no clipping,
 *   w_n (H_n + lambda) - w_l (H_l + lambda) - w_r (H_r + lambda) = alpha s_n,
 *   s_n = sgn(w_l) + sgn(w_r) - sgn(w_n)   (soft-thresholding subtracts alpha once per node).
 * Nodes with a zero or clipped weight give no equation. Least squares over the usable nodes of the
 * probed trees; alpha = 0 is tried first. An answer needs more equations than unknowns, so that it
 * is checked and not merely solved; with fewer, XGBoost's defaults (lambda 1, alpha 0) are kept
 * when the equations there are do not contradict them.
 */
type Additivity = { kind: 'fit'; lambda: number; alpha: number } | { kind: 'defaults-consistent' } | { kind: 'contradiction' };

function inferLambdaAlpha(trees: Tree[], clip: number | undefined): Additivity {
  const rows: { a: number; b: number; s: number; tolerance: number }[] = [];
  for (const tree of trees) {
    const w = tree.boosting!.baseWeight!;
    const H = tree.boosting!.cover!;
    for (let n = 0; n < w.length; n++) {
      const l = tree.left[n];
      const r = tree.right[n];
      if (l === -1) continue;
      if (clip !== undefined && (Math.abs(w[n]) >= clip || Math.abs(w[l]) >= clip || Math.abs(w[r]) >= clip)) continue;
      if (w[n] === 0 || w[l] === 0 || w[r] === 0) continue;
      const terms = Math.abs(w[n] * H[n]) + Math.abs(w[l] * H[l]) + Math.abs(w[r] * H[r]);
      rows.push({ a: w[n] * H[n] - w[l] * H[l] - w[r] * H[r], b: w[n] - w[l] - w[r], s: Math.sign(w[l]) + Math.sign(w[r]) - Math.sign(w[n]), tolerance: 1e-5 * (1 + terms) });
    }
  }
  const fits = (lambda: number, alpha: number) => rows.every(({ a, b, s, tolerance }) => Math.abs(a + b * lambda - alpha * s) <= tolerance * (1 + Math.abs(lambda) + alpha));
  let bb = 0;
  let ab = 0;
  let ss = 0;
  let bs = 0;
  let as = 0;
  for (const { a, b, s } of rows) {
    bb += b * b;
    ab += a * b;
    ss += s * s;
    bs += b * s;
    as += a * s;
  }
  if (rows.length >= 2 && bb > 0) {
    const lambda = -ab / bb;
    if (lambda > -1e-4 && fits(lambda, 0)) return { kind: 'fit', lambda: Math.max(0, lambda), alpha: 0 };
  }
  const det = bb * ss - bs * bs;
  if (rows.length >= 3 && Math.abs(det) > 1e-12) {
    // Normal equations of min sum (a + b lambda - s alpha)^2.
    const lambda = (-ab * ss + as * bs) / det;
    const alpha = (bb * as - bs * ab) / det;
    if (lambda > -1e-4 && alpha > -1e-4 && fits(lambda, alpha)) return { kind: 'fit', lambda: Math.max(0, lambda), alpha: Math.max(0, alpha) };
  }
  return fits(1, 0) ? { kind: 'defaults-consistent' } : { kind: 'contradiction' };
}

/**
 * The max_delta_step clip (stated, or inferred from a shared largest |w|) and lambda and alpha
 * from additivity (when the file does not state both). A shared largest |w| is read as a clip
 * unless lambda and alpha, stated or fitted without the clip, explain it by pure nodes
 * (sharedMaximumIsPure); assumed defaults do not clear a clip.
 */
function clipAndAdditivity(
  trees: Tree[],
  hyp: Hypothesis,
  stated: { lambda?: number; alpha?: number; maxDeltaStep?: number },
  spw: number,
): { clip?: number; additivity?: Additivity } {
  const needFit = stated.lambda === undefined || stated.alpha === undefined;
  const fitWith = (clip: number | undefined) => (needFit ? inferLambdaAlpha(trees, clip) : undefined);
  if (stated.maxDeltaStep !== undefined) {
    const clip = stated.maxDeltaStep > 0 ? stated.maxDeltaStep : undefined;
    return { clip, additivity: fitWith(clip) };
  }
  const candidate = inferClip(trees);
  if (candidate === undefined) return { additivity: fitWith(undefined) };
  const unclipped = fitWith(undefined);
  const fitted = unclipped?.kind === 'fit' ? unclipped : undefined;
  const lambda = stated.lambda ?? fitted?.lambda;
  const alpha = stated.alpha ?? fitted?.alpha;
  if (lambda !== undefined && alpha !== undefined && sharedMaximumIsPure(trees, candidate, hyp, spw, lambda, alpha)) return { additivity: unclipped };
  return { clip: candidate, additivity: fitWith(candidate) };
}

/** Rounds inferred values that are round numbers up to float32 noise (1.0000003 -> 1). */
function tidy(x: number): number {
  if (Math.abs(x) < 1e-4) return 0;
  const rounded = Number(x.toPrecision(5));
  return Math.abs(rounded - x) <= 1e-5 * Math.max(1, Math.abs(x)) ? rounded : x;
}

// ------------------------------------------------------------------------------------------------

interface Attempt {
  probe: FirstTreeProbe;
  score: number;
}

/** `classDraws`: the first-round class trees each grew on their own draw (FirstTreeProbe.classDraws). */
function probeWith(forest: Forest, hyp: Hypothesis, reg: Regularisation, firsts: number[], classDraws = false): Attempt | undefined {
  const spw = hyp.kind === 'binary' ? numberParam(forest, 'scale_pos_weight') ?? 1 : 1;
  const lambda = reg.lambda?.value ?? 1;
  const alpha = reg.alpha?.value ?? 0;
  const clip = reg.maxDeltaStep?.value;
  const trees: ProbedTree[] = [];
  let undetermined = 0;
  let determinedLeaves = 0;
  let fractional = 0;
  for (const t of firsts) {
    const tree = forest.trees[t];
    const cover = tree.boosting!.cover!;
    const own = groupHessian(hyp, tree);
    const w = reg.gradientUnknown ? undefined : weightsOf(tree, reg.eta?.value);
    const leaves: ProbedLeaf[] = [];
    let total = 0;
    for (const { node, box } of leavesOf(tree)) {
      const H = cover[node];
      const a = H / own.h; // rows, or n0 + s n1 with scale_pos_weight
      // A fractional scale_pos_weight makes a fractional: n0 and n1 must then come out whole from G.
      const weightedRows = hyp.kind === 'binary' && spw !== 1 && !Number.isInteger(spw);
      if (weightedRows && (!w || reg.gradientUnknown)) return undefined;
      const slack = rowTolerance(a, relativePrecision(forest));
      // A leaf holds at least one row, except behind a split XGBoost stored as `x < inf` (two
      // values near 3.4e38 whose float32 midpoint overflowed): its updater then routes every row
      // left by the stored condition, and the right child is a leaf of cover 0 (missing-split.ts).
      const empty = H === 0;
      if (!(a >= 0.5 - slack || empty) || (!weightedRows && !nearInteger(a, slack))) return undefined;
      const leaf: ProbedLeaf = { node, nativeId: nativeNodeId(tree, node), rows: Math.round(a), box };
      if (w) {
        const weight = w[node];
        // G from the weight: T(G) = -w (H + lambda), T soft-thresholds by alpha.
        const t0 = -weight * (H + lambda);
        const clipped = clip !== undefined && clip > 0 && Math.abs(weight) >= clip * (1 - 1e-6);
        if (hyp.kind === 'regression') {
          // G = sum(prediction - y) over the leaf, prediction = base score.
          const g = t0 + (weight < 0 ? alpha : weight > 0 ? -alpha : 0);
          const sum = a * hyp.p - g;
          if (!clipped && (weight !== 0 || alpha === 0)) {
            leaf.labelSum = sum;
            determinedLeaves++;
          } else undetermined++;
        } else {
          // positives from G = p * A - s * n1 (binary) or G = p * rows - n_c (multi)
          const fromG = (g: number) => (a * own.p - g) / (spw * (hyp.positiveStep ?? 1));
          // Bounds on n1 leave a fractional scale_pos_weight's rows unknown.
          if (weightedRows && (clipped || (weight === 0 && alpha > 0))) return undefined;
          if (clipped) {
            // The unclipped weight -G/(H + lambda) lies beyond the clip: w = +clip means G < t0,
            // so positives (decreasing in G) exceed fromG(t0); w = -clip the other way round.
            const bound = fromG(t0);
            if (weight > 0) leaf.positivesAtLeast = Math.max(0, Math.ceil(bound - 1e-6));
            else leaf.positivesAtMost = Math.min(Math.round(a), Math.floor(bound + 1e-6));
            undetermined++;
          } else if (weight === 0 && alpha > 0) {
            leaf.positivesAtLeast = Math.max(0, Math.ceil(fromG(alpha) - 1e-6));
            leaf.positivesAtMost = Math.min(leaf.rows, Math.floor(fromG(-alpha) + 1e-6));
            undetermined++;
          } else {
            const g = t0 + (weight < 0 ? alpha : weight > 0 ? -alpha : 0);
            const positives = fromG(g);
            const rowsOfLeaf = hyp.kind === 'binary' ? a - (spw - 1) * positives : a;
            const tolerance = Math.max(0.02, 2e-6 * a);
            if (nearInteger(positives, tolerance) && positives >= -tolerance && positives <= rowsOfLeaf + tolerance && (!weightedRows || nearInteger(rowsOfLeaf, tolerance))) {
              leaf.positives = Math.round(positives) + 0; // + 0: no -0
              if (spw !== 1) leaf.rows = Math.round(rowsOfLeaf);
              determinedLeaves++;
            } else if (weightedRows) {
              // Its rows are n0 + n1 only when both are known.
              return undefined;
            } else {
              fractional++;
              undetermined++;
            }
          }
        }
      } else {
        undetermined++;
      }
      total += leaf.rows;
      leaves.push(leaf);
    }
    trees.push({ tree: t, group: tree.boosting!.group, rows: total, leaves });
  }
  // A fractional leaf among whole ones: the labels are not all 0 or 1, so the whole leaves may be
  // whole by chance (a reg:logistic model on targets in [0, 1] had 4 rows "certified" with labels 1,
  // 1, 0, 0 that were 0.48, 0.69, 0.36 and 0.46): no leaf's positives are read.
  const fractionalLabels = fractional > 0 && hyp.kind === 'binary';
  if (fractionalLabels) {
    // With scale_pos_weight a leaf's rows need its positives.
    if (spw !== 1) return undefined;
    for (const pt of trees) {
      for (const leaf of pt.leaves) {
        delete leaf.positives;
        delete leaf.positivesAtLeast;
        delete leaf.positivesAtMost;
      }
    }
    undetermined += determinedLeaves;
    determinedLeaves = 0;
  }
  // With scale_pos_weight s a leaf's cover over h is n0 + s n1: its rows only with its positives
  // (a public model with s = 8 read "639 training rows" from 639 = n0 + 8 n1, its leaves' weights
  // fitting no lambda: sweep 15).
  if (spw !== 1 && undetermined > 0) return undefined;
  // Every class tree of round 1 saw the same rows, unless each drew its own.
  if (!classDraws && trees.some((pt) => pt.rows !== trees[0].rows)) return undefined;
  const rows = trees[0].rows;
  const probe: FirstTreeProbe = {
    status: undetermined === 0 ? 'exact' : determinedLeaves > 0 ? 'partial' : 'rows-only',
    objective: hyp.objective,
    ...(hyp.assumed ? { objectiveAssumed: true } : {}),
    hessianPerRow: hyp.h,
    ...(classDraws ? { classDraws: true as const } : { rows }),
    trees,
    parameters: { ...(reg.eta ? { eta: reg.eta } : {}), ...(reg.lambda ? { lambda: reg.lambda } : {}), ...(reg.alpha ? { alpha: reg.alpha } : {}), ...(reg.maxDeltaStep ? { maxDeltaStep: reg.maxDeltaStep } : {}) },
    undeterminedLeaves: undetermined,
    caveats: [],
    ...(fractionalLabels ? { fractionalLabels: true as const } : {}),
  };
  if (undetermined === 0 && !classDraws) {
    if (hyp.kind === 'binary') {
      const positives = trees[0].leaves.reduce((s, l) => s + l.positives!, 0);
      probe.classCounts = [rows - positives, positives];
    } else if (hyp.kind === 'multi') {
      probe.classCounts = trees.map((pt) => pt.leaves.reduce((s, l) => s + l.positives!, 0));
      // The class counts of the K trees must add up to N.
      if (probe.classCounts.reduce((s, c) => s + c, 0) !== rows) return undefined;
    } else {
      probe.labelSum = trees[0].leaves.reduce((s, l) => s + l.labelSum!, 0);
    }
  }
  return { probe, score: determinedLeaves - undetermined };
}

function notApplicable(forest: Forest, reason: string): FirstTreeProbe {
  return { status: 'not-applicable', reason, objective: forest.boosting?.objective ?? 'none', trees: [], parameters: {}, undeterminedLeaves: 0, caveats: [] };
}

/**
 * The share of positive rows an XGBoost 2+ base score implies. XGBoost estimates the intercept by
 * one Newton step from 0.5: base = sigmoid(4 (mu - 0.5)), mu the labels' mean weighted by
 * scale_pos_weight s, n1 s / (n0 + n1 s); so n1 / N = mu / (mu + s (1 - mu)). A public 3.3 model:
 * s 2, base 0.66075635, mu 2/3, half its 4,900 rows positive (mu = base, as read before, gave
 * 49.3%); another: s 174.09, base 0.5, 0.571%.
 */
export function positiveShareFromBaseScore(base: number, spw: number): number | undefined {
  if (!(base > 0 && base < 1) || !(spw > 0)) return undefined;
  const mu = Math.log(base / (1 - base)) / 4 + 0.5;
  return mu > 0 && mu < 1 ? mu / (mu + spw * (1 - mu)) : undefined;
}

/** Learning rates and lambdas tried on dumps, which state neither (XGBoost's defaults first). */
const DUMP_ETAS = [0.3, 0.1, 0.05, 0.01, 0.2, 0.5, 1, 0.03, 0.02, 0.15, 0.25, 0.4, 0.08, 0.001];
const DUMP_LAMBDAS = [1, 0, 2, 0.5, 5, 10, 0.1, 3];

/** Why a reconstruction reads nothing from a probe whose counts look sample-weighted (`weightedCounts`). */
export function weightedReason(probe: FirstTreeProbe): string {
  const which = probe.weightedCounts!.map((w) => (w.label < 0 ? `every leaf's rows a multiple of ${w.factor}` : `label ${w.label}'s count in every leaf a multiple of ${w.factor}`)).join(', ');
  return `the first tree's counts look sample-weighted (${which}; the file does not record weights), so they are weights, not rows`;
}

/**
 * One probe per model: the findings, the row cap, the reconstruction and its late targets each ask
 * for it, and on a 950-tree booster each probe walked the first trees' every leaf again. The
 * forest is not changed after it is read, and no caller changes a probe.
 */
const probes = new WeakMap<Forest, FirstTreeProbe>();

export function probeFirstTrees(forest: Forest): FirstTreeProbe {
  let probe = probes.get(forest);
  if (!probe) {
    probe = probeUncached(forest);
    probes.set(forest, probe);
  }
  return probe;
}

function probeUncached(forest: Forest): FirstTreeProbe {
  if (!forest.boosting) return notApplicable(forest, 'not a boosted model');
  const hyps = hypotheses(forest);
  if (typeof hyps === 'string') return notApplicable(forest, hyps);
  const stated = {
    // The factor between a leaf's weight and its value: XGBoost divides the learning rate over the
    // trees a round grows in parallel (random-forest mode).
    eta: perParallelTree(forest, numberParam(forest, 'eta')),
    lambda: numberParam(forest, 'lambda'),
    alpha: numberParam(forest, 'alpha'),
    // save_model itself never records max_delta_step (checked with 1.7.4); the scikit-learn
    // wrapper's metadata does, as null when it was not set: XGBoost's default 0, no clip, for
    // every objective probed here (only count:poisson defaults to 0.7).
    // count:poisson: XGBoost's learner sets the trees' max_delta_step to 0.7 unless given one.
    maxDeltaStep: numberParam(forest, 'max_delta_step') ?? (forest.hyperParameters.max_delta_step === null || forest.boosting.objective === 'count:poisson' ? (forest.boosting.objective === 'count:poisson' ? 0.7 : 0) : undefined),
  };
  const spw = numberParam(forest, 'scale_pos_weight') ?? 1;
  let lastReason = 'the file stores no hessian sums (cover) for the first tree';
  for (const hyp of hyps) {
    const firsts = firstTrees(forest, hyp.groups, hyp.assumed);
    if (!firsts) {
      lastReason = `the model has no first tree for each of its ${hyp.groups} output groups`;
      continue;
    }
    const probed = firsts.map((t) => forest.trees[t]);
    if (probed.some((t) => !t.boosting?.cover)) {
      lastReason = 'the file stores no hessian sums (cover) for the first tree';
      continue;
    }
    // With scale_pos_weight s a cover is h (n0 + s n1), a whole multiple of h only when s is whole:
    // the leaves' rows are then checked one by one once G gives n1 (probeWith).
    const weighted = hyp.kind === 'binary' && spw !== 1 && !Number.isInteger(spw);
    if (!weighted && !probed.every((t) => rowsIntegral(t, groupHessian(hyp, t).h, relativePrecision(forest)))) {
      lastReason = hyp.assumed
        ? 'the covers are not whole multiples of any objective the probe tried, so the dump does not give row counts without its model file'
        : 'the covers are not whole multiples of the per-row hessian: the rows carry sample weights, or the objective or base score differ from what the file states';
      continue;
    }
    // The K class trees of round 1 grew on the same rows unless each drew its own (subsample):
    // then each counts its own draw, and only a dump (whose classes are assumed) gives up.
    const roots = probed.map((t) => Math.round(t.boosting!.cover![0] / groupHessian(hyp, t).h));
    const statedSubsample = numberParam(forest, 'subsample');
    const classDraws = hyp.kind === 'multi' && (roots.some((r) => r !== roots[0]) || (statedSubsample !== undefined && statedSubsample < 1));
    if (classDraws && hyp.assumed) {
      lastReason = `the first trees of the ${hyp.groups} classes hold ${roots.join(', ')} rows: each grew on its own draw of the rows (subsample below 1, which the file does not record), so they do not count the same rows`;
      continue;
    }
    const candidates: Regularisation[] = [];
    const model = probed.every((t) => t.boosting?.baseWeight);
    // The probed trees with the leaf weights the probe uses (see withLeafWeights).
    const view: Forest = { ...forest, trees: [...forest.trees] };
    if (model) {
      let eta = stated.eta ?? inferEta(probed);
      let effective = eta !== undefined ? probed.map((t) => withLeafWeights(t, eta!)) : probed;
      let { clip, additivity } = clipAndAdditivity(effective, hyp, stated, hyp.kind === 'binary' ? spw : 1);
      let lambdaAssumed = false;
      if (stated.eta === undefined && eta !== undefined && Math.abs(eta - 1) < 1e-6 && additivity?.kind !== 'fit') {
        // Leaf weights equal leaf values: the hist updater stored eta x w; find eta from the internal nodes.
        const solved = inferEtaFromAdditivity(probed);
        if (solved !== undefined) {
          eta = solved.eta;
          lambdaAssumed = solved.lambdaAssumed === true;
          effective = probed.map((t) => withLeafWeights(t, solved.eta));
          ({ clip, additivity } = clipAndAdditivity(effective, hyp, stated, hyp.kind === 'binary' ? spw : 1));
        }
      }
      firsts.forEach((t, i) => (view.trees[t] = effective[i]));
      // An eta found under the default lambda: lambda and alpha fitted afterwards only repeat that assumption.
      const fitted = additivity?.kind === 'fit' && !lambdaAssumed ? additivity : undefined;
      const reg: Regularisation = {
        ...(eta !== undefined ? { eta: { value: tidy(eta), source: stated.eta !== undefined ? 'stated' : 'inferred' } } : {}),
        lambda: stated.lambda !== undefined ? { value: stated.lambda, source: 'stated' } : fitted ? { value: tidy(fitted.lambda), source: 'inferred' } : { value: 1, source: 'assumed' },
        alpha: stated.alpha !== undefined ? { value: stated.alpha, source: 'stated' } : fitted ? { value: tidy(fitted.alpha), source: 'inferred' } : { value: 0, source: 'assumed' },
        ...(clip !== undefined ? { maxDeltaStep: { value: clip, source: stated.maxDeltaStep !== undefined ? 'stated' : 'inferred' } } : {}),
        // The weights contradict lambda 1 and alpha 0 and no other pair fits: G is not known.
        // Not when eta was found under the default lambda: that fit is the one the gradients rest on.
        ...((additivity?.kind === 'contradiction' && !lambdaAssumed) || hyp.noGradient ? { gradientUnknown: true } : {}),
      };
      candidates.push(reg);
    } else {
      // Dumps: only leaf values (learning rate x weight). Try the stated values, else common ones.
      const etas = stated.eta !== undefined ? [stated.eta] : DUMP_ETAS;
      const lambdas = stated.lambda !== undefined ? [stated.lambda] : DUMP_LAMBDAS;
      for (const eta of etas) {
        for (const lambda of lambdas) {
          const isDefault = eta === 0.3 && lambda === 1;
          candidates.push({
            eta: { value: eta, source: stated.eta !== undefined ? 'stated' : isDefault ? 'assumed' : 'inferred' },
            lambda: { value: lambda, source: stated.lambda !== undefined ? 'stated' : isDefault ? 'assumed' : 'inferred' },
            alpha: { value: stated.alpha ?? 0, source: stated.alpha !== undefined ? 'stated' : 'assumed' },
          });
        }
      }
    }
    let best: Attempt | undefined;
    for (const reg of candidates) {
      const attempt = probeWith(view, hyp, reg, firsts, classDraws);
      if (attempt && (!best || attempt.score > best.score)) best = attempt;
      if (best?.probe.status === 'exact') break;
    }
    if (!best) {
      // Each way out says what did not fit (the default, "no cover", once read as the reason here).
      lastReason = hyp.kind === 'binary' && spw !== 1
        ? `scale_pos_weight=${+spw.toPrecision(6)} weighs each positive row's hessian, and no split of the first tree's covers into rows of each label fits its leaf values`
        : "no learning rate and regularisation the probe tried read the first tree's covers and leaf values as whole rows of each label";
      continue;
    }
    addCaveats(forest, best.probe, model);
    const byLabel = weightedLabels(best.probe, hyp.kind);
    if (byLabel.length > 0) {
      best.probe.weightedCounts = byLabel;
      for (const w of byLabel) {
        const what = w.label < 0 ? 'rows' : `rows of ${hyp.kind === 'binary' ? 'label' : 'class'} ${forest.classes[w.label] ?? w.label}`;
        best.probe.caveats.push(
          `every leaf's count of ${what} is a multiple of ${w.factor} (${w.leaves} leaves): those rows probably carry sample weight ${w.factor}, which the file does not record, so the counts are weights, not rows; N and the rows are not claimed.`,
        );
      }
    }
    return best.probe;
  }
  return notApplicable(forest, lastReason);
}

/**
 * Integer sample weights, which XGBoost's files do not record: a row of weight k adds k times its
 * hessian (and gradient), so the probe reads it as k rows. Weights set per label, the common way to
 * weigh a class (`sample_weight` 3 for label 0), show as every leaf's count of that label being a
 * multiple of k: unweighted rows give that by chance with probability about k^-m over m leaves, so
 * it is reported when at most 10^-3 (a model trained on 569 breast-cancer rows with its negatives
 * weighted 3 read as 993 rows, all 13 leaves holding negatives a multiple of 3; a false alarm only
 * withholds N and the rows). Weight 3 needs 7 leaves holding the label, weight 2 needs 10. Per label: binary
 * negatives and positives, each multi-class tree's rows of its class; regression: all rows (-1).
 * Per-row weights that are not per label stay invisible (the docs say so).
 */
function weightedLabels(probe: FirstTreeProbe, kind: Hypothesis['kind']): { label: number; factor: number; leaves: number }[] {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const pattern = (label: number, counts: (number | undefined)[]) => {
    if (counts.some((c) => c === undefined)) return [];
    const nonzero = (counts as number[]).filter((c) => c > 0);
    const factor = nonzero.reduce((g, c) => gcd(g, c), 0);
    return factor >= 2 && nonzero.length >= 3 && nonzero.length * Math.log10(factor) >= 3 ? [{ label, factor, leaves: nonzero.length }] : [];
  };
  if (kind === 'regression') return probe.trees.length > 0 ? pattern(-1, probe.trees[0].leaves.map((l) => l.rows)) : [];
  if (kind === 'binary') {
    const leaves = probe.trees[0]?.leaves ?? [];
    return [...pattern(0, leaves.map((l) => (l.positives === undefined ? undefined : l.rows - l.positives))), ...pattern(1, leaves.map((l) => l.positives))];
  }
  return probe.trees.flatMap((t) => pattern(t.group, t.leaves.map((l) => l.positives)));
}

/**
 * A binary logistic model whose trees grew on their own draws: tree 1's root cover, the hessians
 * of the rows it grew on, against what tree 0's probed rows would give after tree 0 (each leaf's
 * rows at its margin, positives weighed by scale_pos_weight). Equal up to float32 sums when every
 * tree saw the same rows (checked on the fixtures without subsample); undefined then, or when the
 * test cannot be made (positives unknown with scale_pos_weight, trees grown side by side).
 */
function logisticRootsDiffer(forest: Forest, probe: FirstTreeProbe): FirstTreeProbe['ownDraw'] {
  const b = forest.boosting;
  if (!b || !isLogistic(b.objective) || b.outputGroups !== 1 || forest.trees.length < 2 || forest.training.weighted) return undefined;
  const parallel = numberParam(forest, 'num_parallel_tree') ?? 1;
  if (parallel > 1) return sideBySideRootsDiffer(forest, Math.min(parallel, forest.trees.length));
  const first = probe.trees[0];
  const actual = forest.trees[1].boosting?.cover?.[0];
  if (!first || first.tree !== 0 || actual === undefined) return undefined;
  const spw = numberParam(forest, 'scale_pos_weight') ?? 1;
  const base = baseMargin(b);
  let predicted = 0;
  for (const leaf of first.leaves) {
    if (spw !== 1 && leaf.positives === undefined) return undefined;
    const p = 1 / (1 + Math.exp(-(base + forest.trees[0].boosting!.leafValue[leaf.node])));
    const positives = leaf.positives ?? 0;
    predicted += p * (1 - p) * (leaf.rows - positives + spw * positives);
  }
  return Math.abs(predicted - actual) > Math.max(1e-3, 1e-4 * actual) ? { predicted, actual } : undefined;
}

/**
 * Random-forest mode (XGBRFClassifier, num_parallel_tree): the trees of the first round grew side
 * by side from the same margins, so on the same rows their root covers are equal; one that differs
 * grew on another draw (a Booster's JSON states no subsample: 10 trees on 500 Pima rows at 0.8 held
 * 387 to 408 rows, and were read as 402 rows "without subsample"). The first that differs, or none.
 */
function sideBySideRootsDiffer(forest: Forest, roundTrees: number): FirstTreeProbe['ownDraw'] {
  const root = (t: number) => forest.trees[t].boosting?.cover?.[0];
  const first = root(0);
  if (first === undefined) return undefined;
  for (let t = 1; t < roundTrees; t++) {
    const other = root(t);
    if (other !== undefined && Math.abs(other - first) > Math.max(1e-3, 1e-4 * first)) return { predicted: first, actual: other, sideBySide: t };
  }
  return undefined;
}

function addCaveats(forest: Forest, probe: FirstTreeProbe, model: boolean): void {
  const caveats = probe.caveats;
  const subsample = numberParam(forest, 'subsample');
  if (probe.classDraws) {
    const draws = probe.trees.map((t) => t.rows);
    const mean = draws.reduce((s, r) => s + r, 0) / Math.max(1, draws.length);
    caveats.push(
      subsample !== undefined && subsample < 1
        ? `with subsample=${formatNumber(subsample)}, each class's first tree grew on its own draw of the rows, about ${Math.round(subsample * 100)}% of the training set (N is about ${Math.round(mean / subsample).toLocaleString('en-US')}); each tree's counts are exact for its own draw.`
        : `the first trees of the ${draws.length} classes hold ${draws.join(', ')} rows, so each grew on its own draw of the rows: the model was trained with subsample below 1 (the file does not record it), and each tree's counts are exact for its own draw of a training set of unknown size.`,
    );
  } else if (subsample !== undefined && subsample < 1) {
    // Squared error: every tree's root counts its draw, so N is estimated from their mean, as the
    // reconstruction does (boosted-subsample.ts); else from tree 0's draw alone.
    const roots = isSquaredError(forest) ? forest.trees.map((t) => Math.round(t.boosting?.cover?.[0] ?? 0)).filter((r) => r > 0) : [];
    const drawn = roots.length > 0 ? Math.max(Math.max(...roots), Math.round(roots.reduce((a, b) => a + b, 0) / roots.length / subsample)) : Math.round(probe.rows! / subsample);
    caveats.push(
      `with subsample=${formatNumber(subsample)}, the counts are those of the rows drawn for the first tree, about ${Math.round(subsample * 100)}% of the training set ` +
        `(N is about ${drawn.toLocaleString('en-US')}); they are still exact for those rows.`,
    );
  } else if (subsample === undefined && forest.hyperParameters.subsample === undefined) {
    const drew = logisticRootsDiffer(forest, probe);
    if (squaredErrorRootsDiffer(forest)) {
      caveats.push(`the trees were grown on different numbers of rows (tree 0 on ${probe.rows}), so the model was trained with subsample below 1 (the file does not record it): these are the rows drawn for the first tree, not the whole training set.`);
    } else if (drew) {
      probe.ownDraw = drew;
      caveats.push(
        `${ownDrawEvidence(drew, probe.rows!)}, so tree ${drew.sideBySide ?? 1} grew on other rows: ` +
          `the model was trained with subsample below 1 (the file does not record it), and these are the rows drawn for the first tree, of a training set of at least ${probe.rows!.toLocaleString('en-US')} rows (its size is unknown: a subsample near 1 may have drawn every row).`,
      );
    } else {
      caveats.push('if subsample was below 1 (the file does not record it), these are the rows drawn for the first tree, not the whole training set.');
    }
  }
  const missing = mixedMissingFeatures(forest);
  if (missing.length > 0) {
    caveats.push(`${mixedMissingWords(forest, missing)}: a leaf's stated region describes its rows that have a value; rows missing one follow each split's default direction, so a leaf may also hold rows outside that region. The counts are not affected.`);
  } else {
    // One way per feature, but not the same way for all: an updater sets one direction on every
    // feature it saw complete, so the others had missing values; a leaf's end interval holds them.
    const routes = columnRoutes(forest);
    const reading = missingValueReading(forest);
    if (routes.includes('left') && routes.includes('right') && reading.ok && reading.note) {
      caveats.push(`the training data had missing values (the features' splits do not all send a missing value the same way). ${capitalised(reading.note)}; a leaf's region holds its rows missing a value there. The counts are not affected.`);
    }
  }
  // scikit-learn's early stopping: the trees' N is the training split, not every row given to fit.
  const heldOut = heldOutSentence(forest).trim();
  if (heldOut) caveats.push(heldOut);
  if (probe.objectiveAssumed) {
    caveats.push(`the dump states neither objective nor base score; ${probe.objective} with base score ${forest.boosting!.baseScore[0]} is assumed, and every leaf came out whole, which supports it.`);
  }
  const p = probe.parameters;
  if (!model && probe.status !== 'rows-only' && (p.eta?.source === 'inferred' || p.lambda?.source === 'inferred')) {
    caveats.push(`the dump does not state the learning rate or lambda; eta=${p.eta?.value} and lambda=${p.lambda?.value} make every leaf's positives whole and are used.`);
  }
  if (p.alpha && p.alpha.value > 0) caveats.push(`L1 regularisation alpha=${formatNumber(p.alpha.value)} (${p.alpha.source}) shifts every gradient sum by alpha; it is taken into account, leaves with weight 0 give only bounds.`);
  const poissonDefault = probe.objective === 'count:poisson' && numberParam(forest, 'max_delta_step') === undefined;
  const labelWord = probe.objective.startsWith('reg:') || probe.objective.startsWith('count:') ? 'label sums' : 'positives';
  if (p.maxDeltaStep && p.maxDeltaStep.value > 0) caveats.push(`max_delta_step=${formatNumber(p.maxDeltaStep.value)} (${poissonDefault ? "count:poisson's default" : p.maxDeltaStep.source}) clips leaf weights: clipped leaves give only a bound on their ${labelWord}; row counts stay exact.`);
  if (probe.status === 'rows-only' && (probe.objective === 'reg:absoluteerror' || probe.objective === 'reg:quantileerror')) {
    caveats.push(`${probe.objective} sets each leaf's value from its residuals' quantile, not from the gradient sum, so the leaves give no label sums; every row's hessian is 1 in every tree, so the row counts are exact, in every tree.`);
  } else if (probe.fractionalLabels) {
    caveats.push(`some leaves' label sums are not whole numbers, so the labels are not all 0 or 1 (${probe.objective} takes any label in [0, 1]): no leaf's positives are read as rows of a class; the row counts are exact, they do not depend on the labels.`);
  } else if (probe.status === 'rows-only' && p.maxDeltaStep && p.maxDeltaStep.value > 0) {
    caveats.push(`every leaf's weight is at the clip, so no leaf gives its ${labelWord}.`);
  } else if (probe.status === 'rows-only') {
    caveats.push(`the ${labelWord} of the leaves could not be determined: the weights do not fit lambda and alpha that the file states or that could be inferred (L1 alpha, max_delta_step or another setting changed them); the row counts are exact, they do not depend on those settings.`);
  } else if (model && (p.lambda?.source === 'assumed' || p.alpha?.source === 'assumed')) {
    // Only the parameters assumed are named so (a stated lambda of 2 read "XGBoost's default").
    const defaults = (['lambda', 'alpha'] as const).filter((k) => p[k]?.source === 'assumed').map((k) => `${k}=${p[k]?.value}`);
    const one = defaults.length === 1;
    caveats.push(`${defaults.join(' and ')} ${one ? "is XGBoost's default" : "are XGBoost's defaults"}, assumed: the file does not state ${one ? 'it' : 'them'}, the trees do not determine ${one ? 'it' : 'them'} (too few usable nodes, or hessian sums too large beside lambda), and nothing contradicts ${one ? 'it' : 'them'}; the ${labelWord} rest on ${one ? 'it' : 'them'}.`);
  }
  if (forest.boosting!.libraryVersion && forest.boosting!.libraryVersion[0] >= 2 && forest.boosting!.baseScoreStated && probe.objective.startsWith('binary')) {
    const base = forest.boosting!.baseScore[0];
    const spw = numberParam(forest, 'scale_pos_weight') ?? 1;
    // Said only when the first tree's exact counts, where known, agree.
    let share = positiveShareFromBaseScore(base, spw);
    const counted = probe.classCounts && probe.rows ? probe.classCounts[1] / probe.rows : undefined;
    if (share !== undefined && counted !== undefined && Math.abs(share - counted) > 0.005) share = undefined;
    caveats.push(
      spw === 1
        ? `XGBoost ${forest.boosting!.libraryVersion.join('.')} estimates base_score from the labels (one Newton step from a margin of 0), so base_score (${base}) itself already reveals the label balance` +
          (share !== undefined ? ` (${+(100 * share).toPrecision(3)}% positive).` : '.')
        : `XGBoost ${forest.boosting!.libraryVersion.join('.')} estimates base_score from the labels weighted by scale_pos_weight, so base_score (${base}) and scale_pos_weight (${+spw.toPrecision(6)}) together reveal the label balance` +
            (share !== undefined ? ` (${+(100 * share).toPrecision(3)}% positive).` : '.'),
    );
  }
}

/** What shows a draw the file does not record, in words (`rows`: tree 0's). */
export function ownDrawEvidence(drew: NonNullable<FirstTreeProbe['ownDraw']>, rows: number): string {
  if (drew.sideBySide !== undefined) {
    return `tree ${drew.sideBySide}'s root cover (${drew.actual.toFixed(3)}) differs from tree 0's (${drew.predicted.toFixed(3)}), though the trees of the first round grew side by side from the same predictions (num_parallel_tree)`;
  }
  return `tree 1's cover (${drew.actual.toFixed(3)}) is not the hessian sum of tree 0's ${rows.toLocaleString('en-US')} rows after tree 0 (${drew.predicted.toFixed(3)})`;
}
