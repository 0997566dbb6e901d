/**
 * Numbers and counts as the messages print them, shared by every layer that words a finding, a note
 * or a report (readers and attacks included). Naming a model's features, classes and nodes is
 * rules/format.ts.
 */

/** Thresholds are float64 midpoints; six significant digits is what a person reads. */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(6)));
}

/**
 * An interval's two ends, each with the fewest significant digits (6 at least) that still tell
 * them apart: float32 thresholds a hair apart printed as "1.34864 < x7 <= 1.34864", an interval
 * that read as empty (a public DecisionTreeClassifier).
 */
export function formatBounds(lower: number, upper: number): [string, string] {
  for (let digits = 6; digits < 17; digits++) {
    const lo = Number.isInteger(lower) ? String(lower) : String(Number(lower.toPrecision(digits)));
    const hi = Number.isInteger(upper) ? String(upper) : String(Number(upper.toPrecision(digits)));
    if (lo !== hi || lower === upper) return [lo, hi];
  }
  return [String(lower), String(upper)];
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Counts in a list: commas between them, unless a thousands separator would make that ambiguous. */
export function formatCountList(values: readonly number[]): string {
  return values.map(formatCount).join(values.some((v) => Math.abs(v) >= 1000) ? '; ' : ', ');
}

/** The sentence with its first letter upper-case. */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** "1 row's", "2 rows'": a count in the possessive. */
export function pluralPossessive(count: number, one: string, many = `${one}s`): string {
  return count === 1 ? `1 ${one}'s` : `${formatCount(count)} ${many}'`;
}

export function percent(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const share = (100 * part) / whole;
  // Never 0% or 100% for a part that is neither none nor all (87,729 of 87,912 read "100%").
  if (share > 0 && share < 1) return '<1%';
  if (share > 99 && share < 100) return '>99%';
  return `${Math.round(share)}%`;
}
