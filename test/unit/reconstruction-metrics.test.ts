/**
 * The evaluation measures: the Hungarian matching against brute force over all assignments, and
 * the papers' error, perfect-row share and random baseline on hand-checked and real data.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { minimumCostMatching } from '../../server/src/evaluate/matching';
import { evaluateReconstruction, randomBaselineError } from '../../server/src/evaluate/metrics';
import { FIXTURES } from '../support/paths';
import { seededRandom } from '../support/random-forests';
import { readTrainingRows } from '../support/reconstruction-truth';

/** Least total cost over every injective assignment of rows to columns (n <= m), by recursion. */
function bruteForceMinimum(cost: number[][]): number {
  const m = cost[0].length;
  const used = new Array<boolean>(m).fill(false);
  const best = (row: number): number => {
    if (row === cost.length) return 0;
    let least = Infinity;
    for (let j = 0; j < m; j++) {
      if (used[j]) continue;
      used[j] = true;
      least = Math.min(least, cost[row][j] + best(row + 1));
      used[j] = false;
    }
    return least;
  };
  return best(0);
}

describe('minimum-cost matching', () => {
  it('finds the brute-force optimum on random square and rectangular matrices', () => {
    const random = seededRandom(42);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(random() * 6);
      const m = n + Math.floor(random() * 3);
      // Small integer costs make ties (and degenerate potentials) frequent.
      const cost = Array.from({ length: n }, () => Array.from({ length: m }, () => Math.floor(random() * 5)));
      const { columnOfRow, totalCost } = minimumCostMatching(cost);
      assert.equal(totalCost, bruteForceMinimum(cost), `trial ${trial}: ${JSON.stringify(cost)}`);
      assert.equal(new Set(columnOfRow).size, n, 'columns are distinct');
      assert.equal(
        Array.from(columnOfRow).reduce((sum, j, i) => sum + cost[i][j], 0),
        totalCost,
      );
      // More rows than columns: solved on the transpose, every column used once.
      const transposed = cost[0].map((_, j) => cost.map((row) => row[j]));
      const wide = minimumCostMatching(transposed);
      assert.equal(wide.totalCost, totalCost);
      assert.equal(Array.from(wide.columnOfRow).filter((j) => j >= 0).length, n);
    }
  });
});

describe('reconstruction metrics', () => {
  it('aligns rows before comparing them, and counts undetermined values as wrong', () => {
    const truth = [
      { values: [1, 0, 0, 1], label: 1 },
      { values: [0, 1, 1, 0], label: 0 },
    ];
    // Same rows in the other order, one value left undetermined.
    const reconstructed = [
      { values: [0, 1, null, 0], label: 0 },
      { values: [1, 0, 0, 1], label: 1 },
    ];
    const quality = evaluateReconstruction(reconstructed, truth);
    assert.deepEqual(Array.from(quality.matchOfTrueRow), [1, 0]);
    assert.equal(quality.error, (0 + 1 / 4) / 2);
    assert.equal(quality.perfectRows, 0.5);
    assert.equal(quality.worstRow, 0.25);
    assert.equal(quality.labelErrors, 0);
  });

  it('counts true rows left unmatched by a shorter reconstruction as entirely wrong', () => {
    const truth = [{ values: [1, 1] }, { values: [0, 0] }, { values: [1, 0] }];
    const quality = evaluateReconstruction([{ values: [0, 0] }], truth);
    assert.equal(quality.error, 2 / 3);
    assert.equal(quality.perfectRows, 1 / 3);
  });

  it('gives the random baseline the papers report for COMPAS (about 0.20-0.25)', () => {
    const { rows } = readTrainingRows(join(FIXTURES, 'reconstruction/rf_compas_t20.train.csv'));
    const groups = [
      { kind: 'one-hot' as const, features: [1, 2, 3, 4, 5] },
      { kind: 'one-hot' as const, features: [9, 10, 11, 12] },
    ];
    const baseline = randomBaselineError(rows, groups, [0, 1], 20, 7);
    assert.ok(baseline > 0.18 && baseline < 0.27, `baseline ${baseline}`);
    // The truth against itself has no error.
    assert.equal(evaluateReconstruction(rows, rows).error, 0);
  });
});
