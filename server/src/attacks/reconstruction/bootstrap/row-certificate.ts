/**
 * The replayed-bootstrap certificate: which training rows take the same candidate in every
 * solution of the formulation (replayed-formulation.ts), hence in the real training set, and, for
 * the others, which candidates are proven impossible (the values all surviving candidates agree
 * on are then proven too).
 *
 * Row i is proven when x of its solution candidate is at least 1 in every integer solution; a
 * candidate is proven impossible when its x is at most 0. Proofs, cheapest first:
 *  1. bound propagation (propagation.ts), done by the caller;
 *  2. probing: supposing the opposite value and propagating to a contradiction (for the solution's
 *     candidates first; for the other candidates of rows still open last, for their values);
 *  3. LP bounds by weak duality (../dual-bounds.ts): the duals of "minimise x" LPs, checked
 *     for every open column in one pass; a first LP minimising the sum of all open rows' solution
 *     candidates puts many of them at 0 at once, which shows no LP bound can prove those rows
 *     (their LP minimum is 0), so no LP is spent on them.
 * Soundness rests only on propagation's integer arithmetic and on weak duality, never on the
 * solver's claims of optimality.
 */
import type { Highs } from 'highs';
import { DualBounds } from '../dual-bounds';
import { ColumnMinimizer, type SolveLimits } from '../highs';
import { probeSystem, propagateSystem, type Bounds } from '../propagation';
import type { IntegerSystem } from './system';

export interface RowCertificate {
  /** Proven bounds per column (lower 1: chosen in every solution; upper 0: in none). */
  bounds: Bounds;
  lpSolves: number;
  probed: number;
  /** False when time ran out first (the proofs found are valid, only fewer). */
  complete: boolean;
}

/** Below this an LP value counts as 0, when deciding to skip an LP (never for soundness). */
const SKIP_TOLERANCE = 1e-7;

export function certifyRows(
  highs: Highs,
  system: IntegerSystem,
  rowColumns: Int32Array,
  propagated: Bounds,
  solution: ArrayLike<number>,
  limits: SolveLimits & { shouldStop?: () => boolean; onProgress?: (done: number, total: number) => void },
): RowCertificate {
  const bounds = { lower: propagated.lower.slice(), upper: propagated.upper.slice() };
  const rows = rowColumns.length - 1;
  const chosen = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    chosen[i] = -1;
    for (let j = rowColumns[i]; j < rowColumns[i + 1]; j++) if (solution[j] === 1) chosen[i] = j;
    if (chosen[i] < 0) throw new Error(`certificate: the solution gives training row ${i} no candidate`);
  }
  const open = () => Array.from(chosen).filter((j) => bounds.lower[j] < 1);
  const outOfTime = () => Date.now() > limits.deadline || limits.shouldStop?.() === true;

  // 2. Probing the chosen candidates (suppose 0).
  let probed = probeSystem(system, bounds, open(), () => 1, limits.deadline).length;
  const rivals = () => {
    const list: number[] = [];
    for (let i = 0; i < rows; i++) {
      if (bounds.lower[chosen[i]] >= 1) continue;
      for (let j = rowColumns[i]; j < rowColumns[i + 1]; j++) if (j !== chosen[i] && bounds.upper[j] > 0) list.push(j);
    }
    return list;
  };
  if (open().length === 0 || outOfTime()) return { bounds, lpSolves: 0, probed, complete: open().length === 0 };

  // 3. LP bounds.
  const support: number[] = [];
  for (let j = 0; j < system.numCols; j++) if (solution[j] > 0) support.push(j);
  const minimizer = new ColumnMinimizer(highs, system, bounds, support);
  let lpSolves = 0;
  let complete = true;
  const unprovable = new Uint8Array(system.numCols);
  const learn = (objective: number[]): boolean => {
    const minimum = minimizer.minimize(objective, 'simplex', limits);
    lpSolves++;
    if (minimum.status !== 'optimal') {
      complete = false;
      return false;
    }
    for (const j of open()) if (minimum.colValue[j] <= SKIP_TOLERANCE) unprovable[j] = 1;
    const duals = new DualBounds(system, minimum.rowDual, bounds.lower, bounds.upper);
    const raised: number[] = [];
    for (let j = 0; j < system.numCols; j++) {
      if (bounds.lower[j] === bounds.upper[j]) continue;
      if (duals.forColumn(j) >= 1) {
        bounds.lower[j] = 1;
        raised.push(j);
      } else if (duals.upperForColumn(j) <= 0) {
        bounds.upper[j] = 0;
        raised.push(j);
      }
    }
    if (raised.length > 0) {
      const before = { lower: bounds.lower.slice(), upper: bounds.upper.slice() };
      for (const j of raised) before.lower[j] = before.upper[j] = -1;
      if (!propagateSystem(system, bounds, raised)) throw new Error('certificate: proven bounds contradict the leaf counts');
      // Proven bounds hold for every integer solution: the LP stays a relaxation, and gets tighter.
      for (let j = 0; j < system.numCols; j++) {
        if (bounds.lower[j] !== before.lower[j] || bounds.upper[j] !== before.upper[j]) minimizer.restrict(j, bounds.lower[j], bounds.upper[j]);
      }
    }
    return true;
  };
  try {
    const first = open();
    if (first.length > 1 && !outOfTime()) learn(first);
    const todo = open().filter((j) => !unprovable[j]);
    for (let n = 0; n < todo.length; n++) {
      limits.onProgress?.(n, todo.length);
      if (outOfTime()) {
        complete = false;
        break;
      }
      const j = todo[n];
      if (bounds.lower[j] >= 1 || unprovable[j]) continue;
      if (!learn([j])) break;
    }
  } finally {
    minimizer.dispose();
  }
  // 4. For the rows left open, candidates proven impossible by probing (suppose 1): the values
  // the remaining candidates agree on are then proven.
  if (!outOfTime()) probed += probeSystem(system, bounds, rivals(), () => 0, limits.deadline).length;
  for (let i = 0; i < rows; i++) {
    if (bounds.upper[chosen[i]] < 1) throw new Error(`certificate: training row ${i}'s solution candidate proven impossible`);
  }
  return { bounds, lpSolves, probed, complete };
}
