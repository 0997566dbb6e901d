/**
 * Which input columns a fitted feature selector keeps, computed from its fitted state as
 * scikit-learn's `_get_support_mask` computes it (1.2; nothing is run), so that a forest after
 * `SelectKBest` or `SelectFromModel` is named by the columns it really sees: before, it kept
 * `x0..x7` for 8 of 30 columns, and a finding's `x0 <= 701.75` read as column 0 when it was an area.
 *
 * - RFE, RFECV and SequentialFeatureSelector store the mask (`support_`);
 * - VarianceThreshold keeps `variances_ > threshold`;
 * - SelectKBest and SelectPercentile rank `scores_` (NaN lowest) with numpy's stable sort and
 *   percentile, ties as scikit-learn breaks them;
 * - SelectFromModel recomputes its estimator's importances: the `coef_` of a linear model, or a
 *   tree model's impurity decreases (forests, extra trees, single trees, gradient boosting) summed
 *   in scikit-learn's order, so the comparison with the threshold (`mean`, `median`, `1.25*mean`, a
 *   number, 1e-5 for L1 models) is the one scikit-learn made.
 *
 * Any other selector, importance getter or estimator gives undefined: the names stay numbered. The
 * caller checks that the columns kept are as many as the model was fitted on, so a borderline
 * score that rounded the other way here drops the names instead of misplacing them.
 */
import { asNdArray, asString, classOf, numeric, seqItems, stateDict, type NdArray, type PyDict, type PyValue } from '../pickle';

export const SELECTORS = new Set(['RFE', 'RFECV', 'SequentialFeatureSelector', 'VarianceThreshold', 'SelectKBest', 'SelectPercentile', 'SelectFromModel']);

const TREE_MODELS = new Set([
  'DecisionTreeClassifier',
  'DecisionTreeRegressor',
  'ExtraTreeClassifier',
  'ExtraTreeRegressor',
  'RandomForestClassifier',
  'RandomForestRegressor',
  'ExtraTreesClassifier',
  'ExtraTreesRegressor',
]);
const BOOSTED_MODELS = new Set(['GradientBoostingClassifier', 'GradientBoostingRegressor']);

/** The kept columns of a selector with `n` inputs, or undefined when they cannot be told from its state. */
export function selectorMask(name: string, state: PyDict, n: number): boolean[] | undefined {
  try {
    const mask = computeMask(name, state, n);
    return mask && mask.length === n ? mask : undefined;
  } catch {
    // A damaged or unexpected array: the names stay numbered, the model is read as usual.
    return undefined;
  }
}

function computeMask(name: string, state: PyDict, n: number): boolean[] | undefined {
  switch (name) {
    case 'RFE':
    case 'RFECV':
    case 'SequentialFeatureSelector':
      return Array.from(numbers(state.get('support_')) ?? [], (v) => v !== 0);
    case 'VarianceThreshold': {
      const variances = numbers(state.get('variances_'));
      const threshold = numeric(state.get('threshold'));
      return variances && threshold !== undefined ? Array.from(variances, (v) => v > threshold) : undefined;
    }
    case 'SelectKBest':
      return kBest(state, n);
    case 'SelectPercentile':
      return percentileMask(state, n);
    case 'SelectFromModel':
      return fromModel(state, n);
  }
  return undefined;
}

function numbers(v: PyValue | undefined): Float64Array | undefined {
  if (v === undefined || v === null) return undefined;
  return asNdArray(v).numbers();
}

/** `_clean_nans`: a NaN score is the lowest float. */
function cleanScores(state: PyDict): Float64Array | undefined {
  const scores = numbers(state.get('scores_'));
  return scores?.map((s) => (Number.isNaN(s) ? -Number.MAX_VALUE : s));
}

/** Indices ordered by `key`, ties kept in index order (numpy's argsort with kind="mergesort"). */
function stableArgsort(values: ArrayLike<number>): number[] {
  return Array.from({ length: values.length }, (_, i) => i).sort((a, b) => values[a] - values[b] || a - b);
}

function kBest(state: PyDict, n: number): boolean[] | undefined {
  const k = state.get('k');
  if (asString(k) === 'all') return new Array<boolean>(n).fill(true);
  const count = numeric(k);
  const scores = cleanScores(state);
  if (count === undefined || !scores || !Number.isInteger(count) || count < 0) return undefined;
  const mask = new Array<boolean>(scores.length).fill(false);
  if (count === 0) return mask;
  for (const i of stableArgsort(scores).slice(-count)) mask[i] = true;
  return mask;
}

