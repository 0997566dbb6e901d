/**
 * The noise of the DRAFT-DP mechanism (Jagannathan et al.; ../shared/papers/draft-dp-satml2026.txt,
 * sections II-B and III, appendices A and B): every released per-leaf per-class count is
 * `count + int(Y)`, Y ~ Laplace(1 / epsLeaf), `int` truncating toward zero. The integer noise l has
 *   P(l = 0) = P(-1 < Y < 1)      = 1 - e^-eps
 *   P(l = k) = P(k <= |Y| < k + 1) = (1 - e^-eps) e^(-eps |k|) / 2      for k != 0,
 * so -log P(l) = K + [l != 0] log 2 + eps |l| with K = -log(1 - e^-eps): linear in |l| with a jump
 * of log 2 between l = 0 and |l| = 1. That is what lets the likelihood be an exact mixed-integer
 * linear objective (formulation.ts): eps |l| through a split l = plus - minus, and the jump through
 * one binary "l = 0" per count.
 */

/** Per-count budget when the total `epsilon` is split evenly over `trees` (sequential composition). */
export function leafEpsilon(epsilon: number, trees: number): number {
  return epsilon / trees;
}

/**
 * The paper's noise range: |l| <= gamma keeps P >= 0.999 per count (appendix B). In fact
 * P(|l| > gamma) = e^(-eps (gamma + 1)) <= e^-12, about 6e-6.
 */
export function noiseRange(epsLeaf: number): number {
  return Math.ceil(12 / epsLeaf);
}

/** -log P(int(Y) = l): the cost of one count's noise in the objective, constant K included. */
export function noiseCost(l: number, epsLeaf: number): number {
  const k = -Math.log(-Math.expm1(-epsLeaf));
  return l === 0 ? k : k + Math.LN2 + epsLeaf * Math.abs(l);
}

/** Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08,
  2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** Student's t 97.5% quantile; beyond 30 degrees of freedom by the Cornish-Fisher expansion. */
export function studentT975(degrees: number): number {
  const df = Math.max(1, Math.floor(degrees));
  if (df <= T975.length) return T975[df - 1];
  const z = 1.959964;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df);
}

export interface RowsInterval {
  /** Mean over trees of the sum of a tree's released counts. */
  estimate: number;
  /** 95% confidence interval on N (integers, inclusive). */
  low: number;
  high: number;
}

/**
 * The paper's confidence interval on an unknown N (appendix A-A): every tree holds all N rows, so
 * a tree's released total is N plus the sum of its counts' noises, whose standard deviation is
 * sqrt(2 * leaves * classes) / epsLeaf; the mean over the trees is N within t95 * sigma / sqrt(trees).
 * Rounded outward so that the integer interval holds the real one.
 */
export function rowsInterval(treeTotals: readonly number[], countsPerTree: number, epsLeaf: number): RowsInterval {
  const trees = treeTotals.length;
  const estimate = treeTotals.reduce((a, b) => a + b, 0) / Math.max(1, trees);
  const sigma = Math.sqrt(2 * countsPerTree) / epsLeaf;
  const half = (studentT975(trees - 1) * sigma) / Math.sqrt(Math.max(1, trees));
  return { estimate, low: Math.max(1, Math.floor(estimate - half)), high: Math.max(1, Math.ceil(estimate + half)) };
}
