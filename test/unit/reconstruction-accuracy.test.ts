/**
 * TimberStrike's Reconstruction Accuracy on the real training rows of bin_pima (Pima, N = 200):
 * exact reconstructions, perturbations at known multiples of the tolerance, shuffled rows, and a
 * reconstruction made by first-tree probing (each probed leaf becomes its rows, with the leaf's box
 * as intervals and its exact label counts), which must score at least as well as pairing each true
 * row with a row of its own leaf.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { columnTolerances, importantFeatures, reconstructionAccuracy, type FeatureKind, type ReconstructedValue } from '../../server/src/evaluate/reconstruction-accuracy';
import { FIXTURES } from '../support/paths';
import { readFixture } from './xgboost-readers.test';

const DIR = path.join(FIXTURES, 'xgboost');
const lines = fs.readFileSync(path.join(DIR, 'bin_pima.train.csv'), 'utf8').trim().split('\n');
const truth = lines.slice(1).map((l) => l.split(',').map(Number));
const F = truth[0].length - 1; // last column: the label
const kinds: FeatureKind[] = [...new Array(F).fill('numeric'), 'categorical'];

describe('reconstruction accuracy (TimberStrike)', () => {
  it('is 1 for the truth itself, in any order', () => {
    const shuffled = [...truth].reverse();
    assert.equal(reconstructionAccuracy(shuffled, truth, kinds).accuracy, 1);
  });

  it('counts a numeric value right within 0.319 standard deviations, a category only when equal', () => {
    const eps = columnTolerances(truth, kinds);
    const mean = truth.reduce((s, r) => s + r[1], 0) / truth.length;
    const sd = Math.sqrt(truth.reduce((s, r) => s + (r[1] - mean) ** 2, 0) / truth.length);
    assert.ok(Math.abs(eps[1] - 0.319 * sd) < 1e-9);
    assert.equal(eps[F], 0);
    // Feature 1 (Glucose) moved by 0.5 eps: still right; by 1.5 eps: wrong in every row.
    const near = truth.map((r) => r.map((v, f) => (f === 1 ? v + 0.5 * eps[1] : v)));
    assert.equal(reconstructionAccuracy(near, truth, kinds).accuracy, 1);
    // One row against itself moved by 1.5 eps (alone, so the matching cannot pair it elsewhere).
    const one = [truth[0]];
    const moved = [truth[0].map((v, f) => (f === 1 ? v + 1.5 * eps[1] : v))];
    assert.equal(reconstructionAccuracy(moved, one, kinds, { features: [1], tolerance: eps }).accuracy, 0);
    assert.equal(reconstructionAccuracy([truth[0].map((v, f) => (f === 1 ? v - 0.99 * eps[1] : v))], one, kinds, { features: [1], tolerance: eps }).accuracy, 1);
    // Beyond every true value: wrong whatever the pairing.
    const max = Math.max(...truth.map((r) => r[1]));
    const far = truth.map((r) => r.map((v, f) => (f === 1 ? max + 2 * eps[1] + 1 : v)));
    assert.equal(reconstructionAccuracy(far, truth, kinds, { features: [1] }).accuracy, 0);
    const flipped = truth.map((r) => r.map((v, f) => (f === F ? 1 - v : v)));
    const all = reconstructionAccuracy(flipped, truth, kinds);
    assert.ok(Math.abs(all.accuracy - F / (F + 1)) < 1e-12, String(all.accuracy));
    assert.equal(all.perFeature[F], 0);
    // An interval is right when it overlaps [x - eps, x + eps]; an unknown value never is.
    const intervals = truth.map((r) => r.map((v, f): ReconstructedValue => (f === 1 ? [v + eps[1] * 0.9, Infinity] : f === 2 ? null : v)));
    const scored = reconstructionAccuracy(intervals, truth, kinds);
    assert.equal(scored.perFeature[1], 1);
    assert.equal(scored.perFeature[2], 0);
  });

  it('scores a first-tree-probing reconstruction at least as well as pairing each row with its own leaf', () => {
    const { forest } = readFixture('bin_pima.json');
    const probe = probeFirstTrees(forest);
    assert.equal(probe.status, 'exact');
    const reconstructed: ReconstructedValue[][] = [];
    const pathFeatures: number[] = []; // constrained features per reconstructed row
    for (const leaf of probe.trees[0].leaves) {
      for (let i = 0; i < leaf.rows; i++) {
        const row: ReconstructedValue[] = new Array(F + 1).fill(null);
        for (const interval of leaf.box) row[interval.feature] = [interval.lower ?? -Infinity, interval.upper ?? Infinity];
        row[F] = i < leaf.positives! ? 1 : 0;
        reconstructed.push(row);
        pathFeatures.push(leaf.box.length);
      }
    }
    assert.equal(reconstructed.length, truth.length);
    const result = reconstructionAccuracy(reconstructed, truth, kinds);
    // Lower bound: every true row lies in its leaf's box (XGBoost routes it there) with the right label available.
    const rowsPerLeaf = probe.trees[0].leaves.map((l) => l.rows * (l.box.length + 1));
    const bound = rowsPerLeaf.reduce((s, x) => s + x, 0) / (truth.length * (F + 1));
    assert.ok(result.accuracy >= bound - 1e-12, `${result.accuracy} >= ${bound}`);
    assert.ok(result.accuracy < 1);
    // The model's most important features are reconstructed better than the rest on average.
    const top = importantFeatures(forest, 3);
    assert.equal(top.length, 3);
    const onTop = reconstructionAccuracy(reconstructed, truth, kinds, { features: [...top, F] });
    assert.ok(onTop.accuracy > result.accuracy, `${onTop.accuracy} > ${result.accuracy}`);
  });
});
