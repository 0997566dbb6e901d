/**
 * What every decoder of scikit-learn's own trees shares (tree classifiers, tree regressors,
 * gradient boosting's stages, bagging): a fitted `tree_`'s arrays read and checked, the list of
 * fitted trees, the feature names, the forest's bootstrap facts and its hyper-parameters.
 */
import { distinctDrawn, replayMultiplicities } from '../../attacks/bootstrap-replay';
import {
  NumpyError,
  PyCall,
  PyDict,
  PyFloat,
  PyList,
  PyObject,
  PyValue,
  asInt,
  asNumpyScalar,
  asString,
  classOf,
  numeric,
  seqItems,
  stateDict,
  type PyGlobal,
} from '../pickle';
import type { ForestInput } from '../../forest/schema';
import { featureCountProblem } from '../limits';
import { DecodeError, arrayOrThrow, corrupt, found, hyperValue, isSklearnClass, labelOf } from './decode-helpers';
import { MISSING_ONLY_THRESHOLD, NEGATIVE_INFINITY_THRESHOLD } from '../../forest/missing-split';
import { formatCount, plural } from '../../util/wording';

/** One fitted `sklearn.tree._tree.Tree`, its node record as columns. */
export interface RawTree {
  left: Float64Array;
  right: Float64Array;
  feature: Float64Array;
  threshold: Float64Array;
  nodeSamples: Float64Array;
  weighted: Float64Array;
  missingLeft?: Float64Array;
  /** Splits read at NEGATIVE_INFINITY_THRESHOLD (stored as -inf or NaN). */
  negativeInfinitySplits?: number;
  /** Why a stored `missing_go_to_left` was not read (missingLeft is then absent). */
  missingLeftIgnored?: string;
  /** The node's impurity under the tree's criterion (for squared error: the target's variance). */
  impurity?: Float64Array;
  /** `value` flattened: `values[node * nValues + k]`. */
  values: Float64Array;
  nodeCount: number;
  seed?: number;
}

/**
 * Reads estimator `index`'s `tree_` with `nValues` values per node (classes, or 1 for a
 * regression tree). `signedValues`: regression trees store means, which may be negative;
 * classifiers' class counts may not. A multi-output tree (`outputs` above 1) stores a block of
 * values per output, as many as its largest class count: the first output's `nValues` are read.
 */
