/**
 * Forests trained with bootstrap (scikit-learn's default): which formulation applies.
 *
 *   draws.ts                 the per-tree draws replayed from the stored seeds, or why not
 *   replayed.ts              seeds replay: rows by index, a weighted formulation, a certificate
 *     row-candidates.ts        each row's possible (cell, class) pairs, from the trees that drew it
 *     replayed-formulation.ts  one binary unknown per candidate; weighted leaf and distinct counts
 *     system.ts                the integer system, by columns and by rows
 *     ../propagation.ts        integer bound propagation and probing (shared with the aggregated method)
 *     row-certificate.ts       rows (and values) proven the same in every solution
 *     indexed-rows.ts          the solution back to rows at their training indices
 *   likelihood.ts            no usable seeds: the DRAFT paper's maximum-likelihood estimate
 *   ../boxes/estimate.ts     numeric features or weighted draws: single-class leaves certify boxes, the rest an estimate
 */
import type { Forest } from '../../../forest/schema';
import { exactDrawRows } from '../../../forest/subsample';
import type { RunContext } from '../context';
import { buildLeafTable } from '../leaves';
import type { ReconstructionResult } from '../types';
import { replayDraws } from './draws';
import { estimateRows, reconstructByLikelihood, rootDraws } from './likelihood';
import { reconstructByEstimate } from '../boxes/estimate';
import { reconstructReplayed } from './replayed';
import { featureLabel } from '../../../forest/pipeline-input';
import { formatNumber } from '../../../util/wording';

export async function reconstructBootstrap(forest: Forest, ctx: RunContext): Promise<ReconstructionResult> {
  // Draws without replacement (gradient boosting's subsample): no replay or likelihood of bootstrap
  // draws applies; every drawn row counts once, which the estimate certifies.
  if (forest.training.withoutReplacement) {
    const why = typeof forest.hyperParameters.subsample === 'number'
      ? `each tree was grown on a draw of ${formatNumber(forest.hyperParameters.subsample * 100)}% of the rows without replacement (subsample=${formatNumber(forest.hyperParameters.subsample)}), and which rows each drew is not recorded`
      : 'each tree was grown on its own subset of the rows, drawn without replacement (max_samples), which is not replayed';
    return estimateBootstrap(forest, ctx, why);
  }
  const prepared = buildLeafTable(forest, { bootstrap: true });
  // Weighted draws (class or sample weights) or numeric features: the estimate, which certifies
  // what single-class leaves prove (the formulations here are written over whole draws of binary rows).
  if (!prepared.ok) return estimateBootstrap(forest, ctx, prepared.reason);
  const numeric = Array.from(prepared.table.axes.binary).flatMap((binary, f) => (binary === 0 ? [featureLabel(forest, f)] : []));
  if (numeric.length > 0) {
    // The replayed formulations are written over 0/1 features; numeric ones get boxes.
    const named = numeric.length <= 3 ? numeric.join(', ') : `${numeric.slice(0, 3).join(', ')} and ${numeric.length - 3} more`;
    return estimateBootstrap(forest, ctx, `forest trained with bootstrap on numeric features (${named})`);
  }
  const replay = replayDraws(forest, ctx.deadline);
  if (replay.ok) {
    ctx.method = 'replayed-bootstrap';
    return reconstructReplayed(forest, prepared.table, replay.draws, ctx, (why) => estimateBootstrap(forest, ctx, why));
  }
  ctx.method = 'bootstrap-likelihood';
  return reconstructByLikelihood(forest, prepared.table, ctx, replay.reason);
}

export async function estimateBootstrap(forest: Forest, ctx: RunContext, why: string): Promise<ReconstructionResult> {
  const skip = (reason: string) => ctx.answer({ status: 'skipped', reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  // Regression forests come here through their count view (regression-forest.ts).
  if (forest.task !== 'classification') return skip(why);
  const table = buildLeafTable(forest, { anyCounts: true });
  if (!table.ok) return skip(table.reason);
  // N: the seeds replay every tree's distinct count for one N only, or the model states it, or
  // the distinct in-bag counts estimate it.
  if (forest.training.withoutReplacement) {
    // int(subsample x N) rows drawn: the least N that gives the draw (the reader states N when one does).
    const drawn = forest.training.bootstrapSize ?? forest.trees[0].distinctRows?.[0] ?? rootDraws(table.table);
    const rate = forest.hyperParameters.subsample;
    const least = typeof rate === 'number' ? exactDrawRows(drawn, rate)[0] : undefined;
    const rows = forest.training.rows ?? least ?? drawn;
    // A classifier's N may need its class prior to be the only one (whole positives); a regressor's
    // comes from the draw alone (sweep 12: "and the class prior" for a quantile regressor).
    const byDraw = `determined by the draw: int(${typeof rate === 'number' ? formatNumber(rate) : rate} x N) = ${drawn.toLocaleString('en-US')} for this N only`;
    const stated = typeof rate === 'number' ? (forest.logLoss ? 'determined by the draw and the class prior' : byDraw) : 'stated by the model';
    const rowsSource = forest.training.rows !== undefined ? stated : least !== undefined ? `at least: the least N whose draw int(${formatNumber(rate as number)} x N) is ${drawn.toLocaleString('en-US')}` : 'at least: the rows drawn';
    return reconstructByEstimate(forest, table.table, ctx, { rows, rowsSource, why, ...(forest.training.rows === undefined ? { rowsKind: 'at-least' as const } : {}) });
  }
  const replay = replayDraws(forest, ctx.deadline);
  const replayed = replay.ok && replay.draws.otherRows === 0 ? replay.draws.rows : undefined;
  const drawn = forest.training.bootstrapSize ?? rootDraws(table.table);
  // Several sizes replay every tree (a small max_samples): N lies among them, so the estimate from
  // the distinct counts is kept inside (an ExtraTreesRegressor with max_samples=50: 436 to 446 fit,
  // and "about 474" was used).
  const bracket = replay.ok && replay.draws.otherRows > 0 && replay.draws.rowsAtMost !== undefined ? { from: replay.draws.rows, to: replay.draws.rowsAtMost, sizes: replay.draws.otherRows + 1 } : undefined;
  const estimate = () => {
    const rows = estimateRows(table.table, drawn);
    return bracket ? Math.min(bracket.to, Math.max(bracket.from, rows)) : rows;
  };
  const rows = replayed ?? forest.training.rows ?? estimate();
  // A stated N the replay confirms is said as both (sweep 13: the reason said "replayed" where the
  // notes and the JSON said stated by the model, _n_samples).
  const rowsSource =
    replayed !== undefined
      ? forest.training.rows === replayed
        ? 'stated by the model, confirmed by the replayed seeds'
        : 'replayed from the stored seeds'
      : forest.training.rows !== undefined
        ? 'stated by the model'
        : bracket
          ? `estimated from the distinct in-bag counts, among the ${bracket.sizes} sizes from ${bracket.from.toLocaleString('en-US')} to ${bracket.to.toLocaleString('en-US')} that replay every tree's stored seeds`
          : 'estimated from the distinct in-bag counts';
  const estimated = replayed === undefined && forest.training.rows === undefined;
  return reconstructByEstimate(forest, table.table, ctx, { rows, rowsSource, why, ...(estimated ? { rowsKind: 'estimate' as const } : {}) });
}
