/**
 * The features a Pipeline step sees, named from the fitted steps before it as scikit-learn's
 * `get_feature_names_out()` names them: a forest fitted after a ColumnTransformer was fitted on a
 * numpy array, so it stores no names of its own (`x0`, `x1`, ...), while its findings should say
 * `num__age` and `cat__city_Paris`. Read from the fitted state alone (nothing is run):
 *
 * - one-to-one transformers keep their input names (scalers, OrdinalEncoder, Binarizer, imputers
 *   less the columns they drop, plus `missingindicator_<name>` columns when they add indicators);
 *   a 0/1 column stays 0/1 only through an imputer or a Binarizer;
 * - OneHotEncoder gives `<input>_<category>` per category kept (marked binary: 0 or 1);
 * - ColumnTransformer concatenates its parts' outputs in order, `<part>__<name>` unless
 *   `verbose_feature_names_out=False`; FeatureUnion likewise; a nested Pipeline chains its steps.
 *
 * - feature selectors (SelectKBest, SelectFromModel, RFE, VarianceThreshold, ...) keep the
 *   columns their fitted state selects (./selectors.ts).
 *
 * Anything else (PCA, polynomial features, a project's own transformer) gives no names: the model
 * keeps `x0..`, as before.
 *
 * The same walk records where each feature comes from: the input column and the operations the
 * steps apply to it (./pipeline-ops.ts), so that a CSV of the Pipeline's own input can be turned
 * into the model's values (forest/pipeline-input.ts). A step whose operations are not known
 * (PowerTransformer, Normalizer) still names its features; they just have no source.
 */
import type { Category, ColumnOp, PipelineInput } from '../../forest/pipeline-input';
import { PyCall, PyDict, type PyValue, asString, classOf, isArray, numeric, seqItems, stateDict } from '../pickle';
import { arrayOrThrow, labelOf, namedEntries, pythonFloat } from './decode-helpers';
import { categoriesOf, oneToOneOps, toCategory } from './pipeline-ops';
import { SELECTORS, selectorMask } from './selectors';

export interface StepFeature {
  name: string;
  /** OneHotEncoder's outputs are 0 or 1. */
  binary?: boolean;
  /** The columns one OneHotEncoder wrote for one input share this object (see OneHotGroup). */
  group?: OneHotGroup;
  /** The Pipeline's input column this feature comes from and what the steps so far did to it. */
  source?: PipelineInput['features'][number];
}

/**
 * What a OneHotEncoder's columns for one input say about every row it encoded: exactly one of them
 * is 1 (`exact`: no category dropped and unknown categories refused, so every training row had a
 * known one), or at most one (a dropped category, or unknown ones encoded as all zeros).
 */
export interface OneHotGroup {
  exact: boolean;
}

/**
 * Transformers whose output column i is input column i (get_feature_names_out returns the inputs)
 * with its values changed, so a 0/1 column in is no longer one out.
 */
const ONE_TO_ONE = new Set([
  'StandardScaler',
  'MinMaxScaler',
  'MaxAbsScaler',
  'RobustScaler',
  'Normalizer',
  'PowerTransformer',
  'QuantileTransformer',
  'OrdinalEncoder',
]);

/** Bounds a hostile file's nesting (a cycle ends here too) and width. */
const MAX_DEPTH = 16;
const MAX_VISITS = 10_000;
const MAX_FEATURES = 1_000_000;

/**
 * The features the step after `steps` sees, named as scikit-learn names them, or undefined when a
 * step's output cannot be named from its fitted state; with, when every feature has a source, how
 * each is computed from the columns the first step was given (`pipelineInput`). The first step's
 * inputs are its `feature_names_in_`, or `x0..` for its `n_features_in_`.
 */
