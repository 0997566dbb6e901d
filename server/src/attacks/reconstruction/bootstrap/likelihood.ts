/**
 * Bootstrap without usable seeds: the draws of each tree are unknown, so the model admits many
 * training sets and the answer is an ESTIMATE, the most likely one found (the DRAFT paper's
 * maximum-likelihood reconstruction, likelihood-formulation.ts), within the budget. Nothing is
 * certified: a row can have been left out of exactly the trees that would pin it down, so no row
 * is the same in every training set that fits (certifiedRows 0, status `bounded`).
 *
 * Steps: the cells of the whole forest's partition (../cells.ts with no count pruning: a row left
 * out of a tree may sit in a leaf holding none of its class), merged by signature; then one MILP
 * whose best point at the deadline is the answer.
 */
import type { Highs } from 'highs';
import type { Forest } from '../../../forest/schema';
import { createCellEnumerator, NODES_PER_SLICE } from '../cells';
import { yieldToEventLoop, type RunContext } from '../context';
import { UNSET } from '../groups';
import { solveMilpWithin, withHighs } from '../highs';
import type { LeafTable } from '../leaves';
import { mergeBySignature } from '../merge';
import type { ReconstructedRow, ReconstructionResult } from '../types';
import { logDrawProbabilities } from './draw-probabilities';
import { buildLikelihoodFormulation } from './likelihood-formulation';

/** Share of the remaining budget the cell enumeration may take; the MILP gets the rest. */
const ENUMERATION_SHARE = 0.4;
/**
 * Largest MILP attempted. Beyond it HiGHS (WebAssembly) neither found a first point nor kept to
 * its time limit in our runs (Default Credit, 30-100 trees: 190k cells, 280k-360k columns, runs
 * 8-16 s past a 10-20 s budget), so the method says so at once instead.
 */
const MAX_COLUMNS = 40_000;

