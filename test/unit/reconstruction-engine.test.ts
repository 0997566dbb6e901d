/**
 * The reconstruction engine end to end on random forests with known training rows:
 *  - soundness: every proven lower bound is at most the true multiplicity, and on tiny instances
 *    at most the minimum over ALL integer solutions (found by exhaustive search); `exact` only
 *    when the solution is the only one;
 *  - the integer solution satisfies every leaf equality;
 *  - the weak-duality bound is valid for any dual vector, not only an optimal one;
 *  - statuses: skipped, failed, timeout (budget and cancellation), and progress reports.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { reconstruct, reconstructWithDetails } from '../../server/src/attacks/reconstruction';
import { provenLowerBound } from '../../server/src/attacks/reconstruction/dual-bounds';
import { satisfiesAll, type Formulation } from '../../server/src/attacks/reconstruction/formulation';
import { initialBounds, propagate } from '../../server/src/attacks/reconstruction/propagation';
import type { ReconstructionPhase } from '../../server/src/attacks/reconstruction/types';
import type { Forest, Tree } from '../../server/src/forest/schema';
import { randomForest, seededRandom, type RandomSetup } from '../support/random-forests';
import { trueMultiplicities } from '../support/reconstruction-truth';

/** Every nonnegative integer x with A x = b (small instances only). */
function allSolutions(formulation: Formulation): Int32Array[] {
  const { numCols, trees, colRows, rowRhs } = formulation;
  const remaining = Int32Array.from(rowRhs);
  const x = new Int32Array(numCols);
  const solutions: Int32Array[] = [];
  const search = (j: number): void => {
    if (j === numCols) {
      if (remaining.every((r) => r === 0)) solutions.push(x.slice());
      return;
    }
    let most = Infinity;
    for (let t = 0; t < trees; t++) most = Math.min(most, remaining[colRows[j * trees + t]]);
    for (let v = 0; v <= most; v++) {
      x[j] = v;
      for (let t = 0; t < trees; t++) remaining[colRows[j * trees + t]] -= v;
      search(j + 1);
      for (let t = 0; t < trees; t++) remaining[colRows[j * trees + t]] += v;
    }
    x[j] = 0;
  };
  search(0);
  return solutions;
}

const tiny: RandomSetup = { features: 6, rows: 6, classes: 2, trees: 3, maxDepth: 3, groups: [{ kind: 'one-hot', features: [0, 1, 2] }] };
const small: RandomSetup = { features: 10, rows: 40, classes: 2, trees: 8, maxDepth: 6, groups: [{ kind: 'one-hot', features: [0, 1, 2, 3] }, { kind: 'at-most-one', features: [6, 7] }] };
const shallow: RandomSetup = { features: 10, rows: 40, classes: 3, trees: 5, maxDepth: 2, groups: [] };

