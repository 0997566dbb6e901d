/**
 * Training rows that fitted estimators keep word for word: a nearest-neighbour search keeps the rows
 * it searches (`_fit_X`), so a KNNImputer in front of a forest keeps every training row, and
 * imbalanced-learn's SMOTE keeps the minority class's rows in its fitted neighbours (`nn_k_`); an SVM
 * keeps its support vectors, a Gaussian process and a kernel ridge their training rows. The rows are
 * the estimator's input (after the Pipeline's earlier steps: scaled, imputed), but they are rows
 * of the training set all the same (rule `saved-data`). Only shapes are read, never the values.
 */
import { isArray } from '../pickle/numpy';
import { asString, classOf, PyDict, seqItems, stateDict, type PyGlobal, type PyValue } from '../pickle/values';
import type { SavedData } from '../types';
import { shapeOfArray } from './saved-data';
import { namedEntries } from './find-models';

interface Keeper {
  module: RegExp;
  classes: RegExp;
  attribute: string;
  /** What the rows are, in the finding. */
  rows: string;
}

const KEEPERS: readonly Keeper[] = [
  { module: /^sklearn\.neighbors\./, classes: /^(NearestNeighbors|KNeighbors(Classifier|Regressor|Transformer)|RadiusNeighbors(Classifier|Regressor|Transformer)|LocalOutlierFactor)$/, attribute: '_fit_X', rows: 'the rows it searches' },
  { module: /^sklearn\.impute\./, classes: /^KNNImputer$/, attribute: '_fit_X', rows: 'the rows it imputes from' },
  { module: /^sklearn\.svm\./, classes: /^(SVC|SVR|NuSVC|NuSVR|OneClassSVM)$/, attribute: 'support_vectors_', rows: 'its support vectors' },
  { module: /^sklearn\.gaussian_process\./, classes: /^GaussianProcessRegressor$/, attribute: 'X_train_', rows: 'its training rows' },
  { module: /^sklearn\.kernel_ridge/, classes: /^KernelRidge$/, attribute: 'X_fit_', rows: 'its training rows' },
];

/** Bounds that keep a hostile graph cheap to walk (as find-models.ts). */
const MAX_DEPTH = 16;
const MAX_VISITS = 100_000;

/** Every fitted estimator in the saved object that keeps training rows, with where they sit. */
export function findStoredRows(root: PyValue): SavedData[] {
  const out: SavedData[] = [];
  const seen = new Set<object>();
  let visits = 0;
  // `owner`: the estimator whose attribute this is (SMOTE, for its fitted neighbours).
  const visit = (v: PyValue | undefined, location: string, depth: number, owner?: PyGlobal): void => {
    if (v === undefined || v === null || typeof v !== 'object' || isArray(v)) return;
    if (depth > MAX_DEPTH || ++visits > MAX_VISITS || seen.has(v)) return;
    seen.add(v);
    if (v instanceof PyDict) {
      v.keys.forEach((key, i) => visit(v.values[i], `${location}[${typeof key === 'string' ? JSON.stringify(key) : String(key)}]`, depth + 1));
      return;
    }
    const items = seqItems(v);
    if (items) {
      items.forEach((item, i) => visit(item, `${location}[${i}]`, depth + 1));
      return;
    }
    const cls = classOf(v);
    const state = stateDict(v);
    if (!cls || !state) return;
    const keeper = KEEPERS.find((k) => k.module.test(cls.module) && k.classes.test(cls.name));
    const kept = keeper ? state.get(keeper.attribute) : undefined;
    const shape = kept !== undefined && isArray(kept) ? shapeOfArray(kept) : undefined;
    if (keeper && shape && shape.length === 2 && shape[0] > 0) {
      // A resampler's neighbours are needed only while fitting, an imputer can be swapped, a model is its rows.
      const sampler = owner !== undefined && owner.module.startsWith('imblearn.');
      const what = sampler ? 'resampler' : cls.name === 'KNNImputer' ? 'imputer' : 'model';
      out.push({ location: `${location}.${keeper.attribute}`, kind: 'fitted-rows', rows: shape[0], columns: shape[1], estimator: cls.name, what: keeper.rows, keeper: what, ...(sampler ? { owner: owner.name } : {}) });
    }
    const steps = namedEntries(state.get('steps'));
    state.keys.forEach((key, i) => {
      if (typeof key !== 'string' || (keeper && key === keeper.attribute)) return;
      // A Pipeline's steps by name, as find-models.ts names them.
      if (key === 'steps' && steps) {
        for (const [name, step] of steps) visit(step, `${location}.named_steps[${JSON.stringify(asString(name))}]`, depth + 1);
        return;
      }
      visit(state.values[i], `${location}.${key}`, depth + 1, cls);
    });
  };
  visit(root, 'model', 0);
  return out;
}
