/**
 * Finds every tree model inside what people save: a bare estimator, a Pipeline (any step), a
 * ColumnTransformer or FeatureUnion, a search (`best_estimator_`), CalibratedClassifierCV (each
 * fold's estimator), Voting/Stacking ensembles, MultiOutput and one-vs-rest wrappers,
 * SelectFromModel, and plain dict/list/tuple containers of any of these.
 *
 * The walk is generic rather than a list of wrappers: scikit-learn names fitted attributes with a
 * trailing underscore, so inside an estimator only those are followed (plus the few containers
 * that hold fitted estimators under a parameter name: Pipeline.steps, FeatureUnion.transformer_list,
 * and the private helper objects such as `_CalibratedClassifier`). That skips the unfitted
 * templates that wrappers keep as parameters (`GridSearchCV.estimator`), which hold no data.
 * Other classes (a project's own `ModelWrapper` with `self.model = forest`) have every attribute
 * followed.
 *
 * Each model gets a location: the Python expression that reaches it from the loaded object, e.g.
 * `model.named_steps["rf"]` or `model["clf"].best_estimator_`, so a person can look at it.
 */
import {
  PyDict,
  PyGlobal,
  PyValue,
  asNdArray,
  asNumpyScalar,
  asString,
  classOf,
  isArray,
  seqItems,
  stateDict,
} from '../pickle';
import { decoderFor, unreadTreeModel, type EstimatorDecoder } from './estimators';
import { memberRoles, type MemberRole } from './member-roles';
import { rowOutputsOf, storedRowsOf } from './stored-rows';
import type { SavedData } from '../types';
import { namedEntries, pythonKey } from './decode-helpers';

/** The name the loaded object goes by in locations. */
export const ROOT = 'model';

export interface FoundEstimator {
  value: PyValue;
  cls: PyGlobal;
  location: string;
  decode: EstimatorDecoder;
}

export interface UnreadEstimator {
  location: string;
  estimator: string;
  reason: string;
  /** Its class as the pickle names it (`catboost.core.CatBoostRegressor`), for another library's model. */
  global?: string;
}

export interface Walk {
  /** Tree models a decoder reads, in the order met. */
  models: FoundEstimator[];
  /** Tree models recognised but not read. */
  unread: UnreadEstimator[];
  /** Class names of every other object met, in order, for "the file holds ..." messages. */
  others: string[];
  /** Per Pipeline step (the step's object), the fitted steps before it: what its input went through. */
  precedingSteps: Map<object, PyValue[]>;
  /**
   * Models whose preceding steps are a preprocessor saved beside them in the same dict, list or
   * tuple (`{"preprocessor": ct, "model": forest}`), not a Pipeline's steps.
   */
  besideSteps: Set<object>;
  /** What a wrapper makes of the members it holds (OneVsRest, TransformedTargetRegressor, CalibratedClassifierCV's folds), by their locations (./member-roles.ts). */
  memberRoles: Map<string, MemberRole>;
  /**
   * Feature names saved beside a model in the same dict (`{"model": m, "features": [...]}`), by the
   * dict's other values, with the key they sit under: names for a model fitted on a bare array.
   */
  besideNames: Map<object, { key: string; names: string[] }>;
  /** Locations of the models found in a constructor parameter (fitted before being handed on): a copy of another model there is read once. */
  fromParameters: Set<string>;
  /** Fitted estimators that keep training rows word for word, and models that keep an output per training row (./stored-rows.ts). */
  storedRows: SavedData[];
}

/**
 * What a project saves beside its model to prepare the rows (`joblib.dump({"scaler": s, "model": m})`):
 * a fitted transformer the Pipeline naming follows, or a Pipeline of them only.
 */
const PREPROCESSORS = new Set(['ColumnTransformer', 'FeatureUnion', 'StandardScaler', 'MinMaxScaler', 'MaxAbsScaler', 'RobustScaler', 'OneHotEncoder', 'OrdinalEncoder', 'SimpleImputer', 'DictVectorizer', 'Binarizer']);

function isPreprocessor(v: PyValue | undefined, depth = 0): boolean {
  const cls = classOf(v);
  if (!cls) return false;
  if (PREPROCESSORS.has(cls.name)) return true;
  if (cls.name !== 'Pipeline' || depth > 4) return false;
  const steps = namedEntries(stateDict(v)?.get('steps'));
  return !!steps && steps.length > 0 && steps.every((step) => isPreprocessor(step[1], depth + 1));
}

