/**
 * From the inert pickle graph of a saved object to the forest IR: every tree model inside it is
 * found (./find-models.ts) and decoded by the decoder its class is registered with
 * (./estimators.ts). What is not a tree model is described, so the file gets a note rather than
 * a warning.
 */
import { PyDict, type PyValue, asString, classOf, describe, seqItems, stateDict } from '../pickle';
import { DecodeError, corrupt, type Decoded } from './decode-helpers';
import { ROOT, findModels, type UnreadEstimator } from './find-models';
import { withoutLargerChildDirections } from './missing-directions';
import { pipelineFeatures, resamplingSteps, type OneHotGroup } from './pipeline-features';
import type { PipelineInput } from '../../forest/pipeline-input';
import { hasNumberedNames, isNumberedName } from '../../forest/feature-names';

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
      const named = preceding ? withSparseNote(withResamplingNote(namedByPipeline(decoded, preceding, beside), preceding), preceding) : decoded;
      models.push({ ...named, location: found.location, estimator: found.cls.name });
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
  const kept = models.length > 0 ? unread.filter((m) => !isUnfitted(m)) : unread;
  return { models: primaryFirst(models), unread: kept, holds: describeHolding(root) };
}

/** An unread estimator that was never fitted (it stores no trees). */
function isUnfitted(model: UnreadEstimator): boolean {
  return /was never fitted/.test(model.reason);
}

/**
 * A Pipeline step's model fitted on the earlier steps' numpy output names its features `x0..`; the
 * earlier steps' fitted state names them as scikit-learn's get_feature_names_out() would
 * (./pipeline-features.ts). Only then, and only when the counts agree, the names are replaced.
 * When every feature's source is known, the model also records how its features are computed
 * from the Pipeline's own input (`pipelineInput`), so a raw CSV can be lined up with it.
 */
function namedByPipeline(decoded: Decoded, preceding: PyValue[], beside?: string): Decoded {
  const features = decoded.forest.features;
  if (!hasNumberedNames(features)) return decoded;
  const walked = pipelineFeatures(preceding);
  const steps = beside ? `the ${beside} saved beside it` : "the Pipeline's earlier steps";
  // A preprocessor merely saved beside the model may not be what it was fitted on: said only when it fits.
  if (!walked.features && beside) return decoded;
  if (!walked.features) {
    const why = walked.unfollowed ? `its step ${walked.unfollowed} is not one the reader follows` : 'its steps could not be followed';
    return { ...decoded, notes: [...decoded.notes, `feature names stay numbered: the Pipeline's steps before the model were not named (${why}), so --training-data and --membership CSVs must hold the values the model was fitted on`] };
  }
  if (walked.features.length !== features.length) return decoded;
  const named = walked.features;
  // Sources that change nothing (a passthrough, an imputer with nothing to fill) need no record.
  const pipelineInput = walked.pipelineInput && walked.pipelineInput.features.some((f, i) => f.ops.length > 0 || f.input !== i) ? walked.pipelineInput : undefined;
  const withInput = pipelineInput ? { pipelineInput } : {};
  const inputText = (input: PipelineInput) => inputNote(input, beside);
  // A scaler alone in front of a model fitted on an array: still numbered, nothing to rename.
  if (named.every((f, i) => isNumberedName(f.name, i) && !f.binary)) {
    return pipelineInput ? { ...decoded, forest: { ...decoded.forest, ...withInput }, notes: [...decoded.notes, inputText(pipelineInput)] } : decoded;
  }
  const binary = named.filter((f) => f.binary).length;
  // Each OneHotEncoder input's columns (two or more) as a group the reconstruction can trust.
  const members = new Map<OneHotGroup, number[]>();
  named.forEach((f, i) => {
    if (!f.group) return;
    const indices = members.get(f.group);
    if (indices) indices.push(i);
    else members.set(f.group, [i]);
  });
  const featureGroups = [...members]
    .filter(([, indices]) => indices.length >= 2)
    .map(([group, indices]) => ({ kind: group.exact ? ('one-hot' as const) : ('at-most-one' as const), features: indices }));
  return {
    ...decoded,
    forest: { ...decoded.forest, featureNamesFrom: 'pipeline', ...(featureGroups.length ? { featureGroups } : {}), ...withInput, features: features.map((f, i) => ({ ...f, name: named[i].name, ...(named[i].binary ? { kind: 'binary' as const } : {}) })) },
    notes: [
      ...decoded.notes,
      `feature names from ${steps}, as scikit-learn's get_feature_names_out() gives them (${named.slice(0, 3).map((f) => f.name).join(', ')}${named.length > 3 ? ', ...' : ''})${binary > 0 ? `; ${binary} one-hot column${binary === 1 ? '' : 's'} (0 or 1)` : ''}`,
      ...(pipelineInput ? [inputText(pipelineInput)] : walked.unsourced ? [`--training-data and --membership CSVs must hold the values the model was fitted on: the Pipeline's ${walked.unsourced} is named but its computation is not followed`] : []),
    ],
  };
}

