/**
 * A probed leaf's region (its path's intervals) as reconstructed-row intervals, and a point inside
 * it: for rows that a leaf proves to lie in its region but whose values nothing else narrows.
 */
import type { FeatureInterval } from '../../forest/structure';
import { representative } from './feature-axes';

/**
 * A leaf's region as ReconstructedRow intervals: null where its path does not test the feature, or
 * where a row missing the feature could reach the leaf anyway (`unbounded`, missing-values.ts
 * missingReachable), since the leaf proves nothing about that value then.
 */
export function regionIntervals(box: readonly FeatureInterval[], features: number, unbounded: readonly number[] = []): ([number, number] | null)[] {
  const intervals: ([number, number] | null)[] = new Array(features).fill(null);
  for (const b of box) intervals[b.feature] = [b.lower ?? -Infinity, b.upper ?? Infinity];
  for (const f of unbounded) intervals[f] = null;
  return intervals;
}

/** A point inside the region (`lower <= x < upper` for XGBoost, `lower < x <= upper` for scikit-learn). */
export function intoRegion(values: readonly (number | null)[], region: readonly ([number, number] | null)[], lowerInclusive: boolean): (number | null)[] {
  return values.map((v, f) => {
    const r = region[f];
    if (!r) return v;
    const [lo, hi] = r;
    if (v !== null && (lowerInclusive ? v >= lo && v < hi : v > lo && v <= hi)) return v;
    // The midpoint, or toward an open side the finite end (the float32 just inside it when the
    // end is excluded): feature-axes.ts's representative. Before stop 40 an open lower end gave
    // the upper end less 1 whatever the feature's scale (an iris petal width of -0.2, diabetes
    // values of -1 beside data in [-0.13, 0.18]: soundness sweep 15).
    return representative(lo, hi, false, lowerInclusive ? 'less' : 'less-or-equal') ?? v;
  });
}
