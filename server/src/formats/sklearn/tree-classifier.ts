/**
 * RandomForestClassifier, ExtraTreesClassifier and DecisionTreeClassifier (scikit-learn 0.20
 * onwards) into the forest IR:
 * - node record with or without `missing_go_to_left` (1.3+) -> `defaultLeft`;
 * - `value` as weighted counts (< 1.4) or per-class fractions (>= 1.4), told apart by the data
 *   (rows summing to `weighted_n_node_samples` or to 1) with the version as a cross-check.
 */
import type { ForestInput, Tree } from '../../forest/schema';
import {
  NumpyError,
  PyCall,
  PyFloat,
  PyGlobal,
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
} from '../pickle';
import { DecodeError, arrayOrThrow, corrupt, found, hyperValue, isSklearnClass, labelOf, versionAtLeast, type Decoded } from './decode-helpers';

/** The classes this module decodes (the estimator registry, ./estimators.ts, routes them here). */
export const TREE_CLASSIFIERS = ['RandomForestClassifier', 'ExtraTreesClassifier', 'DecisionTreeClassifier', 'ExtraTreeClassifier'] as const;
const SUB_ESTIMATORS = new Set(['DecisionTreeClassifier', 'ExtraTreeClassifier']);

const HYPER_PARAMETERS = [
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
  'class_weight',
  'ccp_alpha',
] as const;

interface RawTree {
  left: Float64Array;
  right: Float64Array;
  feature: Float64Array;
  threshold: Float64Array;
  nodeSamples: Float64Array;
  weighted: Float64Array;
  missingLeft?: Float64Array;
  values: Float64Array;
  nodeCount: number;
  seed?: number;
}

function readTree(estimator: PyValue, index: number, nClasses: number): RawTree {
  const st = stateDict(estimator);
  if (!st) throw corrupt(`estimator ${index} has no state.`);
  const treeObj = st.get('tree_');
  const tcls = classOf(treeObj);
  if (!tcls || tcls.name !== 'Tree') throw corrupt(`estimator ${index} has no fitted tree_ (found ${found(treeObj)}).`);
  const args = seqItems((treeObj as PyCall | PyObject).args as PyValue);
  const nOutputs = asInt(args?.[2]);
  if (nOutputs !== undefined && nOutputs !== 1) {
    throw new DecodeError('unsupported-estimator', `tree ${index} has ${nOutputs} outputs; multi-output models are not read.`);
  }
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
  if (shape.length !== 3 || shape[0] !== nodeCount) throw corrupt(`tree ${index}'s value array has shape (${shape.join(', ')}), expected (${nodeCount}, 1, ${nClasses}).`);
  if (shape[1] !== 1) throw new DecodeError('unsupported-estimator', `tree ${index} has ${shape[1]} outputs; multi-output models are not read.`);
  if (shape[2] !== nClasses) throw corrupt(`tree ${index} stores ${shape[2]} classes, the model has ${nClasses}.`);
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
      values: values.numbers(),
      nodeCount,
    };
  } catch (e) {
    if (e instanceof NumpyError) throw corrupt(`tree ${index}: ${e.message}.`);
    throw e;
  }
  for (let i = 0; i < nodeCount; i++) {
    const ns = raw.nodeSamples[i];
    const w = raw.weighted[i];
    if (!(Number.isInteger(ns) && ns >= 0) || !(Number.isFinite(w) && w >= 0) || Number.isNaN(raw.threshold[i])) {
      throw corrupt(`tree ${index} node ${i} holds impossible sample counts or threshold.`);
    }
    for (let c = 0; c < nClasses; c++) {
      const v = raw.values[i * nClasses + c];
      if (!(Number.isFinite(v) && v >= 0)) throw corrupt(`tree ${index} node ${i} holds an impossible class value (${v}).`);
    }
    const l = raw.left[i];
    const r = raw.right[i];
    if (l === -1 || r === -1) {
      if (l !== r) throw corrupt(`tree ${index} node ${i} has exactly one child.`);
    } else if (!(l > i && l < nodeCount && r > i && r < nodeCount)) {
      throw corrupt(`tree ${index} node ${i} has children (${l}, ${r}) outside the tree.`);
    }
  }
  const rs = st.get('random_state');
  const seed = asInt(rs) ?? asInt(asNumpyScalar(rs) ?? undefined);
  if (seed !== undefined && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff) raw.seed = seed;
  return raw;
}

