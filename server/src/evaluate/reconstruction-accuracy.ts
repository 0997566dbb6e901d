/**
 * TimberStrike's measure of a reconstruction (PETS 2025, section 6.1, after TabLeak): the
 * Reconstruction Accuracy (RA). Reconstructed and true rows are paired by a minimum-cost matching
 * (the Hungarian method, ./matching.ts), then a row scores the fraction of features it got right:
 *  - a categorical feature (the label included, when passed as a column) must match exactly;
 *  - a numeric feature is right when the reconstructed value, or interval, overlaps
 *    [x - eps, x + eps] with eps = 0.319 x the feature's standard deviation in the true data
 *    (2 Phi(0.319) - 1 = 25% of a normal distribution).
 * RA is the mean over true rows. Choices where the paper leaves room, stated once here:
 *  - the standard deviation is the population one (numpy's default, ddof 0) of the true rows;
 *  - an undetermined value (null) is wrong; a missing true value (NaN/null) is right only when the
 *    reconstruction also leaves it missing;
 *  - the matching maximises the accuracy on the features being scored, so "top features" are
 *    matched on those features, as a separate evaluation;
 *  - unmatched true rows (fewer reconstructed rows than true ones) score 0.
 */
import type { Forest } from '../forest/schema';
import { minimumCostMatching } from './matching';

/** A reconstructed value: a number, an interval [low, high] (either end may be infinite), or unknown. */
export type ReconstructedValue = number | readonly [number, number] | null;

export type FeatureKind = 'numeric' | 'categorical';

export const TIMBERSTRIKE_TOLERANCE = 0.319;

export interface AccuracyOptions {
  /** Features scored (column indices); all by default. */
  features?: readonly number[];
  /** Multiplier of the standard deviation (0.319, TabLeak and TimberStrike). */
  factor?: number;
  /** Tolerances per column, overriding factor x standard deviation. */
  tolerance?: readonly number[];
  /**
   * Pair each true row with the reconstructed row that scores best on it, several true rows with
   * one reconstructed row if need be (no matching, linear in each side): an upper bound on the
   * matched RA, for sets too large to match.
   */
  nearest?: boolean;
}

export interface AccuracyResult {
  /** Mean over true rows of the fraction of scored features right. */
  accuracy: number;
  /** Fraction of true rows right, per scored feature (same order as `features`). */
  perFeature: number[];
  features: number[];
  /** Tolerance used per column (0 for categorical). */
  tolerance: number[];
  /** Reconstructed row matched to each true row (-1 when unmatched). */
  matchOfTrueRow: Int32Array;
}

const missing = (x: number | null | undefined) => x === null || x === undefined || Number.isNaN(x);

/** Population standard deviation of each column over the rows where it is present. */
export function columnTolerances(truth: readonly (readonly (number | null)[])[], kinds: readonly FeatureKind[], factor = TIMBERSTRIKE_TOLERANCE): number[] {
  return kinds.map((kind, f) => {
    if (kind !== 'numeric') return 0;
    let n = 0;
    let sum = 0;
    let squares = 0;
    for (const row of truth) {
      const x = row[f];
      if (missing(x)) continue;
      n++;
      sum += x!;
      squares += x! * x!;
    }
    if (n === 0) return 0;
    const mean = sum / n;
    return factor * Math.sqrt(Math.max(0, squares / n - mean * mean));
  });
}

function right(value: ReconstructedValue, truth: number | null, kind: FeatureKind, eps: number): boolean {
  if (missing(truth)) return value === null || (typeof value === 'number' && Number.isNaN(value));
  const x = truth!;
  if (value === null) return false;
  if (typeof value === 'number') return kind === 'categorical' ? value === x : Math.abs(value - x) <= eps;
  const [low, high] = value;
  if (kind === 'categorical') return low === x && high === x;
  return low <= x + eps && high >= x - eps;
}

export function reconstructionAccuracy(
  reconstructed: readonly (readonly ReconstructedValue[])[],
  truth: readonly (readonly (number | null)[])[],
  kinds: readonly FeatureKind[],
  options: AccuracyOptions = {},
): AccuracyResult {
  const features = [...(options.features ?? kinds.map((_, f) => f))];
  const tolerance = options.tolerance ? [...options.tolerance] : columnTolerances(truth, kinds, options.factor);
  const hits = (r: readonly ReconstructedValue[], t: readonly (number | null)[]) => {
    let count = 0;
    for (const f of features) if (right(r[f] ?? null, t[f] ?? null, kinds[f], tolerance[f])) count++;
    return count;
  };
  // Cost: features wrong, so the matching maximises the accuracy.
  const columnOfRow = options.nearest ? nearestRows(reconstructed, truth, hits) : minimumCostMatching(truth.map((t) => Float64Array.from(reconstructed, (r) => features.length - hits(r, t)))).columnOfRow;
  const perFeature = new Array<number>(features.length).fill(0);
  let total = 0;
  truth.forEach((t, i) => {
    const match = columnOfRow[i];
    if (match < 0) return;
    features.forEach((f, k) => {
      if (right(reconstructed[match][f] ?? null, t[f] ?? null, kinds[f], tolerance[f])) {
        perFeature[k]++;
        total++;
      }
    });
  });
  const rows = Math.max(1, truth.length);
  return {
    accuracy: features.length === 0 ? 0 : total / (rows * features.length),
    perFeature: perFeature.map((c) => c / rows),
    features,
    tolerance,
    matchOfTrueRow: columnOfRow,
  };
}

/** For each true row, the reconstructed row with the most features right on it (the first on ties). */
function nearestRows(reconstructed: readonly (readonly ReconstructedValue[])[], truth: readonly (readonly (number | null)[])[], hits: (r: readonly ReconstructedValue[], t: readonly (number | null)[]) => number): Int32Array {
  return Int32Array.from(truth, (t) => {
    let best = -1;
    let most = -1;
    reconstructed.forEach((r, j) => {
      const h = hits(r, t);
      if (h > most) {
        most = h;
        best = j;
      }
    });
    return best;
  });
}

/**
 * The k features a model relies on most: total gain of their splits when the model stores gains
 * (XGBoost's importance_type="total_gain"), otherwise the number of splits ("weight").
 */
export function importantFeatures(forest: Forest, k: number): number[] {
  const score = new Float64Array(forest.features.length);
  for (const tree of forest.trees) {
    for (let node = 0; node < tree.left.length; node++) {
      if (tree.left[node] === -1) continue;
      const f = tree.feature[node];
      if (f >= 0 && f < score.length) score[f] += tree.boosting?.gain?.[node] ?? 1;
    }
  }
  return Array.from(score.keys())
    .filter((f) => score[f] > 0)
    .sort((a, b) => score[b] - score[a] || a - b)
    .slice(0, k);
}
