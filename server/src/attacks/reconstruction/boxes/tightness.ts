/**
 * How much a proven box says: per numeric feature, its width relative to the feature's axis as the
 * forest cuts it: the range its thresholds span, widened at each end by the mean gap between them
 * (for a feature split at one threshold, each side is half the axis), so that a box open below the
 * lowest threshold or above the highest counts as that much wide, not as 0. A feature the box does
 * not constrain counts as the whole axis, 1. A box over the whole axis reveals little; 0.05 puts
 * the value within a twentieth of it. (Before stop 33 an open end counted only up to the outermost
 * threshold: a box `x22 <= 106.1` on a feature split once read "median 0%", as if pinned.)
 */
import { splitsOnMissingOnly, valueCutCount, valueCutStart } from '../../../forest/missing-split';
import { intervalBounds, type FeatureAxes } from '../feature-axes';
import type { BoxTightness } from '../types';

/** `weights[b]`: rows box b stands for (1 each when absent). */
export function boxTightness(axes: FeatureAxes, boxes: readonly { low: ArrayLike<number>; high: ArrayLike<number> }[], pinnedRows: number, weights?: readonly number[]): BoxTightness {
  // A box that leaves a feature whole is the whole axis, 1, without measuring: in a wide model most
  // boxes leave most features so (a public TF-IDF forest: 804 boxes x 2,636 features took 1.3 s to
  // measure one by one, past the time the estimate keeps for its rows' points and widths).
  const width = (b: number, f: number): number => {
    const low = boxes[b].low[f];
    const high = boxes[b].high[f];
    return low === 0 && high === axes.intervals[f] - 1 ? 1 : relativeWidth(axes, f, low, high);
  };
  return widthSummary(axes, boxes.length, width, pinnedRows, weights ? (b) => weights[b] : undefined);
}

/**
 * The medians, over `count` boxes and the numeric features, of `widthOf(box, feature)`: overall and
 * per feature. `weightOf(box)` counts a box that many times (rows sharing one box: a million rows
 * in a few hundred leaf regions are measured on the regions, not on a million copies).
 */
export function widthSummary(axes: FeatureAxes, count: number, widthOf: (box: number, feature: number) => number, pinnedRows: number, weightOf: (box: number) => number = () => 1): BoxTightness {
  const numeric: number[] = [];
  for (let f = 0; f < axes.binary.length; f++) if (!axes.binary[f] && axes.thresholds[f].length > 0) numeric.push(f);
  const weights = new Float64Array(count);
  let rows = 0;
  for (let b = 0; b < count; b++) rows += weights[b] = weightOf(b);
  // Only the widths below 1 are kept, the rest counted: a width is at most 1, so the whole-axis
  // widths are the top of every sorted list. A wide model's boxes leave most features whole, and a
  // dense array of every box and feature (a public forest over 10,598 split features: 4,000 boxes,
  // 42 million widths, twice 340 MB with their weights) ran the worker out of its memory.
  const allValues: number[] = [];
  const allWeights: number[] = [];
  const featureWidths = numeric.map((f) => {
    const values: number[] = [];
    const of: number[] = [];
    for (let b = 0; b < count; b++) {
      const width = widthOf(b, f);
      if (width >= 1 || weights[b] <= 0) continue;
      values.push(width);
      of.push(weights[b]);
      allValues.push(width);
      allWeights.push(weights[b]);
    }
    return { feature: f, medianWidth: medianBelowOne(values, of, rows) };
  });
  return { rows, pinnedRows, medianWidth: medianBelowOne(allValues, allWeights, rows * numeric.length), featureWidths };
}

/**
 * The weighted median (see weightedMedian) of `values` (each below 1, counted `weights[i]` times)
 * together with widths of 1 that make the total weight `total`; 1 when there is nothing to measure.
 */
