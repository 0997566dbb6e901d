/**
 * From the inert pickle graph of a saved object to the forest IR: every tree model inside it is
 * found (./find-models.ts) and decoded by the decoder its class is registered with
 * (./estimators.ts). What is not a tree model is described, so the file gets a note rather than
 * a warning.
 */
import type { ForestInput } from '../../forest/schema';
import { hasNumberedNames } from '../../forest/feature-names';
import { PyDict, type PyValue, asNdArray, asString, classOf, describe, isArray, seqItems, stateDict } from '../pickle';
import { DecodeError, corrupt, pythonKey, type Decoded } from './decode-helpers';
import { ROOT, findModels, type UnreadEstimator } from './find-models';
import { withoutLargerChildDirections } from './missing-directions';
import { besideScalerContradiction } from './beside-check';
import { withPrecedingSteps, type SavedNames } from './pipeline-model';
import { isNeverFitted, type SavedData } from '../types';
import type { MemberRole } from './member-roles';

export { DecodeError } from './decode-helpers';
export type { Decoded } from './decode-helpers';

export interface LocatedModel extends Decoded {
  /** Python expression reaching the model from the loaded object (`model` when it is the object). */
  location: string;
  estimator: string;
}

export interface DecodedFile {
  /** Every tree model read, the primary one (see `primaryFirst`) first. Empty when there is none. */
  models: LocatedModel[];
  /** Tree models found but not read: another library's, or one whose data did not decode. */
  unread: UnreadEstimator[];
  /** What the saved object is, for a file without a tree model: `a Pipeline (StandardScaler -> LogisticRegression)`. */
  holds: string;
  /** Fitted estimators that keep training rows word for word (./stored-rows.ts). */
  storedRows: SavedData[];
}

export function decodeModel(root: PyValue | undefined): DecodedFile {
  if (root === undefined) throw corrupt('the pickle holds no value.');
  const walk = findModels(root);
  const models: LocatedModel[] = [];
  const unread = [...walk.unread];
  let firstError: DecodeError | undefined;
  for (const found of walk.models) {
    try {
      const decoded = withoutLargerChildDirections(found.decode(found.value, found.cls));
      const preceding = typeof found.value === 'object' && found.value !== null ? walk.precedingSteps.get(found.value) : undefined;
      // A preprocessor saved beside the model in a dict or tuple is named as such in the notes.
      const beside = preceding && walk.besideSteps.has(found.value as object) ? classOf(preceding[0])?.name ?? 'preprocessor' : undefined;
      const names = typeof found.value === 'object' && found.value !== null ? walk.besideNames.get(found.value) : undefined;
      // Beside the model, a scaler whose outputs its thresholds exceed was not what it was fitted on.
      const contradiction = beside && preceding ? besideScalerContradiction(decoded.forest, preceding[0]) : undefined;
      const named = contradiction
        ? { ...decoded, notes: [...decoded.notes, `the ${beside} saved beside the model is not applied to its rows: ${contradiction}, so the model was fitted on other rows (its own inputs are read)`] }
        : preceding
          ? withPrecedingSteps(decoded, preceding, beside, names)
          : decoded;
      models.push({ ...withBesideNames(withRole(named, roleAt(walk.memberRoles, found.location)), names), location: found.location, estimator: found.cls.name });
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      firstError ??= e;
      unread.push({ location: found.location, estimator: found.cls.name, reason: e.message.replace(/\.$/, '') });
    }
  }
  // One model that fails to decode is the file's problem (truncated, damaged): say so as before.
  // An estimator it does not read (multi-output, never fitted) is a note like any unread model.
  if (models.length === 0 && walk.models.length === 1 && walk.unread.length === 0 && firstError && firstError.reason !== 'unsupported-estimator') throw firstError;
  // Beside a fitted model, a never-fitted one is a template (a search's best_params_ and
  // cv_results_ keep the estimators they tried): nothing the user should be told is unread.
  const kept = models.length > 0 ? unread.filter((m) => !isNeverFitted(m)) : unread;
  return { models: primaryFirst(sharedNumbering(withoutCopies(models, walk.fromParameters))), unread: kept, holds: describeHolding(root), storedRows: walk.storedRows };
}

