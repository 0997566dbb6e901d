/**
 * Differentially private counts (DRAFT-DP's mechanism: every released count is the true count
 * plus int(Laplace(1/epsLeaf)), ../attacks/reconstruction/dp/noise.ts). A member adds one to its
 * leaf's count of its label in every tree (such forests grow every tree on all rows). Per tree the
 * evidence is the log-likelihood ratio of the released count m under "the candidate is the only
 * row of its label there" (true count 1) against "no row is" (true count 0):
 *   LLR = -log P(l = m - 1) + log P(l = m),
 * which is at most epsLeaf + log 2 in absolute value: the noise caps what any tree can reveal.
 * Summed over trees (taken as independent) and turned into a posterior with even prior odds.
 * The "others 0" simplification favours small leaves, which is where the evidence is; a large leaf
 * gives every candidate nearly the same ratio.
 */
import { leafEpsilon, noiseCost } from '../attacks/reconstruction/dp/noise';

export function dpScore(released: Float64Array, epsilon: number): number {
  const eps = leafEpsilon(epsilon, released.length);
  let llr = 0;
  for (const m of released) {
    const rounded = Math.round(m);
    llr += noiseCost(rounded, eps) - noiseCost(rounded - 1, eps);
  }
  return 1 / (1 + Math.exp(-llr));
}
