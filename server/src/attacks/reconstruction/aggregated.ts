/**
 * The aggregated formulation (../shared/notes/domain.md, section 2) for forests trained without
 * bootstrap on binary features: enumerate the cells of feature space the forest tells apart, one
 * integer multiplicity per (cell, class), every leaf's per-class count an equality; then one
 * integer solution and a certificate of the rows every solution shares.
 */
import type { Highs } from 'highs';
import type { Forest } from '../../forest/schema';
import { createCellEnumerator, enumerateInSlices } from './cells';
import { certify } from './certify';
import { sum, yieldToEventLoop, type RunContext } from './context';
import { buildFormulation, satisfiesAll, type Formulation } from './formulation';
import { columnsOf } from './dual-bounds';
import { solveMilpWithin, withHighs } from './highs';
import type { LeafTable } from './leaves';
import { mergeBySignature, type MergedCell } from './merge';
import { initialBounds, propagate } from './propagation';
import { reconstructedRows } from './rows';
import type { ReconstructionResult } from './types';


/** The inner workings behind a result, for tests and benchmarks that check them against the truth. */
export interface ReconstructionDetails {
  table: LeafTable;
  cells: MergedCell[];
  formulation: Formulation;
  /** The integer solution (multiplicity per column), when one was found. */
  solution?: Int32Array;
  /** Proven lower bound per column. */
  lower: Int32Array;
}

/**
 * When the enumeration is to give up so that another method (the bounded search) can answer:
 * past `cells` cells, or past `deadline` (Date.now() value) while unfinished.
 */
export interface EnumerationLimits {
  cells: number;
  deadline: number;
  /** Why `cells` is lower than the engine's usual limit, for the reason (absent: it is the usual one). */
  cellsWhy?: string;
}

/** The enumeration passed its limits: no answer, and why (for the method that answers instead). */
export interface TooManyCells {
  tooManyCells: string;
}

