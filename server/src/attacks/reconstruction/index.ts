/**
 * Certified reconstruction of the training set of a forest trained without bootstrap on binary
 * features (issue 3; the aggregated formulation of ../shared/notes/domain.md, section 2):
 *
 *   leaves.ts       the forest as leaves with binary path literals and integer class counts,
 *                   or why this engine does not apply (bootstrap, numeric splits, weights, ...)
 *   cells.ts        the cells of feature space the forest tells apart, with sound pruning
 *                   (leaf-masks.ts: leaf sets as bit masks; groups.ts: declared one-hot groups)
 *   merge.ts        cells every tree sends to the same leaves become one
 *   formulation.ts  integer multiplicity per (cell, class); every leaf's per-class count an equality
 *   propagation.ts  integer bounds implied by the equalities, and probing
 *   highs.ts        HiGHS (WebAssembly): one integer solution, and LP bounds by column generation
 *   certify.ts      proven lower bounds per (cell, class): rows certainly in the training data
 *   dual-bounds.ts  the weak-duality arithmetic the certificate's soundness rests on
 *   rows.ts         multiplicities back to rows (null where the model does not determine a value)
 *
 * Everything runs in the calling thread. The enumeration yields to the event loop between slices
 * and the pipeline checks the AbortSignal between steps; a HiGHS solve is synchronous and is
 * bounded by the remaining budget (HiGHS's own time limit), so an abort during a solve takes
 * effect when it returns. A worker thread around this (issue 3, item 1) can terminate it outright.
 */
import type { Highs } from 'highs';
import type { Forest } from '../../forest/schema';
import { createCellEnumerator, type CellEnumerator } from './cells';
import { certify } from './certify';
import { buildFormulation, satisfiesAll, type Formulation } from './formulation';
import { discardHighs, loadHighs, solveIntegerFeasibility } from './highs';
import { buildLeafTable, type LeafTable } from './leaves';
import { mergeBySignature, type MergedCell } from './merge';
import { initialBounds, propagate } from './propagation';
import { reconstructedRows } from './rows';
import type { ReconstructionOptions, ReconstructionPhase, ReconstructionProgress, ReconstructionResult, ReconstructionStats } from './types';

export type * from './types';

const DEFAULT_BUDGET_MS = 30_000;
/** Search nodes per enumeration slice; a slice takes a few milliseconds on forests of 100 trees. */
const NODES_PER_SLICE = 2_000;
/** Longest stretch of enumeration between two looks at the event loop (abort, progress). */
const SLICE_MS = 25;

export async function reconstruct(forest: Forest, options: ReconstructionOptions = {}): Promise<ReconstructionResult> {
  return (await reconstructWithDetails(forest, options)).result;
}

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

export async function reconstructWithDetails(forest: Forest, options: ReconstructionOptions = {}): Promise<{ result: ReconstructionResult; details?: ReconstructionDetails }> {
  let details: ReconstructionDetails | undefined;
  const result = await run(forest, options, (d) => (details = d));
  return { result, details };
}

