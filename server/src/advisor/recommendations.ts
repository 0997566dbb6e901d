/**
 * The advice derived from the scenarios' outcomes. Every sentence says "simulated": the numbers
 * come from this model's trees with the remedy's effect applied, not from a retrained model.
 */
import type { AdvisorReport, Recommendation, RemedyOutcome } from '../report/model';

const fmt = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

/** The baseline in words: the papers' random guesses, or (numeric features) values drawn from the true columns. */
export function baselineWords(measure: AdvisorReport['errorMeasure']): string {
  return measure === 'timberstrike' ? 'column-guess baseline' : 'random baseline';
}

export function recommend(scenarios: readonly RemedyOutcome[], baselineError: number | null, measure: AdvisorReport['errorMeasure'] = 'draft'): Recommendation[] {
  const baseline = baselineWords(measure);
  const out: Recommendation[] = [];
  const dp = epsilonRecommendation(scenarios.filter((s) => s.kind === 'differential-privacy'), baselineError, baseline);
  if (dp) out.push(dp);
  const leaves = leafRecommendation(scenarios.filter((s) => s.kind === 'larger-leaves'), baselineError, baseline);
  if (leaves) out.push(leaves);
  const bootstrap = scenarios.find((s) => s.kind === 'bootstrap-without-seeds');
  if (bootstrap) out.push(bootstrapRecommendation(bootstrap, baselineError, baseline));
  return out;
}

/**
 * The epsilon to propose: going up from the smallest tested epsilon, the last one whose simulated
 * reconstruction is no better than the baseline before the first that is better. (The largest
 * such epsilon overall could sit above one that leaks, by the luck of the noise; this one does not.)
 * Epsilons whose reconstruction gave no verdict (nothing reconstructed in time) are passed over.
 */
export function largestSafeEpsilon(outcomes: readonly RemedyOutcome[]): { safe?: RemedyOutcome; next?: RemedyOutcome } {
  const sorted = outcomes.filter((o) => o.parameter !== undefined && o.noBetterThanBaseline !== null).sort((a, b) => a.parameter! - b.parameter!);
  let safe: RemedyOutcome | undefined;
  for (const outcome of sorted) {
    if (!outcome.noBetterThanBaseline) return { ...(safe ? { safe } : {}), next: outcome };
    safe = outcome;
  }
  return safe ? { safe } : {};
}

function epsilonRecommendation(outcomes: readonly RemedyOutcome[], baselineError: number | null, baseline: string): Recommendation | undefined {
  if (outcomes.length === 0) return undefined;
  const { safe, next } = largestSafeEpsilon(outcomes);
  if (!safe) {
    const tested = outcomes.map((o) => o.parameter).filter((p) => p !== undefined).sort((a, b) => a! - b!);
    const why = outcomes.every((o) => o.noBetterThanBaseline === null)
      ? 'none of the simulated reconstructions could be scored against a truth or a baseline'
      : `even at ε = ${Math.min(...outcomes.filter((o) => o.noBetterThanBaseline !== null).map((o) => o.parameter!))} the simulated reconstruction is better than guessing` +
        (dataChosen(outcomes[0]) ? ' (the noise hides the counts, but this model\'s leaves were chosen from the data and reveal much on their own; a DP forest grows random trees)' : '');
    return { kind: 'differential-privacy', text: `Simulated differential privacy (ε tested: ${tested.join(', ')}): ${why}.` };
  }
  const trees = /over (\d+) trees/.exec(safe.description)?.[1];
  return {
    kind: 'differential-privacy',
    parameter: safe.parameter!,
    text:
      `Simulated: with ε = ${safe.parameter}${trees ? ` (split over ${trees} trees)` : ''}, the reconstruction is no better than guessing ` +
      `(error ${fmt(safe.error)} vs ${baseline} ${fmt(baselineError)})` +
      (next ? `; at ε = ${next.parameter} it is better (error ${fmt(next.error)}).` : '; it is the largest ε tested.') +
      (dataChosen(safe) ? ' The noise was applied to this model\'s own leaves; a differentially private forest also grows its trees without looking at the data.' : ''),
  };
}

const dataChosen = (outcome: RemedyOutcome) => outcome.description.includes('data-chosen');

function leafRecommendation(outcomes: readonly RemedyOutcome[], baselineError: number | null, baseline: string): Recommendation | undefined {
  if (outcomes.length === 0) return undefined;
  const sorted = [...outcomes].sort((a, b) => a.parameter! - b.parameter!);
  const atBaseline = sorted.find((o) => o.noBetterThanBaseline === true);
  const noneCertified = sorted.find((o) => o.certifiedRows === 0 && (o.status === 'exact' || o.status === 'bounded'));
  const pick = atBaseline ?? noneCertified;
  if (!pick) {
    const largest = sorted[sorted.length - 1];
    return {
      kind: 'larger-leaves',
      text: `Simulated larger leaves (min_samples_leaf up to ${largest.parameter}): the reconstruction still certifies ${largest.certifiedRows} rows` + (largest.error !== null ? ` (error ${fmt(largest.error)} vs ${baseline} ${fmt(baselineError)})` : '') + '.',
    };
  }
  const parts = [
    noneCertified ? `no row is certified from min_samples_leaf = ${noneCertified.parameter}` : undefined,
    atBaseline ? `the reconstruction is no better than guessing from min_samples_leaf = ${atBaseline.parameter} (error ${fmt(atBaseline.error)} vs ${fmt(baselineError)})` : undefined,
  ].filter((p) => p !== undefined);
  return {
    kind: 'larger-leaves',
    parameter: pick.parameter!,
    text: `Simulated by merging this model's small sibling leaves: ${parts.join('; ')}. A model retrained with min_samples_leaf would choose other splits.`,
  };
}

function bootstrapRecommendation(outcome: RemedyOutcome, baselineError: number | null, baseline: string): Recommendation {
  const verdict =
    outcome.error === null
      ? `reconstruction ${outcome.status}`
      : `error ${fmt(outcome.error)} vs ${baseline} ${fmt(baselineError)}: ${outcome.noBetterThanBaseline ? 'no better than guessing' : 'still better than guessing'}`;
  return {
    kind: 'bootstrap-without-seeds',
    text: `Simulated bootstrap without stored seeds (bootstrap=True, no replayable random_state): ${outcome.certifiedRows} rows certified, ${verdict}.`,
  };
}

/** The epsilon the "lower epsilon" quick fix proposes: the advisor's differential-privacy recommendation. */
export function advisedEpsilon(report: Pick<AdvisorReport, 'recommendations'>): number | undefined {
  return report.recommendations.find((r) => r.kind === 'differential-privacy' && r.parameter !== undefined)?.parameter;
}
