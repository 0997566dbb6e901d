/**
 * The papers' measures of a reconstruction against the true training set (DRAFT, DRAFT-DP):
 * rows are aligned by a minimum-cost matching on Manhattan distance, then
 *  - error: the mean, over true rows, of the fraction of features that differ from their match;
 *  - perfect rows: the share of true rows whose match has every feature and the label right.
 * Choices where the papers leave room, stated once here:
 *  - an undetermined value (null) counts as wrong: the engine did not say what it is;
 *  - the label is part of the Manhattan distance used to match (it is an attribute of the row)
 *    but the error counts features only, as the papers' "binary attributes" do;
 *  - when the reconstruction has fewer rows than the truth, unmatched true rows count as
 *    entirely wrong (so a partial reconstruction is not rewarded for leaving rows out).
 */
import { minimumCostMatching } from './matching';
import { seededRandom } from './seeded-random';

export interface EvaluatedRow {
  values: readonly (number | null)[];
  label?: string | number | boolean;
}

export interface ReconstructionQuality {
  /** Mean fraction of differing features over the true rows, after matching. */
  error: number;
  /** Share of true rows reconstructed with every feature and the label right. */
  perfectRows: number;
  /** The largest fraction of differing features of one true row. */
  worstRow: number;
  /** Matched pairs whose labels differ. */
  labelErrors: number;
  /** For each true row, the index of its reconstructed row (-1 when unmatched). */
  matchOfTrueRow: Int32Array;
}

/** Differing features between two rows (null counts as differing). */
export function differingFeatures(a: readonly (number | null)[], b: readonly (number | null)[]): number {
  let differing = 0;
  for (let f = 0; f < a.length; f++) {
    const x = a[f];
    const y = b[f];
    if (x === null || y === null) differing++;
    else differing += Math.abs(x - y);
  }
  return differing;
}

function labelDistance(a: EvaluatedRow, b: EvaluatedRow): number {
  return a.label === undefined || b.label === undefined || a.label === b.label ? 0 : 1;
}

export function evaluateReconstruction(reconstructed: readonly EvaluatedRow[], truth: readonly EvaluatedRow[]): ReconstructionQuality {
  const features = truth[0]?.values.length ?? 0;
  const cost = truth.map((t) => Float64Array.from(reconstructed, (r) => differingFeatures(r.values, t.values) + labelDistance(r, t)));
  const { columnOfRow } = minimumCostMatching(cost);
  let errorSum = 0;
  let perfect = 0;
  let worstRow = 0;
  let labelErrors = 0;
  truth.forEach((t, i) => {
    const match = columnOfRow[i];
    if (match < 0) {
      errorSum += 1;
      worstRow = 1;
      return;
    }
    const differing = features === 0 ? 0 : differingFeatures(reconstructed[match].values, t.values) / features;
    const wrongLabel = labelDistance(reconstructed[match], t);
    errorSum += differing;
    worstRow = Math.max(worstRow, differing);
    labelErrors += wrongLabel;
    if (differing === 0 && wrongLabel === 0) perfect++;
  });
  const n = Math.max(1, truth.length);
  return { error: errorSum / n, perfectRows: perfect / n, worstRow, labelErrors, matchOfTrueRow: columnOfRow };
}

export interface BaselineGroup {
  kind: 'one-hot' | 'at-most-one';
  features: readonly number[];
}

/**
 * The papers' random baseline: an adversary who knows N, the features and their one-hot groups,
 * but not the model, guesses every value uniformly (one member of a one-hot group; one member or
 * none of an at-most-one group) and every label uniformly among `labels`. Mean error over `runs`.
 */
export function randomBaselineError(
  truth: readonly EvaluatedRow[],
  groups: readonly BaselineGroup[],
  labels: readonly (string | number | boolean)[],
  runs = 100,
  seed = 1,
): number {
  const random = seededRandom(seed);
  const features = truth[0]?.values.length ?? 0;
  const grouped = new Set(groups.flatMap((g) => g.features));
  let total = 0;
  for (let run = 0; run < runs; run++) {
    const guesses: EvaluatedRow[] = truth.map(() => {
      const values = Array.from({ length: features }, (_, f) => (grouped.has(f) ? 0 : random() < 0.5 ? 0 : 1));
      for (const group of groups) {
        const choices = group.features.length + (group.kind === 'at-most-one' ? 1 : 0);
        const pick = Math.floor(random() * choices);
        if (pick < group.features.length) values[group.features[pick]] = 1;
      }
      return labels.length > 0 ? { values, label: labels[Math.floor(random() * labels.length)] } : { values };
    });
    total += evaluateReconstruction(guesses, truth).error;
  }
  return total / Math.max(1, runs);
}
