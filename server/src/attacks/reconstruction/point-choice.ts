/**
 * Which point stands for a reconstructed row's numeric value when the model proves only an
 * interval: the point most likely to lie within TimberStrike's tolerance (0.319 standard
 * deviations) of the true value, as far as the model tells where training values lie.
 *
 * What the model tells: scikit-learn puts every threshold halfway between two neighbouring values
 * of the rows in its node (XGBoost's exact method too; its hist method at a value itself), so each
 * of a feature's thresholds marks training values right next to it, and over a forest of deep
 * trees the thresholds are dense where the values are. Inside the interval, the point chosen is
 * the centre of the window of one tolerance either side that holds the most distinct thresholds
 * (ties: the lowest window). The tolerance's standard deviation is the thresholds' own, the only
 * scale the model gives; it stands in for the training column's. An interval with no threshold
 * strictly inside falls back to `representative` (the midpoint, or the finite end toward an open
 * side), as does an interval open on both sides (null: the model says nothing about the value).
 *
 * Measured on the numeric-forest bench's models (each true row's own cell, the "RA ceiling"
 * column of docs/benchmarks.md): against the midpoint/finite-end rule, breast cancer 48.0% ->
 * 58.8% (bootstrap=False), wine 61.6% -> 65.6%, Extra Trees on 1,000 Default Credit rows 97.2% ->
 * 99.4%, Pima 96.9% -> 97.5%, Stroke 87.3% -> 87.0%, within 0.3 points elsewhere. Weighting the
 * thresholds by their node's row count, or by how close their node lies to the row's cell, did not
 * do better. It remains a guess: only the interval is proven.
 */
import { insideAsFloat32, representative, type FeatureAxes } from './feature-axes';

/** TimberStrike's tolerance, in standard deviations (evaluate/reconstruction-accuracy.ts scores with it). */
const TOLERANCE_STD = 0.319;

/** Half-width of each feature's window, cached per axes (they are built once per reconstruction). */
const halfWidths = new WeakMap<FeatureAxes, Float64Array>();

function halfWidth(axes: FeatureAxes, f: number): number {
  let widths = halfWidths.get(axes);
  if (!widths) {
    widths = axes.thresholds.map(standardDeviation).reduce((out, sd, i) => ((out[i] = TOLERANCE_STD * sd), out), new Float64Array(axes.thresholds.length));
    halfWidths.set(axes, widths);
  }
  return widths[f];
}

function standardDeviation(values: Float64Array): number {
  if (values.length < 2) return 0;
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / values.length;
  let squares = 0;
  for (const v of values) squares += (v - mean) ** 2;
  return Math.sqrt(squares / values.length);
}

/**
 * The point standing for feature f's value in the interval (lower, upper] (`<=`) or [lower, upper)
 * (`<`): see the header. Null when the interval is the whole axis.
 */
export function likeliestPoint(axes: FeatureAxes, f: number, lower: number, upper: number): number | null {
  const integral = axes.integral[f] === 1;
  const fallback = representative(lower, upper, integral, axes.splitRule);
  if (fallback === null) return null;
  const cuts = axes.thresholds[f];
  // The thresholds strictly inside the interval (cuts ascending).
  let first = 0;
  while (first < cuts.length && cuts[first] <= lower) first++;
  let end = cuts.length;
  while (end > first && cuts[end - 1] >= upper) end--;
  const width = 2 * halfWidth(axes, f);
  if (end - first === 0 || !(width > 0)) return fallback;
  let bestCount = 0;
  let bestCentre = fallback;
  for (let i = first, j = first; i < end; i++) {
    while (j < end && cuts[j] <= cuts[i] + width) j++;
    if (j - i > bestCount) {
      bestCount = j - i;
      bestCentre = (cuts[i] + cuts[j - 1]) / 2;
    }
  }
  const less = axes.splitRule === 'less';
  if (integral) {
    // The integer nearest the centre that the interval holds, else the fallback.
    const rounded = Math.round(bestCentre);
    const holds = less ? rounded >= lower && rounded < upper : rounded > lower && rounded <= upper;
    return holds ? rounded : fallback;
  }
  return insideAsFloat32(bestCentre, lower, upper, less);
}
