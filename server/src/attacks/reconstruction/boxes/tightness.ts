/**
 * How much a proven box says: per numeric feature, its width relative to the range the forest's
 * thresholds span (an open end counts up to the outermost threshold; a feature the box does not
 * constrain counts as the whole range, 1). A box over the whole range reveals little; 0.05 puts
 * the value within a twentieth of it.
 */
import { intervalBounds, type FeatureAxes } from '../feature-axes';
import type { BoxTightness } from '../types';

export function boxTightness(axes: FeatureAxes, boxes: readonly { low: ArrayLike<number>; high: ArrayLike<number> }[], pinnedRows: number): BoxTightness {
  return widthSummary(axes, boxes.length, (b, f) => relativeWidth(axes, f, boxes[b].low[f], boxes[b].high[f]), pinnedRows);
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
    pinnedRows,
    medianWidth: weightedMedian(all, allWeights),
    featureWidths: numeric.map((f, i) => ({ feature: f, medianWidth: weightedMedian(perFeature[i], weights) })),
  };
}

export function relativeWidth(axes: FeatureAxes, f: number, low: number, high: number): number {
  const cuts = axes.thresholds[f];
  const first = cuts[0];
  const last = cuts[cuts.length - 1];
  if (last === first) return low === 0 && high === axes.intervals[f] - 1 ? 1 : 0;
  const [lower, upper] = intervalBounds(axes, f, low, high);
  const a = Math.max(lower, first);
  const b = Math.min(upper, last);
  return Math.max(0, b - a) / (last - first);
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