/**
 * One copy of each model: a model the user fitted before handing it to a stack or vote stays in
 * the wrapper's parameters beside the clone the wrapper refitted, tree for tree the same when the
 * seed is (sweep 15's re-run: every finding of a public stack twice). A copy is dropped, its place
 * named in the kept one's notes; models that differ anywhere are all kept.
 */
function withoutCopies(models: LocatedModel[], fromParameters: ReadonlySet<string>): LocatedModel[] {
  // Only a model found in a constructor parameter is dropped as a copy (two equal models saved on purpose stay two).
  if (fromParameters.size === 0) return models;
  const kept: LocatedModel[] = [];
  const byPrint = new Map<string, number>();
  for (const model of models) {
    const print = fingerprint(model);
    const at = byPrint.get(print);
    if (at === undefined || !fromParameters.has(model.location)) {
      if (at === undefined) byPrint.set(print, kept.length);
      kept.push(model);
      continue;
    }
    kept[at] = { ...kept[at], notes: [...kept[at].notes, `the same model (every tree, threshold and count) is also at ${model.location}: read once`] };
  }
  return kept;
}

/** A hash of the model's trees (structure, features, thresholds, counts): two 32-bit FNV-1a over their values. */
function fingerprint(model: LocatedModel): string {
  const forest = model.forest;
  let a = 0x811c9dc5;
  let b = 0x01000193;
  const scratch = new Float64Array(1);
  const bytes = new Uint8Array(scratch.buffer);
  const mix = (x: number) => {
    scratch[0] = x;
    for (let i = 0; i < 8; i++) {
      a = Math.imul(a ^ bytes[i], 0x01000193);
      b = Math.imul(b ^ bytes[7 - i], 0x811c9dc5) + i;
    }
  };
  mix(forest.features.length);
  mix(forest.trees.length);
  for (const tree of forest.trees) {
    mix(tree.left.length);
    for (let n = 0; n < tree.left.length; n++) {
      mix(tree.left[n]);
      mix(tree.feature[n]);
      mix(tree.threshold[n]);
    }
    for (let k = 0; k < tree.classWeights.length; k++) mix(tree.classWeights[k]);
    for (const x of tree.targetMean ?? []) mix(x);
    for (const x of tree.boosting?.leafValue ?? []) mix(x);
  }
  return `${model.estimator}:${(a >>> 0).toString(16)}:${(b >>> 0).toString(16)}`;
}

/**
 * One numbering for the columns of one file: an XGBoost model inside a scikit-learn container
 * (a StackingClassifier's member) numbers unnamed columns f0, f1, ... as XGBoost does, its
 * siblings x0, x1, ... as scikit-learn does, so the same column read `x22` in one finding and `f22`
 * in the next. Beside scikit-learn models, the XGBoost ones take scikit-learn's numbering.
 */
function sharedNumbering(models: LocatedModel[]): LocatedModel[] {
  const numbered = (m: LocatedModel, letter: string) => m.forest.features.length > 0 && m.forest.features.every((f, i) => f.name === `${letter}${i}`);
  if (!models.some((m) => numbered(m, 'x'))) return models;
  return models.map((m) => (numbered(m, 'f') ? { ...m, forest: { ...m.forest, features: m.forest.features.map((f, i) => ({ ...f, name: `x${i}` })) } } : m));
}

/**
 * Names saved beside a model fitted on a bare array (`{"model": m, "features": [...]}`): its
 * features are x0, x1, ... (or XGBoost's f0, ...), so the list, when it names as many, names them.
 * Steps in front of it (a scaler saved beside it, a Pipeline) took the names as their input
 * already (pipeline-model.ts), so a CSV under those names lines up.
 */
function withBesideNames<T extends { forest: ForestInput; notes: string[] }>(decoded: T, beside: SavedNames | undefined): T {
  const features = decoded.forest.features;
  if (!beside || beside.names.length !== features.length || !hasNumberedNames(features)) return decoded;
  return {
    ...decoded,
    forest: { ...decoded.forest, features: features.map((f, i) => ({ ...f, name: beside.names[i] })) },
    notes: [...decoded.notes, `feature names from the list saved beside the model under "${beside.key}" (the model itself, fitted on a bare array, names none)`],
  };
}

