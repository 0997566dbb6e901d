/**
 * Bound propagation over the leaf equalities, in exact integer arithmetic. From a row
 * `sum of x_j = b` and bounds lo <= x <= hi on its columns, each column satisfies
 * `x_j >= b - (sum of the others' hi)` and `x_j <= b - (sum of the others' lo)`. Repeated to a
 * fixed point, this proves bounds that hold for every integer solution, hence for the real
 * training set. It costs microseconds per row and often settles most columns before any LP
 * (a leaf holding one cell's rows fixes that cell outright).
 */
import type { Formulation } from './formulation';

export interface Bounds {
  lower: Int32Array;
  upper: Int32Array;
}

/** Initial bounds: 0 <= x_j <= the smallest count among its rows. */
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

/**
 * Tightens `bounds` in place to the propagation fixed point. Returns false when the rows cannot
 * all hold (no integer solution exists within the bounds). With `changed`, only the rows of those
 * columns are looked at first (the bounds were at a fixed point before they changed).
 */
export function propagate(formulation: Formulation, bounds: Bounds, changed?: readonly number[]): boolean {
  const { numRows, rowStart, rowCols, rowRhs, colRows, trees } = formulation;
  const { lower, upper } = bounds;
  const queued = new Uint8Array(numRows);
  const queue: number[] = [];
  const touch = (j: number) => {
    for (let t = 0; t < trees; t++) {
      const r = colRows[j * trees + t];
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
    let sumLower = 0;
    let sumUpper = 0;
    for (let k = rowStart[r]; k < rowStart[r + 1]; k++) {
      sumLower += lower[rowCols[k]];
      sumUpper += upper[rowCols[k]];
    }
    const b = rowRhs[r];
    if (sumLower > b || sumUpper < b) return false;
    if (sumLower === sumUpper) continue;
    for (let k = rowStart[r]; k < rowStart[r + 1]; k++) {
      const j = rowCols[k];
      // Computed from the sums before this row's updates: weaker than possible, still valid.
      const atLeast = b - (sumUpper - upper[j]);
      const atMost = b - (sumLower - lower[j]);
      let changed = false;
      if (atLeast > lower[j]) {
        lower[j] = atLeast;
        changed = true;
      }
      if (atMost < upper[j]) {
        upper[j] = atMost;
        changed = true;
      }
      if (lower[j] > upper[j]) return false;
      if (changed) touch(j);
    }
    // Compact the queue now and then so it does not grow without bound on long propagations.
    if (head > 65536 && head * 2 > queue.length) {
      queue.splice(0, head + 1);
      head = -1;
    }
  }
  return true;
}

/**
 * Probing: for each column j in `columns`, supposes x_j <= target[j] - 1 and propagates; when that
 * contradicts the equalities, no integer solution has x_j below target[j], so it becomes x_j's
 * lower bound (and is propagated). With target = a known solution, a success proves that the
 * solution's value is the least possible. Rounds repeat while bounds rise, since one proven bound
 * can make the next probe fail. Returns the columns whose lower bound rose.
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
