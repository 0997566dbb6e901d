/**
 * Box tightness (tightness.ts) measured on the boxes the certified rows finally carry, as value
 * intervals: for methods that give a row a wider proven box than the one a box method narrowed
 * (a leaf's region: counted-class-labels.ts, first-tree-claims.ts), so that the report states the
 * width of what is proven, not of an estimate. Pinned: a certified box that lies inside one leaf of
 * every tree.
 */
import type { Forest } from '../../../forest/schema';
import { leafOfBox } from '../../../forest/structure';
import { featureAxes } from '../feature-axes';
import type { BoxTightness, ReconstructedRow } from '../types';
import { widthOnAxis, widthSummary } from './tightness';

export function certifiedBoxTightness(forest: Forest, rows: readonly ReconstructedRow[]): BoxTightness | undefined {
  const cut = featureAxes(forest);
  if (!cut.ok) return undefined;
  const axes = cut.axes;
  // Rows that share one box (a leaf's rows, by reference) are measured once, weighted by how many.
  const counted = new Map<([number, number] | null)[], number>();
  for (const row of rows) if (provenBox(row)) counted.set(row.intervals!, (counted.get(row.intervals!) ?? 0) + 1);
  if (counted.size === 0) return undefined;
  const boxes = [...counted.keys()];
  const weights = [...counted.values()];
  let pinnedRows = 0;
  boxes.forEach((box, b) => {
    if (forest.trees.every((tree) => leafOfBox(tree, box) >= 0)) pinnedRows += weights[b];
  });
  return widthSummary(axes, boxes.length, (b, f) => relativeValueWidth(axes.thresholds[f], boxes[b][f]), pinnedRows, (b) => weights[b]);
}

/**
 * A row whose box is proven: certified, or proven without its label (a regression target or a
 * class the model does not pin: every interval it has is a certified value).
 */
function provenBox(row: ReconstructedRow): boolean {
  const intervals = row.intervals;
  if (!intervals) return false;
  if (row.certified) return true;
  const proven = row.certifiedValues;
  return proven !== undefined && intervals.some((b) => b !== null) && intervals.every((b, f) => b === null || proven[f] === true);
}

/** The interval's share of the feature's axis (tightness.ts widthOnAxis; no interval: 1). */
function relativeValueWidth(cuts: ArrayLike<number>, interval: [number, number] | null): number {
  return interval ? widthOnAxis(cuts, interval[0], interval[1]) : 1;
}

/**
 * For a result whose method states no box widths (`aggregated`, `boosting-counts`: cells, each an
 * interval per feature): the certified rows' widths, when the forest has a numeric feature. On 0/1
 * features a cell is the values themselves, so nothing is added there. An exact run over numeric
 * features read "every feature value is determined" (an IsolationForest on 500 rows, a pruned
 * DecisionTreeClassifier on breast cancer) where each value is known only to its cell's interval.
 */
export function numericBoxTightness(forest: Forest, rows: readonly ReconstructedRow[]): BoxTightness | undefined {
  const cut = featureAxes(forest);
  if (!cut.ok) return undefined;
  const numeric = cut.axes.binary.some((binary, f) => !binary && cut.axes.thresholds[f].length > 0);
  return numeric ? certifiedBoxTightness(forest, rows) : undefined;
}