/** Bounds that keep a hostile graph (deep, wide or cyclic through the memo) cheap to walk. */
const MAX_DEPTH = 24;
const MAX_VISITS = 200_000;

/** Parameters (no trailing underscore) that hold fitted estimators all the same. */
const FITTED_PARAMETERS: Record<string, readonly string[]> = {
  Pipeline: ['steps'],
  FeatureUnion: ['transformer_list'],
  // scikit-learn 1.6+ wraps a fitted model to calibrate or stack it as it is (what replaced
  // cv="prefit"): CalibratedClassifierCV(FrozenEstimator(StackingClassifier(forest, ...))) hid a
  // whole stack in a public file (sweep 9).
  FrozenEstimator: ['estimator'],
};

/** Attributes that hold a fitted list whose names stand in another attribute. */
const NAMED_LISTS: Record<string, { list: string; names: string; accessor: string }> = {
  steps: { list: 'steps', names: 'steps', accessor: 'named_steps' },
  transformer_list: { list: 'transformer_list', names: 'transformer_list', accessor: 'named_transformers' },
  transformers_: { list: 'transformers_', names: 'transformers_', accessor: 'named_transformers_' },
};

export function findModels(root: PyValue): Walk {
  const walk: Walk = { models: [], unread: [], others: [], precedingSteps: new Map(), besideSteps: new Set(), memberRoles: new Map(), besideNames: new Map(), storedRows: [], fromParameters: new Set() };
  const seen = new Set<object>();
  let visits = 0;

  // `owner`: the estimator whose attribute `v` is.
  const visit = (v: PyValue | undefined, location: string, depth: number, owner?: PyGlobal): void => {
    if (v === undefined || v === null || typeof v !== 'object') return;
    if (depth > MAX_DEPTH || ++visits > MAX_VISITS || seen.has(v)) return;
    seen.add(v);

    if (v instanceof PyDict) {
      const named = namesEntry(v);
      if (named) for (const value of v.values) if (value !== null && typeof value === 'object') walk.besideNames.set(value, named);
      v.keys.forEach((key, i) => visit(v.values[i], `${location}[${pythonKey(key)}]`, depth + 1));
      pairBeside(v.values);
      return;
    }
    const items = seqItems(v) ?? objectArrayItems(v);
    if (items) {
      items.forEach((item, i) => visit(item, `${location}[${i}]`, depth + 1));
      pairBeside(items);
      return;
    }
    const cls = classOf(v);
    if (!cls) return;
    // An ensemble of other models than trees (AdaBoost of SVCs, Bagging of k-NN) is no tree model:
    // it is walked like any object, so that its members' stored rows are found (sweep 15: a
    // public AdaBoost of 50 SVCs read "a tree model here is not read", its 118 rows unsaid).
    const nonTrees = ensemblesNonTrees(v);
    const decode = nonTrees ? undefined : decoderFor(cls);
    if (decode) {
      walk.models.push({ value: v, cls, location, decode });
      const state = stateDict(v);
      if (state) walk.storedRows.push(...rowOutputsOf(cls, state, location));
      return;
    }
    const reason = nonTrees ? undefined : unreadTreeModel(cls, stateDict(v));
    if (reason) {
      walk.unread.push({ location, estimator: cls.name, reason, global: cls.qualified });
      return;
    }
    if (isArray(v)) return;
    walk.others.push(cls.name);
    const state = stateDict(v);
    if (!state) return;
    const rows = storedRowsOf(cls, state, location, owner);
    if (rows) walk.storedRows.push(rows);
    for (const [at, role] of memberRoles(v, location)) walk.memberRoles.set(at, role);
    // Names saved beside a Pipeline name its input: its steps inherit them (the model's, when no step renames).
    const inherited = walk.besideNames.get(v);
    if (inherited) for (const step of namedEntries(state.get('steps')) ?? []) if (step[1] !== null && typeof step[1] === 'object') walk.besideNames.set(step[1], inherited);
    // scikit-learn's convention (fitted attributes end in `_`) holds for its own estimators and
    // those built on its base classes (they carry `_sklearn_version`); a project's own wrapper
    // class (`self.model = forest`) follows no convention, so all of its attributes are followed.
    const modelsBefore = walk.models.length;
    const sklearnStyle = (cls.module.startsWith('sklearn.') || state.has('_sklearn_version')) && !cls.name.startsWith('_');
    const fittedParameters = FITTED_PARAMETERS[cls.name] ?? [];
    const parameters: [string, PyValue][] = [];
    state.keys.forEach((key, i) => {
      const name = asString(key);
      if (name === undefined || name.startsWith('__')) return;
      const fitted = !sklearnStyle || (name.endsWith('_') && !name.startsWith('_')) || fittedParameters.includes(name);
      const value = state.values[i];
      if (!fitted) {
        parameters.push([name, value]);
        return;
      }
      const named = NAMED_LISTS[name];
      if (named && visitNamedList(value, `${location}.${named.accessor}`, depth)) return;
      if (name === 'estimators_' && visitNamedEstimators(state, value, location, depth)) return;
      visit(value, `${location}.${name}`, depth + 1, cls);
    });
    // A constructor parameter is a template, but one the user fitted before passing it stays
    // fitted in the file (scikit-learn fits clones): SelectFromModel(forest, prefit=True) keeps
    // its only forest there, CalibratedClassifierCV(fitted_forest, cv=3) a forest fitted on every
    // row beside its fold models. After the fitted attributes, so a model they share keeps their
    // name (cv="prefit": the same object as calibrated_classifiers_[0].estimator).
    for (const [name, value] of parameters) visitFittedTemplates(value, `${location}.${name}`, depth + 1, cls);
    // A Pipeline step that hands its whole input to each of its models (MultiOutputRegressor's
    // estimators_): they were fitted on what the earlier steps made, so they are named by them too
    // (sweep 17: a public Pipeline(ColumnTransformer, MultiOutputRegressor(forest)) read x0..x12).
    const preceding = walk.precedingSteps.get(v);
    if (preceding && INPUT_SHARING_WRAPPERS.has(cls.name)) {
      for (const found of walk.models.slice(modelsBefore)) {
        if (typeof found.value === 'object' && found.value !== null && !walk.precedingSteps.has(found.value)) walk.precedingSteps.set(found.value, preceding);
      }
    }
  };

  /** Visits the fitted estimators in a parameter's value (an estimator, or lists and dicts of them); templates never fitted are left alone. */
  const visitFittedTemplates = (v: PyValue | undefined, location: string, depth: number, owner: PyGlobal): void => {
    if (v === undefined || v === null || typeof v !== 'object' || depth > MAX_DEPTH || seen.has(v)) return;
    if (v instanceof PyDict) {
      v.keys.forEach((key, i) => visitFittedTemplates(v.values[i], `${location}[${pythonKey(key)}]`, depth + 1, owner));
      return;
    }
    const items = seqItems(v);
    if (items) {
      items.forEach((item, i) => visitFittedTemplates(item, `${location}[${i}]`, depth + 1, owner));
      return;
    }
    if (!isFittedEstimator(v)) return;
    const before = walk.models.length;
    visit(v, location, depth, owner);
    for (const found of walk.models.slice(before)) walk.fromParameters.add(found.location);
  };

  /**
   * A container holding one preprocessor and tree models directly: the models were fitted on its
   * output (the naming checks that the widths agree before using it).
   */
  const pairBeside = (items: readonly PyValue[]): void => {
    const preprocessors = items.filter((item) => isPreprocessor(item));
    if (preprocessors.length !== 1) return;
    for (const found of walk.models) {
      const value = found.value;
      if (typeof value !== 'object' || value === null || !items.includes(value) || walk.precedingSteps.has(value)) continue;
      walk.precedingSteps.set(value, preprocessors);
      walk.besideSteps.add(value);
    }
  };

  /** `[(name, estimator, ...), ...]` lists: Pipeline steps, FeatureUnion and ColumnTransformer parts. */
  const visitNamedList = (list: PyValue, accessor: string, depth: number): boolean => {
    const entries = namedEntries(list);
    if (!entries) return false;
    const steps = accessor.endsWith('.named_steps') ? entries.map((pair) => pair[1]) : undefined;
    entries.forEach((pair, i) => {
      if (steps && i > 0 && pair[1] !== null && typeof pair[1] === 'object') walk.precedingSteps.set(pair[1], steps.slice(0, i));
      visit(pair[1], `${accessor}[${pythonKey(pair[0])}]`, depth + 1);
    });
    return true;
  };

  /**
   * Voting and Stacking keep their fitted members in `estimators_`, in the order of the
   * `(name, estimator)` parameter with dropped members left out; name them as `named_estimators_`.
   */
  const visitNamedEstimators = (state: PyDict, fitted: PyValue, location: string, depth: number): boolean => {
    const members = seqItems(fitted);
    const declared = seqItems(state.get('estimators'));
    if (!members || !declared) return false;
    const names = declared
      .map((entry) => seqItems(entry))
      .filter((pair): pair is PyValue[] => !!pair && pair.length >= 2 && asString(pair[0]) !== undefined && pair[1] !== 'drop')
      .map((pair) => asString(pair[0])!);
    if (names.length !== members.length) return false;
    members.forEach((member, i) => visit(member, `${location}.named_estimators_[${pythonKey(names[i])}]`, depth + 1));
    return true;
  };

  visit(root, ROOT, 0);
  return walk;
}

