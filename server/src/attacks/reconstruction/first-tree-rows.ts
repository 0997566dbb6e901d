/**
 * Logistic boosted models whose first tree gives its rows per leaf but not every leaf's positives
 * (first-tree probing `rows-only` or `partial`: the learning rate or lambda cannot be read or
 * inferred, as for shallow trees grown by the hist method), which the hessian matching
 * (boosting-hessians.ts) needs. What stands: each leaf of tree 0 holds H / h rows in its region, and
 * a leaf whose positives the probe determined holds that many rows of the positive class. So an
 * estimate (as boosting-hessians): each leaf's rows at a point of its region,
 * labelled by the leaf's positives where they are known, else by the model's prediction there.
 * Tree 0's leaves certify their rows as boxes, with the label where the positives are known
 * (first-tree-claims.ts).
 */
import { formatCount, formatNumber } from '../../util/wording';
import type { FirstTreeProbe } from '../first-tree-probe';
import { baseMargin } from '../../forest/boosting';
import type { Forest } from '../../forest/schema';
import { boostedMargins } from '../../forest/structure';
import type { RunContext } from './context';
import { certifyFirstTreeLeaves } from './first-tree-claims';
import { intoRegion, regionIntervals } from './region-points';
import type { ReconstructedRow, ReconstructionResult } from './types';

/** The class (0 or 1) the model predicts at a point: the margin over all trees is positive. */
function predictedPositive(forest: Forest, point: readonly number[]): boolean {
  return boostedMargins(forest, point, baseMargin(forest.boosting!))[0] > 0;
}

/** `why`: what the hessian matching lacks; `subsample` when the file states one below 1. */
export function firstTreeRows(forest: Forest, probe: FirstTreeProbe, ctx: RunContext, why: string, subsample?: number): ReconstructionResult {
  ctx.method = 'boosting-hessians';
  const first = probe.trees[0];
  const features = forest.features.length;
  const lowerInclusive = forest.splitRule === 'less';
  const label = (positive: boolean) => forest.classes[positive ? 1 : 0] ?? (positive ? 1 : 0);
  const rows: ReconstructedRow[] = [];
  let labelled = 0;
  for (const leaf of first.leaves) {
    const intervals = regionIntervals(leaf.box, features);
    const values = intoRegion(new Array<number | null>(features).fill(null), intervals, lowerInclusive);
    // A leaf's rows share its point and region (rows are read, never changed, once answered).
    const row = (positive: boolean): ReconstructedRow => ({ values, intervals, label: label(positive), certified: false });
    if (leaf.positives !== undefined) {
      labelled += leaf.rows;
      for (let i = 0; i < leaf.rows; i++) rows.push(row(i < leaf.positives));
    } else {
      const positive = predictedPositive(forest, values.map((v) => v ?? 0));
      for (let i = 0; i < leaf.rows; i++) rows.push(row(positive));
    }
  }
  const drawn = probe.rows!;
  // A draw the file does not record (later trees grew on other rows): N is larger, and unknown.
  const N = subsample !== undefined ? Math.round(drawn / subsample) : probe.ownDraw ? null : drawn;
  if (subsample !== undefined) ctx.rowsKind = 'estimate';
  const claims = certifyFirstTreeLeaves(forest, probe, rows);
  const reason = [
    why,
    `so only tree 0 is read: its ${first.leaves.length} leaves hold ${formatCount(drawn)} rows${subsample !== undefined ? ` (the rows it drew at subsample=${formatNumber(subsample)}; N about ${N === null ? "unknown" : formatCount(N)})` : probe.ownDraw ? ' (the rows it drew: tree 1 grew on other rows, so the model was trained with a subsample the file does not record, and the training set holds at least these rows, its size unknown)' : ''}, each given a point of its leaf's region`,
    `${labelled} rows labelled by their leaf's positives, ${drawn - labelled} by the model's prediction at that point (an estimate)`,
    claims.note,
  ].join('; ');
  ctx.stats.treesMatched = 1;
  return ctx.answer({ status: 'bounded', reason, rows: N, certifiedRows: claims.certified, ...(claims.withoutLabel > 0 ? { certifiedWithoutLabel: claims.withoutLabel } : {}), ...(claims.boxes ? { boxes: claims.boxes } : {}), reconstruction: claims.rows });
}
