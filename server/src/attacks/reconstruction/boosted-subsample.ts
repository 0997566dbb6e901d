/**
 * Squared-error boosted regressors grown on row subsamples (XGBoost's `subsample` below 1,
 * scikit-learn's GradientBoostingRegressor(subsample < 1)). Each tree saw its own draw of the
 * rows, which the file does not record, so the trees' covers are no constraints on one set of N
 * rows (boosting-counts.ts reads them so without subsampling). What still holds:
 *  - every tree's covers count the distinct rows of its draw (each row's hessian is 1), so tree 0's
 *    leaves hold that many distinct training rows inside their boxes, and the boxes are disjoint:
 *    box-estimate (boxes/estimate.ts) certifies them, anchored on tree 0, and estimates the rest
 *    (every tree's covers scaled to N);
 *  - before tree 0 every row's margin is the base score, so a tree-0 leaf holding one row proves
 *    its target (boosted-box-labels.ts, tree 0 only: a later tree's one-row leaf may hold another
 *    row of the box, one that tree 0 did not draw).
 * N comes from the roots: scikit-learn draws exactly int(subsample x N) rows per stage, which often
 * one N satisfies; XGBoost draws each row with probability `subsample`, so with the rate stated
 * (its scikit-learn wrapper) N is estimated as the trees' mean draw over it, and otherwise (a
 * Booster's JSON states no training parameter) from the roots' spread: a root is then binomial,
 * with mean N x rate and variance N x rate x (1 - rate); N is then stated as at least the largest
 * root, with the range the spread allows (a few dozen trees bracket it only loosely).
 */
import type { Forest } from '../../forest/schema';
import { exactDrawRows } from '../../forest/subsample';
import { labelBoostedBoxes, type BoostedWeights } from './boosted-box-labels';
import { reconstructByEstimate } from './boxes/estimate';
import type { RunContext } from './context';
import type { LeafTable } from './leaves';
import { labellingMs } from './regression-box-labels';
import type { ReconstructionResult, RowsKind } from './types';
import { formatNumber } from '../../util/wording';

/** The subsample and the N it suggests. */
export interface SubsampledRows {
  rate: number;
  /** The file states the rate (else it is inferred from the roots). */
  stated: boolean;
  /** N estimated: the trees' mean root over the rate. */
  rows: number;
  rowsSource: string;
  /** Absent when the draws determine N. */
  rowsKind?: RowsKind;
}

/** Fewest trees for the rate to be estimated from the roots' spread. */
const MIN_TREES_FOR_SPREAD = 10;

/**
 * The subsample of a squared-error boosted model whose trees' roots (whole covers) are given, or
 * undefined when it was not subsampled: the rate stated (`stated`, below 1), else inferred when
 * the roots differ and the file states no rate.
 */
export function subsampledRows(roots: readonly number[], stated: unknown): SubsampledRows | undefined {
  const rate = typeof stated === 'number' && stated > 0 && stated <= 1 ? stated : undefined;
  const differ = roots.some((r) => r !== roots[0]);
  if (rate === 1 || (rate === undefined && (!differ || stated !== undefined))) return undefined;
  const mean = roots.reduce((a, b) => a + b, 0) / roots.length;
  const largest = Math.max(...roots);
  if (rate !== undefined) {
    if (!differ) {
      // Every tree drew the same number of rows: scikit-learn draws exactly int(subsample x N)
      // (without replacement), which few N satisfy; often one.
      const fits = exactDrawRows(roots[0], rate);
      if (fits.length === 1) return { rate, stated: true, rows: fits[0], rowsSource: `determined: int(${rate} x N) = ${roots[0]}, the rows every stage drew, holds for this N only` };
      if (fits.length > 1) return { rate, stated: true, rows: fits[0], rowsKind: 'at-least', rowsSource: `at least: int(${rate} x N) = ${roots[0]}, the rows every stage drew, holds for N from ${fits[0]} to ${fits[fits.length - 1]}` };
    }
    return { rate, stated: true, rows: Math.max(largest, Math.round(mean / rate)), rowsKind: 'estimate', rowsSource: `estimated: the trees' mean root ${mean.toFixed(1)} over subsample=${rate}` };
  }
  const variance = roots.reduce((a, r) => a + (r - mean) ** 2, 0) / (roots.length - 1);
  const inferred = 1 - variance / mean;
  if (roots.length >= MIN_TREES_FOR_SPREAD && inferred > 0.05 && inferred < 1) {
    // Binomial roots: variance N p (1 - p), so 1 - p = variance / mean. A sample variance of n roots
    // is off by about sqrt(2 / (n - 1)) of itself (47% for 10 trees), so N = mean / p is only
    // bracketed, never estimated: at two such errors a public 10-tree model's roots put N between
    // 3,741 and 5,228 (the rate it was trained with, 0.71, gives 5,236; the point estimate said 4,355).
    const spread = 2 * Math.sqrt(2 / (roots.length - 1));
    const highRate = Math.min(1, 1 - (1 - inferred) * (1 - spread));
    const lowRate = 1 - (1 - inferred) * (1 + spread);
    const from = Math.max(largest, Math.round(mean / highRate));
    const range = lowRate > 0.05 ? `between ${from.toLocaleString('en-US')} and ${Math.round(mean / lowRate).toLocaleString('en-US')}` : `from ${from.toLocaleString('en-US')} up`;
    return {
      rate: Number(inferred.toFixed(2)),
      stated: false,
      rows: largest,
      rowsKind: 'at-least',
      rowsSource: `at least the largest root: the file states no subsample; the ${roots.length} trees' roots (mean ${mean.toFixed(1)}, variance ${variance.toFixed(1)}) fit binomial draws at a rate of about ${inferred.toFixed(2)}, which puts N roughly ${range}, too loosely to state it`,
    };
  }
  return { rate: Number((mean / largest).toFixed(2)), stated: false, rows: largest, rowsKind: 'at-least', rowsSource: `at least: the file states no subsample and the roots' spread does not estimate it, so N is the largest root` };
}

/**
 * `view`: the model as count trees with one class and bootstrap (each leaf's covers as its
 * distinct rows); `weights` undefined when the leaf weights give no targets.
 */
export async function reconstructSubsampled(forest: Forest, view: Forest, table: LeafTable, ctx: RunContext, subsample: SubsampledRows, weights: BoostedWeights | undefined, unreadWeights = 'targets not determined (the leaf weights are not readable)'): Promise<ReconstructionResult> {
  // Two walks per row (the certified target through the box, the prediction at the point).
  ctx.reserve(2 * labellingMs(forest, subsample.rows));
  const estimate = await reconstructByEstimate(view, table, ctx, {
    rows: subsample.rows,
    rowsSource: subsample.rowsSource,
    ...(subsample.rowsKind ? { rowsKind: subsample.rowsKind } : {}),
    why: subsample.stated
      ? `each tree was grown on its own draw of the rows (subsample=${formatNumber(subsample.rate)})`
      : `each tree was grown on its own draw of the rows (subsample about ${subsample.rate}), which the file does not record`,
    anchorTree: 0,
  });
  return labelBoostedBoxes(forest, estimate, weights, unreadWeights, () => ctx.overBudget());
}