export function pipelineFeatures(
  steps: readonly PyValue[],
  savedNames?: readonly string[],
): { features: StepFeature[]; pipelineInput?: PipelineInput; unsourced?: string; namedBySaved?: boolean } | { features: undefined; unfollowed?: string } {
  const walk: Walk = { visits: 0, categories: new Map(), ...(savedNames ? { savedNames } : {}) };
  const features = chain(steps, undefined, walk, 0);
  if (!features) return { features: undefined, ...(walk.unfollowed ? { unfollowed: walk.unfollowed } : {}) };
  const sources = features.map((f) => f.source);
  const saved = walk.namedBySaved ? { namedBySaved: true } : {};
  if (!walk.inputColumns || sources.some((s) => s === undefined || s.input >= walk.inputColumns!.length)) return { features, ...saved, ...(walk.unsourced ? { unsourced: walk.unsourced } : {}) };
  const categories = [...walk.categories].map(([column, values]) => ({ column, values }));
  return { features, ...saved, pipelineInput: { columns: walk.inputColumns, features: sources as PipelineInput['features'], ...(categories.length ? { categories } : {}) } };
}

/** Steps looked at in one naming: a hostile file's shared or cyclic steps (the pickle's memo) end here. */
interface Walk {
  visits: number;
  /** The columns the first step that read the Pipeline's input was given. */
  inputColumns?: string[];
  /** The categories encoders know per input column (when they read it unchanged but for an imputer). */
  categories: Map<number, Category[]>;
  /** Names saved beside the model for the first step's numbered inputs (a `"features"` list in the same dict). */
  savedNames?: readonly string[];
  /** Set when they named the first step's input. */
  namedBySaved?: boolean;
  /** The first step whose output could not be named (for the note that says why names are x0..). */
  unfollowed?: string;
  /** The first step that named its output but whose operations are not known (no raw input then). */
  unsourced?: string;
}

function chain(steps: readonly PyValue[], inputs: StepFeature[] | undefined, walk: Walk, depth: number): StepFeature[] | undefined {
  let current = inputs;
  for (const step of steps) {
    current = featuresOut(step, current, walk, depth + 1);
    if (!current || current.length > MAX_FEATURES) return undefined;
  }
  return current;
}

function featuresOut(step: PyValue, inputs: StepFeature[] | undefined, walk: Walk, depth: number): StepFeature[] | undefined {
  // A hostile file can nest steps deeply, or make a step contain itself, or share one step between
  // many parts level after level: depth and the number of steps looked at are both bounded.
  if (depth > MAX_DEPTH || ++walk.visits > MAX_VISITS) return undefined;
  if (step === null || asString(step) === 'passthrough') return inputs;
  const cls = classOf(step);
  const state = stateDict(step);
  if (!cls || !state) {
    walk.unfollowed ??= cls?.name ?? asString(step) ?? 'a step';
    return undefined;
  }
  // imbalanced-learn's samplers act only while fitting: at transform time a row passes unchanged.
  // But the model was fitted on their output: SMOTE and its kin interpolate between rows, so a
  // one-hot column is no longer 0 or 1 in every row the model saw, nor its group exactly one.
  if (isSampler(cls)) {
    const passed = inputs ?? inputNames(step);
    // Random over-sampling repeats rows and under-samplers keep a subset, but ClusterCentroids
    // replaces rows by k-means centroids.
    const copies = cls!.name === 'RandomOverSampler' || (cls!.module.startsWith('imblearn.under_sampling') && cls!.name !== 'ClusterCentroids');
    return copies ? passed : passed?.map(({ name, source }) => ({ name, ...(source ? { source } : {}) }));
  }
  let named = inputs;
  if (!named) {
    named = inputNames(step);
    // Fitted on a bare array (x0, x1, ...), with the column names saved beside it: those name them.
    const saved = walk.savedNames;
    if (named && saved && !walk.inputColumns && saved.length === named.length && named.every((f, i) => f.name === `x${i}`)) {
      named = named.map((f, i) => ({ ...f, name: saved[i] }));
      walk.namedBySaved = true;
    }
    if (named && !walk.inputColumns) walk.inputColumns = named.map((f) => f.name);
  }
  switch (cls.name) {
    // DictVectorizer reads dicts, not columns: its output is named (`feature_names_`), never computed from a CSV.
    case 'DictVectorizer': {
      const names = seqItems(state.get('feature_names_'))?.map((v) => asString(v));
      if (!names || names.some((n) => n === undefined) || names.length > MAX_FEATURES) return undefined;
      walk.unsourced ??= cls.name;
      return names.map((name) => ({ name: name! }));
    }
    // FunctionTransformer without a function is the identity: scikit-learn 1.4+ stores a
    // ColumnTransformer's "passthrough" parts as FunctionTransformer(feature_names_out='one-to-one').
    // With a function (np.log1p) the names are kept when it says one-to-one, but the values are not followed.
    case 'FunctionTransformer': {
      if (!named) return undefined;
      if (state.get('func') === null || state.get('func') === undefined) return named;
      if (asString(state.get('feature_names_out')) !== 'one-to-one') {
        walk.unfollowed ??= cls.name;
        return undefined;
      }
      walk.unsourced ??= cls.name;
      return named.map(({ name }) => ({ name }));
    }
    case 'Pipeline':
      return chain(namedParts(state.get('steps')) ?? [], named, walk, depth);
    case 'ColumnTransformer':
      return named && columnTransformer(state, named, walk, depth);
    case 'FeatureUnion':
      return named && featureUnion(state, named, walk, depth);
    case 'OneHotEncoder':
      return named && oneHot(state, named, walk);
    case 'SimpleImputer':
      return named && imputer(state, named);
  }
  if (!named) return undefined;
  if (SELECTORS.has(cls.name)) return selected(cls.name, state, named, walk);
  const ops = ONE_TO_ONE.has(cls.name) || cls.name === 'Binarizer' ? oneToOneOps(cls.name, state, named.length) : undefined;
  if (!ops && (ONE_TO_ONE.has(cls.name) || cls.name === 'Binarizer')) walk.unsourced ??= cls.name;
  // (Scaled, a one-hot column is neither 0/1 nor part of a group whose ones add up to one.)
  if (cls.name === 'OrdinalEncoder') {
    named.forEach((f, i) => {
      const op = ops?.[i]?.[0];
      if (op?.op === 'ordinal') recordCategories(walk, f, op.categories);
    });
  }
  if (ONE_TO_ONE.has(cls.name)) return named.map((f, i) => ({ name: f.name, ...followed(f, ops?.[i]) }));
  // Binarizer: every column 0 or 1 (above its threshold or not).
  if (cls.name === 'Binarizer') return named.map((f, i) => ({ name: f.name, binary: true, ...followed(f, ops?.[i]) }));
  walk.unfollowed ??= cls.name;
  return undefined;
}

