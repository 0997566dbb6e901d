/**
 * An XGBoost "memory snapshot": the bytes `Booster.__getstate__` pickles in place of its native
 * handle (`XGBoosterSerializeToBuffer`, learner.cc `Learner::Save`). Read without XGBoost:
 *   - 1.6 and later (1.7.4 checked here): UBJSON `{"Config": ..., "Model": ...}`;
 *   - 1.3 to 1.5 (and 1.0 to 1.2 with enable_experimental_json_serialization): the same object as
 *     JSON text;
 *   - 1.0 to 1.2 by default: `CONFIG-offset:`, an int64 n, n bytes of the legacy binary model
 *     (learner.cc `LearnerIO::Save` of those versions), then the Config as JSON text;
 *   - before 1.0: the legacy binary model alone (`save_raw()`, no `binf` magic before 1.1).
 * The legacy binary model is decoded by ./legacy-binary.ts into what `save_model` writes as JSON.
 * `Model` is what `save_model` writes, so ./model.ts builds the forest from it. `Config` states
 * the training parameters that were in effect (eta, lambda, alpha, max_delta_step, subsample...),
 * which `save_model` leaves out; they are added to the IR's hyper-parameters, so analyses that
 * would otherwise infer eta and lambda from the trees are told them.
 */
import type { ForestInput } from '../../forest/schema';
import type { UnreadableReason } from '../types';
import { float32Decimal } from './float32';
import { decodeLegacyBinary, looksLikeLegacyBinary } from './legacy-binary';
import { parseJsonWithNaN } from './json-nan';
import { buildForest } from './model';
import { decodeUbjson } from './ubjson';

export type SnapshotBuild =
  | { ok: true; forest: ForestInput; notes: string[]; format: string }
  | { ok: false; reason: UnreadableReason; detail: string };

type Obj = { [key: string]: unknown };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Config `train_param` entries -> the IR's (XGBoost's native) names. `gamma` and `min_split_loss`
 * are aliases, as are `eta` / `learning_rate` and `lambda` / `reg_lambda`: the native name is kept.
 */
const TRAIN_PARAMS = ['eta', 'lambda', 'alpha', 'gamma', 'max_depth', 'min_child_weight', 'max_delta_step', 'subsample', 'colsample_bytree', 'colsample_bylevel', 'colsample_bynode', 'max_leaves'];

export function readSnapshot(bytes: Uint8Array): SnapshotBuild {
  const parsed = parse(bytes);
  if (!parsed.ok) return parsed;
  const root = parsed.value;
  // A snapshot holds {Config, Model}; a buffer holding only the model (save_raw("json"/"ubj")) is read too.
  const model = isObj(root) && isObj(root.Model) ? root.Model : root;
  const built = buildForest(model);
  if (!built.ok) return built;
  const forest = built.forest;
  const notes = [...(parsed.notes ?? []), ...built.notes.filter((note) => !note.startsWith('hyper-parameters: not stored'))];
  const config = isObj(root) && isObj(root.Config) ? root.Config : undefined;
  const stated = config ? trainParams(config) : {};
  const names = Object.keys(stated);
  // The Config states what XGBoost used: a wrapper's `learning_rate=None` meant eta 0.3.
  const hyper = (forest.hyperParameters ??= {});
  for (const name of names) if (hyper[name] === undefined || hyper[name] === null) hyper[name] = stated[name];
  if (names.length > 0) notes.push(`training parameters stated by the snapshot's Config: ${names.map((n) => `${n} ${stated[n]}`).join(', ')}`);
  else notes.push('the snapshot has no Config: training parameters are not stated (learning rate and lambda are inferred from the trees where needed)');
  return { ok: true, forest, notes, format: parsed.format };
}

type Parsed = { ok: true; value: unknown; format: string; notes?: string[] } | { ok: false; reason: UnreadableReason; detail: string };

/** What XGBoost 1.0 to 1.2 write first when they pickle a booster in the binary form (learner.cc serialisation_header_). */
const CONFIG_OFFSET = 'CONFIG-offset:';

/** XGBoost's JSON writer prints NaN bare (categorical splits); ./model.ts refuses those splits. */

