/**
 * How the reconstruction cuts each feature's axis into intervals, and how an interval becomes the
 * bounds and the representative value of a reconstructed row.
 *
 * A forest only ever asks `x[f] <= threshold` (scikit-learn sends that branch left) or
 * `x[f] < threshold` (XGBoost; the forest's `splitRule`), so all it can tell about a feature is on
 * which side of each of its thresholds a value lies. Sorting the distinct thresholds
 * T[0] < ... < T[k-1] of feature f over the whole forest cuts its axis into k + 1 intervals
 * (T[-1] = -Infinity, T[k] = +Infinity): interval i is (T[i-1], T[i]] under `<=` (lower end
 * exclusive, upper end inclusive) and [T[i-1], T[i]) under `<` (a value equal to a threshold goes
 * right). The interval indices mean the same under both rules; only which end is closed differs,
 * and with it which points may stand for an interval (`representative`).
 *
 * A feature is read as binary (two intervals, indices 0 and 1 standing for the values 0 and 1)
 * when every split of it is at 0.5 (scikit-learn puts its threshold halfway between 0 and 1), or
 * when it is declared binary and every threshold lies strictly between 0 and 1 (ExtraTrees draws a
 * random threshold per split; then all its thresholds count as one cut). A single threshold
 * elsewhere in (0, 1) is not taken for a 0/1 feature: ratios, standardised columns and scaled data
 * live there, and reading them as 0/1 certified values no training row had. A
 * feature declared numeric or categorical, or split anywhere else, gets its k + 1 intervals. A
 * feature no split uses is binary unless declared otherwise (a declared group can still force it).
 */
import type { Forest } from '../../forest/schema';
import type { FeatureInterval } from '../../forest/structure';

export interface FeatureAxes {
  /** Per feature: 1 when read as binary (intervals 0 and 1 are the values 0 and 1). */
  binary: Uint8Array;
  /** Per feature: number of intervals (1 for a feature no split uses, 2 for a binary one). */
  intervals: Int32Array;
  /** Per feature: its distinct thresholds, ascending (for a binary feature, all thresholds seen). */
  thresholds: Float64Array[];
  /**
   * Per feature: 1 when every threshold is a half-integer (k + 0.5), as scikit-learn puts them
   * between two integer values: the feature is then most likely integer-valued (an ordinal or a
   * count) and representatives are taken among the integers of an interval. XGBoost's exact
   * method also splits halfway between two values, but its hist method splits at a value itself,
   * and halfway between two integers an even gap apart is an integer: under `<`, every threshold
   * a multiple of 0.5 (k or k + 0.5) marks the feature integer-valued.
   */
  integral: Uint8Array;
  /** The forest's split rule: which end of an interval is closed (see above). */
  splitRule: 'less-or-equal' | 'less';
}

export type FeatureAxesResult = { ok: true; axes: FeatureAxes } | { ok: false; reason: string };