function medianBelowOne(values: number[], weights: number[], total: number): number {
  if (!(total > 0)) return 1;
  let below = 0;
  for (const w of weights) below += w;
  if (values.length === 0) return 1;
  return weightedMedian(Float64Array.from(values), Float64Array.from(weights), Math.max(0, total - below));
}

export function relativeWidth(axes: FeatureAxes, f: number, low: number, high: number): number {
  const [lower, upper] = intervalBounds(axes, f, low, high);
  return widthOnAxis(axes.thresholds[f], lower, upper);
}

/**
 * The share of the feature's axis (its sorted distinct thresholds `cuts`, widened at each end by
 * their mean gap, or by 1 either side of a single threshold) that the interval (lower, upper] covers.
 * A split on missing values alone (histogram boosting's, read at the largest float32:
 * forest/missing-split.ts) is no cut of the values: left in, it made the axis 3.4e38 wide and every
 * box on the feature read as 0% of it, "narrowest" and pinned-looking (a 900,000-row model with 5%
 * missing values). An interval above it holds the rows missing the feature: width 0, the value known.
 */
export function widthOnAxis(cuts: ArrayLike<number>, lower: number, upper: number): number {
  const count = valueCutCount(cuts);
  const start = Math.min(valueCutStart(cuts), count);
  if (count === start) return cuts.length === 0 || !splitsOnMissingOnly(lower) ? 1 : 0;
  const first = cuts[start];
  const last = cuts[count - 1];
  const gap = count - start > 1 && last > first ? (last - first) / (count - start - 1) : 1;
  const a = Math.max(lower, first - gap);
  const b = Math.min(upper, last + gap);
  return Math.min(1, Math.max(0, b - a) / (last - first + 2 * gap));
}

/**
 * The median of `values`, each counted `weights[i]` times (the mean of the two middle ones when the
 * total is even), 1 (the whole range) when there is nothing to measure.
 */
export function weightedMedian(values: Float64Array, weights: Float64Array, ones = 0): number {
  let total = ones;
  for (const w of weights) total += w;
  if (values.length === 0 || total <= 0) return 1;
  if (ones === 0 && weights.every((w) => w === 1)) {
    // Every weight 1: the plain median, by selection (linear) rather than a sort: the median over
    // every box and feature of a wide model is millions of values.
    const copy = values.slice();
    const mid = copy.length >> 1;
    const upper = selectInPlace(copy, mid);
    if (copy.length % 2) return upper;
    // After the selection every value left of `mid` is at most the upper middle one: the lower middle is their largest.
    let lower = -Infinity;
    for (let i = 0; i < mid; i++) if (copy[i] > lower) lower = copy[i];
    return (lower + upper) / 2;
  }
  const order = Uint32Array.from({ length: values.length }, (_, i) => i).sort((a, b) => values[a] - values[b]);
  // The values at positions floor((total - 1) / 2) and floor(total / 2) of the expanded sorted list.
  const at = (position: number): number => {
    let seen = 0;
    for (const i of order) {
      seen += weights[i];
      if (seen > position) return values[i];
    }
    // Past the values: the block of ones above them (every value is at most 1), else the largest.
    return ones > 0 ? 1 : values[order[order.length - 1]];
  };
  return (at(Math.floor((total - 1) / 2)) + at(Math.floor(total / 2))) / 2;
}

/**
 * The k-th smallest of `values` (0-based), reordering them so that every value before k is at most
 * it and every value after at least it (quickselect with the median of three as pivot).
 */
export function selectInPlace(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (hi > lo) {
    const m = (lo + hi) >> 1;
    // The median of values[lo], values[m], values[hi] as the pivot.
    const a = values[lo];
    const b = values[m];
    const c = values[hi];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const t = values[i];
        values[i] = values[j];
        values[j] = t;
        i++;
        j--;
      }
    }
    // Now lo..j <= pivot <= i..hi (and j < i); values between j and i equal the pivot.
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k];
  }
  return values[k];
}
