/**
 * Limits every reader applies to counts a file declares, so that one damaged number (a flipped
 * byte in `num_feature`, `n_features_in_`, a split index) cannot make a few-KiB file cost
 * gigabytes and minutes downstream: each feature becomes an IR entry that rules, the report and
 * the reconstruction walk. Found by the fuzz tests (test/unit/fuzz-formats.test.ts): a 3.5 KiB
 * XGBoost JSON declaring num_feature 10,000,000 took 67 s and 3.4 GiB to lint.
 */

/**
 * Most features a model may have: 2^20, scikit-learn's HashingVectorizer default, the widest
 * genuine models this tool expects. A model at 10^6 features lints in about 3.5 s (2 cores).
 */
export const MAX_FEATURES = 2 ** 20;

/** Why a feature count is refused ('too-large'), or undefined when it is within the limit. */
export function featureCountProblem(count: number, what: string): string | undefined {
  if (count <= MAX_FEATURES) return undefined;
  return `${what} ${count} features, more than the ${MAX_FEATURES} this tool reads (a damaged count, or a model beyond its limits)`;
}
