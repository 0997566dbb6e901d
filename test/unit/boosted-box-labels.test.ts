/**
 * Squared-error boosted regressors past the cell limit (boosting-counts.ts -> row-boxes) and the
 * targets one-row leaves prove (boosted-box-labels.ts), against the true training rows of
 * XGBoost 1.7.4 models (test/fixtures/xgboost-counts/generate.py: reg_pima_deep, 8 trees of depth
 * 6 on 150 Pima rows; reg_pima_dart, the same rows with the dart booster).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { certifiedTarget } from '../../server/src/attacks/reconstruction/boosted-box-labels';
import { leafOfBox } from '../../server/src/forest/structure';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import type { Forest } from '../../server/src/forest/schema';
import { leafOf } from '../../server/src/forest/structure';
import { countsForest, countsTruth, insideXgb } from '../support/xgboost-counts';

const forestOf = countsForest;
const truth = countsTruth('reg_pima_deep');

const inside = insideXgb;

/** The narrowest box the forest's thresholds draw around a point (its cell): [largest threshold <= v, smallest > v). */
function cellOf(forest: Forest, x: number[]): ([number, number] | null)[] {
  return forest.features.map((_, f) => {
    let low = -Infinity;
    let high = Infinity;
    let split = false;
    for (const tree of forest.trees) {
      tree.left.forEach((l, node) => {
        if (l === -1 || tree.feature[node] !== f) return;
        split = true;
        const t = tree.threshold[node];
        if (t <= Math.fround(x[f])) low = Math.max(low, t);
        else high = Math.min(high, t);
      });
    }
    return split ? [low, high] : null;
  });
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-3 * Math.max(1, Math.abs(b));

describe('boosted regressors past the cell limit: row-boxes and targets from one-row leaves', () => {
  it('leafOfBox: a true row\'s cell reaches the leaf the row reaches, in every tree; a wider box straddles', () => {
    const forest = forestOf('reg_pima_deep.json');
    for (const row of truth) {
      const cell = cellOf(forest, row.x);
      forest.trees.forEach((tree) => assert.equal(leafOfBox(tree, cell), leafOf(tree, row.x, forest.splitRule)));
    }
    const everything = forest.features.map(() => null);
    assert.equal(leafOfBox(forest.trees[0], everything), -1);
  });

  it('certifiedTarget: a row alone in a leaf of any tree gets its true target (the margin before the tree plus (1 + lambda) w)', () => {
    const forest = forestOf('reg_pima_deep.json');
    const probe = probeFirstTrees(forest);
    const weights = { eta: probe.parameters.eta!.value, lambda: probe.parameters.lambda?.value ?? 1, trees: forest.trees.length };
    let alone = 0;
    let beyondTree0 = 0;
    for (const row of truth) {
      const leaves = forest.trees.map((tree) => leafOf(tree, row.x, forest.splitRule));
      // Alone: no other true row reaches that leaf (from the rows, not the covers).
      const aloneIn = leaves.findIndex((leaf, t) => truth.filter((o) => leafOf(forest.trees[t], o.x, forest.splitRule) === leaf).length === 1);
      const target = certifiedTarget(forest, cellOf(forest, row.x), weights);
      if (aloneIn < 0) {
        assert.equal(target, undefined);
        continue;
      }
      alone++;
      if (aloneIn > 0) beyondTree0++;
      assert.ok(target !== undefined && close(target, row.y), `row alone in tree ${aloneIn}: target ${target}, true ${row.y}`);
    }
    assert.ok(alone >= 10 && beyondTree0 >= 5, `${alone} rows alone in a leaf, ${beyondTree0} first in a later tree`);
  });

  it('reg_pima_deep: every row a proven box holding true rows; a row is certified with its target exactly when it is alone in a leaf of tree 0', async () => {
    const forest = forestOf('reg_pima_deep.json');
    const result = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(result.method, 'boosting-counts');
    assert.match(result.reason ?? '', /more than 20,000 cells, so the rows are proven one by one as boxes instead/);
    assert.equal(result.reconstructedRows, truth.length);
    assert.equal(result.certifiedRows + (result.certifiedWithoutLabel ?? 0), truth.length);
    // Per distinct box, the true rows inside are at least the rows claimed there.
    const claims = new Map<string, number>();
    for (const row of result.reconstruction) claims.set(JSON.stringify(row.intervals), (claims.get(JSON.stringify(row.intervals)) ?? 0) + 1);
    for (const [key, n] of claims) assert.ok(truth.filter((t) => inside(JSON.parse(key), t.x)).length >= n, key);
    const tree0 = forest.trees[0];
    const leafRows = new Map<number, number>();
    for (const t of truth) leafRows.set(leafOf(tree0, t.x, forest.splitRule), (leafRows.get(leafOf(tree0, t.x, forest.splitRule)) ?? 0) + 1);
    const aloneInTree0 = [...leafRows.values()].filter((n) => n === 1).length;
    assert.ok(aloneInTree0 >= 1);
    assert.equal(result.certifiedRows, aloneInTree0);
    for (const row of result.reconstruction.filter((r) => r.certified)) {
      const match = truth.filter((t) => inside(row.intervals!, t.x));
      assert.ok(match.some((t) => close(t.y, Number(row.label))), `certified target ${row.label}: no true row in the box has it`);
    }
  });

  it('dart: the reader says so, and only the first tree\'s leaves give targets (the later ones would be wrong)', () => {
    const forest = forestOf('reg_pima_dart.json');
    assert.equal(forest.boosting!.booster, 'dart');
    assert.equal(forestOf('reg_pima_deep.json').boosting!.booster, undefined);
    const probe = probeFirstTrees(forest);
    const eta = probe.parameters.eta!.value;
    const lambda = probe.parameters.lambda?.value ?? 1;
    let wrongIfAllTrees = 0;
    for (const row of truth) {
      const cell = cellOf(forest, row.x);
      const first = certifiedTarget(forest, cell, { eta, lambda, trees: 1 });
      if (first !== undefined) assert.ok(close(first, row.y), `tree 0: ${first} vs ${row.y}`);
      const all = certifiedTarget(forest, cell, { eta, lambda, trees: forest.trees.length });
      if (first === undefined && all !== undefined && !close(all, row.y)) wrongIfAllTrees++;
    }
    // Reading the later trees as plain boosting would certify wrong targets: why dart is held to tree 0.
    assert.ok(wrongIfAllTrees > 0);
  });
});