/**
 * The columns a feature selector keeps, unchanged. A one-hot group that loses a column no longer
 * has exactly one 1 per row (the row whose 1 was dropped has none), only at most one.
 */
function selected(name: string, state: NonNullable<ReturnType<typeof stateDict>>, inputs: StepFeature[], walk: Walk): StepFeature[] | undefined {
  const mask = selectorMask(name, state, inputs.length);
  if (!mask) {
    walk.unfollowed ??= name;
    return undefined;
  }
  const kept = inputs.filter((_, i) => mask[i]);
  const partial = new Map<OneHotGroup, OneHotGroup>();
  for (const f of inputs) if (f.group && !kept.includes(f) && !partial.has(f.group)) partial.set(f.group, { exact: false });
  return kept.map((f) => (f.group && partial.has(f.group) ? { ...f, group: partial.get(f.group) } : f));
}

/** An imbalanced-learn sampler (SMOTE, RandomUnderSampler, SMOTEENN, ...): a step that resamples the training rows. */
function isSampler(cls: { module: string; name: string } | undefined): boolean {
  return !!cls && /^imblearn\.(over_sampling|under_sampling|combine)(\.|$)/.test(cls.module);
}

/** The samplers among a Pipeline's steps before a model (imbalanced-learn's), by class name. */
export function resamplingSteps(steps: readonly PyValue[]): string[] {
  return steps.map((step) => classOf(step)).filter(isSampler).map((cls) => cls!.name);
}

/** An encoder's categories for the input column the feature is, when it is that column (an imputer aside). */
function recordCategories(walk: Walk, feature: StepFeature, categories: Category[]): void {
  if (feature.source && feature.source.ops.every((op) => op.op === 'impute')) walk.categories.set(feature.source.input, categories);
}

/** The feature's source with `ops` applied after what it had, or nothing when either is unknown. */
function followed(feature: StepFeature, ops: ColumnOp[] | undefined): Pick<StepFeature, 'source'> {
  return feature.source && ops ? { source: { input: feature.source.input, ops: [...feature.source.ops, ...ops] } } : {};
}