/** A member whose wrapper changes what its numbers mean (member-roles.ts): on its IR, with a note. */
function withRole<T extends { forest: ForestInput; notes: string[] }>(decoded: T, role: MemberRole | undefined): T {
  if (!role) return decoded;
  const notes = [...decoded.notes];
  if (role.oneVsRest) {
    const c = String(role.oneVsRest.positive);
    notes.push(`a OneVsRestClassifier's model of class ${c} against the rest: its classes 0 and 1 are "not ${c}" and "${c}" (its reconstructed labels and --training-data use 0 and 1)`);
  }
  let classes = decoded.forest.classes;
  if (role.recoded) {
    const { by, classes: meaning } = role.recoded;
    // Its labels read as what they stand for: one vs one, the pair's classes exactly.
    if (meaning.length === classes.length && meaning.length > 0) classes = meaning;
    notes.push(
      by === 'OneVsOneClassifier'
        ? `a OneVsOneClassifier's model of ${meaning.join(' against ')}: fitted on the rows of those two classes only, so its training rows are part of the file's, and nothing about the others is proven`
        : `an OutputCodeClassifier's model of one bit of the output code: its labels stand for groups of classes (${meaning.join('; ')}), and nothing about single classes is proven`,
    );
  }
  if (role.multiOutput) notes.push(`the model of output ${role.multiOutput.output} of a ${role.multiOutput.outputs}-output wrapper: its labels are that output's`);
  if (role.targetTransform) notes.push(`fitted by a TransformedTargetRegressor on the target transformed by ${role.targetTransform}: its targets are in that scale`);
  let features = decoded.forest.features;
  if (role.stackingFinal) {
    const { estimators, columns } = role.stackingFinal;
    notes.push(`a stack's final estimator: its features are the predictions of the stack's estimators (${estimators.join(', ')}), made out of fold on the training rows, so its rows are those predictions with the labels, not the data's columns`);
    if (columns && columns.length === features.length && hasNumberedNames(features)) features = features.map((f, i) => ({ ...f, name: columns[i] }));
  }
  if (role.chainLink) {
    const { inputs, labels } = role.chainLink;
    notes.push(`link ${labels.length + 1} of a classifier or regressor chain: besides the chain's ${inputs} input columns it was fitted on the true labels of the outputs before it (${labels.join(', ')}), so its rows end with those labels`);
    if (features.length === inputs + labels.length && hasNumberedNames(features)) features = features.map((f, i) => (i < inputs ? f : { ...f, name: labels[i - inputs] }));
  }
  const { crossValidationFold, stackingFinal: _, chainLink: __, ...onForest } = role;
  const training = crossValidationFold ? { training: { ...decoded.forest.training, crossValidationFold } } : {};
  return { ...decoded, notes, forest: { ...decoded.forest, features, classes, ...onForest, ...training } };
}

/**
 * The role a wrapper gives the model at `location`: its own, or, for a cross-validation fold, that
 * of the member it sits in (a CalibratedClassifierCV of a Pipeline keeps each fold's model at
 * `...calibrated_classifiers_[i].estimator.named_steps["classifier"]`: sweep 11, whose folds went
 * unrecognised).
 */
function roleAt(roles: ReadonlyMap<string, MemberRole>, location: string): MemberRole | undefined {
  const own = roles.get(location);
  if (own) return own;
  for (const [at, role] of roles) if (role.crossValidationFold && location.startsWith(`${at}.`)) return { crossValidationFold: role.crossValidationFold };
  return undefined;
}

/**
 * The model the file's deeper analyses (reconstruction, report) run on: the one that stores the
 * most nodes, since that is where most of the training data is written down. Ties keep the order
 * met, in which a Pipeline's or search's own model comes before anything nested deeper.
 */
/** Where a stack keeps the model it fits on its members' predictions: scikit-learn's, mlxtend's. */
const STACK_FINAL = /\.(final_estimator_|meta_regr_|meta_clf_)$/;