function parse(bytes: Uint8Array): Parsed {
  if (bytes.length === 0) return { ok: false, reason: 'corrupt', detail: 'the booster holds no bytes' };
  if (bytes[0] === 0x7b && bytes.length > 1 && bytes[1] === 0x22) {
    try {
      return { ok: true, value: parseJsonWithNaN(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')), format: 'JSON memory snapshot' };
    } catch (error) {
      return { ok: false, reason: 'corrupt', detail: `the booster's JSON snapshot does not parse (${(error as Error).message})` };
    }
  }
  if (bytes[0] === 0x7b) {
    const decoded = decodeUbjson(bytes);
    if (!decoded.ok) return { ok: false, reason: decoded.reason, detail: `the booster's UBJSON snapshot is ${decoded.reason}: ${decoded.detail}` };
    return { ok: true, value: decoded.value, format: 'UBJSON memory snapshot' };
  }
  if (Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, CONFIG_OFFSET.length)).toString('latin1') === CONFIG_OFFSET) return configOffset(bytes);
  if (looksLikeLegacyBinary(bytes)) return legacyModel(bytes, undefined, 'legacy binary memory snapshot');
  return {
    ok: false,
    reason: 'unsupported-format',
    detail:
      "the booster is neither a JSON or UBJSON snapshot (XGBoost 1.3 and later) nor XGBoost's legacy binary format (earlier versions); " +
      'load the model with the XGBoost that wrote it and save it with save_model("model.json")',
  };
}

/** `CONFIG-offset:`, int64 n (little-endian), n bytes of legacy binary model, the Config as JSON text. */
function configOffset(bytes: Uint8Array): Parsed {
  const start = CONFIG_OFFSET.length + 8;
  if (bytes.length < start) return { ok: false, reason: 'truncated', detail: 'the booster\'s snapshot ends inside its CONFIG-offset header' };
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigInt64(CONFIG_OFFSET.length, true);
  if (n <= 0n) return { ok: false, reason: 'corrupt', detail: `the booster's snapshot puts its Config at offset ${n}` };
  if (n > BigInt(bytes.length - start)) return { ok: false, reason: 'truncated', detail: `the booster's snapshot declares a ${n}-byte model; ${bytes.length - start} bytes follow the header` };
  const end = start + Number(n);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + end, bytes.length - end).toString('utf8');
  let config: unknown;
  const notes: string[] = [];
  try {
    config = parseJsonWithNaN(text);
  } catch (error) {
    // The model is whole without it; only the stated training parameters are lost.
    notes.push(`the snapshot's Config does not parse (${(error as Error).message}); training parameters are not stated`);
  }
  return legacyModel(bytes.subarray(start, end), isObj(config) ? config : undefined, 'legacy binary memory snapshot with a JSON Config', notes);
}

function legacyModel(bytes: Uint8Array, config: Obj | undefined, format: string, notes: string[] = []): Parsed {
  const decoded = decodeLegacyBinary(bytes);
  if (!decoded.ok) return { ok: false, reason: decoded.reason, detail: `the booster's snapshot is in XGBoost's legacy binary format and ${decoded.reason === 'unsupported-estimator' ? 'not read' : decoded.reason}: ${decoded.detail}` };
  return { ok: true, value: { Model: decoded.model, ...(config ? { Config: config } : {}) }, format, notes: [...notes, ...decoded.notes] };
}

/** The first `train_param` object under the gradient booster's updaters (each updater holds a copy). */
function trainParams(config: Obj): Record<string, number> {
  const learner = isObj(config.learner) ? config.learner : {};
  let booster = isObj(learner.gradient_booster) ? learner.gradient_booster : {};
  if (isObj(booster.gbtree)) booster = booster.gbtree; // dart keeps its gbtree one level down
  // XGBoost 2.x keeps them in the booster's `tree_train_param`; 1.x in each updater's `train_param`.
  const updaters = isObj(booster.updater) ? Object.values(booster.updater) : [];
  const found = updaters.find((u): u is Obj => isObj(u) && isObj(u.train_param));
  const params = isObj(booster.tree_train_param) ? booster.tree_train_param : found ? (found.train_param as Obj) : {};
  const out: Record<string, number> = {};
  for (const name of TRAIN_PARAMS) {
    const value = float32Decimal(params[name]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