export async function reconstructByLikelihood(forest: Forest, table: LeafTable, ctx: RunContext, whyNotReplayed: string): Promise<ReconstructionResult> {
  const { stats } = ctx;
  const drawn = forest.training.bootstrapSize ?? rootDraws(table);
  const rows = forest.training.rows ?? estimateRows(table, drawn);
  const statedRows = forest.training.rows ?? null;
  const estimate = 'the most likely training set found (maximum likelihood over the unknown draws, the DRAFT paper\'s formulation) is an estimate, and nothing is certified: without the draws any row may have been left out of the trees that would pin it down';

  // 1. Cells of the forest's partition: every leaf may hold a row of every class (it may be out of bag).
  const open: LeafTable = { ...table, trees: table.trees.map((tree) => ({ ...tree, counts: new Int32Array(tree.counts.length).fill(1) })) };
  const created = createCellEnumerator(open, ctx.options.groups ?? []);
  if (!created.ok) return ctx.answer({ status: 'failed', reason: created.reason, rows: statedRows, certifiedRows: 0 });
  const enumerator = created.enumerator;
  const enumerationStart = Date.now();
  const enumerationDeadline = enumerationStart + ENUMERATION_SHARE * Math.max(0, ctx.deadline - enumerationStart);
  let complete = true;
  ctx.progress('cells');
  while (!enumerator.step(NODES_PER_SLICE)) {
    if (ctx.stopped() || Date.now() > enumerationDeadline) {
      complete = false;
      break;
    }
    stats.cells = enumerator.cells.length;
    ctx.progress('cells', { cells: stats.cells });
    await yieldToEventLoop();
  }
  stats.cells = enumerator.cells.length;
  stats.searchNodes = enumerator.searchNodes;
  stats.enumerationMs = Date.now() - enumerationStart;
  if (ctx.aborted) return ctx.answer({ status: 'timeout', reason: `${whyNotReplayed}; ${ctx.stopReason()} while enumerating cells`, rows: statedRows, certifiedRows: 0 });
  const cells = mergeBySignature(enumerator.cells);
  stats.mergedCells = cells.length;

  // 2. The formulation and its MILP, best point at the deadline.
  ctx.progress('formulation');
  const formulation = buildLikelihoodFormulation(table, cells, logDrawProbabilities(rows, drawn), forest.training.rows);
  const { problem } = formulation;
  stats.columns = problem.numCols;
  stats.constraints = problem.numRows;
  if (problem.numCols > MAX_COLUMNS) {
    const reason = `${whyNotReplayed}; the likelihood formulation is too large to solve within the budget (${stats.mergedCells} cells of the forest's partition, ${problem.numCols} unknowns)`;
    return ctx.answer({ status: 'timeout', reason, rows: statedRows, certifiedRows: 0 });
  }
  await yieldToEventLoop();
  if (ctx.stopped()) return ctx.answer({ status: 'timeout', reason: `${whyNotReplayed}; ${ctx.stopReason()} before the likelihood MILP could start`, rows: statedRows, certifiedRows: 0 });
  const upper = new Float64Array(problem.numCols).fill(rows);
  return withHighs(solveLikelihood, (reason) => ctx.answer({ status: 'failed', reason: `${whyNotReplayed}; ${reason}`, rows: statedRows, certifiedRows: 0 }));

  async function solveLikelihood(highs: Highs): Promise<ReconstructionResult> {
    ctx.progress('milp');
    const milpStart = Date.now();
    const milp = await solveMilpWithin(highs, problem, { lower: new Float64Array(problem.numCols), upper }, { deadline: ctx.deadline, shouldStop: () => ctx.aborted }, { memoryCeilingMb: ctx.options.memoryCeilingMb });
    stats.milpMs = Date.now() - milpStart;
    const partial = complete ? '' : ` (the cell enumeration was cut short at ${stats.cells} cells to leave the solver time)`;
    if (milp.status === 'infeasible') {
      return ctx.answer({ status: 'failed', reason: `${whyNotReplayed}; no training set fits the leaf counts within ${'at most 7 draws per row and tree'}${partial}`, rows: statedRows, certifiedRows: 0 });
    }
    if (milp.status === 'error') return ctx.answer({ status: 'failed', reason: `${whyNotReplayed}; ${milp.detail}`, rows: statedRows, certifiedRows: 0 });
    if (!milp.colValue) return ctx.answer({ status: 'timeout', reason: `${whyNotReplayed}; ${ctx.stopReason()} before the solver found a training set that fits${partial}`, rows: statedRows, certifiedRows: 0 });
    const reconstruction: ReconstructedRow[] = [];
    for (let k = 0; k < formulation.cellColumns; k++) {
      const count = Math.round(milp.colValue[k]);
      const cell = cells[formulation.colCell[k]];
      for (let copy = 0; copy < count; copy++) {
        reconstruction.push({ values: Array.from(cell.values, (v) => (v === UNSET ? null : v)), label: forest.classes[formulation.colClass[k]], certified: false });
      }
    }
    const optimality = milp.status === 'optimal' ? 'proven the most likely' : `not proven the most likely: ${ctx.stopReason()} during the search`;
    return ctx.answer({ status: 'bounded', reason: `${whyNotReplayed}; ${estimate} (${optimality})${partial}`, rows: statedRows ?? reconstruction.length, certifiedRows: 0, reconstruction });
  }
}

/** Draws per tree when the model does not state them: the first root's weighted count. */
export function rootDraws(table: LeafTable): number {
  let total = 0;
  for (const count of table.trees[0].counts) total += count;
  return total;
}

/**
 * N when the model does not state it (max_samples set): the N whose expected number of distinct
 * rows among `drawn` draws, N(1 - (1 - 1/N)^drawn), is closest to the trees' mean distinct count.
 */
export function estimateRows(table: LeafTable, drawn: number): number {
  const distinct = table.trees.map((tree) => (tree.distinct ? sumDistinctLeaves(tree.distinct) : drawn));
  const mean = distinct.reduce((a, b) => a + b, 0) / distinct.length;
  let n = Math.max(1, Math.ceil(mean));
  while (n < 64 * mean + 64 && n * (1 - Math.pow(1 - 1 / n, drawn)) < mean) n++;
  return n;
}

function sumDistinctLeaves(distinct: Int32Array): number {
  let total = 0;
  for (const d of distinct) total += d;
  return total;
}
