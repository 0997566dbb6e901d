/**
 * Bound propagation for a system with positive integer coefficients (system.ts), in exact integer
 * arithmetic: from a row `sum a_j x_j = b` and bounds lo <= x <= hi,
 *   a_j x_j >= b - (sum of the others' a_k hi_k)   and   a_j x_j <= b - (sum of the others' a_k lo_k),
 * divided by a_j and rounded inward (x is integer). At the fixed point, the bounds hold for every
 * integer solution within the starting bounds, hence for the real training set. The aggregated
 * method's propagation.ts is the special case a = 1; this one also serves the multiplicity-weighted
 * rows of the bootstrap formulations.
 */
import type { IntegerSystem } from './system';

export interface IntegerBounds {
  lower: Int32Array;
  upper: Int32Array;
}

/**
 * Tightens `bounds` in place to the fixed point. False when the rows cannot all hold. With
 * `changed`, only the rows of those columns are queued first (the bounds were at a fixed point).
 */
export function propagateSystem(system: IntegerSystem, bounds: IntegerBounds, changed?: readonly number[], trail?: number[]): boolean {
  const { numRows, rowStart, rowCol, rowCoef, rowRhs, colStart, colRow } = system;
  const { lower, upper } = bounds;
  const queued = new Uint8Array(numRows);
  let queue: number[] = [];
  const touch = (j: number) => {
    for (let k = colStart[j]; k < colStart[j + 1]; k++) {
      const r = colRow[k];
      if (!queued[r]) {
        queued[r] = 1;
        queue.push(r);
      }
    }
  };
  if (changed) changed.forEach(touch);
  else {
    queued.fill(1);
    for (let r = 0; r < numRows; r++) queue.push(r);
  }
  for (let head = 0; head < queue.length; head++) {
    const r = queue[head];
    queued[r] = 0;
    let least = 0;
    let most = 0;
    for (let k = rowStart[r]; k < rowStart[r + 1]; k++) {
      least += rowCoef[k] * lower[rowCol[k]];
      most += rowCoef[k] * upper[rowCol[k]];
    }
    const b = rowRhs[r];
    if (least > b || most < b) return false;
    if (least === most) continue;
    for (let k = rowStart[r]; k < rowStart[r + 1]; k++) {
      const j = rowCol[k];
      const a = rowCoef[k];
      // From the sums before this row's updates: weaker than possible, still valid.
      const atLeast = Math.ceil((b - (most - a * upper[j])) / a);
      const atMost = Math.floor((b - (least - a * lower[j])) / a);
      let moved = false;
      // Old bounds first, so that a probe can undo what it tried (see undo()).
      if (trail && (atLeast > lower[j] || atMost < upper[j])) trail.push(j, lower[j], upper[j]);
      if (atLeast > lower[j]) {
        lower[j] = atLeast;
        moved = true;
      }
      if (atMost < upper[j]) {
        upper[j] = atMost;
        moved = true;
      }
      if (lower[j] > upper[j]) return false;
      if (moved) touch(j);
    }
    if (head > 65536 && head * 2 > queue.length) {
      queue = queue.slice(head + 1);
      head = -1;
    }
  }
  return true;
}

const PROBING_ROUNDS = 3;

/**
 * Probing on binary columns: supposes x_j takes the other value of `value` and propagates; a
 * contradiction proves x_j = value in every integer solution, which is then propagated. Returns
 * the columns it fixed. Stops at the deadline (what it proved stays proven).
 */
export function probeSystem(system: IntegerSystem, bounds: IntegerBounds, columns: readonly number[], value: (j: number) => 0 | 1, deadline: number): number[] {
  const fixed: number[] = [];
  // One fixed column can make the next probe fail, so rounds repeat while they fix something (a few at most).
  for (let round = 0, progress = true; progress && round < PROBING_ROUNDS; round++) {
    progress = false;
    for (const j of columns) {
      if (bounds.lower[j] === bounds.upper[j]) continue;
      if (Date.now() > deadline) return fixed;
      const v = value(j);
      const trail = [j, bounds.lower[j], bounds.upper[j]];
      bounds.lower[j] = bounds.upper[j] = 1 - v;
      const possible = propagateSystem(system, bounds, [j], trail);
      undo(bounds, trail);
      if (possible) continue;
      bounds.lower[j] = bounds.upper[j] = v;
      fixed.push(j);
      progress = true;
      if (!propagateSystem(system, bounds, [j])) throw new Error(`probing: column ${j} = ${v} contradicts the equalities, yet nothing else is possible`);
    }
  }
  return fixed;
}

/** Restores the bounds recorded in `trail` (triples column, lower, upper), latest first. */
function undo(bounds: IntegerBounds, trail: number[]): void {
  for (let k = trail.length - 3; k >= 0; k -= 3) {
    bounds.lower[trail[k]] = trail[k + 1];
    bounds.upper[trail[k]] = trail[k + 2];
  }
}
