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
 * Solves are skipped when they cannot raise a bound: a column whose value in some known solution
 * (the integer one, or an earlier LP optimum still within the current bounds) is already at its
 * bound has an LP minimum no higher. Each bound raised is added to the LP as a column bound: it
 * holds for every integer solution, so the relaxation stays a relaxation and later bounds get
 * stronger.
 *
 * Soundness does not rest on the LP solver's tolerances: the bound is not HiGHS's objective value
 * but the weak-duality bound recomputed here from its row duals y. For any y and every x with
 * A x = b, lo <= x <= hi: x_j = b'y + (e_j - A'y)'x >= b'y + sum over i of min(r_i lo_i, r_i hi_i),
 * with r = e_j - A'y. Any y gives a valid bound; a good y gives the LP minimum. Floating-point
 * error of this sum is bounded and subtracted before rounding up.
 */
import type { Highs } from 'highs';
import type { Formulation } from './formulation';
import { ColumnMinimizer, type SolveLimits } from './highs';
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

export function certify(highs: Highs, formulation: Formulation, propagated: Bounds, solution: Int32Array | undefined, options: CertifyOptions): Certificate {
  const lower = propagated.lower.slice();
  const upper = propagated.upper.slice();
  const { numCols } = formulation;
  const candidates: number[] = [];
  let fixedByPropagation = 0;
  for (let j = 0; j < numCols; j++) {
    const target = solution ? solution[j] : upper[j];
    if (target > lower[j]) candidates.push(j);
    else if (lower[j] > 0) fixedByPropagation++;
  }
  if (candidates.length === 0) return { lower, lpSolves: 0, fixedByPropagation, probed: 0, complete: true };
  const probed = solution ? probe(formulation, { lower, upper }, candidates, solution, options.deadline).length : 0;
  const open = candidates.filter((j) => (solution ? solution[j] : upper[j]) > lower[j]);

  // Known points of the current relaxation: the integer solution satisfies every proven bound
  // forever; LP optima are dropped once a raised bound cuts them off.
  const witnesses: Float64Array[] = solution ? [Float64Array.from(solution)] : [];
  const support = solution ? Array.from(solution.keys()).filter((j) => solution[j] > 0) : undefined;
  const minimizer = new ColumnMinimizer(highs, formulation, { lower, upper }, support);
  let lpSolves = 0;
  let complete = true;
  try {
    for (let i = 0; i < open.length; i++) {
      options.onProgress?.(i, open.length);
      if (Date.now() > options.deadline || options.shouldStop?.()) {
        complete = false;
        break;
      }
      const j = open[i];
      if (witnesses.some((point) => point[j] <= lower[j] + SKIP_TOLERANCE)) continue;
      const minimum = minimizer.minimize(j, options);
      lpSolves++;
      if (minimum.status !== 'optimal') {
        complete = false;
        if (minimum.status === 'timeout') break;
        continue;
      }
      const proven = Math.min(upper[j], provenLowerBound(formulation, j, minimum.rowDual, lower, upper));
      if (proven > lower[j]) {
        lower[j] = proven;
        minimizer.raiseLower(j, proven);
        for (let w = witnesses.length - 1; w >= (solution ? 1 : 0); w--) {
          if (witnesses[w][j] < proven - SKIP_TOLERANCE) witnesses.splice(w, 1);
        }
      }
      witnesses.push(minimum.colValue);
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

/**
 * ceil of the weak-duality bound on x_column from row duals y (see the module comment), computed
 * in floating point with its rounding error subtracted first.
 */
export function provenLowerBound(formulation: Formulation, column: number, y: Float64Array, lower: Int32Array, upper: Int32Array): number {
  const { numRows, numCols, trees, colRows, rowRhs } = formulation;
  let bound = 0;
  let magnitude = 0;
  for (let r = 0; r < numRows; r++) {
    const term = rowRhs[r] * y[r];
    bound += term;
    magnitude += Math.abs(term);
  }
  for (let i = 0; i < numCols; i++) {
    let aty = 0;
    let atyMagnitude = 0;
    for (let t = 0; t < trees; t++) {
      const dual = y[colRows[i * trees + t]];
      aty += dual;
      atyMagnitude += Math.abs(dual);
    }
    const reduced = (i === column ? 1 : 0) - aty;
    const term = reduced > 0 ? reduced * lower[i] : reduced * upper[i];
    bound += term;
    magnitude += Math.abs(term) + (atyMagnitude + 1) * upper[i];
  }
  // Each term passes through at most (trees + 2) roundings and the sum through numRows + numCols more;
  // the classic bound n * eps * sum|terms| with n counted generously.
  const operations = numRows + numCols * (trees + 3);
  const error = 2 * operations * Number.EPSILON * magnitude + 1e-9;
  return Math.ceil(bound - error);
}