export function featureAxes(forest: Forest): FeatureAxesResult {
  const features = forest.features.length;
  const seen = Array.from({ length: features }, () => new Set<number>());
  for (let t = 0; t < forest.trees.length; t++) {
    const tree = forest.trees[t];
    for (let node = 0; node < tree.left.length; node++) {
      if (tree.left[node] === -1) continue;
      const feature = tree.feature[node];
      const threshold = tree.threshold[node];
      if (!Number.isInteger(feature) || feature < 0 || feature >= features) return { ok: false, reason: `tree ${t} node ${node} splits on feature ${feature}, which the model does not have` };
      if (!Number.isFinite(threshold)) return { ok: false, reason: `tree ${t} node ${node} splits at ${threshold}, not a finite threshold` };
      seen[feature].add(threshold);
    }
  }
  const binary = new Uint8Array(features);
  const intervals = new Int32Array(features);
  const integral = new Uint8Array(features);
  const thresholds = seen.map((set) => Float64Array.from(set).sort());
  const splitRule = forest.splitRule ?? 'less-or-equal';
  for (let f = 0; f < features; f++) {
    const cuts = thresholds[f];
    const kind = forest.features[f].kind;
    // Cuts that separate 0 from 1: inside (0, 1) under `<=`, and (0, 1] under `<`, where XGBoost's
    // hist method splits a 0/1 column at 1 itself (`x < 1`: a public XGBClassifier behind a
    // OneHotEncoder split every one-hot column so, and its declared groups failed the enumeration).
    const separates = splitRule === 'less' ? (t: number) => t > 0 && t <= 1 : (t: number) => t > 0 && t < 1;
    const inUnitInterval = cuts.length > 0 && cuts.every(separates);
    // Only scikit-learn's (and XGBoost's exact) midpoint between 0 and 1 marks a 0/1 feature: a
    // single threshold elsewhere in (0, 1) is as often a numeric feature that lives there (a
    // ratio, a standardised column, scikit-learn's scaled diabetes data) or is split only once,
    // and reading it as 0/1 would certify values no training row has.
    const atHalf = cuts.length === 1 && cuts[0] === 0.5;
    const splitAsBinary = cuts.length === 0 || atHalf || (inUnitInterval && kind === 'binary');
    binary[f] = kind !== 'numeric' && kind !== 'categorical' && splitAsBinary ? 1 : 0;
    intervals[f] = binary[f] ? 2 : cuts.length + 1;
    integral[f] = cuts.length > 0 && cuts.every(splitRule === 'less' ? (t) => Number.isInteger(2 * t) : (t) => Number.isInteger(t - 0.5)) ? 1 : 0;
  }
  return { ok: true, axes: { binary, intervals, thresholds, integral, splitRule } };
}

/** Index of an exact threshold of feature f (thresholds come from the same forest, so they match exactly). */
function indexOf(axes: FeatureAxes, f: number, threshold: number): number {
  const cuts = axes.thresholds[f];
  let low = 0;
  let high = cuts.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (cuts[mid] < threshold) low = mid + 1;
    else if (cuts[mid] > threshold) high = mid - 1;
    else return mid;
  }
  throw new Error(`feature ${f}: threshold ${threshold} is not one of the forest's`);
}

/**
 * The interval indices [low, high] a path's box on one feature allows (low > high when the path's
 * conditions contradict each other: no value reaches the leaf). On a binary feature a `<=` step
 * means 0 and a `>` step means 1, whatever the threshold in (0, 1).
 */
export function intervalIndexRange(axes: FeatureAxes, box: FeatureInterval): [number, number] {
  const f = box.feature;
  if (axes.binary[f]) return [box.lower === undefined ? 0 : 1, box.upper === undefined ? 1 : 0];
  const low = box.lower === undefined ? 0 : indexOf(axes, f, box.lower) + 1;
  const high = box.upper === undefined ? axes.intervals[f] - 1 : indexOf(axes, f, box.upper);
  return [low, high];
}

/** Threshold index of the cut between intervals c - 1 and c of feature f (as a split `x <= T[c-1]`). */
export function cutIndexOfSplit(axes: FeatureAxes, f: number, threshold: number): number {
  return axes.binary[f] ? 1 : indexOf(axes, f, threshold) + 1;
}

/**
 * The values interval indices low..high of feature f stand for: (lower, upper] under `<=`, lower
 * exclusive and upper inclusive, [lower, upper) under `<` (axes.splitRule), either end infinite. A binary feature's 0 is (-Infinity, smallest
 * threshold] and its 1 is (largest threshold, +Infinity).
 */
export function intervalBounds(axes: FeatureAxes, f: number, low: number, high: number): [number, number] {
  const cuts = axes.thresholds[f];
  // A binary feature no split uses (a group forced it) is cut at 0.5.
  if (axes.binary[f]) return [low === 0 ? -Infinity : (cuts[cuts.length - 1] ?? 0.5), high === 1 ? Infinity : (cuts[0] ?? 0.5)];
  return [low === 0 ? -Infinity : cuts[low - 1], high === axes.intervals[f] - 1 ? Infinity : cuts[high]];
}