export function readTree(estimator: PyValue, index: number, nValues: number, signedValues = false, outputs = 1): RawTree {
  const st = stateDict(estimator);
  if (!st) throw corrupt(`estimator ${index} has no state.`);
  const treeObj = st.get('tree_');
  const tcls = classOf(treeObj);
  if (!tcls || tcls.name !== 'Tree') throw corrupt(`estimator ${index} has no fitted tree_ (found ${found(treeObj)}).`);
  const args = seqItems((treeObj as PyCall | PyObject).args as PyValue);
  const nOutputs = asInt(args?.[2]);
  if (nOutputs !== undefined && nOutputs !== outputs) throw corrupt(`tree ${index} has ${nOutputs} outputs, the model ${outputs}.`);
  const ts = stateDict(treeObj);
  if (!ts) throw corrupt(`tree ${index} has no state.`);
  const nodes = arrayOrThrow(ts.get('nodes'), `tree ${index}'s node array`);
  const values = arrayOrThrow(ts.get('values'), `tree ${index}'s value array`);
  const nodeCount = asInt(ts.get('node_count')) ?? nodes.size;
  if (nodes.size !== nodeCount || nodeCount < 1) throw corrupt(`tree ${index} says ${nodeCount} nodes but stores ${nodes.size}.`);
  for (const f of ['left_child', 'right_child', 'feature', 'threshold', 'n_node_samples', 'weighted_n_node_samples']) {
    if (!nodes.hasField(f)) throw corrupt(`tree ${index}'s node record has no field '${f}'.`);
  }
  const shape = values.shape;
  if (shape.length !== 3 || shape[0] !== nodeCount) throw corrupt(`tree ${index}'s value array has shape (${shape.join(', ')}), expected (${nodeCount}, ${outputs}, ${nValues}).`);
  if (shape[1] !== outputs) throw corrupt(`tree ${index} stores values for ${shape[1]} outputs, the model has ${outputs}.`);
  // One output: exactly its values; several: each output's block is as wide as the widest.
  if (outputs === 1 ? shape[2] !== nValues : shape[2] < nValues) throw corrupt(`tree ${index} stores ${shape[2]} values per node, the model has ${nValues}.`);
  let raw: RawTree;
  try {
    raw = {
      left: nodes.field('left_child'),
      right: nodes.field('right_child'),
      feature: nodes.field('feature'),
      threshold: nodes.field('threshold'),
      nodeSamples: nodes.field('n_node_samples'),
      weighted: nodes.field('weighted_n_node_samples'),
      missingLeft: nodes.hasField('missing_go_to_left') ? nodes.field('missing_go_to_left') : undefined,
      impurity: nodes.hasField('impurity') ? nodes.field('impurity') : undefined,
      values: outputs === 1 ? values.numbers() : firstOutput(values.numbers(), nodeCount, shape[1] * shape[2], nValues),
      nodeCount,
    };
  } catch (e) {
    if (e instanceof NumpyError) throw corrupt(`tree ${index}: ${e.message}.`);
    throw e;
  }
  for (let i = 0; i < nodeCount; i++) {
    const ns = raw.nodeSamples[i];
    const w = raw.weighted[i];
    if (!(Number.isInteger(ns) && ns >= 0) || !(Number.isFinite(w) && w >= 0)) {
      throw corrupt(`tree ${index} node ${i} holds impossible sample counts (${ns} rows, weight ${w}).`);
    }
    // A split whose left values are all -inf (threshold -inf, or NaN beside +inf): forest/missing-split.ts.
    if (raw.left[i] !== -1 && (Number.isNaN(raw.threshold[i]) || raw.threshold[i] === -Infinity)) {
      raw.threshold[i] = NEGATIVE_INFINITY_THRESHOLD;
      raw.negativeInfinitySplits = (raw.negativeInfinitySplits ?? 0) + 1;
    } else if (raw.left[i] !== -1 && !Number.isFinite(raw.threshold[i]) && raw.threshold[i] !== Infinity) {
      throw corrupt(`tree ${index} node ${i} splits at an impossible threshold (${raw.threshold[i]}).`);
    }
    for (let c = 0; c < nValues; c++) {
      const v = raw.values[i * nValues + c];
      if (!(Number.isFinite(v) && (signedValues || v >= 0))) throw corrupt(`tree ${index} node ${i} holds an impossible value (${v}).`);
    }
    const l = raw.left[i];
    const r = raw.right[i];
    if (l === -1 || r === -1) {
      if (l !== r) throw corrupt(`tree ${index} node ${i} has exactly one child.`);
    } else if (!(l > i && l < nodeCount && r > i && r < nodeCount)) {
      throw corrupt(`tree ${index} node ${i} has children (${l}, ${r}) outside the tree.`);
    }
  }
  readMissingOnlySplits(raw);
  const ignored = raw.missingLeft ? unsetMissingDirections(raw, classOf(estimator)?.name, asString(st.get('_sklearn_version'))) : undefined;
  if (ignored) {
    raw.missingLeft = undefined;
    raw.missingLeftIgnored = ignored;
  }
  const rs = st.get('random_state');
  const seed = asInt(rs) ?? asInt(asNumpyScalar(rs) ?? undefined);
  if (seed !== undefined && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff) raw.seed = seed;
  return raw;
}

/** Each node's first `nValues` values (the first output's) out of `stride` per node. */
function firstOutput(all: Float64Array, nodeCount: number, stride: number, nValues: number): Float64Array {
  const out = new Float64Array(nodeCount * nValues);
  for (let i = 0; i < nodeCount; i++) for (let c = 0; c < nValues; c++) out[i * nValues + c] = all[i * stride + c];
  return out;
}

/**
 * The fitted trees of a forest (`estimators_`) or the single tree itself (`singles` names the
 * single-tree classes), each checked to be one of `singles`.
 */
export function fittedTrees(est: PyValue, st: PyDict, cls: PyGlobal, singles: Set<string>): PyValue[] {
  let estimators: PyValue[];
  if (!singles.has(cls.name)) {
    const list = seqItems(st.get('estimators_'));
    if (!list) throw new DecodeError('unsupported-estimator', `the ${cls.name} was never fitted (it has no estimators_).`);
    if (list.length === 0) throw corrupt(`the ${cls.name} has no trees.`);
    estimators = list;
  } else {
    if (!st.has('tree_')) throw new DecodeError('unsupported-estimator', `the ${cls.name} was never fitted (it has no tree_).`);
    estimators = [est];
  }
  for (let i = 0; i < estimators.length; i++) {
    const c = classOf(estimators[i]);
    if (!isSklearnClass(c, singles)) throw corrupt(`estimator ${i} of the ${cls.name} is ${found(estimators[i])}, not a tree.`);
  }
  return estimators;
}