/** A dict entry that lists feature names (`"features"`, `"feature_names"`, `"columns"`): a list, tuple or array of strings. */
function namesEntry(d: PyDict): { key: string; names: string[] } | undefined {
  for (let i = 0; i < d.keys.length; i++) {
    const key = asString(d.keys[i]);
    if (key === undefined || !/^(feature|column|col|input)(s|_names?|_list|_cols|_columns)?$|^(x_?)?(columns|cols|features)$|^feature_?names?$/i.test(key)) continue;
    const value = d.values[i];
    // A list of numpy strings (`list(df.columns)` of a NumPy-backed Index) pickles each as a numpy scalar.
    const items = (seqItems(value) ?? (isArray(value) ? tryValues(value) : undefined))?.map((x) => (typeof x === 'string' ? x : asNumpyScalar(x)));
    if (items && items.length > 0 && items.every((x) => typeof x === 'string')) return { key, names: items as string[] };
  }
  return undefined;
}

function tryValues(v: PyValue): PyValue[] | undefined {
  try {
    return asNdArray(v).values() as PyValue[];
  } catch {
    return undefined;
  }
}

/** Elements of a numpy object array (gradient boosting keeps its stages in one), else undefined. */
function objectArrayItems(v: PyValue): PyValue[] | undefined {
  if (!isArray(v)) return undefined;
  try {
    return asNdArray(v).objects;
  } catch {
    return undefined;
  }
}


