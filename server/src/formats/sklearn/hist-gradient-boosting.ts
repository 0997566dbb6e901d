/**
 * HistGradientBoostingRegressor and HistGradientBoostingClassifier (scikit-learn 1.0 onwards) into
 * the forest IR. `_predictors` holds, per iteration, one TreePredictor per output (K classes, or
 * 1), each a structured `nodes` array (PREDICTOR_RECORD_DTYPE: value, count, feature_idx,
 * num_threshold, missing_go_to_left, left, right, gain, depth, is_leaf, bin_threshold,
 * is_categorical, bitset_idx). `x <= num_threshold` goes left; leaves have left = right = 0.
 *
 * The trees fit Newton steps of the loss: an internal node stores -G / (H + l2_regularization),
 * a leaf that times the learning rate (the grower's shrinkage), the root 0 (never set). `count` is
 * the rows that reached the node: every training row (all of them, or the training part when early
 * stopping holds out a validation split). How the values read:
 *  - regressor, loss squared_error (hessian 1): XGBoost's reg:squarederror with lambda =
 *    l2_regularization: cover = count, base weight = value (leaves: value / learning rate; the root
 *    rebuilt from its children's G), leaf value = value, base score = `_baseline_prediction` (the
 *    mean). Gradients are float32 in scikit-learn, so label sums hold up to float32 rounding;
 *  - binary classifier, log-loss: in iteration 0 every row has p0 = expit(baseline), gradient
 *    p0 - y and hessian p0 (1 - p0) (float32), so a node's value gives its positives: iteration 0
 *    is read as a classification tree with those counts (later iterations are left out, noted);
 *  - multi-class classifier, log-loss: every tree read as a count tree, and iteration 0's tree for
 *    class k (every row at the softmax of the baseline, float32 gradients and hessians) gives class
 *    k's rows at every node: `countedClasses` (classRowsOfIterationZero);
 *  - anything else (other losses): count trees (rows only), noted.
 * Categorical splits (bitsets of categories sent left) are read as 0/1 features of their own
 * (forest/set-splits.ts). scikit-learn 1.4+ may encode category columns itself (`_preprocessor`):
 * the trees then index its output, named from it (ownPreprocessor).
 */
import type { ForestInput, Tree } from '../../forest/schema';
import { NumpyError, PyGlobal, PyValue, asNdArray, asNumpyScalar, asString, classOf, isArray, numeric, seqItems, stateDict } from '../pickle';
import { MISSING_ONLY_THRESHOLD } from '../../forest/missing-split';
import { DecodeError, arrayOrThrow, corrupt, found, isSklearnClass, labelOf, type Decoded } from './decode-helpers';
import { heldOutSplit } from './validation-split';
import { ordinalCategoryName, setSplitFeatures, type SetSplit } from '../../forest/set-splits';
import type { PipelineInput } from '../../forest/pipeline-input';
import { pipelineFeatures } from './pipeline-features';
import { featureNamesOf, forestHeader, hyperParametersOf, sklearnVersion, treeStructure, type RawTree } from './tree-arrays';
import { formatCount, formatNumber } from '../../util/wording';

/** The classes this module decodes (the estimator registry, ./estimators.ts, routes them here). */
export const HIST_GRADIENT_BOOSTING = ['HistGradientBoostingRegressor', 'HistGradientBoostingClassifier'] as const;
const PREDICTOR = new Set(['TreePredictor']);

const HYPER_PARAMETERS = [
  'loss',
  'learning_rate',
  'max_iter',
  'max_leaf_nodes',
  'max_depth',
  'min_samples_leaf',
  'l2_regularization',
  'max_bins',
  'early_stopping',
  'validation_fraction',
  'n_iter_no_change',
  'random_state',
  // Trees of several fit calls when True (forest/warm-start.ts): soundness sweep 19 found a second
  // fit's rows "proven" non-members.
  'warm_start',
] as const;

const FIELDS = ['value', 'count', 'feature_idx', 'num_threshold', 'missing_go_to_left', 'left', 'right', 'is_leaf'] as const;

interface Predictor extends RawTree {
  /** Categorical splits: per node, the raw categories (integer codes) it sends left. */
  categorical: Map<number, number[]>;
  /** Splits on missing values alone (stored threshold +inf). */
  missingOnlySplits: number;
}

/** Categories of a raw bitset row (8 x uint32: bit c of the row set when category c goes left). */
function bitsetCategories(words: Float64Array, row: number): number[] {
  const out: number[] = [];
  for (let w = 0; w < 8; w++) {
    const word = words[row * 8 + w] >>> 0;
    for (let b = 0; b < 32; b++) if ((word >>> b) & 1) out.push(w * 32 + b);
  }
  return out;
}

