/**
 * XGBoost's legacy binary model format, decoded without XGBoost into the object that
 * `save_model("m.json")` writes for the same booster, so ./model.ts builds the same IR from both.
 *
 * Who writes it: `save_model(name)` for a name not ending in .json / .ubj (1.x, 2.x), `save_raw()`
 * (raw_format "deprecated"), and the memory snapshot of pickles before 1.3 (./snapshot.ts).
 * Layout, from XGBoost's source (learner.cc LearnerIO::SaveModel / LoadModel with
 * LearnerModelParamLegacy, gbtree_model.cc GBTreeModel::Save / Load, gbtree.cc Dart::Save,
 * tree_model.h TreeParam / Node / RTreeNodeStat, tree_model.cc RegTree::Save / Load; checked for
 * 0.90, 1.0, 1.7.4, 2.0 and 2.1, which agree on every size below). Little-endian; a dmlc::Stream
 * string or vector is a uint64 count followed by its elements.
 *
 *   "binf"                    magic, written since 1.1; 1.0 and earlier start with the struct below
 *   learner param, 136 bytes  f32 base_score, u32 num_feature, i32 num_class, i32 contain_extra_attrs,
 *                             i32 contain_eval_metrics, u32 major_version, u32 minor_version (both 0
 *                             before 1.0), u32 num_target (1.6+), i32 boost_from_average (1.7+), reserved
 *   string objective, string booster ("gbtree", "dart", "gblinear")
 *   gbtree param, 160 bytes   i32 num_trees, i32 num_parallel_tree, i32 num_feature, i32 pad,
 *                             i64 num_pbuffer, i32 num_output_group, i32 size_leaf_vector, i32 reserved[32]
 *   per tree:
 *     tree param, 148 bytes   i32 num_roots (1), i32 num_nodes, i32 num_deleted, i32 max_depth,
 *                             u32 num_feature, i32 size_leaf_vector, i32 reserved[31]
 *     num_nodes x 20 bytes    i32 parent (top bit: is a left child), i32 left, i32 right,
 *                             u32 split index (top bit: missing values go left),
 *                             f32 split condition (a leaf's value at a leaf)
 *     num_nodes x 16 bytes    f32 loss_chg, f32 sum_hess, f32 base_weight, i32 leaf_child_cnt
 *   num_trees x i32           tree_info: each tree's output group
 *   dart only                 vector<f32> weight_drop
 *   contain_extra_attrs != 0  vector<pair<string, string>> attributes; since 1.0 they include
 *                             "objective" (the objective's JSON configuration) and may include
 *                             "scikit_learn" (the wrapper's parameters)
 *
 * Pruned nodes stay in the arrays (split index 0xFFFFFFFF, unreachable from the root), as in JSON.
 * Not in the format: feature names and types (features are f0..fN-1), categorical splits
 * (XGBoost refuses to write them here). Before 1.0, base_score was stored as a margin; it is
 * turned into the JSON's value as XGBoost's loader does (learner.cc, `major_version < 1`).
 *
 * Untrusted input: every read is bounds-checked, every count is checked against the bytes that
 * remain before anything is allocated, and failures are values (truncated, corrupt,
 * unsupported-estimator), never exceptions.
 */
import { corrupt, gblinear, Refusal, unlessRefused, type Unreadable } from './refusal';
import { float32Decimal } from './float32';

type Obj = { [key: string]: unknown };

export type LegacyDecode =
  | { ok: true; model: Obj; notes: string[]; end: number }
  | Unreadable;

const LEARNER_PARAM_BYTES = 136;
const GBTREE_PARAM_BYTES = 160;
const TREE_PARAM_BYTES = 148;
const NODE_BYTES = 20;
const STAT_BYTES = 16;
/** The least a tree takes: its parameters, one node with its statistics, its tree_info entry. */
const MIN_TREE_BYTES = TREE_PARAM_BYTES + NODE_BYTES + STAT_BYTES + 4;
/** XGBoost's objective and booster names are short; a longer "name" is not one. */
const MAX_NAME = 256;
const DELETED = 0xffffffff;


