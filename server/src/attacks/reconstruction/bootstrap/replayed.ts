/**
 * Reconstruction of a forest trained with bootstrap whose per-tree draws were replayed from the
 * stored seeds (draws.ts): candidates per row index (row-candidates.ts), the weighted formulation
 * (replayed-formulation.ts), bound propagation, one integer solution by HiGHS, then the row
 * certificate (row-certificate.ts). Rows come back at their training indices.
 */
import type { Highs } from 'highs';
import { formatCount } from '../../../util/wording';
import type { Forest } from '../../../forest/schema';
import { yieldToEventLoop, type RunContext } from '../context';
import { solveMilpWithin, withHighs } from '../highs';
import type { LeafTable } from '../leaves';
import type { ReconstructionResult } from '../types';
import type { ReplayedDraws } from './draws';
import { indexedRows } from './indexed-rows';
import { probeSystem, propagateSystem, type Bounds } from '../propagation';
import { buildReplayedFormulation } from './replayed-formulation';
import { certifyRows } from './row-certificate';
import { rowCandidates, type RowCandidates } from './row-candidates';
import { satisfiesSystem } from './system';
import { candidateSize, rowFromCandidates } from './row-facts';
import { buildPointTable, pointCandidates } from './point-candidates';
import { CANDIDATE_CELL_CAP, EARLY_PROJECTION_FACTOR, EARLY_PROJECTION_ROWS, FORMULATION_ENTRY_CAP, millions, PROJECTION_ROWS, SOLVER_ENTRY_CAP, SOLVER_MS_PER_MILLION_ENTRIES } from '../memory';

/**
 * Share of the time left that the integer solve may take. COMPAS-like categories one-hot encoded
 * in a Pipeline (1,000 rows, 10 trees of depth 6, bootstrap): the solve found nothing in a whole
 * 30 s budget, which left 0 rows certified where the box estimate certifies 49 in under a second.
 */
const MILP_SHARE = 0.6;
/**
 * How many times its setup estimate (SOLVER_MS_PER_MILLION_ENTRIES) an integer solve may run past
 * its limit: HiGHS checks its interrupts between steps, and a 2.1M-entry solve of a 150-row COMPAS
 * forest (20 trees, replayed draws) ran 12.4 s on a 5.5 s limit, 3.3 times its 2.1 s estimate.
 * Such a solve is now cut off at its limit (highs/milp-thread.ts); ending the share this early
 * still leaves the box estimate the time an overrun used to take, and moving HiGHS's setup (the
 * model built in the thread) into it.
 */
const OVERRUN_SETUPS = 3.5;

/**
 * `tooLarge` answers when the formulation would pass its memory cap (the box estimate: it certifies
 * what single-class leaves prove, in memory that does not grow with the cells).
 */
