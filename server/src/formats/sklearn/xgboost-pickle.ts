/**
 * XGBoost models saved with pickle or joblib: the scikit-learn wrapper (`xgboost.sklearn.XGBClassifier`
 * and kin) and the bare `xgboost.core.Booster`. Checked against xgboost 1.7.4:
 *   - the wrapper pickles its `__dict__`: the hyper-parameters as passed (None when left to
 *     XGBoost's default), `classes_` and `n_classes_` once fitted, and the `_Booster`;
 *   - `Booster.__getstate__` replaces the native handle by `bytearray(<memory snapshot>)`, read by
 *     ../xgboost/snapshot.ts into the same IR `save_model`'s JSON gives.
 * The wrapper adds what the booster does not know: its class labels and its hyper-parameters
 * (n_estimators and the rest, under the names ../xgboost/model.ts gives the JSON's copy of them).
 */
import { PyBytes, PyCall, PyGlobal, type PyValue, asString, describe, seqItems, stateDict } from '../pickle';
import { asRawBytes } from '../pickle/numpy';
import { WRAPPER_PARAMS } from '../xgboost/model';
import { readSnapshot } from '../xgboost/snapshot';
import { DecodeError, arrayOrThrow, corrupt, hyperValue, labelOf, type Decoded } from './decode-helpers';

/** Classes of the `xgboost` package that hold a booster (module checked by the registry). */
export const XGBOOST_CLASSES = ['XGBModel', 'XGBClassifier', 'XGBRegressor', 'XGBRFClassifier', 'XGBRFRegressor', 'XGBRanker', 'Booster'];

export function decodeXgboostPickle(est: PyValue, cls: PyGlobal): Decoded {
  const state = stateDict(est);
  if (!state) throw corrupt(`the ${cls.name} has no pickled state.`);
  const wrapper = cls.name !== 'Booster';
  let boosterState = state;
  if (wrapper) {
    const booster = state.get('_Booster');
    if (booster === undefined || booster === null) throw new DecodeError('unsupported-estimator', `the ${cls.name} was never fitted (it holds no booster).`);
    const inner = stateDict(booster);
    if (!inner) throw corrupt(`the ${cls.name}'s _Booster is ${describe(booster)}, not a pickled xgboost Booster.`);
    boosterState = inner;
  }
  const handle = boosterState.get('handle');
  if (handle === undefined || handle === null) throw new DecodeError('unsupported-estimator', 'the Booster holds no model (its handle is None).');
  const bytes = handleBytes(handle);
  if (!bytes) throw corrupt(`the Booster's handle is ${describe(handle)}, not the bytes of a model.`);
  const snapshot = readSnapshot(bytes);
  if (!snapshot.ok) throw new DecodeError(snapshot.reason, `${snapshot.detail.replace(/\.$/, '')}.`);

  const forest = snapshot.forest;
  const notes = [`XGBoost booster inside the pickle (format: ${snapshot.format}${forest.library.version ? `, XGBoost ${forest.library.version}` : ''})`];
  forest.estimator = cls.name;
  if (wrapper) {
    const hyper = (forest.hyperParameters ??= {});
    for (const [wrapperName, nativeName] of WRAPPER_PARAMS) {
      if (!state.has(wrapperName)) continue;
      const value = hyperValue(state.get(wrapperName));
      // None means "XGBoost's default"; the snapshot's Config already states that value.
      if (value !== null || hyper[nativeName] === undefined) hyper[nativeName] = value;
    }
    const labels = classLabels(state.get('classes_'));
    if (labels && labels.length === forest.classes.length) forest.classes = labels;
    else if (labels) notes.push(`classes_ has ${labels.length} labels for ${forest.classes.length} classes of the booster; the booster's class indices are used`);
    if (cls.name.startsWith('XGBRF')) notes.push(`${cls.name}: one boosting round of n_estimators trees grown as a random forest`);
  }
  return { forest, notes: [...notes, ...snapshot.notes] };
}

/**
 * The snapshot's bytes: `bytearray(bytes)` (protocols 3, 4), the BYTEARRAY8 opcode (5), or
 * protocol 2's `bytearray(str, 'latin-1')`.
 */
function handleBytes(handle: PyValue): Uint8Array | undefined {
  if (handle instanceof PyBytes) return handle.data;
  if (handle instanceof PyCall && handle.callable instanceof PyGlobal && handle.callable.module === 'builtins' && handle.callable.name === 'bytearray') {
    const args = seqItems(handle.args);
    const text = asString(args?.[0]);
    if (args?.length === 2 && text !== undefined && /^latin[-_]?1$/i.test(asString(args[1]) ?? '')) {
      const out = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (code > 255) return undefined;
        out[i] = code;
      }
      return out;
    }
  }
  return asRawBytes(handle);
}

function classLabels(v: PyValue | undefined): (string | number | boolean)[] | undefined {
  if (v === undefined || v === null) return undefined;
  try {
    return arrayOrThrow(v, 'classes_').values().map(labelOf);
  } catch {
    return undefined;
  }
}
