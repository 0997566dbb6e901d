/**
 * Measures of a reconstruction of numeric rows against the true training set, after TimberStrike
 * (and TabLeak before it): rows are aligned by a minimum-cost matching (Hungarian), then
 *  - accuracy: the share of (true row, feature) pairs whose matched value is within 0.319
 *    standard deviations of the true one (TimberStrike's tolerance for numeric features; exact
 *    equality is within it for 0/1 features, whose std is below 1/0.319);
 *  - within interval: the share whose true value lies in the interval the engine gave for it
 *    (lower exclusive, upper inclusive), counting only intervals that constrain something;
 *  - label accuracy of the matched pairs.
 * Choices stated once: the matching cost is, per feature, min(1, |difference| / std), plus 1 for a
 * wrong label; a null value costs 1 and is never within tolerance, unless `fill` gives a value to
 * use instead (e.g. the population mean: what an adversary who knows the feature's distribution
 * would guess where the model says nothing); unmatched true rows count as entirely wrong. The
 * standard deviations are the population's (the whole data set), as given.
 */
import { minimumCostMatching } from './matching';
import { seededRandom } from './seeded-random';

export interface NumericRow {
  values: readonly (number | null)[];
  intervals?: readonly ([number, number] | null)[];
  label?: string | number | boolean;
}

export interface NumericQuality {
  /** Share of true features within TOLERANCE_STD standard deviations of their match. */
  accuracy: number;
  /** Share of true features inside a constraining interval of their match (undefined without intervals). */
  withinInterval?: number;
  /** Share of true rows whose match has their label. */
  labelAccuracy: number;
  /** For each true row, the index of its reconstructed row (-1 when unmatched). */
  matchOfTrueRow: Int32Array;
}

/** TimberStrike's tolerance, in standard deviations. */
export const TOLERANCE_STD = 0.319;

function featureCost(value: number | null, truth: number, std: number): number {
  if (value === null) return 1;
  const scale = std > 0 ? std : 1;
  return Math.min(1, Math.abs(value - truth) / scale);
}

export function evaluateNumericReconstruction(reconstructed: readonly NumericRow[], truth: readonly NumericRow[], std: readonly number[], fill?: readonly number[]): NumericQuality {
  const features = std.length;
  if (fill) reconstructed = reconstructed.map((r) => ({ ...r, values: r.values.map((v, f) => v ?? fill[f]) }));
  const cost = truth.map((t) =>
    Float64Array.from(reconstructed, (r) => {
      let total = r.label !== undefined && t.label !== undefined && r.label !== t.label ? 1 : 0;
      for (let f = 0; f < features; f++) total += featureCost(r.values[f], t.values[f] as number, std[f]);
      return total;
    }),
  );
  const { columnOfRow } = minimumCostMatching(cost);
  let within = 0;
  let inside = 0;
  let labels = 0;
  const hasIntervals = reconstructed.some((r) => r.intervals !== undefined);
  truth.forEach((t, i) => {
    const match = columnOfRow[i];
    if (match < 0) return;
    const r = reconstructed[match];
    if (r.label === t.label) labels++;
    for (let f = 0; f < features; f++) {
      const v = r.values[f];
      const trueValue = t.values[f] as number;
      if (v !== null && Math.abs(v - trueValue) <= TOLERANCE_STD * std[f]) within++;
      const interval = r.intervals?.[f];
      if (interval && trueValue > interval[0] && trueValue <= interval[1]) inside++;
    }
  });
  const cells = Math.max(1, truth.length * features);
  return {
    accuracy: within / cells,
    ...(hasIntervals ? { withinInterval: inside / cells } : {}),
    labelAccuracy: labels / Math.max(1, truth.length),
    matchOfTrueRow: columnOfRow,
  };
}

/**
 * The random baseline: an adversary who knows N, the features' ranges in the population and the
 * labels, but not the model, draws every value uniformly in [min, max] (rounded for integer-valued
 * features) and every label uniformly. Mean accuracy over `runs`.
 */
export function uniformBaselineAccuracy(
  truth: readonly NumericRow[],
  population: { min: readonly number[]; max: readonly number[]; std: readonly number[] },
  labels: readonly (string | number | boolean)[],
  integral: readonly boolean[],
  runs = 20,
  seed = 1,
): number {
  const random = seededRandom(seed);
  let total = 0;
  for (let run = 0; run < runs; run++) {
    const guesses: NumericRow[] = truth.map(() => ({
      values: population.min.map((low, f) => {
        const v = low + random() * (population.max[f] - low);
        return integral[f] ? Math.round(v) : v;
      }),
      label: labels[Math.floor(random() * labels.length)],
    }));
    total += evaluateNumericReconstruction(guesses, truth, population.std).accuracy;
  }
  return total / Math.max(1, runs);
}
