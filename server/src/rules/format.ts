/** Number and condition formatting shared by rule messages. */
import type { Forest } from '../forest/schema';
import type { FeatureInterval } from '../forest/structure';

/** Thresholds are float64 midpoints; six significant digits is what a person reads. */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(6)));
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

export function percent(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const share = (100 * part) / whole;
  return share > 0 && share < 1 ? '<1%' : `${Math.round(share)}%`;
}

export function featureName(forest: Forest, feature: number): string {
  return forest.features[feature]?.name ?? `x${feature}`;
}

/** `30 < age <= 45.5`, using the model's split rule (`<=` for scikit-learn, `<` for XGBoost). */
export function formatInterval(forest: Forest, interval: FeatureInterval): string {
  const name = featureName(forest, interval.feature);
  const le = forest.splitRule === 'less' ? '<' : '<=';
  const gt = forest.splitRule === 'less' ? '>=' : '>';
  const { lower, upper } = interval;
  if (lower !== undefined && upper !== undefined) {
    return `${formatNumber(lower)} ${forest.splitRule === 'less' ? '<=' : '<'} ${name} ${le} ${formatNumber(upper)}`;
  }
  if (upper !== undefined) return `${name} ${le} ${formatNumber(upper)}`;
  return `${name} ${gt} ${formatNumber(lower!)}`;
}

export function formatClass(forest: Forest, index: number): string {
  const label = forest.classes[index];
  return typeof label === 'string' ? `'${label}'` : String(label);
}
