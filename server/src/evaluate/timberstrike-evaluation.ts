/**
 * TimberStrike's Reconstruction Accuracy (RA, reconstruction-accuracy.ts) as part of the CLI's
 * evaluation against the true training rows (`--training-data`): over every feature and the label,
 * and over the model's most important features and the label, as the paper reports both
 * (PETS 2025, section 6.2.2: the top five columns, the label among them).
 *
 * Choices stated once:
 *  - the reconstructed points are scored (an interval's representative value); an undetermined
 *    value is wrong. Scoring whole intervals, as the paper allows, would count the whole axis as
 *    right wherever the model says nothing;
 *  - a feature is categorical (matched exactly) when the model says it is binary or categorical,
 *    when the user declares it (`--categorical`), or when every true value is 0 or 1; otherwise
 *    numeric, right within 0.319 standard deviations of the true column. Integer-coded categories
 *    nobody declares are scored as numbers;
 *  - the label is one more categorical column (none for an outlier detector, whose rows have none);
 *    a regressor's target is one more numeric column, right within the same tolerance (scored
 *    exactly before stop 42, where only a certified target could be right);
 *  - the most important features: total gain of their splits when the model stores gains,
 *    otherwise the number of splits (importantFeatures), the top TOP_FEATURES of them;
 *  - the matching is O(n^3): beyond MAX_RA_ROWS true rows, a seeded sample of MAX_RA_ROWS of
 *    them is scored each against its nearest reconstructed row (the one it has the most features
 *    right with, not one to one): an upper bound on the matched figure, and said so (`matching`).
 */
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import type { Forest } from '../forest/schema';
import type { EvaluatedRow } from './metrics';
import { columnTolerances, importantFeatures, reconstructionAccuracy, TIMBERSTRIKE_TOLERANCE, type FeatureKind } from './reconstruction-accuracy';
import { seededRandom, shuffleInPlace } from './seeded-random';
import { hasNoLabels } from '../forest/task';

/** The paper's top five columns are four features and the label. */
export const TOP_FEATURES = 4;
export const MAX_RA_ROWS = 1000;
/**
 * Value comparisons the nearest-row scoring makes at most, per score (pairs of rows times scored
 * columns): about a second. It counted pairs alone before stop 40 (2e7 pairs of 20 columns, twice:
 * 10 s of a 30,000-row evaluation, soundness sweep 15).
 */
const NEAREST_COMPARISONS = 1e8;

export interface AccuracyFigures {
  /** RA over every feature and the label. */
  all: number;
  /** RA over the most important features (named) and the label. */
  top: { features: string[]; accuracy: number };
  /** Features scored as categories (exact match), by name. */
  categorical: string[];
  /** Multiplier of each numeric column's standard deviation. */
  tolerance: number;
  /**
   * `matched`: rows paired one to one (the paper's RA). `nearest`: past MAX_RA_ROWS true rows,
   * `sampled` of them each scored against its nearest reconstructed row, an upper bound.
   */
  matching: 'matched' | 'nearest';
  sampled?: number;
}

/** `--categorical` names (or 0-based indices) as feature indices of this model, and the names it lacks. */
export function declaredCategorical(forest: Pick<Forest, 'features'>, names: readonly string[]): { features: Set<number>; unknown: string[] } {
  const features = new Set<number>();
  const unknown: string[] = [];
  for (const name of names) {
    const byName = forest.features.findIndex((feature) => feature.name === name);
    const index = byName >= 0 ? byName : /^\d+$/.test(name) && Number(name) < forest.features.length ? Number(name) : -1;
    if (index >= 0) features.add(index);
    else unknown.push(name);
  }
  return { features, unknown };
}

export function timberstrikeAccuracy(
  forest: Forest,
  reconstruction: readonly ReconstructedRow[],
  truth: readonly EvaluatedRow[],
  declared: ReadonlySet<number> = new Set(),
): { figures: AccuracyFigures } | { problem: string } {
  if (reconstruction.length === 0 || truth.length === 0) return { problem: 'nothing to score' };
  const F = forest.features.length;
  const nearest = truth.length > MAX_RA_ROWS;
  const kinds: FeatureKind[] = forest.features.map((feature, f) =>
    declared.has(f) || feature.kind === 'binary' || feature.kind === 'categorical' || (feature.kind !== 'numeric' && truth.every((row) => row.values[f] === 0 || row.values[f] === 1 || row.values[f] === null)) ? 'categorical' : 'numeric',
  );
  // The label as a last categorical column: labels become the index of their text.
  const labelCodes = new Map<string, number>();
  const code = (label: unknown) => {
    const key = String(label);
    if (!labelCodes.has(key)) labelCodes.set(key, labelCodes.size);
    return labelCodes.get(key)!;
  };
  const labelled = !hasNoLabels(forest);
  const numericLabel = forest.task === 'regression';
  const labelValue = (label: unknown): number | null => {
    if (label === undefined || label === null) return null;
    if (!numericLabel) return code(label);
    const value = Number(label);
    return Number.isFinite(value) ? value : null;
  };
  const columns: FeatureKind[] = labelled ? [...kinds, numericLabel ? 'numeric' : 'categorical'] : kinds;
  let trueRows = truth.map((row) => (labelled ? [...row.values, labelValue(row.label)] : [...row.values]));
  // Tolerances come from every true row, before any sampling.
  const tolerance = columnTolerances(trueRows, columns);
  // Nearest-row scoring pairs a true row with the best of the reconstructed rows, whatever their
  // number: rows that share their values and label (a box's rows share one array) are scored once.
  const scored = nearest ? distinctRows(reconstruction, labelled) : reconstruction;
  if (nearest) {
    const order = Array.from(trueRows.keys());
    shuffleInPlace(order, seededRandom(1));
    // At most NEAREST_COMPARISONS value comparisons per score, at least 100 true rows.
    const sample = Math.max(100, Math.min(MAX_RA_ROWS, Math.floor(NEAREST_COMPARISONS / (scored.length * columns.length))));
    trueRows = order.slice(0, sample).sort((a, b) => a - b).map((i) => trueRows[i]);
  }
  const rebuilt = scored.map((row) => (labelled ? [...row.values, labelValue(row.label)] : [...row.values]));
  const all = reconstructionAccuracy(rebuilt, trueRows, columns, { tolerance, nearest }).accuracy;
  const important = importantFeatures(forest, TOP_FEATURES);
  const top = reconstructionAccuracy(rebuilt, trueRows, columns, { features: labelled ? [...important, F] : important, tolerance, nearest }).accuracy;
  return {
    figures: {
      all,
      top: { features: important.map((f) => forest.features[f].name), accuracy: top },
      categorical: forest.features.filter((_, f) => kinds[f] === 'categorical').map((feature) => feature.name),
      tolerance: TIMBERSTRIKE_TOLERANCE,
      matching: nearest ? 'nearest' : 'matched',
      ...(nearest ? { sampled: trueRows.length } : {}),
    },
  };
}

/** The rows with distinct values and label, in first-seen order (rows sharing one values array are one; others compared by content). */
function distinctRows(rows: readonly ReconstructedRow[], labelled: boolean): ReconstructedRow[] {
  const seen = new Set<string>();
  const byArray = new Map<ReconstructedRow['values'], Set<string>>();
  const out: ReconstructedRow[] = [];
  for (const row of rows) {
    const label = labelled ? String(row.label) : '';
    const labels = byArray.get(row.values);
    if (labels?.has(label)) continue;
    const key = `${label}\u0000${row.values.join(',')}`;
    if (!labels) byArray.set(row.values, new Set([label]));
    else labels.add(label);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(row);
  }
  return out;
}
