/**
 * The operations a fitted one-to-one transformer applies to each of its columns, read from its
 * fitted state in the order scikit-learn 1.2's `transform` runs them on a dense float64 array
 * (StandardScaler: `X -= mean_` then `X /= scale_`; MinMaxScaler: `X *= scale_`, `X += min_`,
 * then the clip), so that the same IEEE operations give the same values
 * (forest/pipeline-input.ts applies them). Undefined for a transformer whose effect is not a list
 * of such operations (PowerTransformer, QuantileTransformer, Normalizer, which mixes columns).
 */
import type { Category, ColumnOp } from '../../forest/pipeline-input';
import { type PyValue, asString, isArray, numeric, seqItems, stateDict } from '../pickle';
import { arrayOrThrow, labelOf } from './decode-helpers';

type State = NonNullable<ReturnType<typeof stateDict>>;

export function oneToOneOps(className: string, state: State, n: number): ColumnOp[][] | undefined {
  switch (className) {
    case 'StandardScaler':
      return perColumn(n, [
        state.get('with_mean') !== false ? optionalColumn(state, 'mean_', n, 'subtract') : [],
        state.get('with_std') !== false ? optionalColumn(state, 'scale_', n, 'divide') : [],
      ]);
    case 'RobustScaler':
      return perColumn(n, [
        state.get('with_centering') !== false ? optionalColumn(state, 'center_', n, 'subtract') : [],
        state.get('with_scaling') !== false ? optionalColumn(state, 'scale_', n, 'divide') : [],
      ]);
    case 'MaxAbsScaler':
      return perColumn(n, [column(state, 'scale_', n, 'divide')]);
    case 'MinMaxScaler': {
      const ops = [column(state, 'scale_', n, 'multiply'), column(state, 'min_', n, 'add')];
      if (state.get('clip') === true) {
        const range = seqItems(state.get('feature_range'))?.map((v) => numeric(v));
        const [low, high] = range ?? [];
        if (low === undefined || high === undefined) return undefined;
        ops.push(Array.from({ length: n }, () => ({ op: 'clip' as const, low, high })));
      }
      return perColumn(n, ops);
    }
    case 'OrdinalEncoder':
      return ordinal(state, n);
    case 'Binarizer': {
      const threshold = numeric(state.get('threshold')) ?? 0;
      return Array.from({ length: n }, () => [{ op: 'greater' as const, threshold }]);
    }
  }
  return undefined;
}

/** A category as the Pipeline's input holds it: NaN and None are a missing value (null). */
export function toCategory(v: PyValue | undefined): Category {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isNaN(v) ? null : v;
  const label = labelOf(v);
  return typeof label === 'number' && Number.isNaN(label) ? null : label;
}

/** The values of a fitted array of categories (`categories_[i]`), or undefined when unreadable. */
export function categoriesOf(v: PyValue | undefined): Category[] | undefined {
  if (!isArray(v)) return undefined;
  try {
    return arrayOrThrow(v, 'categories_').values().map((c) => toCategory(c as PyValue));
  } catch {
    return undefined;
  }
}

/** OrdinalEncoder: each column's categories in order; an unknown one gets `unknown_value` when set. */
function ordinal(state: State, n: number): ColumnOp[][] | undefined {
  const lists = seqItems(state.get('categories_'));
  if (!lists || lists.length !== n) return undefined;
  const unknown = asString(state.get('handle_unknown')) === 'use_encoded_value' ? numeric(state.get('unknown_value')) : undefined;
  const out: ColumnOp[][] = [];
  for (const list of lists) {
    const categories = categoriesOf(list);
    if (!categories) return undefined;
    // A missing category is encoded as `encoded_missing_value`, which a forest of this
    // scikit-learn cannot take when it is NaN: not followed otherwise.
    if (categories.includes(null)) {
      const encoded = numeric(state.get('encoded_missing_value'));
      if (encoded !== undefined && !Number.isNaN(encoded)) return undefined;
    }
    out.push([{ op: 'ordinal', categories: categories.filter((c) => c !== null), ...(unknown !== undefined && !Number.isNaN(unknown) ? { unknown } : {}) }]);
  }
  return out;
}

type Arithmetic = 'subtract' | 'divide' | 'multiply' | 'add';

/** One operation per column from a fitted array; undefined when the array is missing or the wrong length. */
function column(state: State, key: string, n: number, op: Arithmetic): ColumnOp[] | undefined {
  const value = state.get(key);
  if (!isArray(value)) return undefined;
  let numbers: Float64Array;
  try {
    numbers = arrayOrThrow(value, key).numbers();
  } catch {
    return undefined;
  }
  if (numbers.length !== n) return undefined;
  return Array.from(numbers, (v) => ({ op, value: v }));
}

/** As `column`, but a `None` attribute (with_mean=False leaves `mean_` None) is no operation. */
function optionalColumn(state: State, key: string, n: number, op: Arithmetic): ColumnOp[] | undefined {
  const value = state.get(key);
  return value === null || value === undefined ? [] : column(state, key, n, op);
}

/** Each column's operations, stage by stage; an empty stage is skipped, an unreadable one fails the whole. */
function perColumn(n: number, stages: (ColumnOp[] | undefined)[]): ColumnOp[][] | undefined {
  if (stages.some((stage) => stage === undefined)) return undefined;
  return Array.from({ length: n }, (_, i) => stages.filter((stage) => stage!.length > 0).map((stage) => stage![i]));
}
