/**
 * Reconstruction of forests over numeric and ordinal features (interval cells, bounded search):
 *  - interval cells against brute force on random forests over small integers: every grid point's
 *    leaf signature (with a class no tree rules out) is an enumerated cell with the same classes and
 *    a box holding the point, and every enumerated box's representative point reaches its leaves;
 *  - real scikit-learn forests (test/fixtures/numeric, written by generate.py) read by the linter:
 *    soundness (no true row lost, every true row inside its cell's box, no bound above the true
 *    multiplicity, every certified row's intervals hold a distinct true row with its label);
 *    the one-tree case is exact: the true rows are the reconstruction up to intervals;
 *  - forests too large to enumerate (row-boxes): every row certified as a box that holds a
 *    distinct true row with its label, a whole reconstruction inside the boxes whose reported
 *    leaf-count error is what routing its rows gives and whose accuracy (TimberStrike's share of
 *    features within 0.319 std) beats a uniform random baseline;
 *  - budget and cancellation respected, what was proven kept.
 * The binary behaviour is covered, unchanged, by the other reconstruction-*.test.ts files.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct, reconstructWithDetails } from '../../server/src/attacks/reconstruction';
import { createCellEnumerator } from '../../server/src/attacks/reconstruction/cells';
import { intervalBounds } from '../../server/src/attacks/reconstruction/feature-axes';
import { satisfiesAll } from '../../server/src/attacks/reconstruction/formulation';
import { buildLeafTable } from '../../server/src/attacks/reconstruction/leaves';
import { mergeBySignature } from '../../server/src/attacks/reconstruction/merge';
import { likeliestPoint } from '../../server/src/attacks/reconstruction/point-choice';
import { boxToRow } from '../../server/src/attacks/reconstruction/rows';
import type { ReconstructedRow } from '../../server/src/attacks/reconstruction/types';
import { minimumCostMatching } from '../../server/src/evaluate/matching';
import { evaluateNumericReconstruction, uniformBaselineAccuracy } from '../../server/src/evaluate/numeric-metrics';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { containsRow, randomIntegerForest, readFloat32Rows, routedLeafCountError, type NumericFixtureEntry } from '../support/numeric-truth';
import { FIXTURES } from '../support/paths';
import { leafOf, trueMultiplicities, type TrainingRow } from '../support/reconstruction-truth';

const DIR = join(FIXTURES, 'numeric');
const manifest: NumericFixtureEntry[] = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));
const entry = (name: string) => manifest.find((e) => e.name === name)!;

async function readForest(e: NumericFixtureEntry): Promise<Forest> {
  const report = await lintFile(join(DIR, e.model), { keepForest: true });
  assert.ok(report.forest, `${e.model}: ${report.findings.map((f) => f.message).join('; ')}`);
  return report.forest;
}

/** Whether the rows can be given distinct true rows that lie in their intervals, with their labels. */
function allContainDistinctTrueRows(rows: readonly ReconstructedRow[], truth: readonly TrainingRow[]): boolean {
  if (rows.length === 0) return true;
  const cost = rows.map((row) => Float64Array.from(truth, (t) => (containsRow(row, t) ? 0 : 1)));
  return rows.length <= truth.length && minimumCostMatching(cost).totalCost === 0;
}

