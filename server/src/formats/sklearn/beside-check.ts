/**
 * Whether a scaler saved beside a model in a dict, list or tuple (not a Pipeline step) can have
 * made the rows the model was fitted on. Inside a Pipeline scikit-learn itself fed the model the
 * step's output; beside it, that is a guess, and a wrong one turns every certified row into a box
 * of the wrong units (soundness sweep 15: `[StandardScaler, tree fitted on the raw rows]` held 93
 * of 500 certified rows). A scaler's output over the rows it was fitted on is bounded, and a
 * tree's thresholds lie between two of its training values, so a threshold past the bound shows
 * the model was fitted on other rows:
 *  - MinMaxScaler: its `feature_range`;
 *  - MaxAbsScaler: [-1, 1];
 *  - StandardScaler (centred and scaled): |z| <= sqrt(n - 1) for the n rows it saw (Samuelson's
 *    inequality, with the population deviation scikit-learn divides by).
 * Thresholds inside the bounds do not prove the pairing (raw values may lie there too); other
 * preprocessors are not checked.
 */
import type { ForestInput } from '../../forest/schema';
import { splitsOffNegativeInfinity, splitsOnMissingOnly } from '../../forest/missing-split';
import { type PyValue, asNdArray, classOf, isArray, numeric, seqItems, stateDict } from '../pickle';
import { formatNumber } from '../../util/wording';

/** Why the scaler cannot have made the model's rows, or undefined when nothing contradicts it. */
export function besideScalerContradiction(forest: ForestInput, preprocessor: PyValue): string | undefined {
  const name = classOf(preprocessor)?.name;
  const state = stateDict(preprocessor);
  if (!name || !state) return undefined;
  // A scaler of another width is not paired at all (pipeline-model.ts says nothing of it then).
  const width = numeric(state.get('n_features_in_'));
  if (width !== undefined && width !== forest.features.length) return undefined;
  const range = outputRange(name, state);
  if (!range) return undefined;
  const [low, high] = range;
  // float32 thresholds of float64 outputs: a little slack, never a real contradiction's size.
  const slack = 1e-6 * Math.max(1, high - low);
  for (const tree of forest.trees) {
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] === -1) continue;
      const t = tree.threshold[n];
      if (splitsOnMissingOnly(t) || splitsOffNegativeInfinity(t)) continue;
      if (t < low - slack || t > high + slack) {
        const feature = forest.features[tree.feature[n]]?.name ?? `x${tree.feature[n]}`;
        return `the model splits ${feature} at ${formatNumber(t)}, outside the ${formatNumber(low)} to ${formatNumber(high)} that the ${name} outputs for the rows it was fitted on`;
      }
    }
  }
  return undefined;
}

type State = NonNullable<ReturnType<typeof stateDict>>;

function outputRange(name: string, state: State): [number, number] | undefined {
  switch (name) {
    case 'MinMaxScaler': {
      const [low, high] = (seqItems(state.get('feature_range')) ?? []).map((v) => numeric(v));
      return low !== undefined && high !== undefined && low < high ? [low, high] : undefined;
    }
    case 'MaxAbsScaler':
      return [-1, 1];
    case 'StandardScaler': {
      if (state.get('with_mean') === false || state.get('with_std') === false) return undefined;
      const rows = seenRows(state.get('n_samples_seen_'));
      if (rows === undefined || rows < 2) return undefined;
      const bound = Math.sqrt(rows - 1);
      return [-bound, bound];
    }
  }
  return undefined;
}

/** `n_samples_seen_`: one count, or one per feature (with missing values): the largest bounds every column. */
function seenRows(v: PyValue | undefined): number | undefined {
  const one = numeric(v);
  if (one !== undefined) return one;
  if (!isArray(v)) return undefined;
  try {
    const all = asNdArray(v).numbers();
    return all.length > 0 ? Math.max(...all) : undefined;
  } catch {
    return undefined;
  }
}
