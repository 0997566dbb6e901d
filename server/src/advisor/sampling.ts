/**
 * The random draws the advisor's simulations need, from the project's seeded generator
 * (evaluate/seeded-random.ts) so that a simulation, its figures and its tests are reproducible.
 */
export type Random = () => number;

/**
 * A draw of the standard Laplace distribution (scale 1), by inverting its CDF. Scaled by b it is
 * Laplace(b). Drawing the standard variate and scaling it lets simulations at several epsilons
 * share the same underlying draws (common random numbers): the noise of every count then grows
 * monotonically as epsilon shrinks, so the settings are compared on the same luck.
 */
export function standardLaplace(random: Random): number {
  // u in (-1/2, 1/2); 1 - 2|u| in (0, 1], so the log is finite.
  const u = random() - 0.5;
  const magnitude = -Math.log(1 - 2 * Math.abs(u));
  return u < 0 ? -magnitude : magnitude;
}

/** An index uniform in [0, n). */
export function uniformIndex(random: Random, n: number): number {
  return Math.min(n - 1, Math.floor(random() * n));
}
