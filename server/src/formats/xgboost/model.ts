/**
 * XGBoost `save_model` output (JSON or UBJSON, decoded to the same plain values) into the IR.
 * Follows XGBoost's JSON schema (doc/model.schema): `learner.gradient_booster.model.trees[]` with
 * column arrays per tree, `tree_info` (output group of each tree), `learner_model_param`
 * (base_score, num_class) and `objective`. Versions differ in details handled here:
 *  - base_score is a string, "5E-1" (1.x, 2.x) or a bracketed list "[5E-1]" / "[a,b,c]" (3.1+);
 *  - 2.x estimates base_score from the labels (the intercept) instead of using 0.5;
 *  - trees with vector leaves (multi_strategy="multi_output_tree", 2.x) have no hessian sums.
 * Hyper-parameters are not part of a saved model; the scikit-learn wrapper stores its own
 * (`learner.attributes.scikit_learn`), which is read when present.
 */
import { setSplitFeatures, type SetSplit } from '../../forest/set-splits';
import type { ForestInput, Tree } from '../../forest/schema';
import { corrupt, gblinear, Refusal, unlessRefused, type Unreadable } from './refusal';
import { featureCountProblem } from '../limits';
import { toIrTree, type NativeTree } from './tree';
import { COVER_TOLERANCE } from '../../forest/validate';

export type ModelBuild =
  | { ok: true; forest: ForestInput; notes: string[] }
  | Unreadable;

type Obj = { [key: string]: unknown };

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);


function numbers(tree: Obj, key: string, t: number, n: number, required: boolean): number[] | undefined {
  const v = tree[key];
  if (v === undefined && !required) return undefined;
  if (!Array.isArray(v)) throw corrupt(`tree ${t} has no array ${key}`);
  if (v.length !== n) throw corrupt(`tree ${t}: ${key} has ${v.length} entries for ${n} nodes`);
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (typeof x === 'boolean') continue;
    if (typeof x !== 'number' || Number.isNaN(x)) throw corrupt(`tree ${t}: ${key}[${i}] is not a number`);
  }
  return v.map((x) => (typeof x === 'boolean' ? Number(x) : (x as number)));
}

/**
 * A tree's categorical splits, per node the categories the file lists (XGBoost sends them right):
 * `categories_nodes[k]`'s are `categories[categories_segments[k] ..][0 .. categories_sizes[k]]`.
 */
function categoricalSplits(raw: Obj, t: number, n: number, splitType: number[]): Map<number, number[]> {
  const nodes = raw.categories_nodes;
  const segments = raw.categories_segments;
  const sizes = raw.categories_sizes;
  const all = raw.categories;
  if (!Array.isArray(nodes) || !Array.isArray(segments) || !Array.isArray(sizes) || !Array.isArray(all) || segments.length !== nodes.length || sizes.length !== nodes.length) {
    throw corrupt(`tree ${t} has categorical splits without their categories (categories_nodes, categories_segments, categories_sizes, categories)`);
  }
  const out = new Map<number, number[]>();
  nodes.forEach((node, k) => {
    const start = segments[k];
    const size = sizes[k];
    if (!Number.isInteger(node) || node < 0 || node >= n || splitType[node] === 0) throw corrupt(`tree ${t}: categories_nodes[${k}] is ${node}, not a categorical split`);
    if (!Number.isInteger(start) || !Number.isInteger(size) || start < 0 || size < 0 || start + size > all.length) throw corrupt(`tree ${t}: categories of node ${node} outside the list`);
    const categories = all.slice(start, start + size);
    if (!categories.every((c) => Number.isInteger(c) && c >= 0)) throw corrupt(`tree ${t}: node ${node} lists a category that is not a code`);
    out.set(node, [...new Set(categories as number[])].sort((a, b) => a - b));
  });
  splitType.forEach((type, node) => {
    if (type !== 0 && !out.has(node)) throw corrupt(`tree ${t}: node ${node} is a categorical split without categories`);
  });
  return out;
}