function readPredictor(p: PyValue, index: number): Predictor {
  const nodes = arrayOrThrow(stateDict(p)?.get('nodes'), `predictor ${index}'s nodes`);
  for (const f of FIELDS) if (!nodes.hasField(f)) throw corrupt(`predictor ${index}'s node record has no field '${f}'.`);
  const n = nodes.size;
  if (n < 1) throw corrupt(`predictor ${index} has no nodes.`);
  let col: Record<(typeof FIELDS)[number], Float64Array>;
  const categorical = new Map<number, number[]>();
  try {
    col = Object.fromEntries(FIELDS.map((f) => [f, nodes.field(f)])) as typeof col;
    const isCategorical = nodes.hasField('is_categorical') ? nodes.field('is_categorical') : undefined;
    if (isCategorical?.some((c, i) => c !== 0 && col.is_leaf[i] === 0)) {
      if (!nodes.hasField('bitset_idx')) throw corrupt(`predictor ${index} has categorical splits but no bitset_idx.`);
      const bitsetOf = nodes.field('bitset_idx');
      const raw = arrayOrThrow(stateDict(p)?.get('raw_left_cat_bitsets'), `predictor ${index}'s raw_left_cat_bitsets`);
      if (raw.shape.length !== 2 || raw.shape[1] !== 8) throw corrupt(`predictor ${index}'s raw_left_cat_bitsets has shape (${raw.shape.join(', ')}), expected (n, 8).`);
      const words = raw.numbers();
      for (let i = 0; i < n; i++) {
        if (isCategorical[i] === 0 || col.is_leaf[i] !== 0) continue;
        const row = bitsetOf[i];
        if (!(Number.isInteger(row) && row >= 0 && row < raw.shape[0])) throw corrupt(`predictor ${index} node ${i} names bitset ${row}, of ${raw.shape[0]}.`);
        categorical.set(i, bitsetCategories(words, row));
      }
    }
  } catch (e) {
    if (e instanceof NumpyError) throw corrupt(`predictor ${index}: ${e.message}.`);
    throw e;
  }
  const left = new Float64Array(n);
  const right = new Float64Array(n);
  const feature = new Float64Array(n);
  const threshold = new Float64Array(n);
  let missingOnlySplits = 0;
  for (let i = 0; i < n; i++) {
    const leaf = col.is_leaf[i] !== 0;
    left[i] = leaf ? -1 : col.left[i];
    right[i] = leaf ? -1 : col.right[i];
    feature[i] = leaf ? -2 : col.feature_idx[i];
    // +inf: the split on missing values alone (every value left, missing right), read as MISSING_ONLY_THRESHOLD.
    const splitOnMissing = !leaf && col.num_threshold[i] === Infinity;
    if (splitOnMissing && col.missing_go_to_left[i] !== 0) throw corrupt(`predictor ${index} node ${i} splits at +inf but sends missing values left, so every row one way.`);
    threshold[i] = leaf ? -2 : splitOnMissing ? MISSING_ONLY_THRESHOLD : col.num_threshold[i];
    if (splitOnMissing) missingOnlySplits++;
    if (!leaf && !(left[i] > i && left[i] < n && right[i] > i && right[i] < n)) throw corrupt(`predictor ${index} node ${i} has children (${left[i]}, ${right[i]}) outside the tree.`);
    if (!(Number.isFinite(col.value[i]) && Number.isInteger(col.count[i]))) throw corrupt(`predictor ${index} node ${i} holds an impossible value or count.`);
  }
  return {
    left,
    right,
    feature,
    threshold,
    nodeSamples: col.count,
    weighted: col.count,
    missingLeft: col.missing_go_to_left,
    values: col.value,
    nodeCount: n,
    categorical,
    missingOnlySplits,
  };
}