/**
 * How many outputs (labels or targets per row) a model has: `n_outputs_`, else as many as its
 * `classes_` list holds (a classifier's `classes_` is a list of arrays when it has several).
 */
export function outputCount(st: PyDict, cls: PyGlobal): number {
  const nOutputs = numeric(st.get('n_outputs_'));
  const classes = st.get('classes_');
  const listed = classes instanceof PyList ? classes.items.length : undefined;
  const n = nOutputs ?? listed ?? 1;
  if (!(Number.isInteger(n) && n >= 1) || (listed !== undefined && listed !== n)) {
    throw corrupt(`the ${cls.name} says ${nOutputs} outputs but lists classes for ${listed ?? 1}.`);
  }
  return n;
}

/** The note a multi-output model's reading adds: which output the IR holds. */
export function firstOutputNote(outputs: number, what: 'label' | 'target'): string {
  return `multi-output model (${outputs} ${what}s per row): the first ${what}'s ${what === 'label' ? 'class counts' : 'mean targets'} are read, which count the same rows; the other ${what}s are not reconstructed`;
}

/**
 * Feature names (`feature_names_in_`, else `x0..` for `n_features_in_` or as many as the trees
 * test), checked against every split's feature.
 */
export function featureNamesOf(st: PyDict, raws: readonly RawTree[], firstTree: PyValue | undefined): string[] {
  let featureNames: string[] | undefined;
  const fni = st.get('feature_names_in_');
  if (fni !== undefined && fni !== null) featureNames = arrayOrThrow(fni, 'feature_names_in_').values().map((x) => String(labelOf(x)));
  let nFeatures = numeric(st.get('n_features_in_')) ?? numeric(st.get('n_features_'));
  if (nFeatures === undefined) {
    const targs = seqItems((stateDict(firstTree)?.get('tree_') as PyCall | undefined)?.args as PyValue);
    nFeatures = asInt(targs?.[0]);
  }
  const tooMany = nFeatures === undefined ? undefined : featureCountProblem(nFeatures, 'the model declares');
  if (tooMany) throw new DecodeError('too-large', tooMany);
  if (featureNames && nFeatures !== undefined && featureNames.length !== nFeatures) {
    throw corrupt(`the model names ${featureNames.length} features but has ${nFeatures}.`);
  }
  if (!featureNames) {
    let maxFeature = -1;
    for (const t of raws) for (let i = 0; i < t.nodeCount; i++) if (t.left[i] !== -1 && t.feature[i] > maxFeature) maxFeature = t.feature[i];
    const n = nFeatures ?? maxFeature + 1;
    const problem = featureCountProblem(n, 'the trees test');
    if (problem) throw new DecodeError('too-large', problem);
    featureNames = Array.from({ length: n }, (_, i) => `x${i}`);
  }
  for (const [ti, t] of raws.entries()) {
    for (let i = 0; i < t.nodeCount; i++) {
      if (t.left[i] !== -1 && !(t.feature[i] >= 0 && t.feature[i] < featureNames.length)) {
        throw corrupt(`tree ${ti} node ${i} tests feature ${t.feature[i]}, the model has ${featureNames.length}.`);
      }
    }
  }
  return featureNames;
}

/** The version that wrote the model, from the estimator or its first tree. */
/**
 * scikit-learn 1.3+'s trees split on missing values alone as histogram boosting does: threshold
 * +inf, every value left, the rows missing the feature right (`missing_go_to_left` 0). Read at the
 * IR's MISSING_ONLY_THRESHOLD, as hist-gradient-boosting.ts reads them (sweep 11: a public 1.5
 * RandomForestClassifier trained with missing values, 109 such splits, was "corrupt"). A +inf
 * threshold anywhere else stays, and the forest's checks call it what it is.
 */
export function readMissingOnlySplits(raw: RawTree): void {
  if (!raw.missingLeft) return;
  for (let i = 0; i < raw.nodeCount; i++) {
    if (raw.left[i] !== -1 && raw.threshold[i] === Infinity && raw.missingLeft[i] === 0) raw.threshold[i] = MISSING_ONLY_THRESHOLD;
  }
}