/**
 * An estimator object that was fitted: scikit-learn's fitted attributes end in `_`
 * (`n_features_in_`, `estimators_`, `tree_`), XGBoost's and LightGBM's wrappers keep `_Booster`.
 * A template never fitted has only its constructor parameters.
 */
function isFittedEstimator(v: PyValue): boolean {
  if (!classOf(v) || isArray(v)) return false;
  const state = stateDict(v);
  if (!state) return false;
  return state.keys.some((key) => {
    const name = asString(key);
    return name !== undefined && ((name.endsWith('_') && !name.startsWith('_')) || name === '_Booster');
  });
}

/** Wrappers whose every model is fitted on the wrapper's whole input X, unchanged. */
const INPUT_SHARING_WRAPPERS = new Set(['MultiOutputRegressor', 'MultiOutputClassifier', 'OneVsRestClassifier', 'OneVsOneClassifier']);

/** Trees a scikit-learn ensemble may hold (its `estimators_`). */
const TREE_MEMBERS = /^(DecisionTree|ExtraTree)(Classifier|Regressor)$/;

/** Whether a fitted AdaBoost or Bagging ensemble holds members that are not trees. */
function ensemblesNonTrees(v: PyValue): boolean {
  const cls = classOf(v);
  if (!cls || !/^(AdaBoost|Bagging)(Classifier|Regressor)$/.test(cls.name)) return false;
  const members = seqItems(stateDict(v)?.get('estimators_'));
  if (!members || members.length === 0) return false;
  return members.some((member) => {
    const name = classOf(member)?.name;
    return name !== undefined && !TREE_MEMBERS.test(name);
  });
}
