/**
 * RandomForestClassifier, ExtraTreesClassifier and DecisionTreeClassifier (scikit-learn 0.20
 * onwards) into the forest IR:
 * - node record with or without `missing_go_to_left` (1.3+) -> `defaultLeft`;
 * - `value` as weighted counts (< 1.4) or per-class fractions (>= 1.4), told apart by the data
 *   (rows summing to `weighted_n_node_samples` or to 1) with the version as a cross-check.
 */
import type { ForestInput, Tree } from '../../forest/schema';
import { PyGlobal, PyList, PyValue, stateDict } from '../pickle';
import { arrayOrThrow, corrupt, labelOf, versionAtLeast, type Decoded } from './decode-helpers';
import { classWeightFactors } from './class-weights';
import { TREE_HYPER_PARAMETERS, outputCount, firstOutputNote, featureNamesOf, fittedTrees, forestHeader, hyperParametersOf, integerWeights, readTree, sklearnVersion, trainingFacts, treeStructure, type RawTree, missingDirectionsOfForest, negativeInfinityNote } from './tree-arrays';

/** The classes this module decodes (the estimator registry, ./estimators.ts, routes them here). */
export const TREE_CLASSIFIERS = ['RandomForestClassifier', 'ExtraTreesClassifier', 'DecisionTreeClassifier', 'ExtraTreeClassifier'] as const;
const SUB_ESTIMATORS = new Set(['DecisionTreeClassifier', 'ExtraTreeClassifier']);

const HYPER_PARAMETERS = [...TREE_HYPER_PARAMETERS, 'class_weight'] as const;

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
  const estimators = fittedTrees(est, st, cls, SUB_ESTIMATORS);
  // Several outputs (multi-label): classes_ is a list, one array per output; the first is read.
  const outputs = outputCount(st, cls);
  const classesOf = st.get('classes_');
  const classes = arrayOrThrow(classesOf instanceof PyList ? classesOf.items[0] : classesOf, 'classes_').values().map(labelOf);
  const nClasses = classes.length;
  if (nClasses < 1) throw corrupt('the model has no classes.');
  if (outputs > 1) notes.push(firstOutputNote(outputs, 'label'));
  const raws = estimators.map((e, i) => readTree(e, i, nClasses, false, outputs));
  const unreadDirections = missingDirectionsOfForest(raws);
  const featureNames = featureNamesOf(st, raws, estimators[0]);

  // version and value layout
  const version = sklearnVersion(st, estimators[0]);
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
  // The weighted count a node stores for class c, whichever layout the file uses.
  const weightedOf = (t: RawTree, i: number, c: number) => (layout === 'counts' ? t.values[i * nClasses + c] : t.values[i * nClasses + c] * t.weighted[i]);
  // Class weights without bootstrap divide back out (./class-weights.ts): the counts are rows again.
  const bootstrapped = isForest && st.get('bootstrap') === true;
  // Integer sample weights keep the counts whole, but without bootstrap a node's weight is then not
  // its rows (n_node_samples); weights set per class (sample_weight 3 for class 0) divide out too.
  if (!weighted && !bootstrapped && integerWeights(raws)) weighted = true;
  const factors = weighted && !bootstrapped ? classWeightFactors(raws, nClasses, weightedOf) : undefined;
  if (factors) {
    weighted = false;
    notes.push(`class weights divided out of the stored counts (${classes.map((label, c) => `${String(label)}: ${+factors[c].toPrecision(6)}`).join(', ')}), read from leaves that hold one class and checked on every node`);
  } else if (weighted) {
    notes.push('class or sample weights make the stored counts weighted, not row counts');
  }

  const trees: Tree[] = raws.map((t) => {
    const n = t.nodeCount;
    const cw: number[] = new Array(n * nClasses);
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < nClasses; c++) {
        const x = weightedOf(t, i, c);
        cw[i * nClasses + c] = factors ? Math.round(x / factors[c]) : weighted || layout === 'counts' ? x : Math.round(x);
      }
    }
    return { ...treeStructure(t), classWeights: cw };
  });

  const training = trainingFacts(st, raws, isForest, weighted, notes);
  // The roots' stored weights are weighted sums; without bootstrap, n_node_samples counts the rows.
  if (factors) training.rows = raws[0].nodeSamples[0];
  const hyperParameters = hyperParametersOf(st, HYPER_PARAMETERS);

  if (version) notes.push(`scikit-learn ${version}`);
  if (raws[0].missingLeft) notes.push('node records carry missing_go_to_left (scikit-learn >= 1.3)');
  if (unreadDirections) notes.push(unreadDirections);
  const infiniteSplits = negativeInfinityNote(raws);
  if (infiniteSplits) notes.push(infiniteSplits);


  const forest: ForestInput = {
    ...forestHeader(cls, version, featureNames, hyperParameters),
    task: 'classification',
    ...(outputs > 1 ? { outputs } : {}),
    classes,
    training,
    trees,
  };
  return { forest, notes };
}
