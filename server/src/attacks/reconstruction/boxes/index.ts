/**
 * Numeric forests without bootstrap, row by row instead of cell by cell (issue 12). The cells of a
 * deep numeric forest run into millions, but its rows are only N: the rows of each leaf of one
 * anchor tree (the tree with most leaves) start as a group with that leaf's box, and sound
 * propagation over every tree's leaf counts narrows the boxes, proves which leaf the groups reach
 * and splits them where their members go different ways.
 *
 *   box-forest.ts   the trees as walkable nodes with open counts; the candidate leaves of a box
 *   row-groups.ts   groups of interchangeable rows: size, class, box, proven leaf per tree
 *   propagate.ts    the sound rules, round after round (what each one proves is written there)
 *   complete.ts     one full training set inside the proven boxes (an estimate: greedy walks)
 *   point-search.ts then moves of single rows' points between leaves, annealed, to fit the counts better
 *   tightness.ts    how narrow the proven boxes are, relative to the thresholds' range
 *   estimate.ts     counts that are not shared row counts (bootstrap, weights, noise): single-class
 *                   leaves certify, the rest an estimate walked as above
 *   class-rows.ts   that estimate's rows per class and leaf, and each class's anchor tree
 *
 * What is certified: every group's box and class (its `size` members are distinct training rows
 * inside it, whatever training set produced the model). How much that reveals is the box width,
 * reported with the result (`boxes`). The points standing for the rows come from the completion.
 */
import type { Forest } from '../../../forest/schema';
import type { RunContext } from '../context';
import type { LeafTable } from '../leaves';
import { boxToRow } from '../rows';
import type { ReconstructedRow, ReconstructionResult } from '../types';
import { boxForest, leafBoxReader } from './box-forest';
import { completeRows } from './complete';
import { propagateGroups } from './propagate';
import { anchorGroups } from './row-groups';
import { GROUP_BYTES_CAP, WALK_CELL_CAP, groupCap } from '../memory';
import { relativeWidth, widthSummary } from './tightness';

/** Share of the budget (from the start of this method) the propagation may take before the completion. */
const PROPAGATION_SHARE = 0.5;

/**
 * `anchorTree`: the tree whose leaves seed the groups; by default the one with most leaves (the
 * finest first partition). Boosted regressors anchor on tree 0, whose one-row leaves prove targets
 * (boosted-box-labels.ts) only for rows whose boxes lie inside them.
 */