/** Little-endian reads that never pass the end of the bytes. */
class Cursor {
  pos: number;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array, start: number) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  need(n: number, what: string): void {
    if (n > this.remaining) throw new Refusal('truncated', `the file ends at byte ${this.bytes.length} inside ${what}, which needs ${n} bytes from offset ${this.pos}`);
  }

  i32(): number {
    this.need(4, 'a 32-bit integer');
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }

  u32(): number {
    this.need(4, 'a 32-bit integer');
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  f32(): number {
    this.need(4, 'a 32-bit float');
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /**
   * A uint64 count, as a number (inexact past 2^53, which does not matter: callers compare it with
   * the bytes that remain, or a small bound, before using it).
   */
  u64(what: string): number {
    this.need(8, what);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return Number(v);
  }

  /** The next uint64, not consumed. */
  peekU64(): bigint {
    this.need(8, 'a 64-bit integer');
    return this.view.getBigUint64(this.pos, true);
  }

  /** dmlc::Stream string: a uint64 length, then the bytes. */
  string(what: string, max = Infinity): string {
    const at = this.pos;
    const n = this.u64(`the length of ${what}`);
    if (n > max) throw corrupt(`${what} at offset ${at} declares ${n} bytes; no XGBoost ${what} is longer than ${max}`);
    return this.text(n, what);
  }

  /** `n` bytes as UTF-8 text (names are ASCII; attribute values are what Python set_attr stored). */
  text(n: number, what: string): string {
    this.need(n, what);
    const text = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.pos, n).toString('utf8');
    this.pos += n;
    return text;
  }

  skip(n: number, what: string): void {
    this.need(n, what);
    this.pos += n;
  }
}

/** `binf`, the magic LearnerIO::SaveModel writes first since 1.1. */
const startsWithMagic = (bytes: Uint8Array) => bytes.length >= 4 && bytes[0] === 0x62 && bytes[1] === 0x69 && bytes[2] === 0x6e && bytes[3] === 0x66;

/** An objective's name: lower-case words around a colon (binary:logistic, reg:squarederror, rank:ndcg). */
const OBJECTIVE_NAME = /^[a-z_]+:[a-z_]+$/;
const BOOSTERS = ['gbtree', 'dart', 'gblinear'];

/**
 * Whether the bytes are a legacy binary model: the `binf` magic, or (files of XGBoost before 1.1,
 * which have no magic) the learner parameters followed by an objective's name and a booster's
 * name, which is specific enough that no pickle, JSON or UBJSON file matches it. Cheap: reads at
 * most the first 400 bytes.
 */
export function looksLikeLegacyBinary(bytes: Uint8Array): boolean {
  return startsWithMagic(bytes) || hasNamesAt(bytes, LEARNER_PARAM_BYTES);
}

function hasNamesAt(bytes: Uint8Array, at: number): boolean {
  const cursor = new Cursor(bytes, at);
  try {
    const objective = cursor.string('objective', 64);
    const booster = cursor.string('booster', 16);
    return OBJECTIVE_NAME.test(objective) && BOOSTERS.includes(booster);
  } catch {
    return false;
  }
}

/** Decodes a legacy binary model starting at byte 0 of `bytes` (with or without the magic). */
export function decodeLegacyBinary(bytes: Uint8Array): LegacyDecode {
  return unlessRefused(() => decode(bytes));
}

