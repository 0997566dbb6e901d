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
 */
import type { Forest } from '../../../forest/schema';
import type { RunContext } from '../context';
import { buildLeafTable } from '../leaves';
import type { ReconstructionResult } from '../types';
import { replayDraws } from './draws';
import { reconstructByLikelihood } from './likelihood';
import { reconstructReplayed } from './replayed';

export async function reconstructBootstrap(forest: Forest, ctx: RunContext): Promise<ReconstructionResult> {
  const prepared = buildLeafTable(forest, { bootstrap: true });
  if (!prepared.ok) return ctx.answer({ status: 'skipped', reason: prepared.reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  // The bootstrap formulations are written over binary features (interval cells came later).
  const numeric = prepared.table.axes.binary.findIndex((binary) => binary === 0);
  if (numeric >= 0) {
    const name = forest.features[numeric]?.name ?? `x${numeric}`;
    return ctx.answer({
      status: 'skipped',
      reason: `forests trained with bootstrap are reconstructed on binary features only yet; feature ${name} is split as a numeric feature`,
      rows: forest.training.rows ?? null,
      certifiedRows: 0,
    });
  }
  const replay = replayDraws(forest, ctx.deadline);
  if (replay.ok) {
    ctx.method = 'replayed-bootstrap';
    return reconstructReplayed(forest, prepared.table, replay.draws, ctx);
  }
  ctx.method = 'bootstrap-likelihood';
  return reconstructByLikelihood(forest, prepared.table, ctx, replay.reason);
}
