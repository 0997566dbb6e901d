/**
 * The solving layer over HiGHS (server/src/attacks/reconstruction/highs/): the real WebAssembly
 * solver on problems small enough that their answers are known by hand, so a broken model
 * builder (lost integrality, default row bounds, coefficients), a wrong status mapping or an
 * ignored deadline shows up as a wrong number or status here.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ColumnMinimizer, GrowingModel, loadHighs, solveMilp, withHighs, type SparseProblem } from '../../server/src/attacks/reconstruction/highs';
import { modelData } from '../../server/src/attacks/reconstruction/highs/problem';
import { endingOf } from '../../server/src/attacks/reconstruction/highs/run';
import { CUT_OFF_GRACE_MS, satisfies, solveMilpWithin } from '../../server/src/attacks/reconstruction/highs/milp-thread';

const FAR = () => Date.now() + 60_000;

/** One row 2 x0 + 2 x1 <= 5, minimise -x0 - x1: the LP optimum is -2.5, the integer one -2. */
const knapsack = (integer?: Uint8Array): SparseProblem => ({
  numCols: 2,
  numRows: 1,
  rowRhs: [5],
  rowLower: [0],
  colStart: Int32Array.from([0, 1, 2]),
  colRow: Int32Array.from([0, 0]),
  colCoef: [2, 2],
  cost: [-1, -1],
  ...(integer ? { integer } : {}),
});
const upToThree = { lower: [0, 0], upper: [3, 3] };

/**
 * A market-split instance (Cornuejols and Dawande): 4 equality rows over 30 binary columns with
 * coefficients in 0..99, the right-hand sides those of a known point (every other column at 1),
 * so it is feasible. Hard for branch and bound: HiGHS did not finish it in 3 s here, so a solve
 * that ends at once can only have been stopped.
 */
function marketSplit(): { problem: SparseProblem; bounds: { lower: Float64Array; upper: Float64Array } } {
  const rows = 4;
  const cols = 30;
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 100;
  const coef: number[] = [];
  const row: number[] = [];
  const rhs = new Float64Array(rows);
  for (let j = 0; j < cols; j++) {
    for (let r = 0; r < rows; r++) {
      const a = next();
      coef.push(a);
      row.push(r);
      rhs[r] += a * (j % 2);
    }
  }
  return {
    problem: { numCols: cols, numRows: rows, rowRhs: rhs, colStart: Int32Array.from({ length: cols + 1 }, (_, j) => j * rows), colRow: Int32Array.from(row), colCoef: coef },
    bounds: { lower: new Float64Array(cols), upper: new Float64Array(cols).fill(1) },
  };
}

describe('HiGHS layer: status mapping', () => {
  it('maps HiGHS model statuses to optimal, infeasible, stopped and error', async () => {
    const highs = await loadHighs();
    const status = highs.constants.modelStatus;
    assert.equal(endingOf(highs, status.optimal), 'optimal');
    assert.equal(endingOf(highs, status.infeasible), 'infeasible');
    assert.equal(endingOf(highs, status.timeLimit), 'stopped');
    assert.equal(endingOf(highs, status.interrupted), 'stopped');
    for (const other of [status.notSet, status.solveError, status.unbounded, status.unboundedOrInfeasible, status.iterationLimit]) {
      assert.equal(endingOf(highs, other), 'error', `model status ${other}`);
    }
  });
});

describe('HiGHS layer: model data', () => {
  it('defaults rows to equalities on rowRhs and every column to integer, copying bounds and coefficients', async () => {
    const highs = await loadHighs();
    const problem: SparseProblem = { numCols: 2, numRows: 1, rowRhs: [4], colStart: Int32Array.from([0, 1, 2]), colRow: Int32Array.from([0, 0]), colCoef: [1, 3] };
    const data = modelData(highs, problem, { lower: [1, 0], upper: [4, 2] });
    assert.deepEqual(Array.from(data.rowLower!), [4]);
    assert.deepEqual(Array.from(data.rowUpper!), [4]);
    assert.deepEqual(Array.from(data.colCost!), [0, 0]);
    assert.deepEqual(Array.from(data.colLower!), [1, 0]);
    assert.deepEqual(Array.from(data.colUpper!), [4, 2]);
    assert.deepEqual(Array.from(data.integrality!), [highs.constants.variableType.integer, highs.constants.variableType.integer]);
    const mixed = modelData(highs, knapsack(Uint8Array.from([1, 0])), upToThree);
    assert.deepEqual(Array.from(mixed.integrality!), [highs.constants.variableType.integer, highs.constants.variableType.continuous]);
  });
});

