/**
 * What a Pipeline's earlier steps (or a preprocessor saved beside the model in a dict or tuple) tell
 * about the tree model after them: the names scikit-learn gives its features, how raw rows become
 * its values (`pipelineInput`), one-hot groups, and notes on what cannot be followed (a step the
 * reader does not know, a resampling step, a sparse matrix handed to XGBoost).
 */
import { ordinalCategoryName, renamedSetSplits } from '../../forest/set-splits';
import { splitsOnMissingOnly } from '../../forest/missing-split';
import { type PyValue, asNumpyScalar, classOf, stateDict } from '../pickle';
import type { Decoded } from './decode-helpers';
import { pipelineFeatures, resamplingSteps, type OneHotGroup } from './pipeline-features';
import type { PipelineInput } from '../../forest/pipeline-input';
import { hasNumberedNames, isNumberedName } from '../../forest/feature-names';

/** Column names saved beside a model in its dict (`"features": [...]`), under `key`. */
export interface SavedNames {
  key: string;
  names: string[];
}

/**
 * The decoded model with everything its preceding steps say; `beside`: the class of a preprocessor
 * saved beside it; `saved`: column names saved beside it, for the first step's numbered input.
 */
export function withPrecedingSteps(decoded: Decoded, preceding: PyValue[], beside?: string, saved?: SavedNames): Decoded {
  return withSparseNote(withResamplingNote(namedByPipeline(withMissingFilled(decoded, preceding, beside), preceding, beside, saved), preceding), preceding);
}

/**
 * When the Pipeline's steps fill every missing value before the model (an imputer of NaN on each
 * column, or an encoder whose 0/1 output is never missing), the model never saw one: its
 * missing-value directions say nothing about the training rows, and are not read. Without this a
 * histogram-boosting model behind a median imputer of all its columns was read as "may have had
 * missing values", and only one tree's leaves were used (sweep 11). Not for a preprocessor merely
 * saved beside the model (it may not be what the model was fitted on), nor when XGBoost reads a
 * sparse matrix (its zeros arrive as missing), nor when a split on missing values alone shows some.
 */
function withMissingFilled(decoded: Decoded, preceding: PyValue[], beside: string | undefined): Decoded {
  const trees = decoded.forest.trees;
  if (beside || !trees.some((tree) => tree.defaultLeft) || sparseToXgboost(decoded, preceding)) return decoded;
  const own = decoded.forest.features.filter((f) => !f.setOf).length;
  const walked = pipelineFeatures(preceding);
  const input = walked.features ? walked.pipelineInput : undefined;
  if (!input || input.features.length !== own) return decoded;
  const fills = (op: PipelineInput['features'][number]['ops'][number]) =>
    (op.op === 'impute' && op.missing === null && op.value !== null) || op.op === 'equals' || op.op === 'one-of' || op.op === 'none-of' || op.op === 'is-missing';
  if (!input.features.every((f) => f.ops.some(fills))) return decoded;
  if (trees.some((tree) => Array.from(tree.threshold).some((t, n) => tree.left[n] !== -1 && splitsOnMissingOnly(t)))) return decoded;
  return {
    ...decoded,
    forest: { ...decoded.forest, trees: trees.map(({ defaultLeft, ...tree }) => (void defaultLeft, tree)) },
    notes: [...decoded.notes, "the Pipeline fills every missing value before the model (its imputers and encoders), so the model never saw one: its missing-value directions are not read"],
  };
}

/**
 * A Pipeline step's model fitted on the earlier steps' numpy output names its features `x0..`; the
 * earlier steps' fitted state names them as scikit-learn's get_feature_names_out() would
 * (./pipeline-features.ts). Only then, and only when the counts agree, the names are replaced.
 * When every feature's source is known, the model also records how its features are computed
 * from the Pipeline's own input (`pipelineInput`), so a raw CSV can be lined up with it.
 */
function namedByPipeline(decoded: Decoded, preceding: PyValue[], beside?: string, saved?: SavedNames): Decoded {
  // Categorical splits' 0/1 features (forest/set-splits.ts) come from the model's own columns: the
  // steps name those, and each set-split feature is named again from its column and its categories.
  const all = decoded.forest.features;
  const own = all.filter((f) => !f.setOf);
  if (own.length === all.length) return namedOwnColumns(decoded, preceding, beside, saved);
  const named = namedOwnColumns({ ...decoded, forest: { ...decoded.forest, features: own } }, preceding, beside, saved);
  const features = renamedSetSplits([...named.forest.features, ...all.slice(own.length)], ordinalCategoryName(named.forest.pipelineInput));
  return { ...named, forest: { ...named.forest, features } };
}