/**
 * What a step fitted directly on the data was given: `feature_names_in_`, else `x0..` for
 * `n_features_in_`. scikit-learn 0.24's ColumnTransformer kept the DataFrame's columns as
 * `_feature_names_in` (the public name came with 1.0): without it a public 0.24 Pipeline's
 * columns by name ('department', 'salary') matched no `x0..` and the input was not followed.
 */
function inputNames(step: PyValue, depth = 0): StepFeature[] | undefined {
  const state = stateDict(step);
  if (!state) return undefined;
  // SelectFromModel's inputs are its estimator's (scikit-learn 1.2 reads them from estimator_).
  if (classOf(step)?.name === 'SelectFromModel' && !state.has('n_features_in_') && depth === 0) {
    const inner = state.get('estimator_');
    return inner === undefined ? undefined : inputNames(inner, 1);
  }
  const names = state.get('feature_names_in_') ?? state.get('_feature_names_in');
  if (names !== undefined && names !== null && isArray(names)) {
    try {
      return arrayOrThrow(names, 'feature_names_in_').values().map((v, i) => ({ name: String(labelOf(v as PyValue)), source: { input: i, ops: [] } }));
    } catch {
      return undefined;
    }
  }
  const n = numeric(state.get('n_features_in_'));
  if (n === undefined || !Number.isInteger(n) || n < 0 || n > MAX_FEATURES) return undefined;
  return Array.from({ length: n }, (_, i) => ({ name: `x${i}`, source: { input: i, ops: [] } }));
}

function namedParts(list: PyValue | undefined): PyValue[] | undefined {
  return namedEntries(list)?.map((parts) => parts[1]);
}

function columnTransformer(state: NonNullable<ReturnType<typeof stateDict>>, inputs: StepFeature[], walk: Walk, depth: number): StepFeature[] | undefined {
  const parts = namedEntries(state.get('transformers_'));
  if (!parts) return undefined;
  const verbose = state.get('verbose_feature_names_out') !== false;
  const out: StepFeature[] = [];
  for (const [nameValue, transformer, columns] of parts) {
    if (++walk.visits > MAX_VISITS || out.length > MAX_FEATURES) return undefined;
    if (asString(transformer) === 'drop') continue;
    const picked = selectColumns(columns, inputs);
    if (!picked) return undefined;
    // scikit-learn leaves out parts that select no column (an empty remainder).
    if (picked.length === 0) continue;
    const produced = asString(transformer) === 'passthrough' ? picked : featuresOut(transformer, picked, walk, depth + 1);
    if (!produced) return undefined;
    const prefix = verbose ? `${asString(nameValue)}__` : '';
    for (const f of produced) out.push({ ...f, name: prefix + f.name });
  }
  return out;
}

function featureUnion(state: NonNullable<ReturnType<typeof stateDict>>, inputs: StepFeature[], walk: Walk, depth: number): StepFeature[] | undefined {
  const parts = namedEntries(state.get('transformer_list'));
  if (!parts) return undefined;
  const out: StepFeature[] = [];
  for (const [nameValue, transformer] of parts) {
    if (++walk.visits > MAX_VISITS || out.length > MAX_FEATURES) return undefined;
    if (asString(transformer) === 'drop') continue;
    const produced = featuresOut(transformer, inputs, walk, depth + 1);
    if (!produced) return undefined;
    for (const f of produced) out.push({ ...f, name: `${asString(nameValue)}__${f.name}` });
  }
  return out;
}

/** A ColumnTransformer part's columns: names, indices or a boolean mask (list or array), or one of them alone. */
function selectColumns(columns: PyValue | undefined, inputs: StepFeature[]): StepFeature[] | undefined {
  if (columns === undefined) return undefined;
  let items: PyValue[] | undefined = seqItems(columns);
  if (!items && isArray(columns)) {
    try {
      items = arrayOrThrow(columns, 'columns').values() as PyValue[];
    } catch {
      return undefined;
    }
  }
  // `X.select_dtypes(...).columns`: a pandas Index, pickled as _new_Index(cls, {'data': array, ...}).
  if (!items) items = pandasIndexValues(columns);
  // A slice of positions (scikit-learn keeps some column specs, the remainder's among them, as one).
  if (!items) items = sliceIndices(columns, inputs.length);
  if (!items) items = [columns];
  if (items.length > 0 && items.every((v) => typeof v === 'boolean')) {
    if (items.length !== inputs.length) return undefined;
    return inputs.filter((_, i) => items![i] === true);
  }
  const picked: StepFeature[] = [];
  for (const item of items) {
    const name = asString(item);
    const index = name === undefined ? numeric(item) : undefined;
    if (name !== undefined) {
      const at = inputs.findIndex((f) => f.name === name);
      if (at < 0) return undefined;
      picked.push(inputs[at]);
    } else if (index !== undefined && Number.isInteger(index) && index >= -inputs.length && index < inputs.length) {
      picked.push(inputs[index < 0 ? inputs.length + index : index]);
    } else {
      return undefined;
    }
  }
  return picked;
}

