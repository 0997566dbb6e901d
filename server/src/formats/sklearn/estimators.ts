/**
 * The estimator registry: which class a decoder reads into the forest IR, and which tree models
 * are recognised but not read yet (so a file holding one gets a note, not a warning).
 *
 * A new tree model is one decoder module in this folder and one entry in DECODERS. Entries name
 * the library whose module paths they accept, because class names alone are not unique
 * (`xgboost.sklearn.XGBClassifier` is not scikit-learn's).
 */
import { asString, classOf, type PyDict, type PyGlobal, type PyValue } from '../pickle';
import type { Decoded } from './decode-helpers';
import { TREE_CLASSIFIERS, decodeTreeClassifier } from './tree-classifier';
import { XGBOOST_CLASSES, decodeXgboostPickle } from './xgboost-pickle';
import { TREE_REGRESSORS, decodeTreeRegressor } from './tree-regressor';
import { GRADIENT_BOOSTING, decodeGradientBoosting } from './gradient-boosting';
import { HIST_GRADIENT_BOOSTING, decodeHistGradientBoosting } from './hist-gradient-boosting';
import { BAGGING, decodeBagging } from './bagging';
import { ADABOOST, decodeAdaBoost } from './adaboost';
import { ISOLATION_FOREST, decodeIsolationForest } from './isolation-forest';

export type EstimatorDecoder = (est: PyValue, cls: PyGlobal) => Decoded;

interface DecoderEntry {
  /** Top-level package of the class's module (`sklearn`, `xgboost`). */
  library: string;
  classes: readonly string[];
  decode: EstimatorDecoder;
}

const DECODERS: readonly DecoderEntry[] = [
  { library: 'sklearn', classes: TREE_CLASSIFIERS, decode: decodeTreeClassifier },
  { library: 'xgboost', classes: XGBOOST_CLASSES, decode: decodeXgboostPickle },
  { library: 'sklearn', classes: TREE_REGRESSORS, decode: decodeTreeRegressor },
  { library: 'sklearn', classes: GRADIENT_BOOSTING, decode: decodeGradientBoosting },
  { library: 'sklearn', classes: HIST_GRADIENT_BOOSTING, decode: decodeHistGradientBoosting },
  { library: 'sklearn', classes: BAGGING, decode: decodeBagging },
  { library: 'sklearn', classes: ADABOOST, decode: decodeAdaBoost },
  { library: 'sklearn', classes: ISOLATION_FOREST, decode: decodeIsolationForest },
];

function libraryOf(cls: PyGlobal): string {
  return cls.module.split('.')[0];
}

/** The decoder for a class, if a registered library defines it. */
export function decoderFor(cls: PyGlobal): EstimatorDecoder | undefined {
  const library = libraryOf(cls);
  return DECODERS.find((entry) => entry.library === library && entry.classes.includes(cls.name))?.decode;
}

const IMBLEARN_ENSEMBLES = new Set(['BalancedRandomForestClassifier', 'BalancedBaggingClassifier', 'EasyEnsembleClassifier', 'RUSBoostClassifier']);

/** Whether an imbalanced-learn ensemble's base estimator is a tree model (its default; a BalancedBaggingClassifier may wrap anything). */
function holdsTrees(state: PyDict | undefined): boolean {
  const base = state?.get('estimator') ?? state?.get('base_estimator');
  if (base === undefined || base === null || asString(base) === 'deprecated') return true;
  const name = classOf(base)?.name ?? '';
  return /Tree|Forest|Boost|Bagging/.test(name);
}

/**
 * Tree models this tool recognises but does not read yet, with why; undefined for anything else.
 * Checked after `decoderFor`, so a class that gains a decoder leaves this list by itself.
 */
export function unreadTreeModel(cls: PyGlobal, state?: PyDict): string | undefined {
  const library = libraryOf(cls);
  if (library === 'lightgbm' && /^(LGBM\w+|Booster)$/.test(cls.name)) {
    // The scikit-learn API keeps `_Booster = None` until fit: an unfitted template (a custom
    // ensemble's constructor argument beside its fitted copy) holds no data.
    if (cls.name !== 'Booster' && state?.has('_Booster') && state.get('_Booster') === null) return `${cls.name} was never fitted (its _Booster is None)`;
    return 'LightGBM models are not read yet';
  }
  if (library === 'catboost' && /^CatBoost\w*$/.test(cls.name)) return 'CatBoost models are not read yet';
  // imbalanced-learn's ensembles grow each tree on its own resampling of the rows (the samplers'
  // indices are stored beside the trees), which this tool does not replay: read as plain trees they
  // claimed "no bootstrap" and a wrong N (sweep 7), so they are named, not read.
  if (library === 'imblearn' && IMBLEARN_ENSEMBLES.has(cls.name) && holdsTrees(state)) {
    return `imbalanced-learn's ${cls.name} is not read yet: each of its trees grew on its own resampling of the rows (stored indices this tool does not replay)`;
  }
  if (library === 'sklearn' && /(Forest|Tree|Trees|Boosting|Bagging)\w*(Classifier|Regressor)$|^AdaBoost(Classifier|Regressor)$|^IsolationForest$|^RandomTreesEmbedding$/.test(cls.name)) {
    // scikit-learn's check_is_fitted: a fitted estimator has an attribute ending in `_`.
    if (state && !state.keys.some((k) => typeof k === 'string' && k.endsWith('_') && !k.startsWith('_'))) return `${cls.name} was never fitted`;
    return `scikit-learn's ${cls.name} is not read yet`;
  }
  return undefined;
}
