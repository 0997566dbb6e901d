/**
 * Minimum-cost matching between two sets of rows (the linear sum assignment problem), by the
 * Hungarian algorithm with row and column potentials: O(n^2 m) for n rows and m >= n columns.
 * The papers align a reconstruction with the true training set this way before counting errors
 * (DRAFT uses scipy's linear_sum_assignment).
 */

export interface Matching {
  /** Column assigned to each row. */
  columnOfRow: Int32Array;
  totalCost: number;
}

/**
 * Assigns every row of `cost` (n x m, n <= m) to a distinct column with the least total cost.
 * When n > m the problem is solved on the transpose and every column gets a distinct row;
 * rows left over get -1.
 */
export function minimumCostMatching(cost: readonly (ArrayLike<number>)[]): Matching {
  const n = cost.length;
  const m = n === 0 ? 0 : cost[0].length;
  if (n === 0 || m === 0) return { columnOfRow: new Int32Array(n).fill(-1), totalCost: 0 };
  if (n > m) {
    const transposed = Array.from({ length: m }, (_, j) => Float64Array.from({ length: n }, (_, i) => cost[i][j]));
    const inner = minimumCostMatching(transposed);
    const columnOfRow = new Int32Array(n).fill(-1);
    inner.columnOfRow.forEach((row, column) => (columnOfRow[row] = column));
    return { columnOfRow, totalCost: inner.totalCost };
  }
  // 1-based internally; column 0 is a virtual column holding the row being inserted.
  const rowPotential = new Float64Array(n + 1);
  const columnPotential = new Float64Array(m + 1);
  const rowOfColumn = new Int32Array(m + 1);
  const previousColumn = new Int32Array(m + 1);
  const slack = new Float64Array(m + 1);
  const visited = new Uint8Array(m + 1);
  for (let row = 1; row <= n; row++) {
    rowOfColumn[0] = row;
    let column = 0;
    slack.fill(Infinity);
    visited.fill(0);
    // Grow a tree of tight edges from `row` until it reaches a free column (a shortest augmenting path).
    do {
      visited[column] = 1;
      const current = rowOfColumn[column];
      let delta = Infinity;
      let next = -1;
      for (let j = 1; j <= m; j++) {
        if (visited[j]) continue;
        const reduced = cost[current - 1][j - 1] - rowPotential[current] - columnPotential[j];
        if (reduced < slack[j]) {
          slack[j] = reduced;
          previousColumn[j] = column;
        }
        if (slack[j] < delta) {
          delta = slack[j];
          next = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (visited[j]) {
          rowPotential[rowOfColumn[j]] += delta;
          columnPotential[j] -= delta;
        } else {
          slack[j] -= delta;
        }
      }
      column = next;
    } while (rowOfColumn[column] !== 0);
    // Flip the path back to the virtual column.
    while (column !== 0) {
      const before = previousColumn[column];
      rowOfColumn[column] = rowOfColumn[before];
      column = before;
    }
  }
  const columnOfRow = new Int32Array(n).fill(-1);
  let totalCost = 0;
  for (let j = 1; j <= m; j++) {
    if (rowOfColumn[j] === 0) continue;
    columnOfRow[rowOfColumn[j] - 1] = j - 1;
    totalCost += cost[rowOfColumn[j] - 1][j - 1];
  }
  return { columnOfRow, totalCost };
}
