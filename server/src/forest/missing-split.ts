/**
 * scikit-learn's histogram gradient boosting can split on missing values alone: every value goes
 * left and the rows missing the feature go right. It stores such a split with threshold +inf
 * (grower.py, `_fill_predictor_arrays`: the last bin of non-missing values). The IR's thresholds
 * are finite, so such a split is read with this threshold instead, the largest float32: a value no
 * real float32 feature value exceeds, so every value still goes left, and "missing" becomes the
 * one interval above it. That is how the reconstruction already reads missing values whose splits
 * all send them right (attacks/missing-values.ts: the highest interval stands for a missing value;
 * here that interval holds nothing else). Where a person reads conditions, a bound at it is said
 * as "missing" / "not missing".
 */
export const MISSING_ONLY_THRESHOLD = 3.4028234663852886e38;

/**
 * XGBoost's split `x < inf` (written by models whose training data held +inf, or only missing
 * values, beyond every finite value of a feature: a public model of XGBoost before 1.0 had 63 of
 * them, read "corrupt" before stop 43). Read with this finite threshold instead, 2^128: under the
 * split rule `<`, every float32 below +inf (the largest float32 included, which MISSING_ONLY_THRESHOLD
 * would send right) is below it and +inf is not, so the split sends every value where XGBoost does.
 * It is at or above MISSING_ONLY_THRESHOLD, so the interval above it is read as the one for a value
 * at +inf or missing, as for scikit-learn's split on missing values alone.
 */
export const BELOW_INFINITY_THRESHOLD = 2 ** 128;

/** Whether a threshold is the split on missing values alone (every value left, missing right). */
export function splitsOnMissingOnly(threshold: number): boolean {
  return threshold >= MISSING_ONLY_THRESHOLD;
}

/**
 * The other end: a split whose values left are all -inf. scikit-learn puts a threshold halfway
 * between two neighbouring values, so -inf beside a finite value gives -inf, and -inf beside +inf
 * gives NaN (the only NaN threshold it writes: a public 1.6.1 BaggingRegressor read "corrupt" for
 * one). Both send every finite value right, as this threshold, the lowest float32, does; the
 * training rows that went left held -inf, which lies at or below it.
 */
export const NEGATIVE_INFINITY_THRESHOLD = -MISSING_ONLY_THRESHOLD;

/** Whether a threshold stands for -inf (every finite value right). */
export function splitsOffNegativeInfinity(threshold: number): boolean {
  return threshold <= NEGATIVE_INFINITY_THRESHOLD;
}

/** Where a feature's sorted thresholds that cut finite values start: a leading -inf split is left out, as the missing one at the end. */
export function valueCutStart(cuts: ArrayLike<number>): number {
  let start = 0;
  while (start < cuts.length && splitsOffNegativeInfinity(cuts[start])) start++;
  return start;
}

/**
 * How many of a feature's sorted thresholds cut its values: a split on missing values alone, always
 * the last at the largest float32, is left out (box widths and the point's windows measure the
 * values; counted in, its 3.4e38 made every width 0% and every window the whole axis).
 */
export function valueCutCount(cuts: ArrayLike<number>): number {
  let count = cuts.length;
  while (count > 0 && splitsOnMissingOnly(cuts[count - 1])) count--;
  return count;
}
