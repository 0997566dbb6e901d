/**
 * The advisor's simulated remedies (server/src/advisor/), on real scikit-learn forests read by the
 * linter (test/fixtures/reconstruction, examples/models/compas_no_bagging.joblib):
 *  - larger leaves: no leaf below k (unless a tree is its root alone), every tree's per-class
 *    counts conserved, the shape still valid;
 *  - bootstrap without seeds: every tree still holds N draws, the counts change, ~63% distinct
 *    rows (what a bootstrap of N draws from N rows gives), no seeds, bootstrap declared;
 *  - DP: the released minus the stored counts have the mechanism's distribution (truncated
 *    Laplace of scale trees / epsilon: P(0) = 1 - e^-eps_leaf, E|l| = e^-eps_leaf / (1 - e^-eps_leaf)),
 *    symmetric, and the forest is declared private so that `dp-likelihood` answers.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { simulateBootstrapWithoutSeeds } from '../../server/src/advisor/bootstrap-simulation';
import { drawNoise, noiseScale, privatize } from '../../server/src/advisor/dp-simulation';
import { mergeSmallLeaves } from '../../server/src/advisor/larger-leaves';
import { leavesOf } from '../../server/src/advisor/tree-sums';
import { seededRandom } from '../../server/src/evaluate/seeded-random';
import { ForestSchema, treeShapeProblem, type Forest, type Tree } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { EXAMPLES, FIXTURES } from '../support/paths';

async function readForest(path: string): Promise<Forest> {
  const report = await lintFile(path, { keepForest: true });
  assert.ok(report.forest, `${path}: ${report.findings.map((f) => f.message).join('; ')}`);
  return report.forest;
}

const COMPAS = join(EXAMPLES, 'models', 'compas_no_bagging.joblib');
const manifest: { name: string; model: string }[] = JSON.parse(readFileSync(join(FIXTURES, 'reconstruction', 'manifest.json'), 'utf8'));
const FIXTURE_MODELS = manifest.slice(0, 3).map((e) => join(FIXTURES, 'reconstruction', e.model));

const leafTotal = (tree: Tree, leaf: number, classes: number) => tree.classWeights.slice(leaf * classes, leaf * classes + classes).reduce((a, b) => a + b, 0);
const classTotals = (tree: Tree, classes: number) =>
  Array.from({ length: classes }, (_, c) => leavesOf(tree.left).reduce((sum, leaf) => sum + tree.classWeights[leaf * classes + c], 0));

describe('advisor: larger leaves (merged sibling leaves)', () => {
  for (const path of [COMPAS, ...FIXTURE_MODELS]) {
    it(`${path.split('/').pop()}: no leaf below k, counts conserved per tree`, async () => {
      const forest = await readForest(path);
      const classes = forest.classes.length;
      const smallest = Math.min(...forest.trees.flatMap((tree) => leavesOf(tree.left).map((leaf) => leafTotal(tree, leaf, classes))));
      for (const k of [2, 5, 10]) {
        const { forest: merged, leavesBefore, leavesAfter } = mergeSmallLeaves(forest, k);
        assert.ok(ForestSchema.safeParse(merged).success, 'the merged forest is a valid IR');
        if (smallest < k) assert.ok(leavesAfter < leavesBefore, `k = ${k}: some leaf was merged`);
        merged.trees.forEach((tree, t) => {
          assert.equal(treeShapeProblem(tree), undefined);
          assert.deepEqual(classTotals(tree, classes), classTotals(forest.trees[t], classes), `tree ${t}: per-class rows conserved`);
          assert.deepEqual(tree.classWeights.slice(0, classes), classTotals(forest.trees[t], classes), `tree ${t}: the root holds every row`);
          if (tree.left.length === 1) return;
          for (const leaf of leavesOf(tree.left)) assert.ok(leafTotal(tree, leaf, classes) >= k, `tree ${t}, leaf ${leaf}: ${leafTotal(tree, leaf, classes)} rows < ${k}`);
        });
      }
    });
  }
});

describe('advisor: bootstrap without seeds', () => {
  it('keeps N draws per tree, changes the counts, ~63% distinct rows, no seeds', async () => {
    const forest = await readForest(COMPAS);
    const classes = forest.classes.length;
    const n = forest.training.rows!;
    assert.equal(forest.training.bootstrap, false);
    const simulated = simulateBootstrapWithoutSeeds(forest, seededRandom(7));
    assert.ok(simulated.ok);
    const boot = simulated.forest;
    assert.ok(ForestSchema.safeParse(boot).success);
    assert.equal(boot.training.bootstrap, true);
    assert.equal(boot.training.bootstrapSize, n);
    let changed = 0;
    let distinct = 0;
    boot.trees.forEach((tree, t) => {
      assert.equal(tree.training.seed, undefined);
      assert.equal(classTotals(tree, classes).reduce((a, b) => a + b, 0), n, `tree ${t}: N draws`);
      assert.equal(tree.classWeights[0] + tree.classWeights[1], n, `tree ${t}: the root sums its leaves`);
      for (const leaf of leavesOf(tree.left)) {
        for (let c = 0; c < classes; c++) if (tree.classWeights[leaf * classes + c] !== forest.trees[t].classWeights[leaf * classes + c]) changed++;
        // Distinct rows: at most the draws, and none where the leaf had no rows to draw.
        assert.ok(tree.distinctRows![leaf] <= leafTotal(tree, leaf, classes));
        if (leafTotal(forest.trees[t], leaf, classes) === 0) assert.equal(leafTotal(tree, leaf, classes), 0);
      }
      distinct += tree.distinctRows![0];
    });
    assert.ok(changed > 0, 'the resampled counts differ from the stored ones');
    // E[distinct] = N (1 - (1 - 1/N)^N) = 63.4 for N = 100; sd about 3 per tree.
    const mean = distinct / boot.trees.length;
    assert.ok(mean > 58 && mean < 69, `mean distinct rows per tree ${mean}`);
  });

  it('a model that already bootstraps just loses its seeds', async () => {
    const forest = await readForest(COMPAS);
    const seeded: Forest = { ...forest, training: { ...forest.training, bootstrap: true }, trees: forest.trees.map((tree, i) => ({ ...tree, training: { seed: 100 + i } })) };
    const simulated = simulateBootstrapWithoutSeeds(seeded, seededRandom(1));
    assert.ok(simulated.ok);
    simulated.forest.trees.forEach((tree, t) => {
      assert.equal(tree.training.seed, undefined);
      assert.deepEqual(tree.classWeights, seeded.trees[t].classWeights);
    });
  });
});

describe('advisor: differential privacy on the model\'s counts', () => {
  it('adds int(Laplace(trees / epsilon)) to every leaf count, as the DRAFT-DP mechanism does', async () => {
    const forest = await readForest(COMPAS);
    const classes = forest.classes.length;
    const epsilon = 5;
    const epsLeaf = epsilon / forest.trees.length;
    assert.equal(noiseScale(epsilon, forest.trees.length), 1 / epsLeaf);
    const noise: number[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const released = privatize(forest, epsilon, drawNoise(forest, seededRandom(seed)));
      assert.deepEqual(released.privacy, { mechanism: 'laplace-leaf-counts', epsilon, split: 'per-tree', rounding: 'truncate' });
      assert.ok(ForestSchema.safeParse(released).success);
      released.trees.forEach((tree, t) => {
        assert.equal(tree.distinctRows, undefined, 'the exact distinct counts are not released');
        for (const leaf of leavesOf(tree.left)) for (let c = 0; c < classes; c++) noise.push(tree.classWeights[leaf * classes + c] - forest.trees[t].classWeights[leaf * classes + c]);
        // Internal nodes: sums of their children's released counts.
        for (let node = 0; node < tree.left.length; node++) {
          if (tree.left[node] === -1) continue;
          for (let c = 0; c < classes; c++) assert.equal(tree.classWeights[node * classes + c], tree.classWeights[tree.left[node] * classes + c] + tree.classWeights[tree.right[node] * classes + c]);
        }
      });
    }
    assert.ok(noise.every(Number.isInteger));
    const n = noise.length;
    const zero = noise.filter((l) => l === 0).length / n;
    const meanAbs = noise.reduce((a, l) => a + Math.abs(l), 0) / n;
    const mean = noise.reduce((a, l) => a + l, 0) / n;
    const p0 = -Math.expm1(-epsLeaf);
    const expectedAbs = Math.exp(-epsLeaf) / p0;
    // Standard errors: sqrt(p0 (1 - p0) / n) for P(0); sd(|l|) / sqrt(n) with sd(|l|) < 2 here.
    assert.ok(n > 5000, `${n} noise values`);
    assert.ok(Math.abs(zero - p0) < 5 * Math.sqrt((p0 * (1 - p0)) / n), `P(0) ${zero} vs ${p0}`);
    assert.ok(Math.abs(meanAbs - expectedAbs) < 5 * (2 / Math.sqrt(n)), `E|l| ${meanAbs} vs ${expectedAbs}`);
    assert.ok(Math.abs(mean) < 5 * (2.5 / Math.sqrt(n)), `mean ${mean}: symmetric noise`);
    // A tenfold smaller epsilon: tenfold the noise (same draws scaled, so every |noise| grows).
    const draws = drawNoise(forest, seededRandom(3));
    const loud = privatize(forest, epsilon / 10, draws);
    const quiet = privatize(forest, epsilon, draws);
    loud.trees.forEach((tree, t) => {
      for (const leaf of leavesOf(tree.left)) {
        for (let c = 0; c < classes; c++) {
          const k = leaf * classes + c;
          assert.ok(Math.abs(tree.classWeights[k] - forest.trees[t].classWeights[k]) >= Math.abs(quiet.trees[t].classWeights[k] - forest.trees[t].classWeights[k]));
        }
      }
    });
  });
});