export async function reconstructAggregated(
  forest: Forest,
  table: LeafTable,
  ctx: RunContext,
  expose: (details: ReconstructionDetails) => void,
  limits?: EnumerationLimits,
  /** How leaf counts become equalities; boosted multi-class models count per class differently (multiclass-formulation.ts). */
  build: typeof buildFormulation = buildFormulation,
): Promise<ReconstructionResult | TooManyCells> {
  const { options, stats, deadline } = ctx;
  const rows = table.rows;
  const overLimits = () => limits !== undefined && (enumerator.cells.length > limits.cells || Date.now() >= limits.deadline);

  // 1. Cells, in slices.
  const created = createCellEnumerator(table, options.groups ?? []);
  if (!created.ok) return ctx.answer({ status: 'failed', reason: created.reason, rows, certifiedRows: 0 });
  const enumerator = created.enumerator;
  const enumerationStart = Date.now();
  const enumerated = await enumerateInSlices(enumerator, () => ctx.stopped() || overLimits(), () => {
    stats.cells = enumerator.cells.length;
    stats.searchNodes = enumerator.searchNodes;
    stats.enumerationMs = Date.now() - enumerationStart;
    ctx.progress('cells', { cells: stats.cells });
  });
  // The cap is checked between slices, and also here: an enumeration that crosses it within its
  // last slice must not go on to the solver (a public 7-class XGBoost model, 1,669 rows, timed out
  // with 0 certified in one run in thirteen, when its last slice crossed 20,000 cells).
  const overCap = limits !== undefined && enumerator.cells.length > limits.cells;
  if ((!enumerated || overCap) && !ctx.stopped() && limits) {
    // Said as why another method answers, not as a failure ("did not finish" beside "exact" read as one).
    const past = enumerator.cells.length > limits.cells ? `found more than ${limits.cells.toLocaleString('en-US')} cells${limits.cellsWhy ? ` (${limits.cellsWhy})` : ''}` : `was stopped at its share of the budget (${stats.cells.toLocaleString('en-US')} cells found)`;
    // Every caller then proves the rows one by one (row-boxes): said so, since an "exact" may follow.
    return { tooManyCells: `the cell enumeration ${past}, so the rows are proven one by one as boxes instead` };
  }
  if (!enumerated) {
    const reason = `${ctx.stopReason()} while enumerating cells (${stats.cells} found so far); nothing is certified from an incomplete enumeration`;
    return ctx.answer({ status: 'timeout', reason, rows, certifiedRows: 0 });
  }

  // 2. The formulation and what propagation alone proves.
  ctx.progress('formulation');
  const merged = mergeBySignature(enumerator.cells);
  stats.mergedCells = merged.length;
  const built = build(table, merged, forest.classes);
  if (!built.ok) return ctx.answer({ status: 'failed', reason: built.reason, rows, certifiedRows: 0 });
  const formulation = built.formulation;
  stats.columns = formulation.numCols;
  stats.constraints = formulation.numRows;
  ctx.progress('propagation');
  const bounds = initialBounds(formulation);
  if (!propagate(formulation, bounds)) {
    const reason = 'the leaf counts contradict each other: no training set of binary rows fits every tree';
    return ctx.answer({ status: 'failed', reason, contradiction: reason, rows, certifiedRows: 0 });
  }
  const labels = forest.classes;
  const fromBounds = (lower: Int32Array, solution: Int32Array | undefined) => {
    expose({ table, cells: merged, formulation, lower, ...(solution ? { solution } : {}) });
    return reconstructedRows(formulation, merged, labels, solution ?? lower, lower, table.axes);
  };

  // Propagation alone can pin every column: then the training set is unique and known.
  if (bounds.lower.every((v, j) => v === bounds.upper[j])) {
    if (!satisfiesAll(formulation, bounds.lower)) {
      return ctx.answer({ status: 'failed', reason: 'propagated bounds do not satisfy the leaf counts', rows, certifiedRows: 0 });
    }
    stats.fixedByPropagation = bounds.lower.filter((v) => v > 0).length;
    return ctx.answer({ status: 'exact', rows, certifiedRows: sum(bounds.lower), reconstruction: fromBounds(bounds.lower, bounds.lower) });
  }
  await yieldToEventLoop();
  if (ctx.stopped()) return partialAnswer(bounds.lower, undefined, 'after bound propagation');

  // 3. One integer solution, then the certificate.
  return withHighs(solveAndCertify, (reason) => ctx.answer({ status: 'failed', reason, rows, certifiedRows: 0 }));

  async function solveAndCertify(highs: Highs): Promise<ReconstructionResult> {
    ctx.progress('milp');
    const milpStart = Date.now();
    // Any integer point (no objective); one found but not proven by the deadline is not used.
    // A large one runs in its own thread, cut off at the deadline (highs/milp-thread.ts).
    const milp = await solveMilpWithin(highs, columnsOf(formulation), bounds, { deadline, shouldStop: () => ctx.aborted }, { memoryCeilingMb: ctx.options.memoryCeilingMb });
    stats.milpMs = Date.now() - milpStart;
    // Stopped near the memory ceiling: the certificate's LPs are as large, so what propagation proved is the answer.
    if (milp.memory) {
      const reason = `the integer solve was stopped at ${milp.memory.rssMb} MB, near the memory ceiling of ${milp.memory.ceilingMb} MB (raise --max-memory-mb), so the rows proven are those bound propagation proved`;
      return ctx.answer({ status: 'timeout', reason, rows, certifiedRows: sum(bounds.lower), reconstruction: fromBounds(bounds.lower, undefined) });
    }
    if (milp.status === 'infeasible') {
      return ctx.answer({ status: 'failed', reason: 'no integer training set fits every leaf count (the model is not what it seems: e.g. features that are not binary)', rows, certifiedRows: 0 });
    }
    if (milp.status === 'error') return ctx.answer({ status: 'failed', reason: milp.detail, rows, certifiedRows: 0 });
    const solution = milp.status === 'optimal' ? Int32Array.from(milp.colValue, (v) => Math.round(v)) : undefined;
    if (solution && !satisfiesAll(formulation, solution)) {
      return ctx.answer({ status: 'failed', reason: 'HiGHS returned a solution that breaks a leaf count', rows, certifiedRows: 0 });
    }
    await yieldToEventLoop();
    if (ctx.stopped()) return partialAnswer(bounds.lower, solution, 'after the integer solve');

    const certifyStart = Date.now();
    const certificate = certify(highs, formulation, bounds, solution, {
      deadline,
      shouldStop: () => ctx.aborted,
      onProgress: (done, total) => ctx.progress('certify', { done, total }),
    });
    stats.certifyMs = Date.now() - certifyStart;
    stats.lpSolves = certificate.lpSolves;
    stats.fixedByPropagation = certificate.fixedByPropagation;
    stats.probed = certificate.probed;
    if (!solution || !certificate.complete) return partialAnswer(certificate.lower, solution, solution ? 'while certifying' : 'during the integer solve');
    const certifiedRows = sum(certificate.lower);
    return ctx.answer({
      status: certifiedRows === rows ? 'exact' : 'bounded',
      rows,
      certifiedRows,
      reconstruction: fromBounds(certificate.lower, solution),
    });
  }

  /** Status `timeout` with the bounds proven so far and the solution, if one was found. */
  function partialAnswer(lower: Int32Array, solution: Int32Array | undefined, when: string): ReconstructionResult {
    return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason()} ${when}`, rows, certifiedRows: sum(lower), reconstruction: fromBounds(lower, solution) });
  }
}


