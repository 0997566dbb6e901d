/**
 * How likely a row is to be drawn exactly b times into one tree's bootstrap sample: M draws with
 * replacement from N rows make b binomial(M, 1/N). The DRAFT paper caps b at 7 (beyond that the
 * probability is about 1e-5 for N = 100) and maximises the sum of log p_b over rows and trees.
 */

/** Largest multiplicity the likelihood formulation considers (the DRAFT paper's B = {0..7}). */
export const MAX_DRAWS = 7;

/** log p_b for b = 0..MAX_DRAWS. */
export function logDrawProbabilities(rows: number, drawn: number): Float64Array {
  const logs = new Float64Array(MAX_DRAWS + 1);
  const p = 1 / rows;
  let logChoose = 0; // log C(drawn, b), built up term by term
  for (let b = 0; b <= MAX_DRAWS; b++) {
    if (b > 0) logChoose += Math.log(drawn - b + 1) - Math.log(b);
    logs[b] = b > drawn ? -Infinity : logChoose + b * Math.log(p) + (drawn - b) * Math.log1p(-p);
  }
  return logs;
}
