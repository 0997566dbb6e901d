/**
 * Leaf conditions as a person reads them: the one place an interval of the model becomes text,
 * for rule messages and the report alike.
 *
 * A one-hot feature (a 0/1 column standing for one category of an attribute) split at 0.5 reads
 * `sex = Male` or `priors ≠ >3`, not `sex:Male > 0.5` or `priors:>3 <= 0.5`. A feature is taken
 * as a category when
 *   - a declared group names it (sidecar `<model>.privacy.json`, settings, CLI flags: see
 *     recoverability/declared-groups.ts); the attribute is the group's common name prefix up to a
 *     separator (`race_Black`, `race_White` -> race), or none (`Male`, `Female`);
 *   - or its name follows the `attribute:value` / `attribute=value` convention of the COMPAS and
 *     Adult columns (`sex:Male`, `age:18-20`, `race=Black`); a name that is itself a comparison
 *     (`PAY_0_Pay_delay>=1`, `age<=30`, `x!=0`) is an indicator of that comparison, read whole
 *     (`PAY_0_Pay_delay>=1`, `not PAY_0_Pay_delay>=1`), never cut at its `=`.
 * and only when the split separates 0 from 1 (threshold in (0, 1], by the split rule): a
 * feature named `ratio:x` split at 3.5 keeps its numeric form.
 *
 * A model at the end of a Pipeline whose steps the reader followed (`forest.pipelineInput`) is
 * described in the Pipeline's input columns instead: `age <= 52.5`, `gender = Female`,
 * `bmi missing`, not `num__age <= 0.623516` (forest/pipeline-conditions.ts).
 */
import type { Forest } from '../forest/schema';
import type { FeatureInterval } from '../forest/structure';
import { conditionsOnInput, type ColumnCondition } from '../forest/pipeline-conditions';
import { usablePipelineInput, type Category as InputCategory } from '../forest/pipeline-input';
import { formatBounds, formatCount, formatNumber } from '../util/wording';
import { splitsOnMissingOnly } from '../forest/missing-split';
import { featureName } from './format';

export interface Category {
  /** The attribute the column encodes (`sex`); undefined when a declared group has no common name. */
  attribute?: string;
  /** The category the column is 1 for (`Male`). */
  value: string;
  /** Every column of the attribute, when a group declares it `one-hot` (exactly one is 1). */
  oneHot?: readonly number[];
}

/** Feature index -> the category its 0/1 column encodes. */
export type Categories = ReadonlyMap<number, Category>;

/** A group of features declared to encode one attribute, by name or index (as in the sidecar). */
export interface DeclaredCategoryGroup {
  kind: string;
  features: readonly (string | number)[];
}

const CONVENTION = /^([^:=]+?)\s*[:=]\s*(.+)$/;
/** A column named as a comparison (`PAY_0_Pay_delay>=1`): its `=` belongs to the operator. */
const COMPARISON = /[<>!]=|==/;

/** The `attribute:value` reading of a column name, or null (a comparison's `=` is no separator). */
function conventionalName(name: string): RegExpExecArray | null {
  return COMPARISON.test(name) ? null : CONVENTION.exec(name);
}
const SEPARATORS = /[_:=.\-\s]+$/;

/** The categories of a model's features, from declared groups first, then the naming convention. */
export function categoriesOf(forest: Pick<Forest, 'features'>, declared: readonly DeclaredCategoryGroup[] = []): Categories {
  const categories = new Map<number, Category>();
  const index = new Map<string, number>();
  forest.features.forEach((feature, i) => index.set(feature.name, i));
  for (const group of declared) {
    const members = group.features
      .map((ref) => (typeof ref === 'number' ? (ref < forest.features.length ? ref : undefined) : index.get(ref)))
      .filter((i): i is number => i !== undefined);
    if (members.length < 2 || members.length !== group.features.length) continue; // resolveGroups reports these
    const names = members.map((i) => forest.features[i].name);
    const conventional = names.map(conventionalName);
    const oneHot = group.kind === 'one-hot' ? { oneHot: members } : {};
    if (conventional.every((m) => m && m[1] === conventional[0]![1])) {
      members.forEach((i, k) => categories.set(i, { attribute: conventional[k]![1].trim(), value: conventional[k]![2].trim(), ...oneHot }));
      continue;
    }
    const prefix = commonPrefix(names);
    // Cut back to the last separator so that `age_18`, `age_19` give `age`, not `age_1`.
    const cut = prefix.search(/[_:=.\-\s][^_:=.\-\s]*$/);
    const stem = cut >= 0 ? prefix.slice(0, cut + 1) : '';
    const attribute = stem.replace(SEPARATORS, '');
    members.forEach((i, k) => categories.set(i, { ...(attribute ? { attribute } : {}), value: names[k].slice(attribute ? stem.length : 0) || names[k], ...oneHot }));
  }
  forest.features.forEach((feature, i) => {
    if (categories.has(i)) return;
    if (COMPARISON.test(feature.name)) {
      categories.set(i, { value: feature.name });
      return;
    }
    const m = CONVENTION.exec(feature.name);
    if (m) categories.set(i, { attribute: m[1].trim(), value: m[2].trim() });
  });
  return categories;
}