describe('interval cells', () => {
  const setups = [
    { features: 3, levels: 6, rows: 20, classes: 2, trees: 3, maxDepth: 3 },
    { features: 2, levels: 9, rows: 25, classes: 3, trees: 4, maxDepth: 4 },
    { features: 4, levels: 4, rows: 30, classes: 2, trees: 2, maxDepth: 5 },
  ];
  for (const setup of setups) {
    it(`finds every signature brute force finds over the integer grid, and only real ones (${setup.features} features, ${setup.trees} trees, 8 seeds)`, () => {
      for (let seed = 1; seed <= 8; seed++) {
        const label = `seed ${seed}`;
        const { forest } = randomIntegerForest(setup, seed * 131 + setup.features);
        const prepared = buildLeafTable(forest);
        assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
        const { table } = prepared;
        const created = createCellEnumerator(table, []);
        assert.ok(created.ok);
        while (!created.enumerator.step(1000));
        const cells = mergeBySignature(created.enumerator.cells);
        const bySignature = new Map(cells.map((cell) => [Array.from(cell.leaves, (l, t) => table.trees[t].nodes[l]).join(','), cell]));
        const classes = forest.classes.length;
        // Every enumerated box is real: its representative point reaches its leaves.
        for (const [signature, cell] of bySignature) {
          const point = boxToRow(table.axes, cell.low, cell.high).values.map((v) => v ?? 0);
          assert.equal(forest.trees.map((tree) => leafOf(tree, point)).join(','), signature, `${label}: box of ${signature}`);
        }
        // Every grid point with a possible class is in its cell, with exactly those classes.
        const grid = setup.levels ** setup.features;
        for (let code = 0; code < grid; code++) {
          const point = Array.from({ length: setup.features }, (_, f) => Math.floor(code / setup.levels ** f) % setup.levels);
          const leaves = forest.trees.map((tree) => leafOf(tree, point));
          const possible = Array.from({ length: classes }, (_, c) => c).filter((c) => leaves.every((leaf, t) => forest.trees[t].classWeights[leaf * classes + c] > 0));
          if (possible.length === 0) continue;
          const cell = bySignature.get(leaves.join(','));
          assert.ok(cell, `${label}: point ${point} (signature ${leaves}) has no cell`);
          assert.deepEqual(Array.from(cell.classes.keys()).filter((c) => cell.classes[c]), possible, `${label}: classes of ${leaves}`);
          point.forEach((v, f) => {
            const [lower, upper] = intervalBounds(table.axes, f, cell.low[f], cell.high[f]);
            assert.ok(v > lower && v <= upper, `${label}: point ${point} outside its cell's box on feature ${f}`);
          });
        }
      }
    });
  }
});

describe('numeric scikit-learn forests, exact enumeration', () => {
  for (const name of ['pima_t1_d3', 'pima_t3_d3', 'pima_t5_d3', 'stroke_t3_d3', 'credit_t3_d3', 'stroke_t10']) {
    it(`${name}: sound (no true row lost, boxes hold their rows, certified rows are real)`, async () => {
      const e = entry(name);
      const forest = await readForest(e);
      const truth = readFloat32Rows(join(DIR, e.truth));
      const { result, details } = await reconstructWithDetails(forest, { budgetMs: 60_000 });
      assert.equal(result.method, 'aggregated', `${result.status}: ${result.reason}`);
      assert.ok(result.status === 'exact' || result.status === 'bounded', `${result.status}: ${result.reason}`);
      assert.ok(details?.solution);
      assert.ok(satisfiesAll(details.formulation, details.solution));

      const { perColumn, missing, columnOfRow } = trueMultiplicities(forest, details, truth);
      assert.deepEqual(missing, [], 'true rows outside every enumerated cell');
      truth.forEach((row, i) => {
        const cell = details.cells[details.formulation.colCell[columnOfRow[i]]];
        row.values.forEach((v, f) => {
          const [lower, upper] = intervalBounds(details.table.axes, f, cell.low[f], cell.high[f]);
          assert.ok(v > lower && v <= upper, `true row ${i}, feature ${f}: ${v} outside (${lower}, ${upper}]`);
        });
      });
      for (let j = 0; j < details.formulation.numCols; j++) assert.ok(details.lower[j] <= perColumn[j], `column ${j}`);

      assert.equal(result.reconstructedRows, e.rows);
      const certified = result.reconstruction.filter((r) => r.certified);
      assert.equal(certified.length, result.certifiedRows);
      assert.ok(allContainDistinctTrueRows(certified, truth), 'a certified row holds no distinct true row');
      // Values are representative points inside their intervals; where unconstrained, the point
      // the thresholds make likeliest (null for a 0/1 feature, and one no tree splits).
      for (const row of result.reconstruction) {
        assert.ok(row.intervals, 'numeric rows carry intervals');
        row.values.forEach((v, f) => {
          const interval = row.intervals![f];
          const axes = details.table.axes;
          if (interval === null) assert.equal(v, axes.binary[f] ? null : likeliestPoint(axes, f, -Infinity, Infinity));
          else assert.ok(v !== null && v > interval[0] && v <= interval[1], `value ${v} outside (${interval[0]}, ${interval[1]}]`);
        });
      }
      // The rows reach the leaves their cells do: they fit every leaf count.
      assert.equal(routedLeafCountError(forest, result.reconstruction), 0);
    });
  }

  it('reconstructs the training set of one tree exactly, up to intervals', async () => {
    const e = entry('pima_t1_d3');
    const result = await reconstruct(await readForest(e));
    assert.equal(result.status, 'exact');
    assert.equal(result.certifiedRows, e.rows);
    const truth = readFloat32Rows(join(DIR, e.truth));
    assert.ok(allContainDistinctTrueRows(result.reconstruction, truth), 'every true row lies in a distinct reconstructed row');
  });
});