/** "5E-1", "[5E-1]", "[2.5E-1,3E-1]" or a number. */
export function parseBaseScore(value: unknown): number[] | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return [value];
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const inner = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const parts = inner.split(',').map((s) => Number(s.trim()));
  return parts.length > 0 && parts.every((x) => Number.isFinite(x)) && inner.trim() !== '' ? parts : undefined;
}

const intParam = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
};

/** Scikit-learn wrapper names -> XGBoost's own parameter names, for the ones that matter here. */
export const WRAPPER_PARAMS: [string, string][] = [
  ['learning_rate', 'eta'],
  ['reg_lambda', 'lambda'],
  ['reg_alpha', 'alpha'],
  ['max_delta_step', 'max_delta_step'],
  ['subsample', 'subsample'],
  ['min_child_weight', 'min_child_weight'],
  ['max_depth', 'max_depth'],
  ['n_estimators', 'n_estimators'],
  ['gamma', 'gamma'],
  ['colsample_bytree', 'colsample_bytree'],
  ['base_score', 'base_score'],
];

function wrapperMeta(learner: Obj): Obj | undefined {
  const attributes = learner.attributes;
  if (!isObj(attributes) || typeof attributes.scikit_learn !== 'string') return undefined;
  try {
    // Python's json.dumps writes NaN and Infinity (e.g. `"missing": NaN`), which JSON does not have.
    const text = attributes.scikit_learn.replace(/([:,[]\s*)-?(?:NaN|Infinity)\b/g, '$1null');
    const meta = JSON.parse(text);
    return isObj(meta) ? meta : undefined;
  } catch {
    return undefined;
  }
}

export function buildForest(root: unknown): ModelBuild {
  return unlessRefused(() => build(root));
}

function build(root: unknown): ModelBuild {
  if (!isObj(root) || !isObj(root.learner)) throw new Refusal('not-a-model', 'the file has no `learner` object, so it is not an XGBoost model saved with save_model');
  const learner = root.learner;
  const notes: string[] = [];
  const version = Array.isArray(root.version) && root.version.every((x) => Number.isInteger(x)) ? (root.version as number[]) : undefined;

  let booster = learner.gradient_booster;
  if (!isObj(booster)) throw corrupt('learner.gradient_booster is missing');
  const boosterName = booster.name;
  if (boosterName === 'gblinear') throw gblinear();
  if (boosterName === 'dart') {
    notes.push('booster: dart (tree outputs are scaled by weight_drop)');
    booster = booster.gbtree;
    if (!isObj(booster)) throw corrupt('the dart booster has no gbtree');
  } else if (boosterName !== 'gbtree') {
    throw new Refusal('unsupported-estimator', `the booster is ${JSON.stringify(boosterName)}; only gbtree and dart are read`);
  }
  const model = booster.model;
  if (!isObj(model) || !Array.isArray(model.trees)) throw corrupt('gradient_booster.model.trees is missing');
  const rawTrees = model.trees;
  if (rawTrees.length === 0) throw new Refusal('unsupported-estimator', 'the model has no trees (it was never trained)');
  const treeInfo = Array.isArray(model.tree_info) ? model.tree_info : [];

  const param = isObj(learner.learner_model_param) ? learner.learner_model_param : {};
  const objective = isObj(learner.objective) && typeof learner.objective.name === 'string' ? learner.objective.name : 'unknown';
  const statedBaseScore = parseBaseScore(param.base_score) ?? [0.5];
  if (param.base_score === undefined) notes.push('base_score not stated; using 0.5');
  const baseScore = logitrawTookProbability(objective, version) && statedBaseScore.every((p) => p > 0 && p < 1) ? statedBaseScore.map(logitOf) : statedBaseScore;
  if (baseScore !== statedBaseScore) {
    notes.push(`written by XGBoost ${version!.join('.')}, which trained binary:logitraw from the logit of its base_score: base_score ${statedBaseScore.join(', ')} is read as the starting margin ${baseScore.join(', ')}`);
  }
  const numClass = intParam(param.num_class) ?? 0;
  // One tree per class and round: a trained model has at least as many trees as classes. A damaged
  // num_class (2e8) would otherwise size the class list: 7 s, then a failed allocation.
  if (numClass > rawTrees.length) throw corrupt(`num_class is ${numClass}, more than the model's ${rawTrees.length} trees`);
  const numTarget = intParam(param.num_target) ?? 1;
  const outputGroups = Math.max(1, numClass, numTarget);

  const meta = wrapperMeta(learner);
  const hyperParameters: Record<string, string | number | boolean | null> = {};
  if (meta) {
    for (const [wrapperName, nativeName] of WRAPPER_PARAMS) {
      const v = meta[wrapperName];
      if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v === null) hyperParameters[nativeName] = v;
    }
  }
  if (isObj(learner.objective)) {
    const lossParam = learner.objective.reg_loss_param;
    if (isObj(lossParam) && lossParam.scale_pos_weight !== undefined) {
      const spw = Number(lossParam.scale_pos_weight);
      if (Number.isFinite(spw)) hyperParameters.scale_pos_weight = spw;
    }
    // count:poisson's own max_delta_step (0.7 by default): its hessian is exp(margin + it).
    const poisson = learner.objective.poisson_regression_param;
    if (isObj(poisson) && poisson.max_delta_step !== undefined) {
      const step = Number(poisson.max_delta_step);
      if (Number.isFinite(step)) hyperParameters.poisson_max_delta_step = step;
    }
  }

  // Random-forest mode (XGBRF*, num_parallel_tree): each round grows that many trees from the same
  // margins, and XGBoost divides their leaf values by their number (measured with 1.7.4: an
  // XGBRFClassifier with learning_rate 1 stores leaf values of weight / 20 for 20 trees).
  const gbtreeParam = isObj(model.gbtree_model_param) ? model.gbtree_model_param : {};
  const parallel = intParam(gbtreeParam.num_parallel_tree) ?? 1;
  if (parallel > 1) {
    hyperParameters.num_parallel_tree = parallel;
    notes.push(`num_parallel_tree: ${parallel} (each boosting round grows ${parallel} trees from the same predictions)`);
  }

  const isMulti = objective.startsWith('multi:');
  const isBinary = objective.startsWith('binary:');
  let classes: (string | number | boolean)[] = [];
  if (isBinary) classes = [0, 1];
  else if (isMulti) classes = Array.from({ length: Math.max(2, numClass) }, (_, c) => c);
  if (meta && Array.isArray(meta.classes_) && meta.classes_.length === classes.length && meta.classes_.every((c) => ['string', 'number', 'boolean'].includes(typeof c))) {
    classes = meta.classes_ as (string | number | boolean)[];
  }
  const weightColumns = Math.max(1, classes.length);

  const names = Array.isArray(learner.feature_names) ? learner.feature_names.filter((x): x is string => typeof x === 'string') : [];
  const types = Array.isArray(learner.feature_types) ? learner.feature_types : [];
  let numFeature = intParam(param.num_feature) ?? 0;
  const declared = numFeature;
  const tooMany = featureCountProblem(Math.max(numFeature, names.length), 'the model declares');
  if (tooMany) throw new Refusal('too-large', tooMany);

  const trees: Tree[] = [];
  // Categorical splits (split_type 1): read after every tree, as 0/1 features (forest/set-splits.ts).
  const setSplits: SetSplit[] = [];
  for (let t = 0; t < rawTrees.length; t++) {
    const raw = rawTrees[t];
    if (!isObj(raw)) throw corrupt(`tree ${t} is not an object`);
    const tp = isObj(raw.tree_param) ? raw.tree_param : {};
    const leafVector = intParam(tp.size_leaf_vector) ?? 0;
    if (leafVector > 1) throw new Refusal('unsupported-estimator', `tree ${t} has vector leaves (${leafVector} targets, multi_strategy="multi_output_tree"); these trees store no hessian sums and are not read yet`);
    const left = raw.left_children;
    if (!Array.isArray(left)) throw corrupt(`tree ${t} has no left_children`);
    const n = intParam(tp.num_nodes) ?? left.length;
    if (n !== left.length || n === 0) throw corrupt(`tree ${t}: num_nodes is ${tp.num_nodes} but left_children has ${left.length} entries`);
    const splitType = numbers(raw, 'split_type', t, n, false);
    const categorical = splitType?.some((s) => s !== 0) ? categoricalSplits(raw, t, n, splitType) : undefined;
    // The stored condition of a categorical split is NaN; the 0/1 feature it becomes splits at 0.5.
    const conditions = categorical ? Object.assign([], raw.split_conditions, Object.fromEntries([...categorical.keys()].map((node) => [node, 0.5]))) : raw.split_conditions;
    const featureCol = numbers(raw, 'split_indices', t, n, true)!;
    const native: NativeTree = {
      size: n,
      left: numbers(raw, 'left_children', t, n, true)!,
      right: numbers(raw, 'right_children', t, n, true)!,
      feature: featureCol,
      threshold: numbers({ split_conditions: conditions }, 'split_conditions', t, n, true)!,
      defaultLeft: numbers(raw, 'default_left', t, n, false)?.map((x) => x !== 0),
      cover: numbers(raw, 'sum_hessian', t, n, false),
      baseWeight: numbers(raw, 'base_weights', t, n, false),
      leafValue: numbers({ split_conditions: conditions }, 'split_conditions', t, n, true)!,
      gain: numbers(raw, 'loss_changes', t, n, false),
      group: 0,
    };
    const group = treeInfo[t];
    native.group = typeof group === 'number' && Number.isInteger(group) && group >= 0 && group < outputGroups ? group : 0;
    const built = toIrTree(native, weightColumns);
    if (!built.ok) throw corrupt(`tree ${t}: ${built.problem}`);
    for (let i = 0; i < built.tree.left.length; i++) {
      if (built.tree.left[i] === -1) continue;
      const f = built.tree.feature[i];
      if (!Number.isInteger(f) || f < 0) throw corrupt(`tree ${t} splits on feature ${f}`);
      // A stated num_feature bounds every split index of a genuine model; unstated, the trees set it.
      if (declared > 0 && f >= declared) throw corrupt(`tree ${t} splits on feature ${f}, the model declares num_feature ${declared}`);
      const problem = featureCountProblem(f + 1, `tree ${t} splits on feature ${f}: the model would have`);
      if (problem) throw new Refusal('too-large', problem);
      if (f >= numFeature) numFeature = f + 1;
    }
    for (const [node, categories] of categorical ?? []) {
      if (built.tree.left[node] === -1) throw corrupt(`tree ${t}: categories_nodes names leaf ${node}`);
      setSplits.push({ tree: t, node, feature: built.tree.feature[node], categories, side: 'right', missingLeft: built.tree.defaultLeft?.[node] ?? false });
    }
    trees.push(built.tree);
  }

  // Hessian sums that do not add up (every leaf 0 under a parent's 1,500: a public 0.8x booster of
  // 11,882 trees whose updater kept no leaf statistics) are not counts: they are left out, with a
  // note, and the structure is read without them, rather than the whole file called corrupt.
  const unsummed = trees.findIndex((tree) => coverDoesNotAddUp(tree));
  if (unsummed >= 0) {
    for (const tree of trees) delete (tree.boosting as { cover?: unknown }).cover;
    notes.push(`hessian sums (cover) not read: in tree ${unsummed} a node's cover is not its children's together (the leaves' statistics were not kept), so the file states no row counts`);
  }

  const ownFeatures = Array.from({ length: Math.max(numFeature, names.length) }, (_, f) => ({
    name: names[f] ?? `f${f}`,
    kind: kindOf(types[f]),
  }));
  // XGBoost lists the categories a split sends right; each (column, set, missing side) becomes a 0/1 feature.
  const categoryFeatures = setSplits.length > 0 ? setSplitFeatures(setSplits, ownFeatures.map((f) => f.name)) : undefined;
  if (categoryFeatures) {
    setSplits.forEach((split, k) => {
      (trees[split.tree].feature as number[])[split.node] = categoryFeatures.featureOf[k];
      (trees[split.tree].threshold as number[])[split.node] = categoryFeatures.threshold;
    });
    notes.push(categoryFeatures.note);
  }
  const features = [...ownFeatures, ...(categoryFeatures?.features ?? [])];
  // XGBRFClassifier / XGBRFRegressor: one round of num_parallel_tree trees (per class). An
  // XGBClassifier with num_parallel_tree set grows several rounds of them, so keeps its name.
  const randomForestMode = parallel > 1 && trees.length === parallel * outputGroups;
  const wrapper = randomForestMode ? 'XGBRF' : 'XGB';
  const estimator = meta?._estimator_type === 'classifier' ? `${wrapper}Classifier` : meta?._estimator_type === 'regressor' ? `${wrapper}Regressor` : meta?._estimator_type === 'ranker' ? 'XGBRanker' : 'Booster';
  const forest: ForestInput = {
    library: { name: 'xgboost', ...(version ? { version: version.join('.') } : {}) },
    estimator,
    task: isBinary || isMulti ? 'classification' : 'regression',
    classes,
    features,
    splitRule: 'less',
    hyperParameters,
    training: { bootstrap: false },
    trees,
    // Several targets (num_target, XGBoost 2's multi-output regression): each tree fits one, by its
    // group; the analyses read the first target's trees, and the summary says how many there are.
    ...(numTarget > 1 ? { outputs: numTarget } : {}),
    boosting: {
      objective,
      baseScore,
      baseScoreStated: param.base_score !== undefined,
      outputGroups,
      source: 'model',
      ...(version ? { libraryVersion: version } : {}),
      ...(boosterName === 'dart' ? { booster: 'dart' as const } : {}),
    },
  };
  notes.push(`objective: ${objective}`, `base_score: ${baseScore.join(', ')}`);
  if (!meta) notes.push('hyper-parameters: not stored by save_model (learning rate and lambda are inferred from the trees where needed)');
  return { ok: true, forest, notes };
}