function namedOwnColumns(decoded: Decoded, preceding: PyValue[], beside?: string, saved?: SavedNames): Decoded {
  const features = decoded.forest.features;
  if (!hasNumberedNames(features)) return decoded;
  const walked = pipelineFeatures(preceding, saved?.names);
  const steps = beside ? `the ${beside} saved beside it` : "the Pipeline's earlier steps";
  // A preprocessor merely saved beside the model may not be what it was fitted on: said only when it fits.
  if (!walked.features && beside) return decoded;
  if (!walked.features) {
    const why = walked.unfollowed ? `its step ${walked.unfollowed} is not one the reader follows` : 'its steps could not be followed';
    return {
      ...decoded,
      forest: { ...decoded.forest, stepsNotFollowed: why },
      notes: [...decoded.notes, `feature names stay numbered: the Pipeline's steps before the model were not named (${why}), so --training-data and --membership CSVs must hold the values the model was fitted on`],
    };
  }
  if (walked.features.length !== features.length) return decoded;
  const named = walked.features;
  // Sources that change nothing (a passthrough, an imputer with nothing to fill) need no record;
  // nor can raw rows stand for what XGBoost saw behind a sparse matrix (withSparseNote).
  const changes = walked.pipelineInput?.features.some((f, i) => f.ops.length > 0 || f.input !== i);
  const pipelineInput = changes && !sparseToXgboost(decoded, preceding) ? walked.pipelineInput : undefined;
  const withInput = pipelineInput ? { pipelineInput } : {};
  const inputText = (input: PipelineInput) => inputNote(input, beside);
  // A scaler alone in front of a model fitted on an array: still numbered, nothing to rename.
  if (named.every((f, i) => isNumberedName(f.name, i) && !f.binary)) {
    return pipelineInput ? { ...decoded, forest: { ...decoded.forest, ...withInput }, notes: [...decoded.notes, inputText(pipelineInput)] } : decoded;
  }
  const binary = named.filter((f) => f.binary).length;
  // The first step's input named by a list saved beside the model (scikit-learn itself would say x0, ...).
  const fromSaved = walked.namedBySaved === true;
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
      `feature names from ${fromSaved ? `the list saved beside the model under "${saved!.key}", through ${steps}` : `${steps}, as scikit-learn's get_feature_names_out() gives them`} ` +
        `(${named.slice(0, 3).map((f) => f.name).join(', ')}${named.length > 3 ? ', ...' : ''})${binary > 0 ? `; ${binary} one-hot column${binary === 1 ? '' : 's'} (0 or 1)` : ''}`,
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
    forest: { ...decoded.forest, training: { ...decoded.forest.training, resampledBy: samplers } },
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
  const step = sparseToXgboost(decoded, preceding);
  if (!step) return decoded;
  const onehot = sparseOneHotAsBinary(decoded);
  return {
    ...onehot.decoded,
    notes: [
      ...onehot.decoded.notes,
      `the Pipeline's ${step} hands the model a sparse matrix, whose absent entries XGBoost reads as missing values, not zeros: the zeros of its one-hot columns reached the trees as "missing", so a CSV of the Pipeline's input is not turned into the model's values` +
        (onehot.splits > 0 ? `; the ${onehot.splits} splits on one-hot columns (a present 1 one way, an absent 0 the other) are read as splits between 0 and 1` : ''),
    ],
  };
}

/**
 * XGBoost behind a sparse one-hot matrix sees each one-hot column as a present 1 or an absent
 * value: a split `x < t` sends the 1 one way (left when 1 < t) and the absent 0 its default way.
 * Read as what it is, a split between 0 and 1 at 0.5 (children swapped where the 0 went right), so
 * the one-hot columns read as 0/1 and their groups hold (sweep 11: 1,191 splits at 2.00001 read as
 * numbers, 24 of 31 groups left out, leaves described as "Hematology < 2.00001"). A split sending
 * both the same way sends every row one way; it is left as it is.
 */
function sparseOneHotAsBinary(decoded: Decoded): { decoded: Decoded; splits: number } {
  const binary = decoded.forest.features.map((f) => f.kind === 'binary' && !f.setOf);
  let splits = 0;
  const trees = decoded.forest.trees.map((tree) => {
    if (!tree.defaultLeft) return tree;
    let changed = false;
    const left = Array.from(tree.left);
    const right = Array.from(tree.right);
    const threshold = Array.from(tree.threshold);
    const defaultLeft = Array.from(tree.defaultLeft);
    for (let n = 0; n < left.length; n++) {
      if (left[n] === -1 || !binary[tree.feature[n]]) continue;
      const oneLeft = 1 < threshold[n];
      const zeroLeft = defaultLeft[n];
      if (oneLeft === zeroLeft) continue;
      if (!zeroLeft) [left[n], right[n]] = [right[n], left[n]];
      threshold[n] = 0.5;
      defaultLeft[n] = true;
      changed = true;
      splits++;
    }
    return changed ? { ...tree, left, right, threshold, defaultLeft } : tree;
  });
  return { decoded: splits > 0 ? { ...decoded, forest: { ...decoded.forest, trees } } : decoded, splits };
}

/** The last step's class when it hands an XGBoost model a sparse matrix, else undefined. */
function sparseToXgboost(decoded: Decoded, preceding: readonly PyValue[]): string | undefined {
  if (decoded.forest.library?.name !== 'xgboost') return undefined;
  const last = preceding[preceding.length - 1];
  const state = stateDict(last);
  const cls = classOf(last)?.name;
  // A fitted flag may be a numpy bool (`density < sparse_threshold` stores np.True_), not Python's True.
  const isTrue = (v: PyValue | undefined) => v === true || asNumpyScalar(v) === true;
  const sparse =
    (cls === 'ColumnTransformer' && isTrue(state?.get('sparse_output_'))) ||
    (cls === 'OneHotEncoder' && (isTrue(state?.get('sparse_output')) || isTrue(state?.get('sparse'))));
  return sparse ? cls : undefined;
}

function inputNote(input: PipelineInput, beside?: string): string {
  const shown = input.columns.slice(0, 4).join(', ');
  const whose = beside ? `the input of the ${beside} saved beside the model` : "the Pipeline's own input";
  return `a CSV of ${whose} (${shown}${input.columns.length > 4 ? ', ...' : ''}) is turned into the model's values by its fitted steps for --training-data and --membership`;
}