/** Decodes a fitted histogram gradient boosting model; throws DecodeError. */
export function decodeHistGradientBoosting(est: PyValue, cls: PyGlobal): Decoded {
  const notes: string[] = [];
  const st = stateDict(est);
  if (!st) throw corrupt(`the ${cls.name} has no state.`);
  const iterations = seqItems(st.get('_predictors'));
  if (!iterations) throw new DecodeError('unsupported-estimator', `the ${cls.name} was never fitted (it has no _predictors).`);
  if (iterations.length === 0) throw corrupt(`the ${cls.name} has no trees.`);
  const stored: PyValue[] = [];
  let K: number | undefined;
  for (const [i, it] of iterations.entries()) {
    const items = seqItems(it);
    if (!items || items.length === 0) throw corrupt(`iteration ${i} of the ${cls.name} holds no trees.`);
    if (K !== undefined && items.length !== K) throw corrupt(`iteration ${i} holds ${items.length} trees, iteration 0 ${K}.`);
    K = items.length;
    for (const p of items) {
      if (!isSklearnClass(classOf(p), PREDICTOR)) throw corrupt(`iteration ${i} of the ${cls.name} holds ${found(p)}, not a TreePredictor.`);
      stored.push(p);
    }
  }
  const raws = stored.map((p, i) => readPredictor(p, i));
  // scikit-learn 1.4+ encodes pandas category columns itself (`_preprocessor`, a ColumnTransformer
  // whose OrdinalEncoder's columns come first): the trees index its output, not the input columns.
  const own = ownPreprocessor(st);
  if (own.problem) notes.push(own.problem);
  const featureNames = own.names ?? featureNamesOf(st, raws, undefined);
  const setSplits = raws.flatMap((t, tree) => [...t.categorical].map(([node, left]): SetSplit => ({ tree, node, feature: t.feature[node], categories: left, side: 'left', missingLeft: t.missingLeft![node] !== 0 })));
  const categoryFeatures = setSplits.length > 0 ? setSplitFeatures(setSplits, featureNames, own.categoryName) : undefined;
  if (categoryFeatures) {
    setSplits.forEach((split, k) => {
      raws[split.tree].feature[split.node] = categoryFeatures.featureOf[k];
      raws[split.tree].threshold[split.node] = categoryFeatures.threshold;
    });
    notes.push(categoryFeatures.note);
  }
  const version = sklearnVersion(st, undefined);
  const hyperParameters = hyperParametersOf(st, HYPER_PARAMETERS);
  const learningRate = numeric(st.get('learning_rate'));
  const l2 = numeric(st.get('l2_regularization')) ?? 0;
  const loss = asString(st.get('loss'));
  const rows = raws[0].nodeSamples[0];
  if (raws.some((t) => t.nodeSamples[0] !== rows)) notes.push('the trees\' root counts differ');
  // `_use_validation_data` is set whenever validation_fraction is; the split happens only with early stopping.
  const heldOut = st.get('do_early_stopping_') === true && st.get('_use_validation_data') === true ? heldOutSplit(numeric(st.get('validation_fraction')), rows) : undefined;
  if (heldOut) {
    notes.push(`early stopping held out a validation split (validation_fraction=${heldOut.fraction}): N = ${rows} is the rows the trees were grown on, not every row given to fit${heldOut.fitRows !== undefined ? ` (${heldOut.fitRows})` : ''}`);
  }
  if (version) notes.push(`scikit-learn ${version}`);
  notes.push(`${iterations.length} iterations x ${K} tree${K === 1 ? '' : 's'}`);

  // A split on missing values alone (threshold +inf) shows that training had them.
  const missingOnly = raws.reduce((sum, t) => sum + t.missingOnlySplits, 0);
  if (missingOnly > 0) {
    const named = [...new Set(raws.flatMap((t) => Array.from(t.threshold).flatMap((x, i) => (t.left[i] !== -1 && x === MISSING_ONLY_THRESHOLD ? [t.feature[i]] : []))))].map((f) => featureNames[f] ?? `x${f}`);
    notes.push(`${missingOnly} split${missingOnly === 1 ? '' : 's'} on missing values alone (threshold +inf: every value left, missing ${named.join(', ')} right): the training data had missing values`);
  }
  // Which features had missing values, from the directions: ./missing-directions.ts (every decoder's).
  const structure = treeStructure;

  const header = forestHeader(cls, version, featureNames, hyperParameters);
  const base = {
    ...header,
    features: [...header.features, ...(categoryFeatures?.features ?? [])],
    // The Pipeline-style input covers the model's own columns; set-split features come from them (training-data.ts).
    ...(own.pipelineInput ? { pipelineInput: own.pipelineInput } : {}),
  };
  const training = { bootstrap: false, weighted: false, rows, ...(heldOut ? { heldOut } : {}) };
  // Every tree as a count tree: one column, the rows that reached each node.
  const countTrees = (): Tree[] => raws.map((t) => ({ ...structure(t), classWeights: Array.from(t.nodeSamples) }));
  const asCounts = (why: string): Decoded => {
    // class_weight (1.2+) weighs each row's gradient and hessian: the Newton steps no longer count rows.
    const weights = st.get('class_weight');
    // scikit-learn 1.5+ states whether fit was given sample weights (`_fitted_with_sw`).
    const withSampleWeights = st.get('_fitted_with_sw') === true || asNumpyScalar(st.get('_fitted_with_sw')) === true;
    const weighted =
      weights !== undefined && weights !== null
        ? ` (the model was fitted with class_weight=${asString(weights) !== undefined ? `'${asString(weights)}'` : 'a dict'}, which weighs each row's gradient and hessian)`
        : withSampleWeights
          ? " (the model states it was fitted with sample weights, which weigh each row's gradient and hessian)"
          : '';
    notes.push(`${why}${weighted}; the trees are read as row counts only (no labels or targets)`);
    // A classifier read as counts is still a classifier: its labels, for the summary.
    const stored = st.get('classes_');
    const labels = cls.name === 'HistGradientBoostingClassifier' && isArray(stored) ? { countViewClasses: asNdArray(stored).values().map(labelOf) } : {};
    return { forest: { ...base, task: 'regression', classes: [], ...labels, training, trees: countTrees() }, notes };
  };
  if (learningRate === undefined || !(learningRate > 0)) return asCounts('the model states no positive learning_rate');
  const baseline = arrayOrThrow(st.get('_baseline_prediction'), '_baseline_prediction').numbers();

  if (cls.name === 'HistGradientBoostingRegressor') {
    if (loss !== 'squared_error' && loss !== 'least_squares') return asCounts(`loss='${loss}': the leaves are not squared-error Newton steps`);
    const trees: Tree[] = raws.map((t) => {
      const weight = Array.from(t.values, (v, i) => (t.left[i] === -1 ? v / learningRate : v));
      // The root's value is never set: -G / (H + l2) from its children's G = -w (H + l2).
      if (t.left[0] !== -1) {
        const g = (c: number) => -weight[c] * (t.nodeSamples[c] + l2);
        weight[0] = -(g(t.left[0]) + g(t.right[0])) / (t.nodeSamples[0] + l2);
      }
      return {
        ...structure(t),
        classWeights: new Array<number>(t.nodeCount).fill(0),
        boosting: { cover: Array.from(t.nodeSamples), baseWeight: weight, leafValue: Array.from(t.values), group: 0 },
      };
    });
    notes.push(`loss squared_error: read as XGBoost reg:squarederror with lambda = l2_regularization (${l2}), cover = rows, base score = the training mean`);
    const forest: ForestInput = {
      ...base,
      task: 'regression',
      classes: [],
      // The histogram models draw no rows (no subsample parameter): every tree grew on every training row.
      hyperParameters: { ...hyperParameters, eta: learningRate, lambda: l2, alpha: 0, max_delta_step: 0, subsample: 1 },
      training,
      trees,
      boosting: { objective: 'reg:squarederror', baseScore: [baseline[0]], baseScoreStated: true, outputGroups: 1, source: 'model' },
    };
    return { forest, notes };
  }

  const classes = arrayOrThrow(st.get('classes_'), 'classes_').values().map(labelOf);
  /**
   * Every iteration's trees as count trees, each with its leaf values (the grower already
   * multiplied them by the learning rate), with the log-loss they stepped from the baseline: the
   * forest's `logLoss`, what membership/newton-steps.ts fits candidates to.
   */
  const stepped = (): Pick<ForestInput, 'trees' | 'logLoss'> => {
    const initialMargins = Array.from(baseline.slice(0, K));
    if (!initialMargins.every(Number.isFinite)) return { trees: countTrees() };
    const trees = raws.map((t, i) => ({ ...structure(t), classWeights: Array.from(t.nodeSamples), boosting: { leafValue: Array.from(t.values), group: i % K! } }));
    return { trees, logLoss: { classes, initialMargins, learningRate, gradientScale: 1, lambda: l2 } };
  };
  if (K! > 1) {
    const why = `${classes.length} classes, each of iteration 0's ${K} trees scoring one`;
    if (loss !== 'log_loss' && loss !== 'categorical_crossentropy' && loss !== 'auto') return asCounts(`${why}; loss='${loss}': the leaves are not log-loss Newton steps`);
    if (baseline.length !== K) throw corrupt(`_baseline_prediction holds ${baseline.length} values, the model has ${K} classes.`);
    // Iteration 0 starts every row at the baseline: class k's probability is its softmax.
    const top = Math.max(...baseline);
    const exp = baseline.map((b) => Math.exp(b - top));
    const total = exp.reduce((a, b) => a + b, 0);
    const perClass: { tree: number; rows: number[] }[] = [];
    for (let k = 0; k < K!; k++) {
      const rows = classRowsOfIterationZero(raws[k], exp[k] / total, l2, learningRate);
      if (typeof rows === 'string') return asCounts(`${why}; class ${String(classes[k])}'s tree: ${rows}`);
      perClass.push({ tree: k, rows });
    }
    notes.push(`multinomial log-loss: iteration 0's tree for each class gives that class's rows at every node exactly (the rows' classes); every tree of the ${iterations.length} iterations is read as row counts`);
    return { forest: { ...base, task: 'regression', classes: [], training, ...stepped(), countedClasses: { classes, trees: perClass } }, notes };
  }
  if (loss !== 'log_loss' && loss !== 'binary_crossentropy' && loss !== 'auto') return asCounts(`loss='${loss}': the leaves are not log-loss Newton steps`);
  // Iteration 0: every row's probability is p0 (the baseline's expit); its positives are class 1's rows.
  const p0 = 1 / (1 + Math.exp(-baseline[0]));
  const t0 = raws[0];
  const positives = classRowsOfIterationZero(t0, p0, l2, learningRate);
  if (typeof positives === 'string') return asCounts(`iteration 0: ${positives}`);
  // Every iteration grew on every row (the training split): all as count trees, iteration 0 giving both classes' rows.
  notes.push(`log-loss with prior ${p0}: iteration 0's node values give each node's rows of class ${String(classes[1])} exactly (the rows' classes); every tree of the ${iterations.length} iterations is read as row counts`);
  const negatives = positives.map((pos, i) => t0.nodeSamples[i] - pos);
  const forest: ForestInput = {
    ...base,
    task: 'regression',
    classes: [],
    training,
    ...stepped(),
    countedClasses: { classes, trees: [{ tree: 0, rows: negatives }, { tree: 0, rows: positives }] },
  };
  return { forest, notes };
}