/**
 * Whether the file is a binary:logitraw model from XGBoost 1.0.0 to 1.3.0, which took its
 * base_score as a probability (the objective inherited the logistic ProbToMargin) and so started
 * every row from its logit; 1.3.1 made it the margin itself (dmlc/xgboost#6517, "Enable loading
 * model from <1.0.0 trained with objective='binary:logitraw'"). The IR holds logitraw's starting
 * margin (forest/boosting.ts baseMargin). A public R model saved by 1.1 states 0.5 over trees
 * grown from margin 0 (its first tree's root cover is 2,201 rows x 0.25). A legacy binary file
 * holds no patch version: 1.3 is read as 1.3.1 and later, the releases most 1.3 users had.
 */
function logitrawTookProbability(objective: string, version: readonly number[] | undefined): boolean {
  if (objective !== 'binary:logitraw' || !version || version[0] !== 1) return false;
  return version[1] < 3 || (version[1] === 3 && version[2] === 0);
}

/** -logf(1 / p - 1), XGBoost's logistic ProbToMargin in float32 steps. */
function logitOf(p: number): number {
  const f = Math.fround;
  const margin = f(-Math.log(f(f(1 / f(p)) - 1)));
  return margin === 0 ? 0 : margin; // -log(1) is -0, which prints and compares as a margin of its own
}

/** XGBoost feature types: q (quantitative), i (indicator), int, float, c (categorical). */
function kindOf(type: unknown): 'numeric' | 'binary' | 'categorical' | 'unknown' {
  switch (type) {
    case 'q':
    case 'float':
    case 'int':
      return 'numeric';
    case 'i':
      return 'binary';
    case 'c':
      return 'categorical';
    default:
      return 'unknown';
  }
}

/** Whether some split's cover differs from its children's together (forest/validate.ts's tolerance). */
function coverDoesNotAddUp(tree: Tree): boolean {
  const cover = tree.boosting?.cover;
  if (!cover) return false;
  for (let i = 0; i < tree.left.length; i++) {
    const l = tree.left[i];
    if (l === -1) continue;
    const sum = cover[l] + cover[tree.right[i]];
    if (Math.abs(cover[i] - sum) > COVER_TOLERANCE * Math.max(1, Math.abs(cover[i]), Math.abs(sum))) return true;
  }
  return false;
}