type Layout = 'counts' | 'fractions';

/** Whether every node's class values sum to its weight (counts) or to 1 (fractions). */
function layoutOf(t: RawTree, nClasses: number): { counts: boolean; fractions: boolean } {
  let counts = true;
  let fractions = true;
  for (let i = 0; i < t.nodeCount && (counts || fractions); i++) {
    let s = 0;
    for (let c = 0; c < nClasses; c++) s += t.values[i * nClasses + c];
    const w = t.weighted[i];
    if (Math.abs(s - w) > 1e-7 * Math.max(1, Math.abs(w))) counts = false;
    if (Math.abs(s - 1) > 1e-7) fractions = false;
  }
  return { counts, fractions };
}

function nearInteger(x: number, scale: number): boolean {
  return Math.abs(x - Math.round(x)) <= 1e-6 * Math.max(1, Math.abs(scale));
}

/** Decodes a fitted tree classifier or forest of them; throws DecodeError. */
export function decodeTreeClassifier(est: PyValue, cls: PyGlobal): Decoded {
  const notes: string[] = [];
  const st = stateDict(est);
  if (!st) throw corrupt(`the ${cls.name} has no state.`);

  const isForest = !SUB_ESTIMATORS.has(cls.name);
  let estimators: PyValue[];
  if (isForest) {
    const list = seqItems(st.get('estimators_'));
    if (!list) throw new DecodeError('unsupported-estimator', `the ${cls.name} was never fitted (it has no estimators_).`);
    if (list.length === 0) throw corrupt(`the ${cls.name} has no trees.`);
    estimators = list;
  } else {
    if (!st.has('tree_')) throw new DecodeError('unsupported-estimator', `the ${cls.name} was never fitted (it has no tree_).`);
    estimators = [est];
  }

  const nOutputs = numeric(st.get('n_outputs_'));
  if (nOutputs !== undefined && nOutputs !== 1) {
    throw new DecodeError('unsupported-estimator', `the file holds a multi-output ${cls.qualified} (n_outputs_=${nOutputs}); multi-output models are not read.`);
  }
  const classesV = st.get('classes_');
  if (classesV instanceof PyList) {
    throw new DecodeError('unsupported-estimator', `the file holds a multi-output ${cls.qualified}; multi-output models are not read.`);
  }
  const classes = arrayOrThrow(classesV, 'classes_').values().map(labelOf);
  const nClasses = classes.length;
  if (nClasses < 1) throw corrupt('the model has no classes.');

  // features
  let featureNames: string[] | undefined;
  const fni = st.get('feature_names_in_');
  if (fni !== undefined && fni !== null) featureNames = arrayOrThrow(fni, 'feature_names_in_').values().map((x) => String(labelOf(x)));
  let nFeatures = numeric(st.get('n_features_in_')) ?? numeric(st.get('n_features_'));

  for (let i = 0; i < estimators.length; i++) {
    const c = classOf(estimators[i]);
    if (!isSklearnClass(c, SUB_ESTIMATORS)) throw corrupt(`estimator ${i} of the ${cls.name} is ${found(estimators[i])}, not a tree.`);
  }
  const raws = estimators.map((e, i) => readTree(e, i, nClasses));
  if (nFeatures === undefined) {
    const targs = seqItems((stateDict(estimators[0])?.get('tree_') as PyCall | undefined)?.args as PyValue);
    nFeatures = asInt(targs?.[0]);
  }
  if (featureNames && nFeatures !== undefined && featureNames.length !== nFeatures) {
    throw corrupt(`the model names ${featureNames.length} features but has ${nFeatures}.`);
  }
  if (!featureNames) {
    let maxFeature = -1;
    for (const t of raws) for (let i = 0; i < t.nodeCount; i++) if (t.left[i] !== -1 && t.feature[i] > maxFeature) maxFeature = t.feature[i];
    const n = nFeatures ?? maxFeature + 1;
    featureNames = Array.from({ length: n }, (_, i) => `x${i}`);
  }
  for (const [ti, t] of raws.entries()) {
    for (let i = 0; i < t.nodeCount; i++) {
      if (t.left[i] !== -1 && !(t.feature[i] >= 0 && t.feature[i] < featureNames.length)) {
        throw corrupt(`tree ${ti} node ${i} tests feature ${t.feature[i]}, the model has ${featureNames.length}.`);
      }
    }
  }

  // version and value layout
  const version = asString(st.get('_sklearn_version')) ?? asString(stateDict(estimators[0])?.get('_sklearn_version'));
  const newValues = versionAtLeast(version, 1, 4);
  let allCounts = true;
  let allFractions = true;
  for (const t of raws) {
    const l = layoutOf(t, nClasses);
    allCounts &&= l.counts;
    allFractions &&= l.fractions;
  }
  let layout: Layout;
  if (allCounts && allFractions) layout = 'counts'; // every node weighs 1: the same either way
  else if (allCounts) layout = 'counts';
  else if (allFractions) layout = 'fractions';
  else throw corrupt('the node values neither sum to the node weights (counts) nor to 1 (fractions).');
  if (layout === 'fractions') {
    notes.push('node values are stored as class fractions (scikit-learn >= 1.4); counts are rebuilt as fraction x weighted_n_node_samples');
    if (newValues === false) notes.push(`the file says scikit-learn ${version} but its node values are fractions, as from 1.4 on`);
  } else if (newValues === true && !(allCounts && allFractions)) {
    notes.push(`the file says scikit-learn ${version} but its node values are counts, as before 1.4`);
  }

  // weighting
  const classWeight = st.get('class_weight');
  let weighted = classWeight !== undefined && classWeight !== null;
  if (!weighted) {
    outer: for (const t of raws) {
      for (let i = 0; i < t.nodeCount; i++) {
        const w = t.weighted[i];
        if (w !== Math.round(w)) {
          weighted = true;
          break outer;
        }
        for (let c = 0; c < nClasses; c++) {
          const v = t.values[i * nClasses + c];
          const x = layout === 'fractions' ? v * w : v;
          if (!(layout === 'fractions' ? nearInteger(x, w) : x === Math.round(x))) {
            weighted = true;
            break outer;
          }
        }
      }
    }
  }
  if (weighted) notes.push('class or sample weights make the stored counts weighted, not row counts');

  const trees: Tree[] = raws.map((t) => {
    const n = t.nodeCount;
    const cw: number[] = new Array(n * nClasses);
    for (let i = 0; i < n; i++) {
      const w = t.weighted[i];
      for (let c = 0; c < nClasses; c++) {
        const v = t.values[i * nClasses + c];
        if (layout === 'counts') cw[i * nClasses + c] = v;
        else cw[i * nClasses + c] = weighted ? v * w : Math.round(v * w);
      }
    }
    const tree: Tree = {
      left: Array.from(t.left),
      right: Array.from(t.right),
      feature: Array.from(t.feature),
      threshold: Array.from(t.threshold),
      classWeights: cw,
      distinctRows: Array.from(t.nodeSamples),
      training: t.seed !== undefined ? { seed: t.seed } : {},
    };
    if (t.missingLeft) tree.defaultLeft = Array.from(t.missingLeft, (x) => x !== 0);
    return tree;
  });

  // training facts
  const bootstrap = isForest ? st.get('bootstrap') === true : false;
  const maxSamples = st.get('max_samples');
  const rootWeight = raws[0].weighted[0];
  const rootCount = Number.isInteger(rootWeight) ? rootWeight : undefined;
  let rows: number | undefined;
  let bootstrapSize: number | undefined;
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

  const hyperParameters: Record<string, string | number | boolean | null> = {};
  for (const k of HYPER_PARAMETERS) {
    if (st.has(k)) hyperParameters[k] = hyperValue(st.get(k));
  }

  if (version) notes.push(`scikit-learn ${version}`);
  if (raws[0].missingLeft) notes.push('node records carry missing_go_to_left (scikit-learn >= 1.3)');

  const forest: ForestInput = {
    format: 'model-privacy-lint/forest',
    formatVersion: 1,
    library: version ? { name: 'scikit-learn', version } : { name: 'scikit-learn' },
    estimator: cls.name,
    task: 'classification',
    classes,
    features: featureNames.map((name) => ({ name, kind: 'unknown' as const })),
    splitRule: 'less-or-equal',
    hyperParameters,
    training: { bootstrap, weighted, ...(rows !== undefined ? { rows } : {}), ...(bootstrapSize !== undefined ? { bootstrapSize } : {}) },
    trees,
  };
  return { forest, notes };
}