/**
 * A class's rows at every node of its iteration-0 tree (binary log-loss: class 1's tree; K classes,
 * HalfMultinomialLoss: class k's): every row starts with the class's probability p, gradient p - y and hessian p (1 - p), both
 * float32 as scikit-learn stores them, so a node's weight w = -G / (H + l2) (a leaf's value is
 * learning rate x w; the root's is never set and is its children's sum) gives G and so its rows of
 * the class. They must come out whole and within 0..n, else the reason.
 */
function classRowsOfIterationZero(t: RawTree, p: number, l2: number, learningRate: number): number[] | string {
  const gPos = Math.fround(p - 1);
  const gNeg = Math.fround(p);
  const h = Math.fround(p * (1 - p));
  const rows: number[] = new Array(t.nodeCount);
  const rootSplit = t.left[0] !== -1;
  for (let i = rootSplit ? 1 : 0; i < t.nodeCount; i++) {
    const n = t.nodeSamples[i];
    const w = t.left[i] === -1 ? t.values[i] / learningRate : t.values[i];
    const c = (-w * (n * h + l2) - n * gNeg) / (gPos - gNeg);
    const rounded = Math.round(c) || 0;
    if (!(Math.abs(c - rounded) <= 1e-3) || rounded < 0 || rounded > n) return `node ${i}'s value gives ${formatNumber(c)} rows of the class of ${formatCount(n)}, not a whole number (not a log-loss Newton step from the baseline)`;
    rows[i] = rounded;
  }
  if (rootSplit) rows[0] = rows[t.left[0]] + rows[t.right[0]];
  return rows;
}

