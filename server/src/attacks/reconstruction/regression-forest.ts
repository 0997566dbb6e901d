/**
 * Regression forests without bootstrap (scikit-learn's tree regressors): every tree was grown on
 * all N rows, so its leaf counts are exact row counts. The forest is read as count trees with one
 * class (a row) and reconstructed with the aggregated formulation, which certifies the rows'
 * feature intervals as for a classifier. The labels then come from the leaf means: a leaf's mean
 * target times its rows is the sum of its rows' targets, one linear equation per leaf of every tree
 * over the cells' label sums (regression-labels.ts); a one-row cell whose sum the equations
 * determine has that row's target. A row is certified when its label is determined too; the
 * others count as `certifiedWithoutLabel` when their intervals are proven (as for XGBoost
 * reg:squarederror, boosting-counts.ts).
 */
import type { Forest } from '../../forest/schema';
import { reconstructAggregated, type ReconstructionDetails } from './aggregated';
import { reconstructBySearch } from './bounded-search';
import { labelRegressionRows, type LabelSource } from './boosting-counts';
import type { RunContext } from './context';
import { buildLeafTable } from './leaves';
import { labelsFromLeafSums } from './regression-labels';
import type { ReconstructionResult } from './types';

export async function reconstructRegressionForest(forest: Forest, ctx: RunContext, expose: (details: ReconstructionDetails) => void, limits: { cells: number; share: number }): Promise<ReconstructionResult> {
  const skip = (reason: string) => ctx.answer({ status: 'skipped', reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  // One count column per node (the schema's regression layout); classes would mean class counts.
  if (forest.classes.length > 1) return skip(`a regression forest stores one row count per node, but this one names ${forest.classes.length} classes`);
  const means = forest.trees.every((tree) => tree.targetMean !== undefined);
  // The count view: the one column of classWeights holds each node's rows.
  const view: Forest = { ...forest, task: 'classification', classes: ['row'] };
  const built = buildLeafTable(view);
  if (!built.ok) return skip(built.reason);
  const table = built.table;
  ctx.method = 'aggregated';
  let details: ReconstructionDetails | undefined;
  const keep = (d: ReconstructionDetails) => {
    details = d;
    expose(d);
  };
  const meanLabel = forest.trees[0].targetMean?.[0] ?? 0;
  const deadline = ctx.started + (ctx.deadline - ctx.started) * limits.share;
  const answer = await reconstructAggregated(view, table, ctx, keep, { cells: limits.cells, deadline });
  const what = `all ${forest.trees.length} trees' leaf counts read as row counts`;
  const withNote = (reason: string | undefined) => reason;
  if ('tooManyCells' in answer) {
    const searched = await reconstructBySearch(view, table, ctx, answer.tooManyCells);
    return { ...searched, reason: `${searched.reason ?? ''}; labels are not estimated after a bounded search`, reconstruction: searched.reconstruction.map((r) => ({ ...r, label: meanLabel })) };
  }
  if (answer.status === 'skipped' || answer.status === 'failed') return { ...answer, reason: [answer.reason, what].filter((x) => x).join('; ') };
  const labels: LabelSource = {
    table,
    meanLabel,
    // The leaf's mean target times its rows (the stored count) is the sum of its rows' targets.
    solve: means ? (cells, counts, deadline) => labelsFromLeafSums(table, cells, counts, meanLabel, deadline, (t, node) => forest.trees[t].targetMean![node] * forest.trees[t].classWeights[node]) : undefined,
    unsolvable: 'labels not determined (the trees store no mean targets: criterion absolute_error stores medians, and a model read as row counts only has none); each row has the mean label',
    source: 'the leaf means',
  };
  return labelRegressionRows(ctx.deadline, labels, answer, details, what, withNote);
}
