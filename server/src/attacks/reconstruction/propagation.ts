/**
 * Bound propagation over integer equalities with positive integer coefficients, in exact integer
 * arithmetic: from a row `sum a_j x_j = b` and bounds lo <= x <= hi,
 *   a_j x_j >= b - (sum of the others' a_k hi_k)   and   a_j x_j <= b - (sum of the others' a_k lo_k),
 * divided by a_j and rounded inward (x is integer). Repeated to a fixed point, this proves bounds
 * that hold for every integer solution within the starting bounds, hence for the real training
 * set. It costs microseconds per row and often settles most columns before any LP (a leaf holding
 * one cell's rows fixes that cell outright).
 *
 * One module for both systems on purpose: the aggregated formulation (formulation.ts, every
 * coefficient 1) is the special case a = 1 of the bootstrap formulations' multiplicity-weighted
 * rows (bootstrap/system.ts), so a single propagation loop serves both and a fix to it reaches
 * both. The aggregated entry points (`initialBounds`, `propagate`, `probe`) see a Formulation as
 * such a system without copying it (`systemOf`).
 */
import type { Formulation } from './formulation';

export interface Bounds {
  lower: Int32Array;
  upper: Int32Array;
}

/**
 * What propagation reads of a system: its rows, and each column's rows (to requeue them when the
 * column's bounds move). bootstrap/system.ts's IntegerSystem is one; `systemOf` makes one of a
 * Formulation.
 */
export interface PropagationSystem {
  numRows: number;
  rowRhs: ArrayLike<number>;
  /** Entries of row r: `rowCol/rowCoef[rowStart[r] .. rowStart[r + 1])`; without rowCoef every coefficient is 1. */
  rowStart: Int32Array;
  rowCol: Int32Array;
  rowCoef?: ArrayLike<number>;
  /** Rows of column j: `colRow[colStart[j] .. colStart[j + 1])`. */
  colStart: Int32Array;
  colRow: Int32Array;
}

const asSystem = new WeakMap<Formulation, PropagationSystem>();

/** The aggregated formulation as a propagation system: its own arrays, coefficients 1 (made once per formulation, like dual-bounds.ts's columnsOf). */
function systemOf(formulation: Formulation): PropagationSystem {
  let system = asSystem.get(formulation);
  if (!system) {
    const { numRows, numCols, trees, rowRhs, rowStart, rowCols, colRows } = formulation;
    // Every column meets one row per tree, stored as colRows[j * trees + t].
    const colStart = Int32Array.from({ length: numCols + 1 }, (_, j) => j * trees);
    system = { numRows, rowRhs, rowStart, rowCol: rowCols, colStart, colRow: colRows };
    asSystem.set(formulation, system);
  }
  return system;
}

/** Initial bounds of the aggregated formulation: 0 <= x_j <= the smallest count among its rows. */
export function initialBounds(formulation: Formulation): Bounds {
  const { numCols, trees, colRows, rowRhs } = formulation;
  const lower = new Int32Array(numCols);
  const upper = new Int32Array(numCols);
  for (let j = 0; j < numCols; j++) {
    let least = Number.MAX_SAFE_INTEGER;
    for (let t = 0; t < trees; t++) least = Math.min(least, rowRhs[colRows[j * trees + t]]);
    upper[j] = least;
  }
  return { lower, upper };
}

/** `propagateSystem` on the aggregated formulation. */
export function propagate(formulation: Formulation, bounds: Bounds, changed?: readonly number[]): boolean {
  return propagateSystem(systemOf(formulation), bounds, changed);
}

/**
 * Tightens `bounds` in place to the propagation fixed point. Returns false when the rows cannot
 * all hold (no integer solution exists within the bounds). With `changed`, only the rows of those
 * columns are looked at first (the bounds were at a fixed point before they changed). With
 * `trail`, records (column, old lower, old upper) before each change so that a probe can undo it.
 * With `deadline`, stops there and returns true short of the fixed point: every bound it moved is
 * still proven (each step is sound alone), only fewer; a caller that needs the fixed point (a
 * probe's contradiction) reads "true" as "no contradiction found", which is sound too.
 */
