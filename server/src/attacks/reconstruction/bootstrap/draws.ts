/**
 * How often each training row index was drawn into each tree, replayed from the seeds scikit-learn
 * stores (../../bootstrap-replay.ts, bit-exact with numpy), or why that is not possible. The replay
 * is checked against every tree's stored distinct in-bag count before it is trusted.
 */
import type { Forest } from '../../../forest/schema';
import { checkReplay, replayMultiplicities } from '../../bootstrap-replay';

export interface ReplayedDraws {
  /** Training rows N. */
  rows: number;
  /** `perTree[t][i]`: how many times row index i was drawn into tree t. */
  perTree: Uint16Array[];
  /** Other training-set sizes that replay every tree's distinct count too (N is then ambiguous). */
  otherRows: number;
  /** With other sizes: the largest that replays (`rows` is the smallest). */
  rowsAtMost?: number;
}

export type DrawsResult = { ok: true; draws: ReplayedDraws } | { ok: false; reason: string };

export function replayDraws(forest: Forest, deadline: number): DrawsResult {
  const check = checkReplay(forest, deadline);
  switch (check.status) {
    case 'no-seeds':
      return { ok: false, reason: 'the trees store no seeds that replay their bootstrap samples' };
    case 'mismatch':
      return { ok: false, reason: `the stored seeds do not replay the bootstrap samples (tree ${check.tree}: ${check.replayed} distinct rows replayed, ${check.expected} stored)` };
    case 'unknown-rows':
      return { ok: false, reason: 'no training-set size N replays every tree\'s distinct in-bag count from the stored seeds' };
  }
  if (check.treesChecked < forest.trees.length) {
    return { ok: false, reason: `only ${check.treesChecked} of ${forest.trees.length} trees could be checked against their distinct counts in time (or they store none)` };
  }
  const perTree = forest.trees.map((tree) => replayMultiplicities(tree.training.seed!, check.rows, check.drawn));
  return { ok: true, draws: { rows: check.rows, perTree, otherRows: (check.candidates ?? 1) - 1, ...(check.rowsAtMost !== undefined ? { rowsAtMost: check.rowsAtMost } : {}) } };
}
