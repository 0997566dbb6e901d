/**
 * Reconstruction of a forest trained with bootstrap whose per-tree draws were replayed from the
 * stored seeds (draws.ts): candidates per row index (row-candidates.ts), the weighted formulation
 * (replayed-formulation.ts), bound propagation, one integer solution by HiGHS, then the row
 * certificate (row-certificate.ts). Rows come back at their training indices.
 */
import type { Highs } from 'highs';
import type { Forest } from '../../../forest/schema';
import { yieldToEventLoop, type RunContext } from '../context';
import { solveMilp, withHighs } from '../highs';
import type { LeafTable } from '../leaves';
import type { ReconstructionResult } from '../types';
import type { ReplayedDraws } from './draws';
import { indexedRows } from './indexed-rows';
import { propagateSystem, type Bounds } from '../propagation';
import { buildReplayedFormulation } from './replayed-formulation';
import { certifyRows } from './row-certificate';
import { rowCandidates, type RowCandidates } from './row-candidates';
import { satisfiesSystem } from './system';

export async function reconstructReplayed(forest: Forest, table: LeafTable, draws: ReplayedDraws, ctx: RunContext): Promise<ReconstructionResult> {
  const { stats, deadline } = ctx;
  const rows = draws.rows;
  const labels = forest.classes;
  // Several N replaying every tree: each gives other multiplicities, so a proof under one N is no proof.
  const ambiguity = draws.otherRows > 0 ? `; ${draws.otherRows + 1} training-set sizes replay the trees' distinct counts, so nothing is certified (N = ${rows} was used)` : '';

  // 1. Candidates per row index.
  const enumerationStart = Date.now();
  const candidates: RowCandidates[] = [];
  for (let i = 0; i < rows; i++) {
    const found = await rowCandidates(table, draws.perTree, i, ctx.options.groups ?? [], () => ctx.stopped());
    if (!found) return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason()} while enumerating the candidates of training row ${i} of ${rows}`, rows, certifiedRows: 0 });
    if (!found.ok) return ctx.answer({ status: 'failed', reason: found.reason, rows, certifiedRows: 0 });
    candidates.push(found.candidates);
    stats.mergedCells += found.candidates.cells.length;
    stats.cells += found.candidates.cells.reduce((sum, cell) => sum + cell.members, 0);
    stats.enumerationMs = Date.now() - enumerationStart;
    ctx.progress('cells', { cells: stats.mergedCells, done: i + 1, total: rows });
  }

  // 2. Formulation and propagation.
  ctx.progress('formulation');
  const built = buildReplayedFormulation(table, candidates);
  if (!built.ok) return ctx.answer({ status: 'failed', reason: built.reason, rows, certifiedRows: 0 });
  const formulation = built.formulation;
  const { system } = formulation;
  stats.columns = system.numCols;
  stats.constraints = system.numRows;
  ctx.progress('propagation');
  const bounds: Bounds = { lower: new Int32Array(system.numCols), upper: new Int32Array(system.numCols).fill(1) };
  if (!propagateSystem(system, bounds)) return ctx.answer({ status: 'failed', reason: 'the leaf counts contradict the replayed draws: no training set of binary rows fits every tree', rows, certifiedRows: 0 });
  const certifiable = draws.otherRows === 0;
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
  if (ctx.stopped()) return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason()} after bound propagation`, rows, certifiedRows: 0 });

  // 3. One integer solution, then the certificate.
  return withHighs(solveAndCertify, (reason) => ctx.answer({ status: 'failed', reason, rows, certifiedRows: 0 }));

  async function solveAndCertify(highs: Highs): Promise<ReconstructionResult> {
    ctx.progress('milp');
    const milpStart = Date.now();
    const milp = solveMilp(highs, system, bounds, { deadline });
    stats.milpMs = Date.now() - milpStart;
    if (milp.status === 'infeasible') return ctx.answer({ status: 'failed', reason: 'no training set fits the replayed draws and every leaf count (features that are not binary?)', rows, certifiedRows: 0 });
    if (milp.status === 'error') return ctx.answer({ status: 'failed', reason: milp.detail, rows, certifiedRows: 0 });
    if (!milp.colValue) return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason()} during the integer solve`, rows, certifiedRows: 0 });
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
