/**
 * The certificate: for every column (merged cell, class), a lower bound on its multiplicity that
 * holds for every training set consistent with the model, hence for the real one. The sum of the
 * bounds is the number of training rows proven to exist, with the cell's determined features and
 * that class, without access to the data.
 *
 * Bounds come from, in order of cost:
 *  1. integer bound propagation (propagation.ts), already done by the caller;
 *  2. probing: supposing a column below the integer solution's value and propagating; a
 *     contradiction proves the solution's value (propagation.ts);
 *  3. for each column still below the integer solution's value, the LP minimum of that column over
 *     the leaf equalities, rounded up (multiplicities are integers).
 * The integer solution's value is the most any bound can reach, so only columns below it are
 * worked on, and LP solves are saved three ways:
 *  - a column whose value in some known point of the relaxation (the integer solution, or an
 *    earlier LP optimum still within the current bounds) is at its bound has an LP minimum no
 *    higher: no solve. A first "witness hunt" minimises the sum of all open columns with the
 *    simplex method, whose vertex optimum puts many of them at their bounds at once;
 *  - the duals of every LP are tried as a bound on every open column (one pass, dual-bounds.ts);
 *  - each bound raised becomes a column bound of the LP: it holds for every integer solution, so
 *    the relaxation stays a relaxation and later bounds get stronger.
 * Measured on the 20-tree fixtures without groups (Default Credit, Adult): 53 and 35 LPs of
 * about 200-300 ms each before, 32 and 16 after, certificate unchanged.
 *
 * Soundness does not rest on the LP solver: every bound is recomputed from the LP's row duals by
 * weak duality, valid for any dual vector (dual-bounds.ts).
 */
import type { Highs } from 'highs';
import type { Formulation } from './formulation';
import { columnsOf, DualBounds } from './dual-bounds';
import { ColumnMinimizer, type LpMinimum, type SolveLimits } from './highs';
import { probe, propagate, type Bounds } from './propagation';

export interface Certificate {
  /** Per column: proven lower bound on its multiplicity in the real training set. */
  lower: Int32Array;
  /** Bounding LPs solved. */
  lpSolves: number;
  /** Columns of the solution whose bound propagation alone already matched it. */
  fixedByPropagation: number;
  /** Columns whose bound probing raised to the solution's value (no LP needed). */
  probed: number;
  /** False when time ran out before every column was bounded (the bounds are valid, only weaker). */
  complete: boolean;
}

export interface CertifyOptions extends SolveLimits {
  /** Stops early (cancellation); bounds found so far are kept. */
  shouldStop?: () => boolean;
  onProgress?: (done: number, total: number) => void;
}

/** Below this an LP value counts as sitting on its bound, when deciding to skip a solve (never for soundness). */
const SKIP_TOLERANCE = 1e-7;
/** Witness-hunting LPs before bounding columns one by one (each round must witness some column to continue). */
const WITNESS_ROUNDS = 3;

export function certify(highs: Highs, formulation: Formulation, propagated: Bounds, solution: Int32Array | undefined, options: CertifyOptions): Certificate {
  const lower = propagated.lower.slice();
  const upper = propagated.upper.slice();
  const { numCols } = formulation;
  /** The most a column's bound can reach: its value in the integer solution (or its upper bound without one). */
  const target = (j: number) => (solution ? solution[j] : upper[j]);
  const candidates: number[] = [];
  let fixedByPropagation = 0;
  for (let j = 0; j < numCols; j++) {
    if (target(j) > lower[j]) candidates.push(j);
    else if (lower[j] > 0) fixedByPropagation++;
  }
  if (candidates.length === 0) return { lower, lpSolves: 0, fixedByPropagation, probed: 0, complete: true };
  const probed = solution ? probe(formulation, { lower, upper }, candidates, solution, options.deadline).length : 0;
  const open = candidates.filter((j) => target(j) > lower[j]);

  // Known points of the current relaxation: the integer solution satisfies every proven bound
  // forever; LP optima are dropped once a raised bound cuts them off.
  const witnesses: Float64Array[] = solution ? [Float64Array.from(solution)] : [];
  const witnessed = (j: number) => witnesses.some((point) => point[j] <= lower[j] + SKIP_TOLERANCE);
  const support = solution ? Array.from(solution.keys()).filter((j) => solution[j] > 0) : undefined;
  const minimizer = new ColumnMinimizer(highs, columnsOf(formulation), { lower, upper }, support);
  let lpSolves = 0;
  let complete = true;
  /** Keeps an LP optimum as a witness and raises every open bound its duals prove. False when the LP gave no optimum. */
  const learn = (minimum: LpMinimum): boolean => {
    lpSolves++;
    if (minimum.status !== 'optimal') {
      complete = false;
      return false;
    }
    witnesses.push(minimum.colValue);
    const duals = new DualBounds(formulation, minimum.rowDual, lower, upper);
    for (const column of open) {
      const proven = Math.min(upper[column], duals.forColumn(column));
      if (proven <= lower[column]) continue;
      lower[column] = proven;
      minimizer.restrict(column, proven, upper[column]);
      for (let w = witnesses.length - 1; w >= (solution ? 1 : 0); w--) {
        if (witnesses[w][column] < proven - SKIP_TOLERANCE) witnesses.splice(w, 1);
      }
    }
    return true;
  };
  const outOfTime = () => Date.now() > options.deadline || options.shouldStop?.() === true;
  try {
    // Witness hunt: a vertex minimising the sum of the open columns puts many of them at their
    // bounds at once, which rules out raising those bounds without one LP each.
    for (let hunt = open.filter((j) => !witnessed(j)), round = 0; hunt.length > 1 && round < WITNESS_ROUNDS; round++) {
      if (outOfTime() || !learn(minimizer.minimize(hunt, 'simplex', options))) break;
      const left = hunt.filter((j) => !witnessed(j) && target(j) > lower[j]);
      if (left.length === hunt.length) break;
      hunt = left;
    }
    for (let i = 0; i < open.length; i++) {
      options.onProgress?.(i, open.length);
      if (outOfTime()) {
        complete = false;
        break;
      }
      const j = open[i];
      if (target(j) <= lower[j] || witnessed(j)) continue;
      const minimum = minimizer.minimize([j], 'interior-point', options);
      if (!learn(minimum) && minimum.status === 'stopped') break;
    }
  } finally {
    minimizer.dispose();
  }
  // Raised bounds can raise others through the equalities.
  const final = { lower, upper };
  if (!propagate(formulation, final)) throw new Error('certificate: proven bounds contradict the leaf counts');
  if (solution) {
    for (let j = 0; j < numCols; j++) {
      if (lower[j] > solution[j]) throw new Error(`certificate: column ${j} bounded at ${lower[j]} above the solution's ${solution[j]}`);
    }
  }
  return { lower, lpSolves, fixedByPropagation, probed, complete };
}
