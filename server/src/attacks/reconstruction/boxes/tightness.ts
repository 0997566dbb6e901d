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
  return widthSummary(axes, boxes.length, (b, f) => relativeWidth(axes, f, boxes[b].low[f], boxes[b].high[f]), pinnedRows, weights ? (b) => weights[b] : undefined);
}

/**
 * The medians, over `count` boxes and the numeric features, of `widthOf(box, feature)`: overall and
 * per feature. `weightOf(box)` counts a box that many times (rows sharing one box: a million rows
 * in a few hundred leaf regions are measured on the regions, not on a million copies).
 */
export function widthSummary(axes: FeatureAxes, count: number, widthOf: (box: number, feature: number) => number, pinnedRows: number, weightOf: (box: number) => number = () => 1): BoxTightness {
  const numeric: number[] = [];
  for (let f = 0; f < axes.binary.length; f++) if (!axes.binary[f] && axes.thresholds[f].length > 0) numeric.push(f);
  const weights = Float64Array.from({ length: count }, (_, b) => weightOf(b));
  const perFeature = numeric.map((f) => Float64Array.from({ length: count }, (_, b) => widthOf(b, f)));
  const all = new Float64Array(count * numeric.length);
  const allWeights = new Float64Array(count * numeric.length);
  perFeature.forEach((widths, i) => {
    all.set(widths, i * count);
    allWeights.set(weights, i * count);
  });
  return {
    rows: weights.reduce((a, b) => a + b, 0),
    pinnedRows,
    medianWidth: weightedMedian(all, allWeights),
    featureWidths: numeric.map((f, i) => ({ feature: f, medianWidth: weightedMedian(perFeature[i], weights) })),
  };
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
export function weightedMedian(values: Float64Array, weights: Float64Array): number {
  let total = 0;
  for (const w of weights) total += w;
  if (values.length === 0 || total <= 0) return 1;
  if (weights.every((w) => w === 1)) {
    // Every weight 1: the plain median (typed arrays sort numerically, in native code).
    const sorted = values.slice().sort();
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
  const order = Uint32Array.from({ length: values.length }, (_, i) => i).sort((a, b) => values[a] - values[b]);
  // The values at positions floor((total - 1) / 2) and floor(total / 2) of the expanded sorted list.
  const at = (position: number): number => {
    let seen = 0;
    for (const i of order) {
      seen += weights[i];
      if (seen > position) return values[i];
    }
    return values[order[order.length - 1]];
  };
  return (at(Math.floor((total - 1) / 2)) + at(Math.floor(total / 2))) / 2;
}