async function run(forest: Forest, options: ReconstructionOptions, expose: (details: ReconstructionDetails) => void): Promise<ReconstructionResult> {
  const started = Date.now();
  const deadline = started + (options.budgetMs ?? DEFAULT_BUDGET_MS);
  const stats: ReconstructionStats = {
    cells: 0,
    searchNodes: 0,
    mergedCells: 0,
    columns: 0,
    constraints: 0,
    fixedByPropagation: 0,
    probed: 0,
    lpSolves: 0,
    enumerationMs: 0,
    milpMs: 0,
    certifyMs: 0,
  };
  const stopped = () => options.signal?.aborted === true || Date.now() >= deadline;
  const stopReason = () => (options.signal?.aborted ? 'cancelled' : `the time budget of ${((deadline - started) / 1000).toFixed(1)} s ran out`);
  const progress = (phase: ReconstructionPhase, extra: Omit<ReconstructionProgress, 'phase' | 'elapsedMs'> = {}) =>
    options.onProgress?.({ phase, elapsedMs: Date.now() - started, ...extra });
  const answer = (fields: Omit<ReconstructionResult, 'seconds' | 'stats' | 'reconstruction' | 'reconstructedRows'> & { reconstruction?: ReconstructionResult['reconstruction'] }): ReconstructionResult => {
    const reconstruction = fields.reconstruction ?? [];
    return { ...fields, reconstruction, reconstructedRows: reconstruction.length, seconds: (Date.now() - started) / 1000, stats };
  };

  const prepared = buildLeafTable(forest);
  if (!prepared.ok) return answer({ status: 'skipped', reason: prepared.reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  const table = prepared.table;
  const rows = table.rows;

  // 1. Cells, in slices.
  const created = createCellEnumerator(table, options.groups ?? []);
  if (!created.ok) return answer({ status: 'failed', reason: created.reason, rows, certifiedRows: 0 });
  const enumerator = created.enumerator;
  const enumerationStart = Date.now();
  const enumerated = await enumerateInSlices(enumerator, stopped, () => {
    stats.cells = enumerator.cells.length;
    stats.searchNodes = enumerator.searchNodes;
    stats.enumerationMs = Date.now() - enumerationStart;
    progress('cells', { cells: stats.cells });
  });
  if (!enumerated) {
    const reason = `${stopReason()} while enumerating cells (${stats.cells} found so far); nothing is certified from an incomplete enumeration`;
    return answer({ status: 'timeout', reason, rows, certifiedRows: 0 });
  }

  // 2. The formulation and what propagation alone proves.
  progress('formulation');
  const merged = mergeBySignature(enumerator.cells);
  stats.mergedCells = merged.length;
  const built = buildFormulation(table, merged, forest.classes);
  if (!built.ok) return answer({ status: 'failed', reason: built.reason, rows, certifiedRows: 0 });
  const formulation = built.formulation;
  stats.columns = formulation.numCols;
  stats.constraints = formulation.numRows;
  progress('propagation');
  const bounds = initialBounds(formulation);
  if (!propagate(formulation, bounds)) {
    return answer({ status: 'failed', reason: 'the leaf counts contradict each other: no training set of binary rows fits every tree', rows, certifiedRows: 0 });
  }
  const labels = forest.classes;
  const fromBounds = (lower: Int32Array, solution: Int32Array | undefined) => {
    expose({ table, cells: merged, formulation, lower, ...(solution ? { solution } : {}) });
    return reconstructedRows(formulation, merged, labels, solution ?? lower, lower);
  };

  // Propagation alone can pin every column: then the training set is unique and known.
  if (bounds.lower.every((v, j) => v === bounds.upper[j])) {
    if (!satisfiesAll(formulation, bounds.lower)) {
      return answer({ status: 'failed', reason: 'propagated bounds do not satisfy the leaf counts', rows, certifiedRows: 0 });
    }
    stats.fixedByPropagation = bounds.lower.filter((v) => v > 0).length;
    return answer({ status: 'exact', rows, certifiedRows: sum(bounds.lower), reconstruction: fromBounds(bounds.lower, bounds.lower) });
  }
  await yieldToEventLoop();
  if (stopped()) return partialAnswer(bounds.lower, undefined, 'after bound propagation');

  // 3. One integer solution, then the certificate.
  let highs: Highs;
  try {
    highs = await loadHighs();
  } catch (error) {
    return answer({ status: 'failed', reason: `HiGHS could not be loaded: ${(error as Error).message}`, rows, certifiedRows: 0 });
  }
  try {
    progress('milp');
    const milpStart = Date.now();
    const milp = solveIntegerFeasibility(highs, formulation, bounds, { deadline });
    stats.milpMs = Date.now() - milpStart;
    if (milp.status === 'infeasible') {
      return answer({ status: 'failed', reason: 'no integer training set fits every leaf count (the model is not what it seems: e.g. features that are not binary)', rows, certifiedRows: 0 });
    }
    if (milp.status === 'error') return answer({ status: 'failed', reason: milp.detail, rows, certifiedRows: 0 });
    const solution = milp.status === 'solved' ? milp.values : undefined;
    if (solution && !satisfiesAll(formulation, solution)) {
      return answer({ status: 'failed', reason: 'HiGHS returned a solution that breaks a leaf count', rows, certifiedRows: 0 });
    }
    await yieldToEventLoop();
    if (stopped()) return partialAnswer(bounds.lower, solution, 'after the integer solve');

    const certifyStart = Date.now();
    const certificate = certify(highs, formulation, bounds, solution, {
      deadline,
      shouldStop: () => options.signal?.aborted === true,
      onProgress: (done, total) => progress('certify', { done, total }),
    });
    stats.certifyMs = Date.now() - certifyStart;
    stats.lpSolves = certificate.lpSolves;
    stats.fixedByPropagation = certificate.fixedByPropagation;
    stats.probed = certificate.probed;
    if (!solution || !certificate.complete) return partialAnswer(certificate.lower, solution, solution ? 'while certifying' : 'during the integer solve');
    const certifiedRows = sum(certificate.lower);
    return answer({
      status: certifiedRows === rows ? 'exact' : 'bounded',
      rows,
      certifiedRows,
      reconstruction: fromBounds(certificate.lower, solution),
    });
  } catch (error) {
    // A fault inside WebAssembly (abort, out of memory) can leave the runtime unusable, and a
    // reload costs tens of milliseconds: start from a fresh one next time.
    discardHighs();
    return answer({ status: 'failed', reason: `the solver failed: ${(error as Error).message}`, rows, certifiedRows: 0 });
  }

  /** Status `timeout` with the bounds proven so far and the solution, if one was found. */
  function partialAnswer(lower: Int32Array, solution: Int32Array | undefined, when: string): ReconstructionResult {
    return answer({ status: 'timeout', reason: `${stopReason()} ${when}`, rows, certifiedRows: sum(lower), reconstruction: fromBounds(lower, solution) });
  }
}

function sum(values: Int32Array): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs the enumeration in slices of about SLICE_MS, yielding to the event loop between them so that
 * an abort or a progress report gets through. False when `stopped` ended it before completion.
 */
async function enumerateInSlices(enumerator: CellEnumerator, stopped: () => boolean, afterSlice: () => void): Promise<boolean> {
  for (;;) {
    if (stopped()) return false;
    const sliceStart = Date.now();
    let done = false;
    while (!done && Date.now() - sliceStart < SLICE_MS) done = enumerator.step(NODES_PER_SLICE);
    afterSlice();
    if (done) return true;
    await yieldToEventLoop();
  }
}