/**
 * One point to stand for a row whose value lies in the interval between lower and upper: (lower,
 * upper] under `<=` (scikit-learn), [lower, upper) under `<` (XGBoost). Null when both ends are
 * open (the model says nothing about the value). For an integer-valued feature (see `integral`),
 * the middle integer of the interval, or the integer nearest the finite end; otherwise the
 * midpoint, or the finite end itself when the interval holds it (`<=`: the upper end; `<`: the
 * lower end), else the float32 just inside it. The midpoint minimises the worst-case error when
 * nothing else is known; toward an open side there is no scale, and both libraries put thresholds
 * halfway between two training values (or at one, XGBoost's hist), so the finite end is within
 * half a gap of a value some training row holds. It is a guess, not a certified value: only the
 * interval is what the model proves. The value is returned as a float32 inside the interval, on
 * the side of every threshold the model's own comparison puts it (see `insideAsFloat32`).
 */
export function representative(lower: number, upper: number, integral: boolean, splitRule: 'less-or-equal' | 'less' = 'less-or-equal'): number | null {
  const openBelow = lower === -Infinity;
  const openAbove = upper === Infinity;
  if (openBelow && openAbove) return null;
  const less = splitRule === 'less';
  // The integers the interval holds: (lower, upper] under `<=`, [lower, upper) under `<`.
  const first = less ? Math.ceil(lower) : Math.floor(lower) + 1;
  const last = less ? Math.ceil(upper) - 1 : Math.floor(upper);
  let guess: number;
  if (integral && first <= last) guess = openBelow ? last : openAbove ? first : Math.floor((first + last) / 2);
  else guess = openBelow ? upper : openAbove ? lower : (lower + upper) / 2;
  return insideAsFloat32(guess, lower, upper, less);
}

/**
 * Both libraries compare the feature cast to float32: scikit-learn with a float64 threshold, XGBoost
 * with a float32 one (its JSON writes float32 values in decimal, so the threshold read is cast to
 * float32 for the comparison). The value given must still fall inside the interval after that cast,
 * so that it reaches the leaves its row claims; an excluded end itself does not, and the next
 * float32 inside is taken.
 */
export function insideAsFloat32(value: number, lower: number, upper: number, less: boolean): number {
  const inside = less
    ? (v: number) => Math.fround(v) >= Math.fround(lower) && Math.fround(v) < Math.fround(upper)
    : (v: number) => v > lower && v <= upper;
  const cast = Math.fround(value);
  if (inside(cast)) return cast;
  // Only next to a finite end: beyond an infinite one that would be -FLT_MAX, far from the guess
  // (it happened with an XGBoost threshold written in decimal, whose float32 cast lies above it).
  if (!less && lower !== -Infinity) {
    const above = nextFloat32Above(lower);
    if (inside(above)) return above;
  }
  if (less && upper !== Infinity) {
    const below = nextFloat32Below(Math.fround(upper));
    if (inside(below)) return below;
  }
  // Under `<=` an upper end that is no float32 (a float64 threshold) casts above itself: the
  // largest float32 at or below it is inside (it happened open below, where the guess is the end).
  if (!less && upper !== Infinity) {
    const cast = Math.fround(upper);
    const below = cast <= upper ? cast : nextFloat32Below(cast);
    if (inside(below)) return below;
  }
  return value;
}

/** The largest float32 below a float32 value. */
function nextFloat32Below(cast: number): number {
  return -nextFloat32Above(-cast);
}

function nextFloat32Above(value: number): number {
  const cast = Math.fround(value);
  if (cast > value) return cast;
  const bits = new Float32Array([cast]);
  const word = new Int32Array(bits.buffer);
  if (cast === 0) word[0] = 1;
  else if (cast > 0) word[0]++;
  else word[0]--;
  return bits[0];
}