function decode(bytes: Uint8Array): LegacyDecode {
  const magic = startsWithMagic(bytes);
  const cursor = new Cursor(bytes, magic ? 4 : 0);
  const notes: string[] = [];

  cursor.need(LEARNER_PARAM_BYTES, "the learner's parameters");
  const baseScoreStored = cursor.f32();
  const numFeature = cursor.u32();
  const numClass = cursor.i32();
  const containExtraAttrs = cursor.i32();
  cursor.i32(); // contain_eval_metrics: eval metric names, which say nothing about the trees
  const major = cursor.u32();
  const minor = cursor.u32();
  const numTarget = cursor.u32();
  const boostFromAverage = cursor.i32();
  cursor.skip(LEARNER_PARAM_BYTES - 36, "the learner's reserved parameters");
  if (numClass < 0) throw corrupt(`num_class is ${numClass}`);
  if (!Number.isFinite(baseScoreStored)) throw corrupt(`base_score is ${baseScoreStored}`);
  if (major > 9 || minor > 99) throw corrupt(`the version field says ${major}.${minor}, which no XGBoost wrote`);

  const objective = objectiveName(cursor, major);
  const booster = cursor.string("the booster's name", MAX_NAME);
  if (booster === 'gblinear') throw gblinear();
  if (booster !== 'gbtree' && booster !== 'dart') throw corrupt(`the booster is named ${JSON.stringify(booster.slice(0, 40))}, not gbtree, dart or gblinear`);

  const gbtree = readGbtree(cursor);
  let weightDrop: number[] | undefined;
  if (booster === 'dart' && gbtree.trees.length > 0) {
    const n = cursor.u64("dart's weight_drop count");
    if (n * 4 > cursor.remaining) throw new Refusal('truncated', `dart's weight_drop declares ${n} weights; ${cursor.remaining} bytes remain`);
    weightDrop = Array.from({ length: n }, () => cursor.f32());
  }

  const attributes: Obj = Object.create(null);
  if (containExtraAttrs !== 0) {
    const n = cursor.u64('the attribute count');
    if (n * 16 > cursor.remaining) throw new Refusal('truncated', `the model declares ${n} attributes; ${cursor.remaining} bytes remain`);
    for (let i = 0; i < n; i++) {
      const key = cursor.string(`attribute ${i}'s name`);
      const value = cursor.string(`attribute ${JSON.stringify(key.slice(0, 40))}`);
      // XGBoost builds a std::map from the pairs: the first of two equal keys stays.
      if (!Object.prototype.hasOwnProperty.call(attributes, key)) attributes[key] = value;
    }
  }

  // What XGBoost's loader takes out of the attributes (learner.cc LoadModel); the rest stays, as
  // in the JSON it writes after loading.
  const objectiveConfig = objectiveObject(attributes.objective, objective);
  for (const key of ['objective', 'metrics', 'count_poisson_max_delta_step']) delete attributes[key];

  const learnerParam: Obj = {
    num_class: String(numClass),
    num_feature: String(numFeature),
    // 0 in files of XGBoost before 1.6 (reserved space then); the loader reads it as 1.
    num_target: String(numTarget === 0 ? 1 : numTarget),
    ...(major > 1 || (major === 1 && minor >= 7) ? { boost_from_average: String(boostFromAverage) } : {}),
  };
  const baseScore = major >= 1 ? baseScoreStored : fromPre1Margin(baseScoreStored, objective);
  if (baseScore !== undefined) learnerParam.base_score = float32Decimal(baseScore);
  if (major < 1) {
    notes.push(
      baseScore !== undefined
        ? `written by XGBoost before 1.0: base_score was stored as a margin (${float32Decimal(baseScoreStored)}) and is read as ${learnerParam.base_score}, as XGBoost does on loading`
        : `written by XGBoost before 1.0: base_score was stored as a margin (${float32Decimal(baseScoreStored)}), and how ${objective} maps it back is not known here`,
    );
  }
  notes.push('feature names: not stored in the legacy binary format (features are f0, f1, ...)');
  const trailing = cursor.remaining;
  if (trailing > 0) notes.push(`${trailing} bytes after the model were not read${major < 1 ? ' (before 1.0: count:poisson\'s max_delta_step and eval metric names)' : ''}`);

  const treeModel: Obj = { gbtree_model_param: gbtree.param, trees: gbtree.trees, tree_info: gbtree.treeInfo };
  const gradientBooster: Obj =
    booster === 'dart' ? { name: 'dart', gbtree: { name: 'gbtree', model: treeModel }, weight_drop: weightDrop ?? [] } : { name: 'gbtree', model: treeModel };
  const model: Obj = {
    learner: {
      attributes,
      feature_names: [],
      feature_types: [],
      gradient_booster: gradientBooster,
      learner_model_param: learnerParam,
      objective: objectiveConfig,
    },
    // The format holds the major and minor version only (zero before 1.0).
    ...(major >= 1 ? { version: [major, minor] } : {}),
  };
  return { ok: true, model, notes, end: cursor.pos };
}

