/**
 * The scoring of the numeric-forest benchmark (test/bench/support/numeric-forest-run.ts), on
 * hand-built cases whose figures follow from the definitions:
 *  - the ceiling: each true row's own cell (leaf boxes intersected over the trees) as the engine's
 *    representative point, features no tree tests counted wrong;
 *  - the nearest-row RA lets one reconstructed row serve several true rows (the optimism the
 *    benchmark's table states), where the Hungarian matching leaves the second one unmatched;
 *  - the model-free reference: every row guessed as the per-feature median;
 *  - the seeded sample: distinct indices, the same for the same seed, all rows below its size.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { evaluateNumericReconstruction } from '../../server/src/evaluate/numeric-metrics';
import type { Tree } from '../../server/src/forest/schema';
import { ceilingAccuracy, medianGuessAccuracy, nearestAccuracy, sampleIndices } from '../bench/support/numeric-forest-run';
import { syntheticForest } from '../support/random-forests';

/** One split on `feature` at `threshold`: node 0 the root, 1 the left leaf, 2 the right leaf (counts unused here). */
function split(feature: number, threshold: number): Tree {
  return { left: [1, -1, -1], right: [2, -1, -1], feature: [feature, -2, -2], threshold: [threshold, -2, -2], classWeights: [2, 0, 1, 0, 1, 0], training: {} };
}

test('the ceiling stands for each true row by its own cell: the intersection of its leaf boxes over every tree', () => {
  // Feature 0 is cut at 30.5 and 40.5 (half-integers: integer-valued), feature 1 at 0.25 (not), feature 2 never.
  const forest = syntheticForest({ rows: 2, features: 3, classes: 2 }, [split(0, 30.5), split(0, 40.5), split(1, 0.25)]);
  forest.features = forest.features.map((f) => ({ ...f, kind: 'numeric' }));
  const truth = [
    { values: [35, 0.1, 7], label: 0 }, // cell (30.5, 40.5] x (-inf, 0.25]: points 35 (middle integer) and 0.25 (the finite end)
    { values: [20, 0.9, 7], label: 1 }, // cell (-inf, 30.5] x (0.25, inf): points 30 and 0.25
  ];
  const std = [1, 1, 1];
  // Row 0: 35 and 0.25 within 0.319; row 1: 0.25 is 0.65 from 0.9, 30 is 10 from 20; feature 2 always null.
  assert.equal(ceilingAccuracy(forest, truth, std, [0, 1]), 2 / 6);
  // A wider tolerance (larger std) takes in row 1's second feature too, but never the feature no tree tests.
  assert.equal(ceilingAccuracy(forest, truth, [1, 3, 1000], [0, 1]), 3 / 6);
  assert.equal(ceilingAccuracy(forest, truth, std, [0]), 2 / 3);
});

test('the nearest-row RA lets one reconstructed row stand for several true rows; the Hungarian matching does not', () => {
  const truth = [
    { values: [1, 2], label: 0 },
    { values: [1, 2], label: 0 },
  ];
  const reconstruction = [{ values: [1, 2], label: 0, certified: false }];
  assert.equal(nearestAccuracy(reconstruction, truth, [1, 1], [0, 1]), 1);
  assert.equal(evaluateNumericReconstruction(reconstruction, truth, [1, 1]).accuracy, 0.5);
  // The nearest row is the one of least matching cost: a wrong label costs 1.
  const two = [
    { values: [1, 2.2], label: 1, certified: false },
    { values: [1, 2.5], label: 0, certified: false },
  ];
  assert.equal(nearestAccuracy(two, [truth[0]], [1, 1], [0]), 0.5);
  assert.equal(nearestAccuracy([], truth, [1, 1], [0, 1]), 0);
});

test('the sample of true rows is seeded, distinct and all of them below its size', () => {
  assert.deepEqual(sampleIndices(5, 10), [0, 1, 2, 3, 4]);
  const sample = sampleIndices(10_000, 1_000);
  assert.equal(sample.length, 1_000);
  assert.equal(new Set(sample).size, 1_000);
  assert.ok(sample.every((i) => Number.isInteger(i) && i >= 0 && i < 10_000));
  assert.deepEqual(sampleIndices(10_000, 1_000), sample);
  assert.notDeepEqual(sampleIndices(10_000, 1_000, 2), sample);
});

test('the median guess scores every row against the per-feature median of the training rows', () => {
  const truth = [1, 2, 3, 10].map((v) => ({ values: [v, 0], label: 0 }));
  // Medians 2.5 and 0; with std 1 the tolerance is 0.319: no value of feature 0 is within it, every one of feature 1.
  assert.equal(medianGuessAccuracy(truth, [1, 1], [0, 1, 2, 3]), 4 / 8);
  // With std 2 (tolerance 0.638) the values 2 and 3 are, 0.5 from the median.
  assert.equal(medianGuessAccuracy(truth, [2, 1], [0, 1, 2, 3]), 6 / 8);
  assert.equal(medianGuessAccuracy(truth, [2, 1], [3]), 1 / 2);
});