function percentileMask(state: PyDict, n: number): boolean[] | undefined {
  const percentile = numeric(state.get('percentile'));
  if (percentile === undefined) return undefined;
  if (percentile === 100) return new Array<boolean>(n).fill(true);
  if (percentile === 0) return new Array<boolean>(n).fill(false);
  const scores = cleanScores(state);
  if (!scores || scores.length === 0) return undefined;
  const threshold = numpyPercentile(scores, 100 - percentile);
  const mask = Array.from(scores, (s) => s > threshold);
  const ties = [...scores.keys()].filter((i) => scores[i] === threshold);
  const maxFeatures = Math.trunc((scores.length * percentile) / 100);
  const kept = mask.filter((m) => m).length;
  for (const i of ties.slice(0, Math.max(0, maxFeatures - kept))) mask[i] = true;
  return mask;
}

/** numpy's percentile, method 'linear' (numpy 1.22+: the virtual index and its stable lerp). */
function numpyPercentile(values: Float64Array, q: number): number {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const quantile = q / 100;
  const virtual = n * quantile + (1 + quantile * (1 - 1 - 1)) - 1;
  const previous = Math.min(Math.max(Math.floor(virtual), 0), n - 1);
  const next = Math.min(previous + 1, n - 1);
  const gamma = virtual - Math.floor(virtual);
  const a = sorted[previous];
  const b = sorted[next];
  const diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

function fromModel(state: PyDict, n: number): boolean[] | undefined {
  const getter = state.get('importance_getter');
  if (getter !== undefined && asString(getter) !== 'auto') return undefined;
  const estimator = state.get('estimator_') ?? state.get('estimator');
  const scores = estimator === undefined ? undefined : importances(estimator, n, numeric(state.get('norm_order')) ?? 1);
  if (!scores) return undefined;
  const threshold = thresholdOf(state.get('threshold'), estimator!, scores);
  if (threshold === undefined) return undefined;
  const maxFeatures = state.has('max_features_') ? state.get('max_features_') : state.get('max_features');
  let mask: boolean[];
  if (maxFeatures === null || maxFeatures === undefined) {
    mask = new Array<boolean>(n).fill(true);
  } else {
    const count = numeric(maxFeatures);
    if (count === undefined || !Number.isInteger(count) || count < 0) return undefined;
    mask = new Array<boolean>(n).fill(false);
    for (const i of stableArgsort(Array.from(scores, (s) => -s)).slice(0, count)) mask[i] = true;
  }
  scores.forEach((s, i) => {
    if (s < threshold) mask[i] = false;
  });
  return mask;
}

/** `_calculate_threshold`: None is 1e-5 for L1-penalised models and "mean" otherwise. */
function thresholdOf(value: PyValue | undefined, estimator: PyValue, scores: Float64Array): number | undefined {
  if (value === null || value === undefined) {
    const cls = classOf(estimator)?.name ?? '';
    const est = stateDict(estimator);
    const l1 = asString(est?.get('penalty')) === 'l1' || cls.includes('Lasso') || (cls === 'ElasticNetCV' && Math.abs((numeric(est?.get('l1_ratio_')) ?? 0) - 1) <= 1e-8);
    return l1 ? 1e-5 : pairwiseSum(scores) / scores.length;
  }
  const text = asString(value);
  if (text === undefined) return numeric(value);
  const [scaleText, reference] = text.includes('*') ? text.split('*').map((s) => s.trim()) : ['1', text.trim()];
  const scale = Number(scaleText);
  if (!Number.isFinite(scale)) return undefined;
  const base = reference === 'mean' ? pairwiseSum(scores) / scores.length : reference === 'median' ? median(scores) : undefined;
  if (base === undefined) return undefined;
  return text.includes('*') ? scale * base : base;
}

function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * numpy's sum of a float64 vector (pairwise: blocks of up to 128 summed in 8 interleaved
 * accumulators), so a mean compares with a score exactly as scikit-learn's did.
 */
