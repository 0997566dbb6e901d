/**
 * A leaf's box, said in the units of the data its user holds: a forest behind a StandardScaler
 * splits at `num__age <= 0.623516`, which means `age <= 52.5` to the person who fitted the
 * Pipeline. Each interval on a model feature is carried back through its recorded operations
 * (./pipeline-input.ts) to a condition on the Pipeline's input column, and the conditions on one
 * column are merged (`gender_Male <= 0.5` and `gender_Female > 0.5`: `gender = Female`).
 *
 * Bounds carried back through a scaler are the thresholds' images, rounded where they are shown:
 * a statement about where the rows lie, not values to compute with. An interval whose operations
 * cannot be carried back (a negative scale, an operation after a category test) stays as it was.
 */
import type { Category, ColumnOp, PipelineInput } from './pipeline-input';

/** What a box says about one input column. */
export interface ColumnCondition {
  column: number;
  /** Bounds on the value: `lower < x <= upper` (scikit-learn's rule; `lower <= x < upper` under `less`). */
  lower?: number;
  upper?: number;
  /** The value is this category. */
  is?: Category;
  /** The value is none of these categories. */
  not?: Category[];
  /** The value is one of these (an OrdinalEncoder's range of codes). */
  oneOf?: Category[];
  /** true: the value is missing; false: it is not. Undefined: either. */
  missing?: boolean;
  /** The bounds or categories above also admit a missing value (an imputer fills it with one inside them). */
  orMissing?: boolean;
  /**
   * How far the bounds may be from the exact edge of what the tree admits: a tree compares the
   * transformed value rounded to float32, and carrying a threshold back through a scaler rounds
   * too. Bounds widened by it hold every value the leaf admits.
   */
  slack?: number;
}

export interface Interval {
  feature: number;
  lower?: number;
  upper?: number;
}

/**
 * The box's conditions per input column, in order of first use, and the intervals that could not
 * be carried back (to be shown as they are).
 */
export function conditionsOnInput(input: PipelineInput, box: readonly Interval[], rule: 'less-or-equal' | 'less'): { columns: ColumnCondition[]; rest: Interval[] } {
  const byColumn = new Map<number, ColumnCondition>();
  const rest: Interval[] = [];
  for (const interval of box) {
    const source = input.features[interval.feature];
    const condition = source && carryBack(source.ops, interval, rule);
    if (!condition) {
      rest.push(interval);
      continue;
    }
    // An interval that excludes nothing on its column says nothing (and must not veto `orMissing`).
    if (Object.keys(condition).length === 0) continue;
    // "or missing" stays even where no training row may have had a gap: without an indicator the
    // file cannot tell, and leaving it out would describe rows with a gap as outside the leaf.
    const merged = byColumn.get(source.input);
    byColumn.set(source.input, merged ? merge(merged, condition) : { column: source.input, ...condition });
  }
  return { columns: [...byColumn.values()], rest };
}

type Partial = Omit<ColumnCondition, 'column'>;