/** `slice(start, stop, step)` over n columns as its indices (Python's rules), else undefined. */
function sliceIndices(v: PyValue, n: number): PyValue[] | undefined {
  const cls = classOf(v);
  if (!(v instanceof PyCall) || cls?.qualified !== 'builtins.slice') return undefined;
  const [start, stop, step] = (seqItems(v.args) ?? []).map((x) => (x === null || x === undefined ? undefined : numeric(x)));
  const by = step ?? 1;
  if (!Number.isInteger(by) || by <= 0) return undefined;
  const clamp = (x: number | undefined, fallback: number) => (x === undefined ? fallback : Math.min(n, Math.max(0, x < 0 ? n + x : x)));
  const out: PyValue[] = [];
  for (let i = clamp(start, 0); i < clamp(stop, n); i += by) out.push(i);
  return out;
}

/** The values of a pickled pandas Index (`_new_Index(Index, {'data': array, 'name': ...})`), else undefined. */
function pandasIndexValues(v: PyValue): PyValue[] | undefined {
  const cls = classOf(v);
  if (!(v instanceof PyCall) || cls?.name !== '_new_Index' || !cls.module.startsWith('pandas.')) return undefined;
  const data = seqItems(v.args)?.[1];
  const array = data instanceof PyDict ? data.get('data') : undefined;
  if (!isArray(array)) return undefined;
  try {
    return arrayOrThrow(array, 'pandas Index data').values() as PyValue[];
  } catch {
    return undefined;
  }
}

/** `<input>_<category>` for every category kept (less the dropped one per feature, `drop_idx_`). */
function oneHot(state: NonNullable<ReturnType<typeof stateDict>>, inputs: StepFeature[], walk: Walk): StepFeature[] | undefined {
  const categories = seqItems(state.get('categories_'));
  if (!categories || categories.length !== inputs.length) return undefined;
  // Infrequent categories (min_frequency, max_categories) merge into one last column per input,
  // `<input>_infrequent_sklearn`: `_infrequent_indices[i]` lists them (None: none for that input).
  let infrequent: (Set<number> | undefined)[] | undefined;
  if (state.get('_infrequent_enabled') === true) {
    infrequent = infrequentIndices(state.get('_infrequent_indices'), inputs.length);
    if (!infrequent) return undefined;
  }
  const dropValue = state.get('drop_idx_');
  let drop: (number | undefined)[] | undefined;
  if (dropValue !== undefined && dropValue !== null) {
    try {
      const values = arrayOrThrow(dropValue, 'drop_idx_').values();
      drop = values.map((v) => (typeof v === 'number' ? v : undefined));
    } catch {
      return undefined;
    }
    if (drop.length !== inputs.length) return undefined;
    // Dropping with infrequent categories counts drop_idx_ over the merged columns: not followed.
    if (infrequent) return undefined;
  }
  const handleUnknown = asString(state.get('handle_unknown'));
  const out: StepFeature[] = [];
  for (let i = 0; i < categories.length; i++) {
    const rare = infrequent?.[i];
    // Every row the encoder saw has exactly one 1 when an unseen category is refused, or goes to
    // the infrequent column (infrequent_if_exist, when the input has one).
    const exact = !drop && (handleUnknown === 'error' || (handleUnknown === 'infrequent_if_exist' && rare !== undefined));
    const group: OneHotGroup = { exact };
    let array;
    try {
      array = arrayOrThrow(categories[i], 'categories_');
    } catch {
      return undefined;
    }
    const float = array.dtype.kind === 'f';
    const values = array.values();
    recordCategories(walk, inputs[i], values.map((c) => toCategory(c as PyValue)));
    values.forEach((category, k) => {
      if (drop?.[i] === k || rare?.has(k)) return;
      const ops: ColumnOp[] = [{ op: 'equals', category: toCategory(category as PyValue) }];
      out.push({ name: `${inputs[i].name}_${pythonStr(category as PyValue, float)}`, binary: true, group, ...followed(inputs[i], ops) });
    });
    if (rare) {
      const listed = (keep: boolean) => values.filter((_, k) => rare.has(k) === keep).map((c) => toCategory(c as PyValue));
      // With infrequent_if_exist an unseen category is infrequent too: 1 unless a frequent one.
      const op: ColumnOp = handleUnknown === 'infrequent_if_exist' ? { op: 'none-of', categories: listed(false) } : { op: 'one-of', categories: listed(true) };
      out.push({ name: `${inputs[i].name}_infrequent_sklearn`, binary: true, group, ...followed(inputs[i], [op]) });
    }
  }
  return out;
}

