/**
 * The values the quick fixes write (epsilon, min_samples_leaf): the advisor's, once it has
 * simulated the remedies for the model a script saves, otherwise a documented default. Every fix
 * says which of the two it used.
 *
 * The advisor (report's `AdvisorReport`) records its recommendations here with `recordAdvice`;
 * the script rules and fixes read them with `advisedEpsilon` / `advisedLeafSize`.
 */
import { normalize } from 'node:path';
import type { AdvisorReport } from '../report/model';

/**
 * Default epsilon when the advisor has not run: 0.1. In the DRAFT-DP paper's experiments
 * (Table I and Appendix D) 0.1 is the only budget at which the reconstruction learned nothing
 * beyond the data distribution; from epsilon = 1 it rebuilt rows specific to the training set, and
 * diffprivlib's own default is 1.0.
 */
export const DEFAULT_EPSILON = 0.1;

/**
 * Default minimum leaf size when the advisor has not run: 5. A leaf then describes at least 5
 * training rows (no singleton-leaf finding can remain), a common k-anonymity-style floor that
 * usually costs little accuracy; it is a heuristic, not a guarantee.
 */
export const DEFAULT_MIN_SAMPLES_LEAF = 5;

export interface Advised {
  value: number;
  /** `advisor`: simulated for this model; `default`: the documented default above. */
  source: 'advisor' | 'default';
}

const advice = new Map<string, AdvisorReport['recommendations']>();

/** Called by the advisor when its simulations for `modelPath` end (and with [] to forget them). */
export function recordAdvice(modelPath: string, recommendations: AdvisorReport['recommendations']): void {
  if (recommendations.length === 0) advice.delete(normalize(modelPath));
  else advice.set(normalize(modelPath), recommendations);
}

function recommended(modelPath: string | undefined, kind: 'differential-privacy' | 'larger-leaves'): number | undefined {
  if (!modelPath) return undefined;
  const value = advice.get(normalize(modelPath))?.find((r) => r.kind === kind)?.parameter;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The advisor's epsilon for the model at `modelPath`, or undefined when it has not run. */
export function advisedEpsilon(modelPath: string | undefined): number | undefined {
  return recommended(modelPath, 'differential-privacy');
}

/** The advisor's smallest safe `min_samples_leaf` for the model, or undefined when it has not run. */
export function advisedLeafSize(modelPath: string | undefined): number | undefined {
  const value = recommended(modelPath, 'larger-leaves');
  return value === undefined ? undefined : Math.ceil(value);
}

export function epsilonFor(modelPath: string | undefined): Advised {
  const value = advisedEpsilon(modelPath);
  return value === undefined ? { value: DEFAULT_EPSILON, source: 'default' } : { value, source: 'advisor' };
}

export function leafSizeFor(modelPath: string | undefined): Advised {
  const value = advisedLeafSize(modelPath);
  return value === undefined ? { value: DEFAULT_MIN_SAMPLES_LEAF, source: 'default' } : { value, source: 'advisor' };
}