/**
 * The objective's name. Files of XGBoost before 0.4 wrote its length in the high half of a 64-bit
 * value followed by 4 more bytes; the loader of 0.90 still took a length of 2^32 - 1 or more as
 * that form (1.x does not, so it is only tried in files before 1.0).
 */
function objectiveName(cursor: Cursor, major: number): string {
  const at = cursor.pos;
  let name: string;
  if (major < 1 && cursor.peekU64() >= 0xffffffffn) {
    const length = Number(cursor.peekU64() >> 32n);
    cursor.skip(12, "the objective's length");
    if (length > MAX_NAME) throw corrupt(`the objective's name at offset ${at} declares ${length} bytes; no XGBoost objective name is longer than ${MAX_NAME}`);
    name = cursor.text(length, "the objective's name");
  } else {
    name = cursor.string("the objective's name", MAX_NAME);
  }
  if (!/^[\x21-\x7e]+$/.test(name)) throw corrupt(`the objective's name at offset ${at} is not a name (${JSON.stringify(name.slice(0, 40))})`);
  return name;
}

/** The objective's JSON configuration from the "objective" attribute (1.0+), or its name alone. */
function objectiveObject(attribute: unknown, name: string): Obj {
  if (typeof attribute === 'string') {
    try {
      const parsed: unknown = JSON.parse(attribute);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && (parsed as Obj).name === name) return parsed as Obj;
    } catch {
      // a damaged configuration: the name from the header still says what the objective is
    }
  }
  return { name };
}

/**
 * base_score of a file written before 1.0, which held the margin: XGBoost's loader applies the
 * objective's prediction transform to it (`PredTransform`) unless the objective is multi-class.
 * The transforms are those of 1.7.4's objectives (regression_loss.h, regression_obj.cu, hinge.cu),
 * in float32 steps as there (common::Sigmoid: 1 / (expf(min(-x, 88.7)) + 1)).
 */
function fromPre1Margin(margin: number, objective: string): number | undefined {
  const f = Math.fround;
  if (objective.startsWith('multi:')) return margin;
  if (['binary:logistic', 'reg:logistic'].includes(objective)) return f(1 / f(f(Math.exp(Math.min(-margin, f(88.7)))) + 1));
  if (['count:poisson', 'reg:gamma', 'reg:tweedie', 'survival:cox', 'survival:aft'].includes(objective)) return f(Math.exp(margin));
  if (objective === 'binary:hinge') return margin > 0 ? 1 : 0;
  if (['reg:linear', 'reg:squarederror', 'reg:squaredlogerror', 'reg:pseudohubererror', 'binary:logitraw'].includes(objective) || objective.startsWith('rank:')) return margin;
  return undefined;
}

interface Gbtree {
  param: Obj;
  trees: Obj[];
  treeInfo: number[];
}