describe('HiGHS layer: one-shot MILP', () => {
  it('finds the known integer optimum, and the relaxed one when a column is continuous', async () => {
    const highs = await loadHighs();
    const integral = solveMilp(highs, knapsack(), upToThree, { deadline: FAR() });
    assert.equal(integral.status, 'optimal');
    assert.ok(Math.abs(integral.objective! + 2) < 1e-9, `objective ${integral.objective}`);
    assert.ok(Math.abs(integral.colValue![0] + integral.colValue![1] - 2) < 1e-9);
    const mixed = solveMilp(highs, knapsack(Uint8Array.from([1, 0])), upToThree, { deadline: FAR() });
    assert.equal(mixed.status, 'optimal');
    assert.ok(Math.abs(mixed.objective! + 2.5) < 1e-9, `objective ${mixed.objective}`);
  });

  it('says infeasible when the bounds cannot meet the rows', async () => {
    const highs = await loadHighs();
    const problem: SparseProblem = { numCols: 2, numRows: 1, rowRhs: [3], colStart: Int32Array.from([0, 1, 2]), colRow: Int32Array.from([0, 0]), colCoef: [1, 1] };
    const result = solveMilp(highs, problem, { lower: [0, 0], upper: [1, 1] }, { deadline: FAR() });
    assert.equal(result.status, 'infeasible');
    assert.equal(result.colValue, undefined);
  });

  it('stops at a deadline already reached, and when asked to through the interrupt checkpoints', async () => {
    const highs = await loadHighs();
    const { problem, bounds } = marketSplit();
    let started = Date.now();
    const late = solveMilp(highs, problem, bounds, { deadline: Date.now() });
    assert.equal(late.status, 'stopped');
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms past a deadline already reached`);
    started = Date.now();
    const cancelled = solveMilp(highs, problem, bounds, { deadline: FAR(), shouldStop: () => true });
    assert.equal(cancelled.status, 'stopped');
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms after being asked to stop`);
  });
});

describe('HiGHS layer: persistent models', () => {
  it('ColumnMinimizer prices in the columns a minimum needs and keeps tightened bounds', async () => {
    const highs = await loadHighs();
    // x0 + x1 = 2, x1 + x2 = 1, 0 <= x <= 2. Started from the support of (2, 0, 1), without x1.
    const system = { numCols: 3, numRows: 2, rowRhs: [2, 1], colStart: Int32Array.from([0, 1, 3, 4]), colRow: Int32Array.from([0, 0, 1, 1]), colCoef: [1, 1, 1, 1] };
    const bounds = { lower: new Int32Array(3), upper: Int32Array.from([2, 2, 2]) };
    const minimizer = new ColumnMinimizer(highs, system, bounds, [0, 2]);
    try {
      assert.equal(minimizer.restrictedColumns, 2);
      for (const method of ['simplex', 'interior-point'] as const) {
        const x0 = minimizer.minimize([0], method, { deadline: FAR() });
        assert.equal(x0.status, 'optimal', method);
        if (x0.status !== 'optimal') return;
        // min x0 needs x1 = 1: only pricing can bring it in.
        assert.ok(Math.abs(x0.objective - 1) < 1e-6, `${method}: objective ${x0.objective}`);
        assert.ok(Math.abs(x0.colValue[1] - 1) < 1e-6, `${method}: x1 = ${x0.colValue[1]}`);
        assert.equal(minimizer.restrictedColumns, 3);
      }
      // x1 >= 1 proven elsewhere (min x1 was 0, at (2, 0, 1)): HiGHS gets the bound, and so do the caller's bounds.
      minimizer.restrict(1, 1, 2);
      assert.equal(bounds.lower[1], 1);
      const x1 = minimizer.minimize([1], 'simplex', { deadline: FAR() });
      assert.equal(x1.status, 'optimal');
      if (x1.status === 'optimal') assert.ok(Math.abs(x1.objective - 1) < 1e-9, `objective ${x1.objective}`);
    } finally {
      minimizer.dispose();
    }
  });

  it('GrowingModel solves the relaxation, then the MILP from a start', async () => {
    const highs = await loadHighs();
    const model = new GrowingModel(highs, Float64Array.from([0]), Float64Array.from([5]));
    try {
      const first = model.addColumns({ cost: Float64Array.from([-1, -1]), lower: new Float64Array(2), upper: Float64Array.from([3, 3]), starts: Int32Array.from([0, 1, 2]), indices: Int32Array.from([0, 0]), values: Float64Array.from([2, 2]) });
      assert.equal(first, 0);
      assert.equal(model.numCols, 2);
      const lp = model.solveRelaxation({ deadline: FAR() });
      assert.equal(lp.status, 'optimal');
      if (lp.status === 'optimal') assert.ok(Math.abs(lp.objective + 2.5) < 1e-9, `LP objective ${lp.objective}`);
      const improving: number[] = [];
      const milp = model.solveInteger(Int32Array.from([0, 1]), { deadline: FAR() }, { start: Float64Array.from([1, 0]), onImproving: (_, objective) => improving.push(objective) });
      assert.equal(milp.status, 'optimal');
      assert.ok(Math.abs(milp.objective! + 2) < 1e-9, `MILP objective ${milp.objective}`);
      assert.ok(improving.length > 0 && improving.at(-1)! <= -1, `incumbents ${improving}`);
    } finally {
      model.dispose();
    }
  });
});

