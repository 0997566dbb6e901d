/**
 * An XGBoost "memory snapshot": the bytes `Booster.__getstate__` pickles in place of its native
 * handle (`XGBoosterSerializeToBuffer`, learner.cc `Learner::Save`). Read without XGBoost:
 *   - 1.6 and later (1.7.4 checked here): UBJSON `{"Config": ..., "Model": ...}`;
 *   - 1.0 to 1.5 with JSON serialisation: the same object as JSON text;
 *   - older pickles, and 1.0 to 1.5 by default: the legacy binary format (starting `binf`, or the
 *     learner's parameter struct), which is refused with a clear reason rather than guessed at.
 * `Model` is what `save_model` writes, so ./model.ts builds the forest from it. `Config` states
 * the training parameters that were in effect (eta, lambda, alpha, max_delta_step, subsample...),
 * which `save_model` leaves out; they are added to the IR's hyper-parameters, so analyses that
 * would otherwise infer eta and lambda from the trees are told them.
 */
import type { ForestInput } from '../../forest/schema';
import type { UnreadableReason } from '../types';
import { float32Decimal } from './float32';
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
  const notes = built.notes.filter((note) => !note.startsWith('hyper-parameters: not stored'));
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

function parse(bytes: Uint8Array): { ok: true; value: unknown; format: string } | { ok: false; reason: UnreadableReason; detail: string } {
  if (bytes.length === 0) return { ok: false, reason: 'corrupt', detail: 'the booster holds no bytes' };
  if (bytes[0] === 0x7b && bytes.length > 1 && bytes[1] === 0x22) {
    try {
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
      // XGBoost's JSON writer prints NaN bare (categorical splits); ./model.ts refuses those splits.
      return { ok: true, value: JSON.parse(text.replace(/([:,[]\s*)(-?)NaN\b/g, (_, before: string, minus: string) => `${before}"${minus}N"`)), format: 'JSON memory snapshot' };
    } catch (error) {
      return { ok: false, reason: 'corrupt', detail: `the booster's JSON snapshot does not parse (${(error as Error).message})` };
    }
  }
  if (bytes[0] === 0x7b) {
    const decoded = decodeUbjson(bytes);
    if (!decoded.ok) return { ok: false, reason: decoded.reason, detail: `the booster's UBJSON snapshot is ${decoded.reason}: ${decoded.detail}` };
    return { ok: true, value: decoded.value, format: 'UBJSON memory snapshot' };
  }
  // Pickles of XGBoost before 1.0 hold the bare legacy binary model (no magic); 1.0 to 1.5 by
  // default `binf`-prefixed binary followed by the JSON config.
  const binf = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4)).toString('latin1') === 'binf';
  return {
    ok: false,
    reason: 'unsupported-format',
    detail:
      `the booster is ${binf ? "in XGBoost's legacy binary format" : "not a JSON or UBJSON snapshot (XGBoost 1.6 and later write those), so presumably in XGBoost's legacy binary format"}, ` +
      'which pickles of XGBoost before 1.6 hold and which is not read yet; load the model with the XGBoost that wrote it and save it with save_model("model.json")',
  };
}

/** The first `train_param` object under the gradient booster's updaters (each updater holds a copy). */
function trainParams(config: Obj): Record<string, number> {
  const learner = isObj(config.learner) ? config.learner : {};
  let booster = isObj(learner.gradient_booster) ? learner.gradient_booster : {};
  if (isObj(booster.gbtree)) booster = booster.gbtree; // dart keeps its gbtree one level down
  const updaters = isObj(booster.updater) ? Object.values(booster.updater) : [];
  const found = updaters.find((u): u is Obj => isObj(u) && isObj(u.train_param));
  const params = found ? (found.train_param as Obj) : {};
  const out: Record<string, number> = {};
  for (const name of TRAIN_PARAMS) {
    const value = float32Decimal(params[name]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