export function pairwiseSum(a: ArrayLike<number>, start = 0, n = a.length): number {
  if (n < 8) {
    let s = -0;
    for (let i = 0; i < n; i++) s += a[start + i];
    return s;
  }
  if (n <= 128) {
    const r = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => a[start + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
    let s = r[0] + r[1] + (r[2] + r[3]) + (r[4] + r[5] + (r[6] + r[7]));
    for (; i < n; i++) s += a[start + i];
    return s;
  }
  let half = n >> 1;
  half -= half % 8;
  return pairwiseSum(a, start, half) + pairwiseSum(a, start + half, n - half);
}

/** `_get_feature_importances(estimator, "auto", "norm", norm_order)`: `coef_` if it has one, else `feature_importances_`. */
function importances(estimator: PyValue, n: number, normOrder: number): Float64Array | undefined {
  const cls = classOf(estimator)?.name ?? '';
  const state = stateDict(estimator);
  if (!state) return undefined;
  const coef = state.get('coef_');
  if (coef !== undefined && coef !== null) return coefficientNorms(asNdArray(coef), n, normOrder);
  if (TREE_MODELS.has(cls)) return forestImportances(estimator, state, n);
  if (BOOSTED_MODELS.has(cls)) return boostedImportances(state, n);
  return undefined;
}

/** |coef| for one row; else the norm of each column over the rows (`np.linalg.norm(coef, axis=0, ord)`). */
function coefficientNorms(coef: NdArray, n: number, order: number): Float64Array | undefined {
  const values = coef.numbers();
  if (coef.shape.length === 1) return values.length === n ? values.map(Math.abs) : undefined;
  if (coef.shape.length !== 2 || coef.shape[1] !== n || coef.fortran) return undefined;
  if (order !== 1 && order !== 2) return undefined;
  const out = new Float64Array(n);
  for (let r = 0; r < coef.shape[0]; r++) for (let c = 0; c < n; c++) out[c] += order === 1 ? Math.abs(values[r * n + c]) : values[r * n + c] * values[r * n + c];
  return order === 1 ? out : out.map(Math.sqrt);
}

/** The decreases of weighted impurity per feature, in node order, over the root's weight (`compute_feature_importances`). */
function treeImportances(tree: PyValue, n: number, normalize: boolean): { importances: Float64Array; nodes: number } | undefined {
  const treeState = stateDict(stateDict(tree)?.get('tree_'));
  const nodes = treeState ? asNdArray(treeState.get('nodes')) : undefined;
  if (!nodes || !['left_child', 'right_child', 'feature', 'impurity', 'weighted_n_node_samples'].every((f) => nodes.hasField(f))) return undefined;
  const left = nodes.field('left_child');
  const right = nodes.field('right_child');
  const feature = nodes.field('feature');
  const impurity = nodes.field('impurity');
  const weight = nodes.field('weighted_n_node_samples');
  const out = new Float64Array(n);
  for (let i = 0; i < left.length; i++) {
    const l = left[i];
    const r = right[i];
    if (l === -1) continue;
    const f = feature[i];
    if (!(f >= 0 && f < n) || !(l > i && l < left.length && r > i && r < left.length)) return undefined;
    out[f] += weight[i] * impurity[i] - weight[l] * impurity[l] - weight[r] * impurity[r];
  }
  for (let f = 0; f < n; f++) out[f] /= weight[0];
  if (normalize) {
    const total = pairwiseSum(out);
    if (total > 0) for (let f = 0; f < n; f++) out[f] /= total;
  }
  return { importances: out, nodes: left.length };
}

/** The mean of the trees' importances (rows added in order, as numpy reduces axis 0), normalised. */
function meanImportances(trees: PyValue[], n: number, normalizeEach: boolean): Float64Array | undefined {
  const sum = new Float64Array(n);
  let used = 0;
  for (const tree of trees) {
    const one = treeImportances(tree, n, normalizeEach);
    if (!one) return undefined;
    if (one.nodes <= 1) continue;
    for (let f = 0; f < n; f++) sum[f] += one.importances[f];
    used++;
  }
  if (used === 0) return new Float64Array(n);
  const mean = sum.map((s) => s / used);
  const total = pairwiseSum(mean);
  return mean.map((m) => m / total);
}

function forestImportances(estimator: PyValue, state: PyDict, n: number): Float64Array | undefined {
  // A single tree: its compute_feature_importances(), normalised once.
  if (state.has('tree_')) return treeImportances(estimator, n, true)?.importances;
  const trees = seqItems(state.get('estimators_'));
  return trees ? meanImportances(trees, n, true) : undefined;
}

function boostedImportances(state: PyDict, n: number): Float64Array | undefined {
  const stages = state.get('estimators_');
  const trees = stages === undefined ? undefined : asNdArray(stages).objects;
  return trees ? meanImportances(trees as PyValue[], n, false) : undefined;
}