describe('HiGHS layer: withHighs', () => {
  it('returns what the solve returns, and turns a fault into the failed answer with a fresh runtime next time', async () => {
    assert.equal(await withHighs((highs) => typeof highs.createModel, () => 'failed'), 'function');
    const before = loadHighs();
    const answer = await withHighs(
      () => {
        throw new Error('boom');
      },
      (reason) => reason,
    );
    assert.equal(answer, 'the solver failed: boom');
    assert.notEqual(loadHighs(), before, 'the runtime is discarded after a fault');
    await loadHighs();
  });
});

describe('HiGHS layer: a solve in its own thread (milp-thread.ts)', () => {
  it('solves in the thread as in this one: the integer optimum of the knapsack', async () => {
    const highs = await loadHighs();
    const integer = Uint8Array.from([1, 1]);
    const here = solveMilp(highs, knapsack(integer), upToThree, { deadline: FAR() });
    const there = await solveMilpWithin(highs, knapsack(integer), upToThree, { deadline: FAR() }, { offThreadFrom: 0 });
    assert.equal(there.status, 'optimal');
    assert.equal(there.objective, here.objective);
    assert.equal(there.objective, -2);
    assert.equal(there.colValue![0] + there.colValue![1], 2);
    assert.equal(there.cutOff, undefined);
  });

  it('the caller\'s shouldStop terminates the thread mid-solve; the deadline alone stops it too', async () => {
    const highs = await loadHighs();
    const { problem, bounds } = marketSplit();
    const began = Date.now();
    // The thread's own HiGHS is told of no stop: only terminating it ends this solve before 60 s.
    const stopped = await solveMilpWithin(highs, problem, bounds, { deadline: FAR(), shouldStop: () => Date.now() - began > 200 }, { offThreadFrom: 0 });
    const seconds = (Date.now() - began) / 1000;
    assert.equal(stopped.status, 'stopped');
    assert.equal(stopped.cutOff, true);
    assert.ok(seconds < 2, `${seconds} s, stopped at 0.2 s`);
    // A point it reported before it was cut off, if any, is one of the problem's.
    if (stopped.colValue) assert.ok(satisfies(problem, bounds, stopped.colValue));
    const timed = Date.now();
    const byDeadline = await solveMilpWithin(highs, problem, bounds, { deadline: Date.now() + 300 }, { offThreadFrom: 0 });
    assert.equal(byDeadline.status, 'stopped');
    assert.ok(Date.now() - timed < 300 + CUT_OFF_GRACE_MS + 1_500, `${Date.now() - timed} ms for a 300 ms deadline`);
  });

  it('keeps a reported point only if it is one of the problem\'s', () => {
    const { problem, bounds } = marketSplit();
    const known = Float64Array.from({ length: problem.numCols }, (_, j) => j % 2);
    assert.ok(satisfies(problem, bounds, known));
    const flipped = Float64Array.from(known);
    flipped[0] = 1;
    assert.ok(!satisfies(problem, bounds, flipped), 'a row broken');
    assert.ok(!satisfies(problem, bounds, Float64Array.from(known, (v, j) => (j === 1 ? 0.5 : v))), 'not integer');
    assert.ok(!satisfies(problem, bounds, known.subarray(1)), 'wrong length');
    // 2 x0 + 2 x1 <= 5 holds at (2, 0), but not x0 <= 1.
    assert.ok(satisfies(knapsack(), upToThree, [2, 0]));
    assert.ok(!satisfies(knapsack(), { lower: [0, 0], upper: [1, 1] }, [2, 0]), 'out of bounds');
  });
});
