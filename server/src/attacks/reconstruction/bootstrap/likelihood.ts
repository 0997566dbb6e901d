import type { Forest } from '../../../forest/schema';
import type { RunContext } from '../context';
import type { LeafTable } from '../leaves';
import type { ReconstructionResult } from '../types';

export async function reconstructByLikelihood(forest: Forest, _table: LeafTable, ctx: RunContext, whyNotReplayed: string): Promise<ReconstructionResult> {
  return ctx.answer({ status: 'skipped', reason: `${whyNotReplayed}; the likelihood estimate is not written yet`, rows: forest.training.rows ?? null, certifiedRows: 0 });
}
