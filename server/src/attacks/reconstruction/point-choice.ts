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
 * side). A value the model leaves unbounded (the whole axis) gets the densest window of all the
 * feature's thresholds, the guess an attacker would make from the model: leaving it empty scores it
 * wrong, which understated what the model gives away (measured below).
 *
 * Measured on the numeric-forest bench's models (each true row's own cell, the "RA ceiling"
 * column of docs/benchmarks.md): against the midpoint/finite-end rule, breast cancer 48.0% ->
 * 58.8% (bootstrap=False), wine 61.6% -> 65.6%, Extra Trees on 1,000 Default Credit rows 97.2% ->
 * 99.4%, Pima 96.9% -> 97.5%, Stroke 87.3% -> 87.0%, within 0.3 points elsewhere. Weighting the
 * thresholds by their node's row count, or by how close their node lies to the row's cell, did not
 * do better. It remains a guess: only the interval is proven.
 */
import { splitsOnMissingOnly, valueCutCount, valueCutStart } from '../../forest/missing-split';
import { insideAsFloat32, representative, type FeatureAxes } from './feature-axes';

/** TimberStrike's tolerance, in standard deviations (evaluate/reconstruction-accuracy.ts scores with it). */
const TOLERANCE_STD = 0.319;

/**
 * Per feature, the windows of its distinct thresholds, for answering any interval in O(1): the
 * reconstruction asks for every row and feature (230,000 intervals on 10,000 rows of 23 features,
 * over up to thousands of thresholds each: a scan per interval cost 10 s there).
 *  - `end[i]`: one past the last threshold within the window starting at threshold i;
 *  - `best[k][i]`: the i' in i .. i + 2^k - 1 whose window holds the most thresholds (the lowest
 *    on ties), a sparse table for range maxima.
 * Built on first use per feature, cached per axes (they are built once per reconstruction).
 */
interface Windows {
  end: Int32Array;
  best: Int32Array[];
}

const windowsOf = new WeakMap<FeatureAxes, (Windows | undefined)[]>();

function windows(axes: FeatureAxes, f: number): Windows | undefined {
  let perFeature = windowsOf.get(axes);
  if (!perFeature) {
    perFeature = new Array(axes.thresholds.length);
    windowsOf.set(axes, perFeature);
  }
  if (perFeature[f] === undefined) perFeature[f] = buildWindows(valueCuts(axes.thresholds[f]));
  return perFeature[f];
}

function buildWindows(cuts: Float64Array): Windows | undefined {
  const width = 2 * TOLERANCE_STD * standardDeviation(cuts);
  if (!(width > 0)) return undefined;
  const n = cuts.length;
  const end = new Int32Array(n);
  for (let i = 0, j = 0; i < n; i++) {
    while (j < n && cuts[j] <= cuts[i] + width) j++;
    end[i] = j;
  }
  const best: Int32Array[] = [Int32Array.from({ length: n }, (_, i) => i)];
  for (let span = 2; span <= n; span *= 2) {
    const below = best[best.length - 1];
    const level = new Int32Array(n - span + 1);
    for (let i = 0; i < level.length; i++) level[i] = better(end, below[i], below[i + span / 2]);
    best.push(level);
  }
  return { end, best };
}

/** The thresholds that cut the values (missing-split.ts valueCutCount), as a view. */
function valueCuts(cuts: Float64Array): Float64Array {
  const count = valueCutCount(cuts);
  const start = Math.min(valueCutStart(cuts), count);
  return start === 0 && count === cuts.length ? cuts : cuts.subarray(start, count);
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

/** Of two window starts a < b, the one whose window holds more thresholds; a on ties. */
function better(end: Int32Array, a: number, b: number): number {
  return end[b] - b > end[a] - a ? b : a;
}

/** The start in from .. to - 1 (to > from) whose whole window holds the most thresholds, lowest on ties. */
function bestStart(w: Windows, from: number, to: number): number {
  const level = 31 - Math.clz32(to - from);
  return better(w.end, w.best[level][from], w.best[level][to - (1 << level)]);
}

/**
 * The point standing for feature f's value in the interval (lower, upper] (`<=`) or [lower, upper)
 * (`<`): see the header. On the whole axis (both ends infinite) the densest window of all the
 * feature's thresholds: where the model says most training values lie; null when no tree splits
 * the feature.
 */
export function likeliestPoint(axes: FeatureAxes, f: number, lower: number, upper: number): number | null {
  // A split on missing values alone (at the largest float32: forest/missing-split.ts) bounds no
  // value: up to it a value is wherever the other thresholds allow, as if open above (its point was
  // 3.4e38 on a feature split on missingness alone). Above it the row is missing the feature, and
  // its point stays past the threshold, where the model's walks send a missing value.
  if (splitsOnMissingOnly(upper) && !splitsOnMissingOnly(lower)) upper = Infinity;
  const integral = axes.integral[f] === 1;
  // Null on the whole axis: then only the thresholds' densest window gives a point (none without thresholds).
  const fallback = representative(lower, upper, integral, axes.splitRule);
  const cuts = valueCuts(axes.thresholds[f]);
  // The thresholds strictly inside the interval: first .. end - 1 (cuts ascending).
  const first = upperBound(cuts, lower);
  const end = lowerBound(cuts, upper);
  const w = windows(axes, f);
  // No window (one distinct threshold, or none inside): the fallback; on the whole axis, where
  // that is null, the middle threshold (training values lie on both sides of it).
  if (end <= first || !w) return fallback ?? (end > first ? cuts[(first + end - 1) >> 1] : null);
  // Windows that end inside the interval, from the table; those that reach past its end (a tail of
  // starts, as window ends grow with their start) hold end - start thresholds, most at the first.
  const tail = Math.max(first, upperBoundInt(w.end, end, first, end));
  let start = tail > first ? bestStart(w, first, tail) : -1;
  if (start < 0 || (tail < end && end - tail > w.end[start] - start)) start = tail;
  const last = Math.min(w.end[start], end) - 1;
  const bestCentre = (cuts[start] + cuts[last]) / 2;
  const less = axes.splitRule === 'less';
  if (integral) {
    // The integer nearest the centre that the interval holds, else the fallback.
    const rounded = Math.round(bestCentre);
    const holds = less ? rounded >= lower && rounded < upper : rounded > lower && rounded <= upper;
    return holds ? rounded : fallback;
  }
  return insideAsFloat32(bestCentre, lower, upper, less);
}

/** The first index whose value is above x (values ascending). */
function upperBound(values: Float64Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose value is at or above x (values ascending). */
function lowerBound(values: Float64Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index in from .. to - 1 whose value is above x (values ascending there), else to. */
function upperBoundInt(values: Int32Array, x: number, from: number, to: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