export async function reconstructByBoxes(forest: Forest, table: LeafTable, ctx: RunContext, why?: string, anchorTree?: number, labelledLater = false): Promise<ReconstructionResult> {
  ctx.method = 'row-boxes';
  const rows = table.rows;
  const walk = boxForest(forest, table);
  const leafBox = leafBoxReader(walk, table);
  let anchor = 0;
  table.trees.forEach((tree, t) => {
    if (tree.nodes.length > table.trees[anchor].nodes.length) anchor = t;
  });
  if (anchorTree !== undefined && anchorTree >= 0 && anchorTree < table.trees.length) anchor = anchorTree;
  const groups = anchorGroups(walk, anchor, leafBox);
  ctx.stats.anchorTree = anchor;
  ctx.progress('propagation', { done: 0, total: rows });
  const started = Date.now();
  // The propagation gets a share of the budget; the completion needs the rest (at 10,000 rows one
  // round of propagation takes seconds, and rows left unwalked stand at their proven box only).
  const propagationEnd = started + (ctx.deadline - started) * PROPAGATION_SHARE;
  const maxGroups = groupCap(forest.features.length, table.trees.length);
  const propagated = await propagateGroups(walk, groups, () => ctx.stopped() || Date.now() >= propagationEnd, (_round, placed) => ctx.progress('propagation', { done: placed, total: rows }), maxGroups);
  // Stopped by its share, not by the budget, a cancel or the group cap: the completion still runs.
  const cut = !propagated.complete && !ctx.stopped() && propagated.capped === undefined;
  const capped =
    propagated.capped !== undefined
      ? `the propagation stopped at ${propagated.capped.toLocaleString('en-US')} row groups, the most whose boxes of ${forest.features.length.toLocaleString('en-US')} features fit its ${GROUP_BYTES_CAP / (1024 * 1024)} MB memory cap, after ${propagated.rounds} rounds; the boxes proven by then are reported`
      : undefined;
  // The propagation stands in this method for the other methods' cell enumeration.
  ctx.stats.enumerationMs = Date.now() - started;
  if (!propagated.ok) {
    const reason = `the leaf counts contradict each other (${propagated.contradiction})`;
    return ctx.answer({ status: 'failed', reason, contradiction: reason, rows, certifiedRows: 0 });
  }
  ctx.stats.mergedCells = groups.length;
  const pinned = groups.reduce((n, g) => n + (g.unplaced === 0 ? g.size : 0), 0);
  ctx.stats.fixedByPropagation = pinned;

  // Widths per group, weighted by its rows: a list of rows x features numbers took 1.7 GB on a public
  // model of 212,215 rows x 506 features.
  const boxes = widthSummary(table.axes, groups.length, (g, f) => relativeWidth(table.axes, f, groups[g].low[f], groups[g].high[f]), pinned, (g) => groups[g].size);
  const widths = `median box width ${(100 * boxes.medianWidth).toFixed(1)}% of the thresholds' range`;
  // Boxes whose labels a later step reads (the callers that pass labelledLater) are not yet
  // certified rows: that step says which keep their proof ("1,669 certified" followed by "1,034 of
  // them are estimates now" read as a contradiction, sweep 13; "1,669 rows proven as boxes" beside
  // "635 of 1,669 proven" still did, sweep 19: these are boxes the class-blind counts allow, one per row).
  const provenWords = labelledLater ? 'boxes from the row counts, one per row (which of them hold proven rows, and their labels, below)' : 'rows certified as boxes';
  const walkCap = ctx.options.walkCellCap ?? WALK_CELL_CAP;
  if (rows * forest.features.length > walkCap) {
    // Each walked row holds its own box and point: past the cap every row stands at its group's
    // proven box, the rows of a group sharing one copy (the same rows, no point estimate).
    const reconstruction: ReconstructedRow[] = [];
    for (const group of groups) {
      const row = boxToRow(table.axes, group.low, group.high);
      const label = forest.classes[group.classIndex];
      for (let k = 0; k < group.size; k++) reconstruction.push({ values: row.values, intervals: row.intervals, label, certified: true });
    }
    const status = ctx.aborted ? 'timeout' : pinned === rows && propagated.complete ? 'exact' : 'bounded';
    const reason = [
      why,
      cut ? `the propagation stopped at its share of the budget after ${propagated.rounds} rounds; the boxes proven by then are reported` : undefined,
      capped,
      !propagated.complete && !cut && !capped ? `${ctx.stopReason()} during the propagation; the boxes proven by then are reported` : undefined,
      `${rows.toLocaleString('en-US')} ${provenWords} (${widths}); ${pinned.toLocaleString('en-US')} pinned to one leaf in every tree`,
      `the rows are not walked to points: ${rows.toLocaleString('en-US')} rows x ${forest.features.length} features are past the ${walkCap.toLocaleString('en-US')} cells the walks keep in memory, so each row stands at its proven box`,
    ].filter((x) => x).join('; ');
    return { ...ctx.answer({ status, reason, rows, certifiedRows: rows, reconstruction }), boxes };
  }

  // One training set inside the proven boxes, with what is left of the budget.
  ctx.progress('search', { done: pinned, total: rows });
  const completed = await completeRows(walk, groups, () => ctx.stopped(), ctx.deadline, () => ctx.progress('search'), ctx.options.walkedLeafCap);
  ctx.stats.leafCountError = completed.leafCountError;
  const proven = groups.map((group) => boxToRow(table.axes, group.low, group.high).intervals);
  const reconstruction: ReconstructedRow[] = completed.rows.map((row) => ({
    values: boxToRow(table.axes, row.low, row.high).values,
    intervals: proven[row.group].slice(),
    label: forest.classes[row.classIndex],
    certified: true,
  }));
  const status = ctx.aborted || !completed.walkedAll ? 'timeout' : pinned === rows && propagated.complete ? 'exact' : 'bounded';
  const reason = [
    why,
    cut ? `the propagation stopped at its share of the budget after ${propagated.rounds} rounds; the boxes proven by then are reported` : undefined,
    capped,
    !propagated.complete && !cut && !capped ? `${ctx.stopReason()} during the propagation; the boxes proven by then are reported` : undefined,
    `${rows.toLocaleString('en-US')} ${provenWords} (${widths}); ${pinned.toLocaleString('en-US')} pinned to one leaf in every tree${pinned < rows ? `, the other ${(rows - pinned).toLocaleString('en-US')} placed by an estimate inside their boxes (missing the stored counts by ${completed.leafCountError.toLocaleString('en-US')}, summed over every tree's leaves${completed.passes ? ` after ${completed.passes} repair ${completed.passes === 1 ? 'pass' : 'passes'}` : ''}${completed.moves ? ` and ${completed.moves.toLocaleString('en-US')} moves of the point search` : ''})` : ''}`,
    completed.unrepaired,
  ].filter((x) => x).join('; ');
  return { ...ctx.answer({ status, reason, rows, certifiedRows: rows, reconstruction }), boxes };
}