/** `_infrequent_indices`: per input, the indices of its infrequent categories, or None. */
function infrequentIndices(value: PyValue | undefined, n: number): (Set<number> | undefined)[] | undefined {
  const items = seqItems(value);
  if (!items || items.length !== n) return undefined;
  const out: (Set<number> | undefined)[] = [];
  for (const item of items) {
    if (item === null) {
      out.push(undefined);
      continue;
    }
    try {
      out.push(new Set(Array.from(arrayOrThrow(item, '_infrequent_indices').numbers())));
    } catch {
      return undefined;
    }
  }
  return out;
}

/**
 * SimpleImputer keeps its inputs, less the columns it could not fill (`statistics_` NaN, dropped
 * unless `keep_empty_features`), then adds `missingindicator_<name>` for the columns its
 * indicator marks (`add_indicator`).
 */
function imputer(state: NonNullable<ReturnType<typeof stateDict>>, inputs: StepFeature[]): StepFeature[] | undefined {
  let kept = inputs;
  const statistics = state.get('statistics_');
  const strategy = asString(state.get('strategy'));
  if (statistics !== undefined && statistics !== null && strategy !== 'constant' && state.get('keep_empty_features') !== true) {
    let values: Float64Array;
    try {
      const array = arrayOrThrow(statistics, 'statistics_');
      // Object statistics (most_frequent on strings) are never NaN for a kept column.
      values = array.dtype.kind === 'f' ? array.numbers() : new Float64Array(inputs.length);
    } catch {
      return undefined;
    }
    if (values.length !== inputs.length) return undefined;
    kept = inputs.filter((_, i) => !Number.isNaN(values[i]));
  }
  // Each kept column's missing values become its statistic (strategy 'constant': the fill value).
  const missing = toCategory(state.get('missing_values'));
  const fills = statistics === undefined || statistics === null ? undefined : categoriesOf(statistics);
  kept = kept.map((f) => {
    const i = inputs.indexOf(f);
    const fill = fills?.length === inputs.length ? fills[i] : undefined;
    const { source: _unfilled, ...rest } = f;
    return { ...rest, ...followed(f, fill === undefined ? undefined : [{ op: 'impute', missing, value: fill }]) };
  });
  const indicator = state.get('indicator_');
  if (state.get('add_indicator') !== true || indicator === undefined || indicator === null) return kept;
  const marked = stateDict(indicator)?.get('features_');
  if (marked === undefined) return undefined;
  let indices: number[];
  try {
    indices = Array.from(arrayOrThrow(marked, 'indicator_.features_').numbers());
  } catch {
    return undefined;
  }
  if (indices.some((i) => !Number.isInteger(i) || i < 0 || i >= inputs.length)) return undefined;
  return [...kept, ...indices.map((i) => ({ name: `missingindicator_${inputs[i].name}`, ...followed(inputs[i], [{ op: 'is-missing', missing }]) }))];
}

/** A category as Python's str() writes it (`str(1.0)` is '1.0', `str(None)` 'None'). */
function pythonStr(value: PyValue, float: boolean): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number' && (float || !Number.isInteger(value))) return pythonFloat(value);
  return String(labelOf(value));
}