/** The condition on the input value that puts the feature in the interval, or undefined. */
function carryBack(ops: readonly ColumnOp[], interval: Interval, rule: 'less-or-equal' | 'less'): Partial | undefined {
  let lower = interval.lower;
  let upper = interval.upper;
  // float32 rounding of the compared value (half an ulp is 2^-24 relative; twice that for safety).
  let slack = 2 ** -23 * Math.max(Math.abs(lower ?? 0), Math.abs(upper ?? 0));
  // Whether 0 and 1 lie in the interval (for the operations whose output is 0 or 1).
  const holds = (v: number) => (lower === undefined || (rule === 'less' ? v >= lower : v > lower)) && (upper === undefined || (rule === 'less' ? v < upper : v <= upper));
  let condition: Partial | undefined;
  for (let k = ops.length - 1; k >= 0; k--) {
    const op = ops[k];
    if (condition) {
      // Only an imputer can come before a category or missing test: it fills the missing values.
      if (op.op !== 'impute') return undefined;
      condition = imputed(condition, op.value);
      continue;
    }
    switch (op.op) {
      case 'add':
      case 'subtract': {
        const shift = op.op === 'add' ? -op.value : op.value;
        lower = lower === undefined ? undefined : lower + shift;
        upper = upper === undefined ? undefined : upper + shift;
        slack += 2 ** -50 * (Math.abs(shift) + Math.max(Math.abs(lower ?? 0), Math.abs(upper ?? 0)));
        break;
      }
      case 'multiply':
      case 'divide': {
        const factor = op.op === 'divide' ? op.value : 1 / op.value;
        if (!(factor > 0) || !Number.isFinite(factor)) return undefined;
        lower = lower === undefined ? undefined : lower * factor;
        upper = upper === undefined ? undefined : upper * factor;
        slack = slack * factor + 2 ** -50 * Math.max(Math.abs(lower ?? 0), Math.abs(upper ?? 0));
        break;
      }
      case 'clip':
        // Values below `low` become `low`: a lower bound under it excludes nothing; likewise above.
        if (lower !== undefined && lower < op.low) lower = undefined;
        if (upper !== undefined && upper >= op.high) upper = undefined;
        break;
      case 'greater': {
        if (rule === 'less') return undefined; // Binarizer's `x > t` has scikit-learn's sides
        const zero = holds(0);
        const one = holds(1);
        if (zero === one) return zero ? {} : undefined;
        // x > t is 1: the lower bound t (exclusive), or the upper bound t (inclusive) for 0.
        lower = one ? op.threshold : undefined;
        upper = one ? undefined : op.threshold;
        slack = 0; // Binarizer compares the float64 value itself
        break;
      }
      case 'equals': {
        const zero = holds(0);
        const one = holds(1);
        if (zero === one) return zero ? {} : undefined;
        condition = one ? { is: op.category } : { not: [op.category] };
        break;
      }
      case 'one-of':
      case 'none-of': {
        const zero = holds(0);
        const one = holds(1);
        if (zero === one) return zero ? {} : undefined;
        // 1 for one of the listed categories (one-of) or for none of them (none-of).
        condition = one === (op.op === 'one-of') ? { oneOf: op.categories } : { not: op.categories };
        break;
      }
      case 'ordinal': {
        const codes = op.categories.map((_, i) => i).filter((i) => holds(i));
        if (codes.length === op.categories.length) return {};
        condition = { oneOf: codes.map((i) => op.categories[i]) };
        break;
      }
      case 'is-missing': {
        const zero = holds(0);
        const one = holds(1);
        if (zero === one) return zero ? {} : undefined;
        condition = { missing: one };
        break;
      }
      case 'impute': {
        // The imputed value lies in the bounds or not: a missing value is then admitted or not.
        const fill = typeof op.value === 'number' ? op.value : undefined;
        if (fill === undefined) return undefined;
        const inside = (lower === undefined || (rule === 'less' ? fill >= lower : fill > lower)) && (upper === undefined || (rule === 'less' ? fill < upper : fill <= upper));
        condition = { ...bounds(lower, upper, slack), ...(inside ? { orMissing: true } : {}) };
        break;
      }
    }
  }
  return condition ?? bounds(lower, upper, slack);
}

function bounds(lower: number | undefined, upper: number | undefined, slack: number): Partial {
  if (lower === undefined && upper === undefined) return {};
  return { ...(lower !== undefined ? { lower } : {}), ...(upper !== undefined ? { upper } : {}), slack };
}

/** A category or missing test behind an imputer: a missing value was given `fill`, so it passes when `fill` does. */
function imputed(condition: Partial, fill: Category): Partial {
  const same = (c: Category) => c === fill;
  if (condition.missing !== undefined) return condition;
  if (condition.is !== undefined) return same(condition.is) ? { ...condition, orMissing: true } : condition;
  if (condition.oneOf) return condition.oneOf.some(same) ? { ...condition, orMissing: true } : condition;
  if (condition.not) return condition.not.some(same) ? { ...condition, missing: false } : condition;
  return condition;
}

/** Both conditions on one column. */
function merge(a: ColumnCondition, b: Partial): ColumnCondition {
  const out: ColumnCondition = { ...a };
  if (b.lower !== undefined) out.lower = out.lower === undefined ? b.lower : Math.max(out.lower, b.lower);
  if (b.upper !== undefined) out.upper = out.upper === undefined ? b.upper : Math.min(out.upper, b.upper);
  if (b.is !== undefined) out.is = b.is;
  if (b.not) out.not = [...(out.not ?? []), ...b.not];
  if (b.oneOf) out.oneOf = out.oneOf ? out.oneOf.filter((c) => b.oneOf!.includes(c)) : b.oneOf;
  if (b.missing !== undefined) out.missing = b.missing;
  if (b.slack !== undefined) out.slack = Math.max(out.slack ?? 0, b.slack);
  // A missing value passes only when every condition admits it.
  out.orMissing = (a.orMissing ?? false) && (b.orMissing ?? false) ? true : undefined;
  if (!out.orMissing) delete out.orMissing;
  if (out.is !== undefined) delete out.not;
  return out;
}

/** A reconstructed row's intervals (per model feature, open ends infinite) as the box conditionsOnInput reads. */
export function rowBox(intervals: readonly ([number, number] | null | undefined)[] | undefined): Interval[] {
  const box: Interval[] = [];
  intervals?.forEach((interval, feature) => {
    if (!interval) return;
    box.push({ feature, ...(Number.isFinite(interval[0]) ? { lower: interval[0] } : {}), ...(Number.isFinite(interval[1]) ? { upper: interval[1] } : {}) });
  });
  return box;
}

/** The categories the box allows in the column, when it constrains it; undefined when it does not or they are unknown. */
export function allowedCategories(condition: ColumnCondition | undefined, all: readonly Category[] | undefined): Category[] | undefined {
  if (!condition) return undefined;
  if (condition.is !== undefined) return [condition.is];
  if (condition.oneOf) return condition.oneOf;
  if (condition.not && all) return all.filter((c) => !condition.not!.includes(c));
  return undefined;
}