describe('reconstruction engine on random forests', () => {
  it('proves no bound above the minimum over all integer solutions, and says exact only for a unique solution', async () => {
    let exact = 0;
    let ambiguous = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { forest, rows } = randomForest(tiny, seed);
      const { result, details } = await reconstructWithDetails(forest, { groups: tiny.groups });
      assert.ok(details, `seed ${seed}: ${result.status} ${result.reason}`);
      const solutions = allSolutions(details.formulation);
      const truth = trueMultiplicities(forest, details, rows);
      assert.equal(truth.missing.length, 0, `seed ${seed}: a true row has no column`);
      assert.ok(solutions.some((s) => s.every((v, j) => v === truth.perColumn[j])), `seed ${seed}: the truth is a solution`);
      for (let j = 0; j < details.formulation.numCols; j++) {
        const least = Math.min(...solutions.map((s) => s[j]));
        assert.ok(details.lower[j] <= least, `seed ${seed}: column ${j} bounded at ${details.lower[j]}, but a solution has ${least}`);
      }
      assert.equal(result.status === 'exact', solutions.length === 1 && result.certifiedRows === tiny.rows, `seed ${seed}: ${result.status} with ${solutions.length} solutions`);
      if (solutions.length === 1) exact++;
      else ambiguous++;
    }
    // The generator must exercise both cases, or this test proves little.
    assert.ok(exact > 0 && ambiguous > 0, `exact ${exact}, ambiguous ${ambiguous}`);
  });

  for (const [name, setup] of [['deep, with groups', small], ['shallow, three classes', shallow]] as const) {
    it(`certifies only rows that are in the training data, and solves every leaf equality (${name})`, async () => {
      let certified = 0;
      for (let seed = 1; seed <= 15; seed++) {
        const { forest, rows } = randomForest(setup, 1000 + seed);
        const { result, details } = await reconstructWithDetails(forest, { groups: setup.groups });
        assert.ok(result.status === 'exact' || result.status === 'bounded', `seed ${seed}: ${result.status} ${result.reason}`);
        assert.ok(details?.solution);
        assert.ok(satisfiesAll(details.formulation, details.solution), `seed ${seed}: the solution breaks a leaf equality`);
        const truth = trueMultiplicities(forest, details, rows);
        assert.equal(truth.missing.length, 0);
        details.lower.forEach((bound, j) => assert.ok(bound <= truth.perColumn[j], `seed ${seed} column ${j}: ${bound} > ${truth.perColumn[j]}`));
        assert.equal(result.reconstructedRows, setup.rows);
        assert.equal(result.reconstruction.filter((r) => r.certified).length, result.certifiedRows);
        certified += result.certifiedRows;
      }
      assert.ok(certified > 0, 'some rows are certified');
    });
  }

  it('derives a valid bound from any dual vector, not only an optimal one', async () => {
    const { forest, rows } = randomForest(small, 77);
    const { details } = await reconstructWithDetails(forest, { groups: small.groups });
    assert.ok(details);
    const f = details.formulation;
    const truth = trueMultiplicities(forest, details, rows).perColumn;
    const { lower, upper } = initialBounds(f);
    const random = seededRandom(5);
    for (let trial = 0; trial < 200; trial++) {
      const y = Float64Array.from({ length: f.numRows }, () => (random() - 0.5) * 4);
      const j = Math.floor(random() * f.numCols);
      assert.ok(provenLowerBound(f, j, y, lower, upper) <= truth[j], `trial ${trial}`);
    }
  });

  it('propagates integer bounds through the leaf equalities', async () => {
    const { forest, rows } = randomForest(small, 3);
    const { details } = await reconstructWithDetails(forest, { groups: small.groups });
    assert.ok(details);
    const bounds = initialBounds(details.formulation);
    assert.ok(propagate(details.formulation, bounds));
    const truth = trueMultiplicities(forest, details, rows).perColumn;
    truth.forEach((v, j) => assert.ok(bounds.lower[j] <= v && v <= bounds.upper[j], `column ${j}: ${v} outside [${bounds.lower[j]}, ${bounds.upper[j]}]`));
    // Bounds no solution fits are detected.
    const tooMuch = { lower: new Int32Array(details.formulation.numCols).fill(details.formulation.total), upper: new Int32Array(details.formulation.numCols).fill(details.formulation.total) };
    assert.equal(propagate(details.formulation, tooMuch), false);
  });
});