export function propagateSystem(system: PropagationSystem, bounds: Bounds, changed?: readonly number[], trail?: number[], deadline?: number): boolean {
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
    // The clock every 4,096 rows: a row costs microseconds, large systems queue millions of them.
    if (deadline !== undefined && (head & 4095) === 0 && Date.now() > deadline) return true;
    const r = queue[head];
    queued[r] = 0;
    let least = 0;
    let most = 0;
    for (let k = rowStart[r]; k < rowStart[r + 1]; k++) {
      const a = rowCoef ? rowCoef[k] : 1;
      least += a * lower[rowCol[k]];
      most += a * upper[rowCol[k]];
    }
    const b = rowRhs[r];
    if (least > b || most < b) return false;
    if (least === most) continue;
    for (let k = rowStart[r]; k < rowStart[r + 1]; k++) {
      const j = rowCol[k];
      const a = rowCoef ? rowCoef[k] : 1;
      // Computed from the sums before this row's updates: weaker than possible, still valid.
      // With a = 1 the division is exact and the rounding does nothing.
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
    // Compact the queue now and then so it does not grow without bound on long propagations.
    if (head > 65536 && head * 2 > queue.length) {
      queue = queue.slice(head + 1);
      head = -1;
    }
  }
  return true;
}

/**
 * Probing on the aggregated formulation: for each column j in `columns`, supposes
 * x_j <= target[j] - 1 and propagates; when that contradicts the equalities, no integer solution
 * has x_j below target[j], so it becomes x_j's lower bound (and is propagated). With target = a
 * known solution, a success proves that the solution's value is the least possible. Rounds repeat
 * while bounds rise, since one proven bound can make the next probe fail. Returns the columns whose
 * lower bound rose.
 */
export function probe(formulation: Formulation, bounds: Bounds, columns: readonly number[], target: Int32Array, deadline: number): number[] {
  const raised: number[] = [];
  let open = columns.filter((j) => target[j] > bounds.lower[j]);
  for (let progress = true; progress && open.length > 0; ) {
    progress = false;
    for (const j of open) {
      if (Date.now() > deadline) return raised;
      if (target[j] <= bounds.lower[j]) continue;
      const trial = { lower: bounds.lower.slice(), upper: bounds.upper.slice() };
      trial.upper[j] = target[j] - 1;
      if (trial.upper[j] >= trial.lower[j] && propagate(formulation, trial, [j])) continue;
      bounds.lower[j] = target[j];
      raised.push(j);
      progress = true;
      if (!propagate(formulation, bounds, [j])) throw new Error(`probing: column ${j} at ${target[j]} contradicts the equalities, yet a solution has it`);
    }
    open = open.filter((j) => target[j] > bounds.lower[j]);
  }
  return raised;
}

const PROBING_ROUNDS = 3;

/**
 * Probing on binary columns (the bootstrap formulations): supposes x_j takes the other value of
 * `value` and propagates; a contradiction proves x_j = value in every integer solution, which is
 * then propagated. Returns the columns it fixed. Stops at the deadline (what it proved stays proven).
 */
export function probeSystem(system: PropagationSystem, bounds: Bounds, columns: readonly number[], value: (j: number) => 0 | 1, deadline: number): number[] {
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
      const possible = propagateSystem(system, bounds, [j], trail, deadline);
      undo(bounds, trail);
      if (possible) continue;
      bounds.lower[j] = bounds.upper[j] = v;
      fixed.push(j);
      progress = true;
      if (!propagateSystem(system, bounds, [j], undefined, deadline)) throw new Error(`probing: column ${j} = ${v} contradicts the equalities, yet nothing else is possible`);
    }
  }
  return fixed;
}

/** Restores the bounds recorded in `trail` (triples column, lower, upper), latest first. */
function undo(bounds: Bounds, trail: number[]): void {
  for (let k = trail.length - 3; k >= 0; k -= 3) {
    bounds.lower[trail[k]] = trail[k + 1];
    bounds.upper[trail[k]] = trail[k + 2];
  }
}