/**
 * scikit-learn 1.4+'s own encoding of pandas category columns (`_preprocessor`: a ColumnTransformer
 * of an OrdinalEncoder on those columns, the rest passed through after them). Its output is what
 * the trees index, in its order: the names (and how each comes from the input columns, for a raw
 * CSV) are read from it as a Pipeline's step is. `feature_names_in_` is the input's order, which
 * would name the trees' columns wrongly. Nothing when the model has no such step.
 */
function ownPreprocessor(st: ReturnType<typeof stateDict> & object): { names?: string[]; pipelineInput?: PipelineInput; categoryName?: (feature: number, code: number) => string; problem?: string } {
  const pre = st.get('_preprocessor');
  if (pre === undefined || pre === null) return {};
  const walked = pipelineFeatures([pre]);
  const n = numeric(st.get('n_features_in_'));
  if (!walked.features || (n !== undefined && walked.features.length !== n)) {
    return { names: n !== undefined ? Array.from({ length: n }, (_, i) => `x${i}`) : undefined, problem: "the model's own encoding of its category columns (_preprocessor) puts them first, and it could not be followed: its columns are numbered in that order, x0, x1, ..." };
  }
  const names = walked.features.map((f) => f.name);
  const input = walked.pipelineInput;
  return { names, ...(input ? { pipelineInput: input } : {}), categoryName: ordinalCategoryName(input) };
}