/**
 * Why a tree's `missing_go_to_left` says nothing, or undefined when it is read. scikit-learn's
 * random splitter (ExtraTrees) gained missing-value support only in 1.6; before, the field is
 * left as the memory held it (sweep 10: a public 1.5.2 ExtraTreesClassifier stored bytes 0, 16,
 * 32, 176-224 and read as "trained with missing values of every feature").
 */
export function unsetMissingDirections(raw: RawTree, estimator: string | undefined, version: string | undefined): string | undefined {
  for (let i = 0; i < raw.nodeCount; i++) {
    const d = raw.missingLeft![i];
    if (raw.left[i] !== -1 && d !== 0 && d !== 1) return `missing_go_to_left holds ${d} at node ${i}, not a direction (the field was not set when the tree was built)`;
  }
  const [major, minor] = (version ?? '').split('.').map(Number);
  if (/^ExtraTree/.test(estimator ?? '') && Number.isFinite(major) && (major < 1 || (major === 1 && minor < 6))) {
    return `scikit-learn ${version}'s ExtraTrees do not set missing_go_to_left (its random splitter takes missing values from 1.6)`;
  }
  return undefined;
}

/**
 * A forest's missing-value directions, all or none: when any tree's are not read, no tree's are
 * (a direction per tree for some trees only is no reading of the model). The note, when dropped.
 */
/** The note for splits read at -inf (their thresholds stored as -inf or NaN), undefined when there are none. */
export function negativeInfinityNote(raws: readonly RawTree[]): string | undefined {
  const splits = raws.reduce((sum, raw) => sum + (raw.negativeInfinitySplits ?? 0), 0);
  if (splits === 0) return undefined;
  return `${plural(splits, 'split')} stored at -inf or NaN: read as sending -inf left and every finite value right, as scikit-learn predicts (the training values there were infinite)`;
}

export function missingDirectionsOfForest(raws: RawTree[]): string | undefined {
  const ignored = raws.find((raw) => raw.missingLeftIgnored)?.missingLeftIgnored;
  if (!ignored) return undefined;
  for (const raw of raws) raw.missingLeft = undefined;
  return `missing-value directions not read: ${ignored}`;
}

export function sklearnVersion(st: PyDict, firstTree: PyValue | undefined): string | undefined {
  return asString(st.get('_sklearn_version')) ?? asString(stateDict(firstTree)?.get('_sklearn_version'));
}

/**
 * N and the bootstrap sample size, from a forest's `bootstrap` and `max_samples` and its roots'
 * weights: without bootstrap every root holds N; with bootstrap and no `max_samples` each tree
 * draws N rows; a float `max_samples` draws a fraction (N unknown, the draw size is the root's
 * weight); an integer draws that many.
 */
/**
 * Integer sample weights on a model trained without bootstrap: some node's weight
 * (weighted_n_node_samples) is not its rows (n_node_samples), which unweighted rows never give.
 */
export function integerWeights(raws: readonly RawTree[]): boolean {
  return raws.some((t) => t.weighted.some((w, i) => w !== t.nodeSamples[i]));
}

/** Past this root weight the reader does not replay (one replay draws that many numbers). */
const MAX_ROOT_REPLAY = 4_000_000;

/**
 * A bootstrap forest (max_samples None) whose root weight is not N: without weights the root holds
 * N draws, and the first tree's seed replays its stored distinct rows at that N. Integer sample
 * weights make the root draws x weights, and the replay at that N misses. (Another random
 * generator would miss too; the counts are then only read as weighted, which claims less.)
 */
function rootWeightIsNotN(raws: readonly RawTree[], rootCount: number): boolean {
  const first = raws[0];
  if (first.seed === undefined || !(first.nodeSamples[0] > 0) || rootCount > MAX_ROOT_REPLAY) return false;
  return distinctDrawn(replayMultiplicities(first.seed, rootCount, rootCount)) !== first.nodeSamples[0];
}