export async function reconstructReplayed(forest: Forest, table: LeafTable, draws: ReplayedDraws, ctx: RunContext, tooLarge: (why: string) => Promise<ReconstructionResult>): Promise<ReconstructionResult> {
  const { stats, deadline } = ctx;
  const rows = draws.rows;
  const labels = forest.classes;
  // Several N replaying every tree: each gives other multiplicities, so a proof under one N is no proof.
  const ambiguity = draws.otherRows > 0 ? `; ${draws.otherRows + 1} training-set sizes replay the trees' distinct counts, so nothing is certified (N = ${rows} was used)` : '';

  const certifiable = draws.otherRows === 0;
  // 1. Candidates per row index. The formulation they make grows with rows x trees x cells, so its
  // size is counted as they come (../memory.ts): past the cap, or once the first rows project past
  // it, no system is built and `tooLarge` answers. (Each row used to go on answering from its own
  // candidates, row-facts.ts: that certified nothing on COMPAS's 7,206 rows, and on 2,000 Adult
  // rows of 5 deep trees, about 6,000 cells a row, its memory passed the worker's 1 GB ceiling.)
  // A system built but too large for the solver is propagated only.
  const enumerationStart = Date.now();
  const distinctTrees = Uint8Array.from(table.trees, (tree) => (tree.distinct ? 1 : 0));
  const candidates: RowCandidates[] = [];
  let size = { columns: 0, entries: 0 };
  let cellsHeld = 0;
  const partial = (why: string): ReconstructionResult => {
    const reconstruction = candidates.map((c, i) => rowFromCandidates(c, i, labels, certifiable));
    const certifiedRows = reconstruction.filter((r) => r.certified).length;
    return ctx.answer({ status: 'timeout', reason: `${why}; ${reconstruction.length} of ${rows} rows answered from their own candidates${ambiguity}`, rows, certifiedRows, reconstruction });
  };
  // Small binary spaces: each row's candidates read off a table of points (point-candidates.ts).
  const points = buildPointTable(forest, table, ctx.options.groups ?? [], deadline);
  let lastYield = Date.now();
  for (let i = 0; i < rows; i++) {
    if (points && Date.now() - lastYield > 25) {
      await yieldToEventLoop();
      lastYield = Date.now();
    }
    // rowCandidates looks at the clock only between slices, and one row often takes a single slice.
    const found = ctx.stopped()
      ? undefined
      : points
        ? ({ ok: true, candidates: pointCandidates(points, table, draws.perTree, i) } as const)
        : await rowCandidates(table, draws.perTree, i, ctx.options.groups ?? [], () => ctx.stopped());
    if (!found) {
      // Nothing certified from the rows enumerated so far: the estimate certifies what the
      // single-class leaves prove instead, walking no row once out of time.
      const where = `${ctx.stopReason()} while enumerating the candidates of training row ${formatCount(i)} of ${formatCount(rows)}`;
      const sofar = partial(where);
      // Cancelled: what there is, at once.
      return sofar.certifiedRows > 0 || ctx.aborted ? sofar : tooLarge(`replayed draws: ${where}, which certified no row`);
    }
    if (!found.ok) return ctx.answer({ status: 'failed', reason: found.reason, rows, certifiedRows: 0 });
    const row = found.candidates;
    stats.mergedCells += row.cells.length;
    stats.cells += row.cells.reduce((sum, cell) => sum + cell.members, 0);
    stats.enumerationMs = Date.now() - enumerationStart;
    ctx.progress('cells', { cells: stats.mergedCells, done: i + 1, total: rows });
    const added = candidateSize(row, distinctTrees);
    size = { columns: size.columns + added.columns, entries: size.entries + added.entries };
    cellsHeld += row.cells.length;
    candidates.push(row);
    // The whole formulation's size and the cells held for it, projected from the rows so far;
    // trusted to decide once enough rows are in (fewer when far past a cap).
    const over = (held: number, cap: number, what: (projected: number) => string): string | undefined => {
      const projected = Math.max(held, Math.round((held / (i + 1)) * rows));
      const past = held > cap || (i + 1 >= EARLY_PROJECTION_ROWS && projected > EARLY_PROJECTION_FACTOR * cap) || (i + 1 >= PROJECTION_ROWS && projected > cap);
      return past ? `${what(projected)}${i + 1 === rows ? '' : ' (projected)'}, over the memory cap of ${millions(cap)}` : undefined;
    };
    const tooMuch =
      over(size.entries, FORMULATION_ENTRY_CAP, (n) => `the formulation would hold ${millions(n)} entries`) ??
      over(cellsHeld, CANDIDATE_CELL_CAP, (n) => `the rows' candidates would be ${millions(n)} cells`);
    if (tooMuch) {
      candidates.length = 0;
      return tooLarge(`replayed draws: ${tooMuch}`);
    }
  }

  // 2. Formulation and propagation.
  ctx.progress('formulation');
  const built = buildReplayedFormulation(table, candidates, size);
  if (!built.ok) return ctx.answer({ status: 'failed', reason: built.reason, rows, certifiedRows: 0 });
  const formulation = built.formulation;
  const { system } = formulation;
  stats.columns = system.numCols;
  stats.constraints = system.numRows;
  ctx.progress('propagation');
  const bounds: Bounds = { lower: new Int32Array(system.numCols), upper: new Int32Array(system.numCols).fill(1) };
  if (!propagateSystem(system, bounds, undefined, undefined, deadline)) return ctx.answer({ status: 'failed', reason: 'the leaf counts contradict the replayed draws: no training set of binary rows fits every tree', rows, certifiedRows: 0 });
  const answer = (solution: ArrayLike<number>, proven: Bounds | undefined, status: 'exact' | 'bounded' | 'timeout', reason?: string) => {
    const reconstruction = indexedRows(formulation, candidates, labels, solution, certifiable ? proven : undefined);
    const certifiedRows = reconstruction.filter((r) => r.certified).length;
    const final = status === 'exact' && certifiedRows < rows ? 'bounded' : status;
    const why = final === 'bounded' && !reason ? `${rows - certifiedRows} of ${rows} rows fit the model in more than one way${ambiguity}` : reason;
    return ctx.answer({ status: final, ...(why ? { reason: why } : {}), rows, certifiedRows, reconstruction });
  };
  if (bounds.lower.every((v, j) => v === bounds.upper[j])) {
    if (!satisfiesSystem(system, bounds.lower)) return ctx.answer({ status: 'failed', reason: 'propagated bounds do not satisfy the leaf counts', rows, certifiedRows: 0 });
    stats.fixedByPropagation = rows;
    return answer(bounds.lower, bounds, 'exact');
  }
  await yieldToEventLoop();
  // What propagation proved stands without a solution: each row its proven candidate, or its first possible one.
  const proven = (why: string) => answer(pickProven(formulation.rowColumns, bounds), bounds, 'timeout', why);
  // When the solve cannot run or finds nothing and propagation proved no row, the box estimate
  // answers in the time left (it certifies what single-class leaves prove).
  // Past the deadline too: out of time, the estimate walks no row and still certifies what the
  // single-class leaves prove, in a moment (a solve that overran its share by 7 s answered 0
  // certified rows where the estimate gives 33, in 16 of 24 runs of a 150-row COMPAS forest).
  const provenOrEstimate = (why: string): Promise<ReconstructionResult> | ReconstructionResult => {
    const fromProofs = proven(why);
    if (fromProofs.certifiedRows > 0 || ctx.aborted) return fromProofs;
    return tooLarge(`replayed draws: ${why}, and propagation proved no row`);
  };
  if (ctx.stopped()) return provenOrEstimate(`${ctx.stopReason()} during or after bound propagation`);
  // Too large for the solver's memory, or for the budget left to start it: propagation's proofs are the answer.
  const entries = system.colStart[system.numCols];
  if (entries > SOLVER_ENTRY_CAP) {
    // The rest of the budget probes each open row's pick (suppose it is not the row's: a
    // contradiction proves it), as the certificate does first (row-certificate.ts).
    ctx.progress('certify');
    const picks = pickProven(formulation.rowColumns, bounds);
    const open: number[] = [];
    for (let j = 0; j < picks.length; j++) if (picks[j] === 1 && bounds.lower[j] < 1) open.push(j);
    stats.probed = probeSystem(system, bounds, open, () => 1, deadline).length;
    const cut = Date.now() > deadline ? `; the time budget ran out while probing (${stats.probed} rows proven by probing)` : '';
    return answer(pickProven(formulation.rowColumns, bounds), bounds, 'bounded', `the formulation holds ${millions(entries)} entries, over the solver's memory cap of ${millions(SOLVER_ENTRY_CAP)}: rows certified by bound propagation and probing only, the others are their first possible candidate (an estimate)${cut}${ambiguity}`);
  }
  if (Date.now() + (entries / 1e6) * SOLVER_MS_PER_MILLION_ENTRIES > deadline) {
    return provenOrEstimate(`${ctx.stopReason(true)}: too little to start the solver on ${millions(entries)} entries; rows certified by bound propagation only`);
  }

  // 3. One integer solution, then the certificate.
  return withHighs(solveAndCertify, (reason) => ctx.answer({ status: 'failed', reason, rows, certifiedRows: 0 }));

  async function solveAndCertify(highs: Highs): Promise<ReconstructionResult> {
    ctx.progress('milp');
    const milpStart = Date.now();
    // shouldStop: HiGHS's own time limit can be overshot by seconds on large models (highs/milp.ts).
    // The solve gets part of the budget: when it finds no solution in it, the box estimate
    // (`tooLarge`) still has time to certify what single-class leaves prove.
    // It also stops early enough for the part it cannot be interrupted in: a 2.1M-entry solve given
    // 5.5 s ran 12.4 s (150 COMPAS rows, 20 trees), so the share ends OVERRUN_SETUPS times the
    // setup estimate before the deadline, where the box estimate then answers.
    const overrun = OVERRUN_SETUPS * (entries / 1e6) * SOLVER_MS_PER_MILLION_ENTRIES;
    const milpDeadline = Math.min(milpStart + Math.max(0, deadline - milpStart) * MILP_SHARE, deadline - overrun);
    if (milpDeadline <= milpStart) return provenOrEstimate(`${ctx.stopReason(true)}: too little for an integer solve on ${millions(entries)} entries, which can run seconds past its limit; rows certified by bound propagation only`);
    const milp = await solveMilpWithin(highs, system, bounds, { deadline: milpDeadline, shouldStop: () => ctx.aborted }, { memoryCeilingMb: ctx.options.memoryCeilingMb });
    stats.milpMs = Date.now() - milpStart;
    if (milp.memory) return provenOrEstimate(`the integer solve was stopped at ${milp.memory.rssMb} MB, near the memory ceiling of ${milp.memory.ceilingMb} MB (raise --max-memory-mb)`);
    if (milp.status === 'infeasible') return ctx.answer({ status: 'failed', reason: 'no training set fits the replayed draws and every leaf count (features that are not binary?)', rows, certifiedRows: 0 });
    if (milp.status === 'error') return ctx.answer({ status: 'failed', reason: milp.detail, rows, certifiedRows: 0 });
    if (!milp.colValue) return provenOrEstimate(`the integer solve found no training set in its share of the time left (${((milpDeadline - milpStart) / 1000).toFixed(1)} s; it ran ${(stats.milpMs / 1000).toFixed(1)} s)`);
    const solution = Int32Array.from(milp.colValue, (v) => Math.round(v));
    if (!satisfiesSystem(system, solution, bounds)) return ctx.answer({ status: 'failed', reason: 'HiGHS returned a solution that breaks a leaf count', rows, certifiedRows: 0 });
    await yieldToEventLoop();
    if (ctx.stopped()) return answer(solution, bounds, 'timeout', `${ctx.stopReason()} after the integer solve`);

    ctx.progress('certify');
    const certifyStart = Date.now();
    const certificate = certifyRows(highs, system, formulation.rowColumns, bounds, solution, {
      deadline,
      shouldStop: () => ctx.aborted,
      onProgress: (done, total) => ctx.progress('certify', { done, total }),
    });
    stats.certifyMs = Date.now() - certifyStart;
    stats.lpSolves = certificate.lpSolves;
    stats.probed = certificate.probed;
    stats.fixedByPropagation = Array.from({ length: rows }, (_, i) => i).filter((i) => {
      for (let j = formulation.rowColumns[i]; j < formulation.rowColumns[i + 1]; j++) if (bounds.lower[j] === 1) return true;
      return false;
    }).length;
    if (!certificate.complete) return answer(solution, certificate.bounds, 'timeout', `${ctx.stopReason()} while certifying`);
    return answer(solution, certificate.bounds, 'exact');
  }
}

/** Per row: its column proven 1, else its first column not proven 0 (a stand-in for a solution). */
function pickProven(rowColumns: Int32Array, bounds: Bounds): Int32Array {
  const pick = new Int32Array(bounds.lower.length);
  for (let i = 0; i + 1 < rowColumns.length; i++) {
    let chosen = -1;
    for (let j = rowColumns[i]; j < rowColumns[i + 1]; j++) {
      if (bounds.lower[j] >= 1) chosen = j;
      else if (chosen < 0 && bounds.upper[j] >= 1) chosen = j;
    }
    pick[chosen < 0 ? rowColumns[i] : chosen] = 1;
  }
  return pick;
}