function readGbtree(cursor: Cursor): Gbtree {
  cursor.need(GBTREE_PARAM_BYTES, "the gradient booster's parameters");
  const start = cursor.pos;
  const numTrees = cursor.i32();
  const numParallelTree = cursor.i32();
  cursor.pos = start + 24; // deprecated num_feature, pad, num_pbuffer
  cursor.i32(); // num_output_group, deprecated: num_class in the learner's parameters decides
  const sizeLeafVector = cursor.i32();
  cursor.pos = start + GBTREE_PARAM_BYTES;
  if (numTrees < 0) throw corrupt(`num_trees is ${numTrees}`);
  if (numTrees > Math.floor(cursor.remaining / MIN_TREE_BYTES)) {
    throw new Refusal('truncated', `the model declares ${numTrees} trees; the ${cursor.remaining} bytes that remain hold at most ${Math.floor(cursor.remaining / MIN_TREE_BYTES)}`);
  }
  const trees: Obj[] = [];
  for (let t = 0; t < numTrees; t++) trees.push(readTree(cursor, t));
  const treeInfo: number[] = [];
  for (let t = 0; t < numTrees; t++) treeInfo.push(cursor.i32());
  const param = { num_parallel_tree: String(numParallelTree), num_trees: String(numTrees), size_leaf_vector: String(sizeLeafVector) };
  return { param, trees, treeInfo };
}

function readTree(cursor: Cursor, t: number): Obj {
  cursor.need(TREE_PARAM_BYTES, `tree ${t}'s parameters`);
  const start = cursor.pos;
  const numRoots = cursor.i32();
  const numNodes = cursor.i32();
  const numDeleted = cursor.i32();
  cursor.i32(); // max_depth, deprecated
  const numFeature = cursor.u32();
  const sizeLeafVector = cursor.i32();
  cursor.pos = start + TREE_PARAM_BYTES;
  if (numRoots !== 1) throw corrupt(`tree ${t} declares ${numRoots} roots; XGBoost's trees have one`);
  if (numNodes < 1) throw corrupt(`tree ${t} declares ${numNodes} nodes`);
  const perNode = NODE_BYTES + STAT_BYTES;
  if (numNodes > Math.floor(cursor.remaining / perNode)) {
    throw new Refusal('truncated', `tree ${t} declares ${numNodes} nodes; the ${cursor.remaining} bytes that remain hold at most ${Math.floor(cursor.remaining / perNode)}`);
  }
  const left: number[] = new Array(numNodes);
  const right: number[] = new Array(numNodes);
  const parents: number[] = new Array(numNodes);
  const splitIndices: number[] = new Array(numNodes);
  const conditions: number[] = new Array(numNodes);
  const defaultLeft: number[] = new Array(numNodes);
  let deleted = 0;
  for (let i = 0; i < numNodes; i++) {
    parents[i] = cursor.u32() & 0x7fffffff; // as the JSON writer's Parent(): the root's -1 becomes 2^31 - 1
    left[i] = cursor.i32();
    right[i] = cursor.i32();
    const sindex = cursor.u32();
    conditions[i] = cursor.f32();
    splitIndices[i] = sindex & 0x7fffffff;
    defaultLeft[i] = sindex >>> 31;
    // XGBoost counts the deleted nodes after the root and checks them against num_deleted.
    if (sindex === DELETED && i > 0) deleted++;
  }
  if (deleted !== numDeleted) throw corrupt(`tree ${t} declares ${numDeleted} deleted nodes and has ${deleted}`);
  const lossChanges: number[] = new Array(numNodes);
  const sumHessian: number[] = new Array(numNodes);
  const baseWeights: number[] = new Array(numNodes);
  for (let i = 0; i < numNodes; i++) {
    lossChanges[i] = cursor.f32();
    sumHessian[i] = cursor.f32();
    baseWeights[i] = cursor.f32();
    cursor.i32(); // leaf_child_cnt, a statistic of the tree builder
  }
  return {
    base_weights: baseWeights,
    categories: [],
    categories_nodes: [],
    categories_segments: [],
    categories_sizes: [],
    default_left: defaultLeft,
    id: t,
    left_children: left,
    loss_changes: lossChanges,
    parents,
    right_children: right,
    split_conditions: conditions,
    split_indices: splitIndices,
    // The format cannot hold categorical splits: XGBoost refuses to write them (RegTree::Save).
    split_type: new Array(numNodes).fill(0),
    sum_hessian: sumHessian,
    tree_param: { num_deleted: String(numDeleted), num_feature: String(numFeature), num_nodes: String(numNodes), size_leaf_vector: String(sizeLeafVector) },
  };
}