/**
 * A sampler before the model (SMOTE, RandomUnderSampler) fitted it on rows that are not the
 * training data as given: the counts, and so the rebuilt rows, include the synthetic rows an
 * over-sampler made, and leave out the rows an under-sampler dropped.
 */
function withResamplingNote(decoded: Decoded, preceding: PyValue[]): Decoded {
  const samplers = resamplingSteps(preceding);
  if (samplers.length === 0) return decoded;
  return {
    ...decoded,
    notes: [
      ...decoded.notes,
      `the Pipeline resamples the rows before the model (${samplers.join(', ')}): the model was fitted on the resampled rows, so the training rows it reveals include the synthetic rows an over-sampler made and leave out the rows an under-sampler dropped`,
    ],
  };
}

/**
 * XGBoost reads a sparse matrix's absent entries as missing values, not as zeros: behind a
 * ColumnTransformer or OneHotEncoder with sparse output, every 0 of a one-hot column reached it as
 * "missing", which is why its splits send "missing" one way (the reconstruction's reason then
 * speaks of missing values the Pipeline never had). A raw row turned into numbers would hold
 * zeros where the trees saw missing values, so no `pipelineInput` is kept for such a model.
 */
function withSparseNote(decoded: Decoded, preceding: PyValue[]): Decoded {
  if (decoded.forest.library?.name !== 'xgboost') return decoded;
  const last = preceding[preceding.length - 1];
  const state = stateDict(last);
  const cls = classOf(last)?.name;
  const sparse =
    (cls === 'ColumnTransformer' && state?.get('sparse_output_') === true) ||
    (cls === 'OneHotEncoder' && (state?.get('sparse_output') === true || state?.get('sparse') === true));
  if (!sparse) return decoded;
  const { pipelineInput, ...forest } = decoded.forest;
  return {
    ...decoded,
    forest,
    notes: [
      ...decoded.notes.filter((note) => !(pipelineInput && note.startsWith('a CSV of ') && note.endsWith('for --training-data and --membership'))),
      `the Pipeline's ${cls} hands the model a sparse matrix, whose absent entries XGBoost reads as missing values, not zeros: the zeros of its one-hot columns reached the trees as "missing", so a CSV of the Pipeline's input is not turned into the model's values`,
    ],
  };
}

function inputNote(input: PipelineInput, beside?: string): string {
  const shown = input.columns.slice(0, 4).join(', ');
  const whose = beside ? `the input of the ${beside} saved beside the model` : "the Pipeline's own input";
  return `a CSV of ${whose} (${shown}${input.columns.length > 4 ? ', ...' : ''}) is turned into the model's values by its fitted steps for --training-data and --membership`;
}

/**
 * The model the file's deeper analyses (reconstruction, report) run on: the one that stores the
 * most nodes, since that is where most of the training data is written down. Ties keep the order
 * met, in which a Pipeline's or search's own model comes before anything nested deeper.
 */
function primaryFirst(models: LocatedModel[]): LocatedModel[] {
  if (models.length < 2) return models;
  const size = (m: LocatedModel) => m.forest.trees.reduce((sum, tree) => sum + tree.left.length, 0);
  let best = 0;
  for (let i = 1; i < models.length; i++) if (size(models[i]) > size(models[best])) best = i;
  return [models[best], ...models.filter((_, i) => i !== best)];
}

/** A short description of the saved object, naming a Pipeline's steps and a container's entries. */
export function describeHolding(v: PyValue): string {
  const cls = classOf(v);
  if (cls) {
    const steps = cls.name === 'Pipeline' ? seqItems(stateDict(v)?.get('steps')) : undefined;
    if (steps) {
      const names = steps.map((step) => {
        const inner = seqItems(step)?.[1];
        return classOf(inner)?.name ?? asString(inner) ?? describe(inner);
      });
      return `a Pipeline (${names.join(' -> ')})`;
    }
    return `a ${cls.qualified}`;
  }
  if (v instanceof PyDict) {
    const entries = v.keys.slice(0, 4).map((key, i) => `${JSON.stringify(asString(key) ?? String(key))}: ${shortName(v.values[i])}`);
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
  return classOf(v)?.name ?? describe(v);
}

export { ROOT };