function primaryFirst(models: LocatedModel[]): LocatedModel[] {
  if (models.length < 2) return models;
  const size = (m: LocatedModel) => m.forest.trees.reduce((sum, tree) => sum + tree.left.length, 0);
  // A stack's final estimator is fitted on the other members' predictions, not on the data: one
  // of the members is the model of the training data (sweep 12: a final forest of 15,896 nodes
  // was reconstructed, its "training rows" four predicted probabilities each). mlxtend's stacks
  // call it meta_regr_ or meta_clf_ (sweep 19: a StackingCVRegressor's meta forest was).
  const onData = (m: LocatedModel) => !STACK_FINAL.test(m.location);
  let best = models.findIndex(onData);
  if (best < 0) best = 0;
  for (let i = 0; i < models.length; i++) if (onData(models[i]) && size(models[i]) > size(models[best])) best = i;
  // Said, so that a header naming estimators_[11] of twelve is not read as an arbitrary pick.
  const passedOver = models.some((m) => !onData(m) && size(m) > size(models[best]));
  const why = passedOver
    ? `it stores the most nodes (${size(models[best]).toLocaleString('en-US')}) of those fitted on the data, where most of the training data is written down (the stack's final estimator, fitted on their predictions, is not)`
    : `it stores the most nodes (${size(models[best]).toLocaleString('en-US')}), where most of the training data is written down`;
  const chosen = { ...models[best], notes: [...models[best].notes, `the reconstruction and the report run on this one of the file's ${models.length} tree models: ${why}`] };
  return [chosen, ...models.filter((_, i) => i !== best)];
}

/** ` of shape 150 x 4`, or nothing when the array cannot be decoded. */
function arrayShape(v: PyValue): string {
  try {
    const shape = asNdArray(v).shape;
    return shape.length ? ` of shape ${shape.map((n) => n.toLocaleString('en-US')).join(' x ')}` : '';
  } catch {
    return '';
  }
}

/**
 * What an object rebuilt by calling a global is: an instance when the global is a class (Python
 * names classes in CapWords), else what the function returned. Keras pickles its models through
 * its own functions (`keras.src.saving.pickle_utils.deserialize_model_from_bytecode`), which read
 * as "an instance of" that function (sweep 16).
 */
function rebuiltBy(qualified: string, name: string): string {
  if (/^[A-Z]/.test(name)) return `an instance of ${qualified}`;
  if (/^(keras|tf_keras|tensorflow)\b/.test(qualified) && /model/i.test(name)) return `a Keras model (rebuilt by ${qualified})`;
  return `an object rebuilt by calling ${qualified}`;
}

/** A short description of the saved object, naming a Pipeline's steps and a container's entries. */
export function describeHolding(v: PyValue, depth = 0): string {
  // A pickled ndarray is a call of numpy's _reconstruct: "an instance of
  // numpy.core.multiarray._reconstruct" told nobody it is an array (sweep 14).
  if (isArray(v)) return `a NumPy array${arrayShape(v)}`;
  const cls = classOf(v);
  if (cls) {
    const steps = cls.name === 'Pipeline' ? seqItems(stateDict(v)?.get('steps')) : undefined;
    if (steps) {
      const names = steps.map((step) => {
        const inner = seqItems(step)?.[1];
        // A Pipeline as a step is named with its own steps (sweep 16 read "a Pipeline (Pipeline)"), a few levels deep.
        if (inner !== undefined && classOf(inner)?.name === 'Pipeline' && depth < 3) return describeHolding(inner, depth + 1).replace(/^a /, '');
        return classOf(inner)?.name ?? asString(inner) ?? describe(inner);
      });
      return `a Pipeline (${names.join(' -> ')})`;
    }
    return rebuiltBy(cls.qualified, cls.name);
  }
  if (v instanceof PyDict) {
    const entries = v.keys.slice(0, 4).map((key, i) => `${pythonKey(key)}: ${shortName(v.values[i])}`);
    return `a dict (${entries.join(', ')}${v.size > 4 ? `, and ${v.size - 4} more` : ''})`;
  }
  const items = seqItems(v);
  if (items) {
    const kind = describe(v).replace(/^an? /, '');
    return `a ${kind} of ${items.length} (${items.slice(0, 4).map(shortName).join(', ')}${items.length > 4 ? ', ...' : ''})`;
  }
  return describe(v);
}

function shortName(v: PyValue): string {
  // A numpy array's class is its reconstructor's (`_reconstruct`), not a name a reader knows.
  if (isArray(v)) return 'a numpy array';
  return classOf(v)?.name ?? describe(v);
}

export { ROOT };