function commonPrefix(names: readonly string[]): string {
  let prefix = names[0] ?? '';
  for (const name of names) while (!name.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/**
 * Whether the interval says the 0/1 column is 1 (`true`), 0 (`false`), or is not a 0/1 split
 * (`undefined`). scikit-learn sends `x <= t` left; XGBoost (`less`) sends `x < t` left.
 */
function oneHotSide(forest: Pick<Forest, 'splitRule'>, interval: FeatureInterval): boolean | undefined {
  const { lower, upper } = interval;
  const separates = (t: number) => (forest.splitRule === 'less' ? t > 0 && t <= 1 : t >= 0 && t < 1);
  if (lower !== undefined && upper !== undefined) return undefined;
  if (upper !== undefined) return separates(upper) ? false : undefined;
  if (lower !== undefined) return separates(lower) ? true : undefined;
  return undefined;
}

/** `x ∈ {a, b}` as `x ∉ {a, b}` and back: a set-split feature's value 0. */
function negatedSet(name: string): string {
  const at = name.search(/ [∈∉] \{/);
  if (at < 0) return `not ${name}`;
  return `${name.slice(0, at)} ${name[at + 1] === '∈' ? '∉' : '∈'} ${name.slice(at + 3)}`;
}

/** `priors:=1` is the category `1`; `priors:>3` keeps its operator (`priors >3`). */
function valueText(value: string): string {
  return value.replace(/^=\s*/, '');
}

function categoryText(category: Category, isOne: boolean): string {
  const value = valueText(category.value);
  if (!category.attribute) return isOne ? value : `not ${value}`;
  if (isOne) return /^[<>]/.test(value) ? `${category.attribute} ${value}` : `${category.attribute} = ${value}`;
  return `${category.attribute} ≠ ${value}`;
}

/** `30 < age <= 45.5`, `sex = Male`, `priors ≠ >3`, using the model's split rule (`<=` for scikit-learn, `<` for XGBoost). */
export function formatCondition(forest: Pick<Forest, 'features' | 'splitRule'>, interval: FeatureInterval, categories?: Categories): string {
  const category = categories?.get(interval.feature);
  if (category) {
    const side = oneHotSide(forest, interval);
    if (side !== undefined) return categoryText(category, side);
  }
  const name = featureName(forest as Forest, interval.feature);
  // A categorical split's 0/1 feature (`SEASON ∈ {1}`, 1 for a row it sends right): its name when
  // 1, the set negated when 0, rather than `SEASON ∈ {1} >= 0.5` (sweep 12).
  if (forest.features[interval.feature]?.setOf) {
    const side = oneHotSide(forest, interval);
    if (side !== undefined) return side ? name : negatedSet(name);
  }
  const le = forest.splitRule === 'less' ? '<' : '<=';
  const gt = forest.splitRule === 'less' ? '>=' : '>';
  const { lower, upper } = interval;
  // A bound at the split on missing values alone (forest/missing-split.ts): scikit-learn's sends
  // every value left and missing right; XGBoost's `x < inf` every finite value left.
  const beyondValues = (bound: number | undefined) => bound !== undefined && splitsOnMissingOnly(bound);
  if (beyondValues(lower)) return forest.splitRule === 'less' ? `${name} = inf or missing` : `${name} missing`;
  if (beyondValues(upper)) {
    const rest = lower === undefined ? undefined : formatCondition(forest, { ...interval, upper: undefined }, categories);
    const finite = forest.splitRule === 'less' ? `${name} finite` : `${name} not missing`;
    return rest ? `${rest} (${forest.splitRule === 'less' ? 'finite' : 'not missing'})` : finite;
  }
  if (lower !== undefined && upper !== undefined) {
    const [lo, hi] = formatBounds(lower, upper);
    return `${lo} ${forest.splitRule === 'less' ? '<=' : '<'} ${name} ${le} ${hi}`;
  }
  if (upper !== undefined) return `${name} ${le} ${formatNumber(upper)}`;
  return `${name} ${gt} ${formatNumber(lower!)}`;
}

/**
 * A box (one interval per feature) as a list, each attribute once where it is a category:
 *   - stated equal to one category: `sex = Male` (its other categories' `≠` say nothing more);
 *   - several categories excluded: `age ∉ {>45, 26-45}`;
 *   - all but one category of a declared one-hot group excluded: `age = 21-22`.
 */
export function formatConditions(forest: Pick<Forest, 'features' | 'splitRule' | 'pipelineInput'>, box: readonly FeatureInterval[], categories?: Categories): string[] {
  const input = usablePipelineInput(forest);
  if (input) {
    const { columns, rest } = conditionsOnInput(input, box, forest.splitRule);
    const onInput = columns.map((c) => columnText(input.columns[c.column] ?? `column ${c.column}`, c, forest.splitRule)).filter((text) => text !== '');
    return [...onInput, ...formatModelConditions(forest, rest, categories)];
  }
  return formatModelConditions(forest, box, categories);
}

/** Conditions a message lists at most: a leaf of a deep tree over thousands of columns had ~400 (one 5,589-character line). */
export const MAX_LISTED_CONDITIONS = 12;

/** formatConditions as a message's list: the first MAX_LISTED_CONDITIONS, then how many more. */
export function conditionsText(forest: Pick<Forest, 'features' | 'splitRule' | 'pipelineInput'>, box: readonly FeatureInterval[], categories?: Categories): string {
  const all = formatConditions(forest, box, categories);
  if (all.length <= MAX_LISTED_CONDITIONS) return all.join(', ');
  const more = all.length - MAX_LISTED_CONDITIONS;
  return `${all.slice(0, MAX_LISTED_CONDITIONS).join(', ')} and ${formatCount(more)} more condition${more === 1 ? '' : 's'}`;
}

/** A condition on one of the Pipeline's input columns: `40 < age <= 52.5`, `gender ∉ {Male, Other}`, `bmi missing`. */
function columnText(name: string, c: ColumnCondition, rule: Forest['splitRule']): string {
  if (c.missing === true) return `${name} missing`;
  const cat = (v: InputCategory) => (v === null ? 'missing' : typeof v === 'number' ? formatNumber(v) : String(v));
  const parts: string[] = [];
  if (c.is !== undefined) parts.push(`${name} = ${cat(c.is)}`);
  else if (c.oneOf) parts.push(c.oneOf.length === 1 ? `${name} = ${cat(c.oneOf[0])}` : `${name} ∈ {${c.oneOf.map(cat).join(', ')}}`);
  else if (c.not?.length) parts.push(c.not.length === 1 ? `${name} ≠ ${cat(c.not[0])}` : `${name} ∉ {${c.not.map(cat).join(', ')}}`);
  if (c.lower !== undefined || c.upper !== undefined) {
    const le = rule === 'less' ? '<' : '<=';
    const lo = rule === 'less' ? '<=' : '<';
    if (c.lower !== undefined && c.upper !== undefined) {
      const [low, high] = formatBounds(c.lower, c.upper);
      parts.push(`${low} ${lo} ${name} ${le} ${high}`);
    }
    else if (c.upper !== undefined) parts.push(`${name} ${le} ${formatNumber(c.upper)}`);
    else parts.push(`${name} ${rule === 'less' ? '>=' : '>'} ${formatNumber(c.lower!)}`);
  }
  if (parts.length === 0) return c.missing === false ? `${name} not missing` : '';
  return `${parts.join(', ')}${c.orMissing ? ' or missing' : c.missing === false ? ' (not missing)' : ''}`;
}

function formatModelConditions(forest: Pick<Forest, 'features' | 'splitRule'>, box: readonly FeatureInterval[], categories?: Categories): string[] {
  const byAttribute = new Map<string, { is?: Category; not: Category[]; notIndices: number[] }>();
  for (const interval of box) {
    const category = categories?.get(interval.feature);
    const side = category?.attribute ? oneHotSide(forest, interval) : undefined;
    if (!category?.attribute || side === undefined) continue;
    const entry = byAttribute.get(category.attribute) ?? { not: [], notIndices: [] };
    if (side) entry.is = category;
    else {
      entry.not.push(category);
      entry.notIndices.push(interval.feature);
    }
    byAttribute.set(category.attribute, entry);
  }
  const out: string[] = [];
  const done = new Set<string>();
  for (const interval of box) {
    const category = categories?.get(interval.feature);
    const entry = category?.attribute ? byAttribute.get(category.attribute) : undefined;
    if (!category?.attribute || !entry || oneHotSide(forest, interval) === undefined) {
      out.push(formatCondition(forest, interval, categories));
      continue;
    }
    if (done.has(category.attribute)) continue;
    done.add(category.attribute);
    out.push(attributeText(category.attribute, entry, forest, categories!));
  }
  return out;
}

function attributeText(attribute: string, entry: { is?: Category; not: Category[]; notIndices: number[] }, forest: Pick<Forest, 'features'>, categories: Categories): string {
  if (entry.is) return categoryText(entry.is, true);
  const group = entry.not[0].oneHot;
  if (group) {
    const left = group.filter((i) => !entry.notIndices.includes(i));
    const last = left.length === 1 ? categories.get(left[0]) : undefined;
    if (last && left[0] < forest.features.length) return categoryText(last, true);
  }
  if (entry.not.length === 1) return categoryText(entry.not[0], false);
  return `${attribute} ∉ {${entry.not.map((c) => valueText(c.value)).join(', ')}}`;
}