describe('reconstruction statuses', () => {
  const base = randomForest(small, 11).forest;

  it('skips forests it does not handle yet, saying why', async () => {
    const cases: [string, Forest, RegExp][] = [
      // (Bootstrap forests have their own methods now: reconstruction-bootstrap.test.ts.)
      ['regression', { ...base, task: 'regression' }, /regression/],
      ['trees on different rows', { ...base, trees: [base.trees[0], { ...base.trees[1], classWeights: base.trees[1].classWeights.map((w) => w * 2) }] }, /did not all see the same rows/],
    ];
    for (const [name, forest, reason] of cases) {
      const result = await reconstruct(forest);
      assert.equal(result.status, 'skipped', name);
      assert.match(result.reason ?? '', reason, name);
      assert.equal(result.certifiedRows, 0);
    }
    // Weighted counts are not skipped: an estimate, with the reason; nothing certified without the
    // distinct row counts that would prove a leaf's rows.
    const weighted = await reconstruct({ ...base, training: { ...base.training, rows: 60 }, trees: base.trees.map((t) => ({ ...t, classWeights: t.classWeights.map((w) => w * 1.5) })) });
    assert.equal(weighted.method, 'box-estimate');
    assert.equal(weighted.status, 'bounded');
    assert.match(weighted.reason ?? '', /not a whole number/);
    assert.match(weighted.reason ?? '', /estimate/);
    assert.equal(weighted.certifiedRows, 0);
    assert.equal(weighted.reconstructedRows, 60);
    // A feature split at several thresholds in (0, 1) is fine once declared binary.
    const declared = { ...base, features: base.features.map((f) => ({ ...f, kind: 'binary' as const })), trees: [withThreshold(base.trees[0], 0.25), ...base.trees.slice(1)] };
    assert.notEqual((await reconstruct(declared, { groups: small.groups })).status, 'skipped');
    // Numeric splits were skipped before interval cells; now they are read as intervals (tested in
    // reconstruction-numeric.test.ts), and a declared group over such a feature is left out, with a note.
    const numericCases: [string, Forest][] = [
      ['numeric split', { ...base, trees: [withThreshold(base.trees[0], 30.5), ...base.trees.slice(1)] }],
      ['several thresholds', { ...base, trees: [withThreshold(base.trees[0], 0.25), ...base.trees.slice(1)] }],
      ['declared numeric', { ...base, features: base.features.map((f) => ({ ...f, kind: 'numeric' as const })) }],
    ];
    for (const [name, forest] of numericCases) {
      const result = await reconstruct(forest);
      assert.notEqual(result.status, 'skipped', name);
      assert.ok(result.reconstruction.some((r) => r.intervals !== undefined), `${name}: rows carry intervals`);
    }
    const leftOut = await reconstruct(numericCases[2][1], { groups: small.groups });
    assert.notEqual(leftOut.status, 'failed', leftOut.reason);
    assert.match(leftOut.reason ?? '', /declared groups? (was|were) left out: each names a feature the forest splits as a number/);
  });

  it('fails, saying why, when no binary training set fits the counts', async () => {
    // Two stumps on x0 that disagree on where each class is.
    const stump = (left: number[], right: number[]): Tree => ({
      left: [1, -1, -1],
      right: [2, -1, -1],
      feature: [0, -2, -2],
      threshold: [0.5, -2, -2],
      classWeights: [2, 2, ...left, ...right],
      training: {},
    });
    const forest: Forest = { ...base, features: [{ name: 'x0', kind: 'unknown' }], training: { rows: 4, bootstrap: false, weighted: false }, trees: [stump([2, 0], [0, 2]), stump([0, 2], [2, 0])] };
    const result = await reconstruct(forest);
    assert.equal(result.status, 'failed');
    assert.match(result.reason ?? '', /no assignment of binary features/);
  });

  it('stops with status timeout when the budget is spent or the caller cancels', async () => {
    const spent = await reconstruct(base, { budgetMs: 0 });
    assert.equal(spent.status, 'timeout');
    assert.match(spent.reason ?? '', /budget/);
    const controller = new AbortController();
    controller.abort();
    const cancelled = await reconstruct(base, { signal: controller.signal });
    assert.equal(cancelled.status, 'timeout');
    assert.match(cancelled.reason ?? '', /cancelled/);
    assert.equal(cancelled.certifiedRows, 0);
  });

  it('answers what it has proven when cancelled midway, and only that', async () => {
    // Three deep trees: propagation proves some rows (18 of 40 here), the certificate later proves more.
    const { forest, rows } = randomForest({ ...small, trees: 3, groups: [] }, 1);
    const controller = new AbortController();
    const { result, details } = await reconstructWithDetails(forest, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === 'propagation') controller.abort();
      },
    });
    assert.equal(result.status, 'timeout');
    assert.match(result.reason ?? '', /cancelled after bound propagation/);
    assert.ok(details);
    const truth = trueMultiplicities(forest, details, rows).perColumn;
    details.lower.forEach((bound, j) => assert.ok(bound <= truth[j], `column ${j}`));
    // Without an integer solution the answer holds the certified rows only.
    assert.ok(result.certifiedRows > 0, 'propagation proved some rows');
    assert.equal(result.reconstructedRows, result.certifiedRows);
    assert.ok(result.reconstruction.every((r) => r.certified));
  });

  it('reports progress phase by phase', async () => {
    const phases: ReconstructionPhase[] = [];
    const result = await reconstruct(randomForest(shallow, 5).forest, { onProgress: (p) => phases.push(p.phase) });
    assert.ok(result.status === 'bounded' || result.status === 'exact');
    const order = [...new Set(phases)];
    assert.deepEqual(order.slice(0, 3), ['cells', 'formulation', 'propagation']);
  });
});

function withThreshold(tree: Tree, threshold: number): Tree {
  return { ...tree, threshold: tree.threshold.map((t, i) => (i === 0 ? threshold : t)) };
}
