/**
 * Turns column multiplicities back into training rows: `count` copies of the cell's feature
 * values (null where undetermined) with the column's class, the first `certified` of them
 * flagged as proven. On a forest with numeric features each row also says which interval every
 * feature lies in (feature-axes.ts); its values are then points inside those intervals (point-choice.ts).
 */
import { intervalBounds, type FeatureAxes } from './feature-axes';
import { likeliestPoint } from './point-choice';
import type { Formulation } from './formulation';
import { UNSET } from './groups';
import type { MergedCell } from './merge';
import type { ReconstructedRow } from './types';

export function reconstructedRows(
  formulation: Formulation,
  cells: readonly MergedCell[],
  labels: readonly (string | number | boolean)[],
  counts: ArrayLike<number>,
  certified: ArrayLike<number>,
  axes?: FeatureAxes,
): ReconstructedRow[] {
  const rows: ReconstructedRow[] = [];
  const numeric = axes !== undefined && hasIntervalFeature(axes);
  for (let j = 0; j < formulation.numCols; j++) {
    const cell = cells[formulation.colCell[j]];
    const label = labels[formulation.colClass[j]];
    const box = numeric ? boxToRow(axes, cell.low, cell.high) : undefined;
    for (let k = 0; k < counts[j]; k++) {
      if (box) {
        rows.push({ values: box.values.slice(), intervals: box.intervals.slice(), label, certified: k < certified[j] });
        continue;
      }
      const values = Array.from(cell.values, (v) => (v === UNSET ? null : v));
      rows.push({ values, label, certified: k < certified[j] });
    }
  }
  return rows;
}

/** Whether some feature is cut into intervals rather than read as 0/1. */
export function hasIntervalFeature(axes: FeatureAxes): boolean {
  return axes.binary.some((b, f) => b === 0 && axes.intervals[f] > 1);
}

/**
 * A box of interval indices as a row: per feature its interval (null when the box spans the whole
 * axis: the model does not constrain it) and a value: 0/1 on a determined binary feature, a
 * point of the interval on a numeric one (see `likeliestPoint`; on the whole axis too, where the
 * thresholds are densest), else null.
 */
export function boxToRow(axes: FeatureAxes, low: ArrayLike<number>, high: ArrayLike<number>): { values: (number | null)[]; intervals: ([number, number] | null)[] } {
  const values: (number | null)[] = [];
  const intervals: ([number, number] | null)[] = [];
  for (let f = 0; f < low.length; f++) {
    const whole = low[f] === 0 && high[f] === axes.intervals[f] - 1;
    if (whole) {
      // Unbounded: no interval; a numeric feature still gets the point the thresholds make likeliest.
      values.push(axes.binary[f] ? null : wholeAxisPoint(axes, f));
      intervals.push(null);
      continue;
    }
    const bounds = intervalBounds(axes, f, low[f], high[f]);
    intervals.push(bounds);
    values.push(axes.binary[f] ? low[f] : likeliestPoint(axes, f, bounds[0], bounds[1]));
  }
  return { values, intervals };
}

/**
 * Per axes, each numeric feature's point on its whole axis, once: in a wide model most rows leave
 * most features whole (a public TF-IDF forest: 1,195 rows x 2,636 features, each point looked up
 * anew, took most of the time its estimate keeps for its rows).
 */
const wholeAxisPoints = new WeakMap<FeatureAxes, Map<number, number | null>>();

function wholeAxisPoint(axes: FeatureAxes, f: number): number | null {
  let points = wholeAxisPoints.get(axes);
  if (!points) wholeAxisPoints.set(axes, (points = new Map()));
  let point = points.get(f);
  if (point === undefined) points.set(f, (point = likeliestPoint(axes, f, -Infinity, Infinity)));
  return point;
}

/**
 * Rows built from part of a model (a boosted model's first round) have values the part does not
 * bound: each such numeric value gets the point the whole model's thresholds make likeliest
 * (`axes`: the whole model's), rather than the part's, which has fewer thresholds or none. A value
 * marked missing, a 0/1 feature and a feature no tree splits keep theirs.
 */
export function fillUnbounded(rows: ReconstructedRow[], axes: FeatureAxes): ReconstructedRow[] {
  // The point of a whole axis is one per feature; rows that share their values and intervals (a
  // group's rows standing at its box, past the walk cap) share the filled copy: a public
  // 933,606-row model of 1,146 features would otherwise take a copy per row.
  const wholeAxis = new Map<number, number | null>();
  const pointOf = (f: number) => {
    if (!wholeAxis.has(f)) wholeAxis.set(f, likeliestPoint(axes, f, -Infinity, Infinity));
    return wholeAxis.get(f)!;
  };
  // The last row's inputs and answer: a group's rows come one after another, so this shares the
  // filled copy without a map entry per row (a Map each for walked rows that share nothing).
  let lastValues: unknown;
  let lastIntervals: unknown;
  let lastFilled: (number | null)[] | undefined;
  return rows.map((row) => {
    if (!row.intervals) return row;
    let values: (number | null)[] | undefined;
    if (!row.missing && row.values === lastValues && row.intervals === lastIntervals) values = lastFilled;
    else {
      row.values.forEach((v, f) => {
        if (row.intervals![f] !== null || row.missing?.[f] || axes.binary[f] || f >= axes.thresholds.length) return;
        const point = pointOf(f);
        if (point === null || point === v) return;
        values ??= row.values.slice();
        values[f] = point;
      });
      [lastValues, lastIntervals, lastFilled] = row.missing ? [undefined, undefined, undefined] : [row.values, row.intervals, values];
    }
    return values ? { ...row, values } : row;
  });
}