describe('numeric scikit-learn forests too large to enumerate: rows as proven boxes', () => {
  for (const name of ['pima_t10_d5', 'credit_t10_d5']) {
    it(`${name}: every row certified as a box holding a distinct true row, a whole reconstruction inside the boxes, better than random`, async () => {
      const e = entry(name);
      const forest = await readForest(e);
      const truth = readFloat32Rows(join(DIR, e.truth));
      const result = await reconstruct(forest, { budgetMs: 12_000 });
      assert.equal(result.method, 'row-boxes', `${result.status}: ${result.reason}`);
      assert.ok(result.status === 'bounded' || result.status === 'exact', result.reason);
      assert.equal(result.reconstructedRows, e.rows);
      assert.equal(result.certifiedRows, e.rows);
      assert.ok(result.seconds < 12 + 2, `took ${result.seconds} s on a 12 s budget`);
      // The proof: the boxes can be given distinct true rows inside them, with their labels.
      assert.ok(allContainDistinctTrueRows(result.reconstruction, truth), 'a certified box holds no distinct true row');
      // Every point lies inside its row's proven box.
      for (const row of result.reconstruction) {
        row.intervals!.forEach((interval, f) => {
          if (interval) assert.ok(row.values[f]! > interval[0] && row.values[f]! <= interval[1], `value ${row.values[f]} outside (${interval[0]}, ${interval[1]}]`);
        });
      }
      assert.ok(result.boxes && result.boxes.medianWidth >= 0 && result.boxes.medianWidth <= 1);
      assert.ok(result.boxes.pinnedRows <= e.rows);
      // The reported error is what the rows really do to the leaf counts.
      assert.equal(result.stats.leafCountError, routedLeafCountError(forest, result.reconstruction));
      const quality = evaluateNumericReconstruction(result.reconstruction, truth, e.population.std);
      const integral = e.population.min.map((_, f) => truth.every((r) => Number.isInteger(r.values[f])));
      const baseline = uniformBaselineAccuracy(truth, e.population, forest.classes, integral);
      assert.ok(quality.accuracy > baseline + 0.05, `accuracy ${quality.accuracy.toFixed(3)} vs random ${baseline.toFixed(3)}`);
    });
  }

  it('keeps to a short budget and answers what it has proven when cancelled', async () => {
    const forest = await readForest(entry('credit_t10_d5'));
    const short = await reconstruct(forest, { budgetMs: 2_000 });
    assert.ok(short.seconds < 2 + 1.5, `took ${short.seconds} s on a 2 s budget`);
    assert.ok(short.status === 'bounded' || short.status === 'timeout', short.reason);
    assert.equal(short.reconstructedRows, 100);

    const controller = new AbortController();
    let propagationStarted = false;
    const truth = readFloat32Rows(join(DIR, entry('credit_t10_d5').truth));
    const cancelled = await reconstruct(forest, {
      budgetMs: 30_000,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === 'propagation' && !propagationStarted) {
          propagationStarted = true;
          controller.abort();
        }
      },
    });
    assert.ok(propagationStarted);
    assert.equal(cancelled.status, 'timeout');
    assert.match(cancelled.reason ?? '', /cancelled/);
    assert.ok(cancelled.seconds < 15, `cancellation took effect after ${cancelled.seconds} s`);
    // What was proven by then still holds.
    assert.ok(allContainDistinctTrueRows(cancelled.reconstruction.filter((r) => r.certified), truth));

    const early = new AbortController();
    early.abort();
    const none = await reconstruct(forest, { signal: early.signal });
    assert.equal(none.status, 'timeout');
    assert.equal(none.reconstructedRows, 0);
  });
});
