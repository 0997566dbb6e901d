/**
 * Training rows that fitted estimators keep word for word: a nearest-neighbour search keeps the rows
 * it searches (`_fit_X`), so a KNNImputer in front of a forest keeps every training row, and
 * imbalanced-learn's SMOTE keeps the minority class's rows in its fitted neighbours (`nn_k_`); an SVM
 * keeps its support vectors, a Gaussian process and a kernel ridge their training rows. The rows are
 * the estimator's input (after the Pipeline's earlier steps: scaled, imputed), but they are rows
 * of the training set all the same (rule `saved-data`). Only shapes are read, never the values.
 *
 * A bagged ensemble fitted with `oob_score=True` keeps, besides its score, each training row's
 * out-of-bag prediction in training order (`oob_decision_function_`: class probabilities;
 * `oob_prediction_`: a regressor's targets, each predicted by the trees that did not draw the row):
 * not the rows, but a label or target per row, found on the model itself (`rowOutputsOf`).
 */
import { isArray } from '../pickle/numpy';
import { classOf, seqItems, stateDict, type PyDict, type PyGlobal, type PyValue } from '../pickle/values';
import type { SavedData } from '../types';
import { shapeOfArray } from './saved-data';

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

/**
 * The training rows a fitted estimator keeps, when it is one of KEEPERS (found by the model walk,
 * ./find-models.ts, at `location`); `owner`: the estimator whose attribute it is (SMOTE, for its
 * fitted neighbours).
 */
export function storedRowsOf(cls: PyGlobal, state: PyDict, location: string, owner?: PyGlobal): SavedData | undefined {
  const keeper = KEEPERS.find((k) => k.module.test(cls.module) && k.classes.test(cls.name));
  const kept = keeper ? state.get(keeper.attribute) : undefined;
  const shape = kept === undefined ? undefined : isArray(kept) ? shapeOfArray(kept) : sparseShape(kept);
  if (!keeper || !shape || shape.length !== 2 || shape[0] <= 0) return undefined;
  // A resampler's neighbours are needed only while fitting, an imputer can be swapped, a model is its rows.
  const sampler = owner !== undefined && owner.module.startsWith('imblearn.');
  const what = sampler ? 'resampler' : cls.name === 'KNNImputer' ? 'imputer' : 'model';
  return { location: `${location}.${keeper.attribute}`, kind: 'fitted-rows', rows: shape[0], columns: shape[1], estimator: cls.name, what: keeper.rows, keeper: what, ...(sampler ? { owner: owner.name } : {}) };
}

/**
 * The shape of a scipy sparse matrix or array (`_shape`, `shape` before scipy 1.8): SMOTENC keeps its
 * minority rows one-hot encoded that way (sweep 12: 1,259 rows of a public loan model went unseen).
 */
function sparseShape(v: PyValue): number[] | undefined {
  const cls = classOf(v);
  if (!cls || !cls.module.startsWith('scipy.sparse') || !/^(csr|csc|coo|lil|dok|bsr)_(matrix|array)$/.test(cls.name)) return undefined;
  const state = stateDict(v);
  const shape = seqItems(state?.get('_shape') ?? state?.get('shape'));
  const dims = shape?.map((d) => (typeof d === 'number' ? d : typeof d === 'bigint' ? Number(d) : NaN));
  return dims && dims.length === 2 && dims.every((d) => Number.isInteger(d) && d >= 0) ? dims : undefined;
}

/** The out-of-bag outputs an ensemble fitted with `oob_score=True` keeps, one per training row. */
const ROW_OUTPUTS: readonly { attribute: string; what: string }[] = [
  { attribute: 'oob_decision_function_', what: 'out-of-bag class probabilities of each training row' },
  { attribute: 'oob_prediction_', what: 'out-of-bag prediction of each training row (its target, as the trees that did not draw it predict it)' },
  // scikit-learn 1.9's forests keep the weight each training row was fitted with (a public
  // StackingClassifier's forest with class_weight='balanced': 4,900 weights, one of two values,
  // so each row's class, in training order).
  { attribute: '_sample_weight', what: "sample weight of each training row (with class_weight, its class's weight: its class)" },
];

/** A tree ensemble's per-row outputs or weights (the model at `location`), those it kept. */
export function rowOutputsOf(cls: PyGlobal, state: PyDict, location: string): SavedData[] {
  const found: SavedData[] = [];
  for (const { attribute, what } of ROW_OUTPUTS) {
    const kept = state.get(attribute);
    const shape = kept !== undefined && isArray(kept) ? shapeOfArray(kept) : undefined;
    if (!shape || shape.length < 1 || shape.length > 2 || shape[0] <= 0) continue;
    found.push({ location: `${location}.${attribute}`, kind: 'row-outputs', rows: shape[0], ...(shape.length === 2 ? { columns: shape[1] } : {}), estimator: cls.name, what });
  }
  return found;
}