export function trainingFacts(st: PyDict, raws: readonly RawTree[], isForest: boolean, weightedIn: boolean, notes: string[]): ForestInput['training'] {
  let weighted = weightedIn;
  const bootstrap = isForest ? st.get('bootstrap') === true : false;
  const maxSamples = st.get('max_samples');
  const rootWeight = raws[0].weighted[0];
  const rootCount = Number.isInteger(rootWeight) ? rootWeight : undefined;
  let rows: number | undefined;
  let bootstrapSize: number | undefined;
  // Integer sample weights keep every count whole (without bootstrap the readers compare each
  // node's weight with its rows, integerWeights). With bootstrap the root's weight (draws x
  // weights) is then not N: the seeds do not replay at N = the root's weight (the replay's search
  // finds the N they do replay at).
  if (!weighted && rootCount !== undefined && bootstrap && (maxSamples === null || maxSamples === undefined) && rootWeightIsNotN(raws, rootCount)) {
    // N is left to the replay's search (attacks/bootstrap-replay.ts), within the analysis budget.
    weighted = true;
    notes.push(`integer sample weights: the first tree's seed does not replay its ${raws[0].nodeSamples[0]} distinct rows at N = the root's weight ${rootCount} (draws x weights), so the stored counts are weighted`);
  }
  if (!weighted && rootCount !== undefined) {
    if (!bootstrap) {
      rows = rootCount;
      if (raws.some((t) => t.weighted[0] !== rootCount)) notes.push('the trees\' root counts differ although the model does not bootstrap');
    } else if (maxSamples === null || maxSamples === undefined) {
      rows = rootCount;
      bootstrapSize = rootCount;
    } else if (maxSamples instanceof PyFloat) {
      bootstrapSize = rootCount;
    }
  }
  if (bootstrap && maxSamples !== null && maxSamples !== undefined && !(maxSamples instanceof PyFloat)) {
    const ms = numeric(maxSamples);
    if (ms !== undefined && Number.isInteger(ms) && ms >= 0) bootstrapSize = ms;
  }
  // Recent scikit-learn forests state the rows given to fit (`_n_samples`, with their draw
  // `_n_samples_bootstrap`): N, whatever class or sample weights did to the counts (a public 1.9
  // forest with class_weight='balanced' read "about 4,904" of its stated 4,900).
  // Bagging and IsolationForest state it too (with `_max_samples`): bagging.ts reads theirs.
  const stated = isForest && !st.has('_max_samples') ? numeric(st.get('_n_samples')) : undefined;
  if (stated !== undefined && Number.isInteger(stated) && stated > 0) {
    rows = stated;
    notes.push(`training rows: ${formatCount(stated)}, stated by the model (_n_samples)`);
    const drawn = numeric(st.get('_n_samples_bootstrap'));
    if (bootstrap && !weighted && bootstrapSize === undefined && drawn !== undefined && Number.isInteger(drawn) && drawn > 0) bootstrapSize = drawn;
  }
  return { bootstrap, weighted, ...(rows !== undefined ? { rows } : {}), ...(bootstrapSize !== undefined ? { bootstrapSize } : {}) };
}

/** The named hyper-parameters the estimator's state holds, as the IR keeps them. */
export function hyperParametersOf(st: PyDict, names: readonly string[]): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  for (const k of names) if (st.has(k)) out[k] = hyperValue(st.get(k));
  return out;
}

/** A tree's structure columns in the IR (children, features, thresholds, distinct rows, seed, missing side). */
export function treeStructure(t: RawTree): { left: number[]; right: number[]; feature: number[]; threshold: number[]; distinctRows: number[]; training: { seed?: number }; defaultLeft?: boolean[] } {
  return {
    left: Array.from(t.left),
    right: Array.from(t.right),
    feature: Array.from(t.feature),
    threshold: Array.from(t.threshold),
    distinctRows: Array.from(t.nodeSamples),
    training: t.seed !== undefined ? { seed: t.seed } : {},
    ...(t.missingLeft ? { defaultLeft: Array.from(t.missingLeft, (x) => x !== 0) } : {}),
  };
}

/** Hyper-parameters of scikit-learn's tree forests and single trees (classifiers add class_weight). */
export const TREE_HYPER_PARAMETERS = [
  'n_estimators',
  'max_depth',
  'min_samples_leaf',
  'min_samples_split',
  'max_features',
  'max_leaf_nodes',
  'criterion',
  'bootstrap',
  'max_samples',
  'random_state',
  'ccp_alpha',
  // True: the trees may come from several fit calls on different rows (forest/warm-start.ts).
  'warm_start',
] as const;

/** The IR fields every scikit-learn decoder fills the same way. */
export function forestHeader(cls: PyGlobal, version: string | undefined, featureNames: readonly string[], hyperParameters: Record<string, string | number | boolean | null>) {
  return {
    format: 'model-privacy-lint/forest' as const,
    formatVersion: 1 as const,
    library: version ? { name: 'scikit-learn', version } : { name: 'scikit-learn' },
    estimator: cls.name,
    features: featureNames.map((name) => ({ name, kind: 'unknown' as const })),
    splitRule: 'less-or-equal' as const,
    hyperParameters,
  };
}
