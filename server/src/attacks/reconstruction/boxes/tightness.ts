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

/** The medians, over `count` boxes and the numeric features, of `widthOf(box, feature)`: overall and per feature. */
export function widthSummary(axes: FeatureAxes, count: number, widthOf: (box: number, feature: number) => number, pinnedRows: number): BoxTightness {
  const numeric: number[] = [];
  for (let f = 0; f < axes.binary.length; f++) if (!axes.binary[f] && axes.thresholds[f].length > 0) numeric.push(f);
  const perFeature = numeric.map(() => [] as number[]);
  const all: number[] = [];
  for (let b = 0; b < count; b++) {
    numeric.forEach((f, i) => {
      const width = widthOf(b, f);
      perFeature[i].push(width);
      all.push(width);
    });
  }
  return {
    pinnedRows,
    medianWidth: median(all),
    featureWidths: numeric.map((f, i) => ({ feature: f, medianWidth: median(perFeature[i]) })),
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

/** The median, 1 (the whole range) when there is nothing to measure. */
function median(values: number[]): number {
  if (values.length === 0) return 1;
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
