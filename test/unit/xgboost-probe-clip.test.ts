/**
 * max_delta_step inference against real xgboost 1.7.4 models (test/fixtures/xgboost/generate.py,
 * section 7). save_model does not record max_delta_step, so the probe infers a clip from a largest
 * |w| that several nodes share. With lambda = 0 pure leaves share it too (w = (y - p) / h = +-2 at
 * p = 0.5, whatever the leaf's size): those must not be read as a clip, which would drop their
 * positives and the reconstruction's gradient equations. The same data trained with a real clip
 * (max_delta_step 0.3) must still be read as clipped.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { boostedLeafEquations, BAND } from '../../server/src/attacks/reconstruction/boosting-hessians';
import type { Forest } from '../../server/src/forest/schema';
import { FIXTURES } from '../support/paths';
import { readFixtureForest } from '../support/model-files';

const DIR = path.join(FIXTURES, 'xgboost');
const forestOf = (file: string): Forest => readFixtureForest(DIR, file);
type LeafTruth = Record<string, { rows: number; positives: number }>;
const leafTruth = (model: string): LeafTruth => JSON.parse(fs.readFileSync(path.join(DIR, `${model}.truth.json`), 'utf8')).firstTrees[0].leaves;

describe('max_delta_step: pure leaves under lambda 0 are not a clip', () => {
  for (const model of ['bin_pima_l0', 'bin_pima_l0_sk']) {
    it(`${model}: no clip inferred, every leaf's positives (pure ones included) equal the truth`, () => {
      const forest = forestOf(`${model}.json`);
      const truth = leafTruth(model);
      const tree = forest.trees[0];
      // The situation itself: at least two pure leaves, and their |w| is the largest and shared.
      const weights = tree.boosting!.baseWeight!;
      const pure = Object.entries(truth).filter(([, l]) => l.positives === 0 || l.positives === l.rows).map(([id]) => tree.boosting!.nodeId?.indexOf(Number(id)) ?? Number(id));
      assert.ok(pure.length >= 2);
      const largest = Math.max(...weights.map(Math.abs));
      assert.ok(pure.every((n) => Math.abs(weights[n]) === largest), 'pure leaves share the largest |w|');

      const probe = probeFirstTrees(forest);
      assert.equal(probe.status, 'exact', JSON.stringify(probe.caveats));
      assert.equal(probe.parameters.maxDeltaStep, undefined);
      assert.ok(!probe.caveats.some((c) => /max_delta_step/.test(c)), probe.caveats.join(' | '));
      assert.equal(probe.parameters.lambda?.value, 0);
      for (const leaf of probe.trees[0].leaves) {
        const want = truth[String(leaf.nativeId)];
        assert.deepEqual({ rows: leaf.rows, positives: leaf.positives }, { rows: want.rows, positives: want.positives }, `leaf ${leaf.nativeId}`);
      }
    });
  }

  it('the scikit-learn wrapper stores an unset max_delta_step as null: read as XGBoost\'s default 0', () => {
    const forest = forestOf('bin_pima_l0_sk.json');
    assert.equal(forest.hyperParameters.max_delta_step, null);
    assert.equal(forest.hyperParameters.lambda, 0);
    assert.equal(probeFirstTrees(forest).parameters.maxDeltaStep, undefined);
  });

  it('bin_pima_l0: the reconstruction keeps every tree\'s gradient equations, and the true rows meet them', () => {
    const forest = forestOf('bin_pima_l0.json');
    const equations = boostedLeafEquations(forest);
    assert.ok(equations, 'boosting-hessians applies');
    assert.ok(equations!.trees.every((t) => t.leaves.every((l) => l.gradients !== undefined)), 'gradient sums kept');
    // The equations read without a clip are the true ones: route the real training rows through
    // every tree and compare each leaf's sum of (p - y) with the equation's gradient sum.
    const rows = fs.readFileSync(path.join(DIR, 'bin_pima_l0.train.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').map(Number));
    const F = rows[0].length - 1;
    const margin = rows.map(() => equations!.baseMargin);
    let largest = 0;
    forest.trees.forEach((tree, t) => {
      const leafOf = rows.map((x) => {
        let node = 0;
        while (tree.left[node] !== -1) node = Math.fround(x[tree.feature[node]]) < Math.fround(tree.threshold[node]) ? tree.left[node] : tree.right[node];
        return node;
      });
      const sums = new Map<number, number>();
      rows.forEach((x, i) => sums.set(leafOf[i], (sums.get(leafOf[i]) ?? 0) + 1 / (1 + Math.exp(-margin[i])) - x[F]));
      const { nodes, leaves } = equations!.trees[t];
      for (const [node, g] of sums) largest = Math.max(largest, Math.abs(g - leaves[nodes.indexOf(node)].gradients!));
      rows.forEach((_, i) => (margin[i] += tree.boosting!.leafValue[leafOf[i]]));
    });
    assert.ok(largest < BAND, `largest gradient residual of the true rows ${largest}`);
  });
});

describe('max_delta_step: a real clip is still read as one', () => {
  it('bin_pima_l0_mds (lambda 0, max_delta_step 0.3): clip 0.3 inferred and said; clipped leaves only bounded, soundly', () => {
    const forest = forestOf('bin_pima_l0_mds.json');
    const truth = leafTruth('bin_pima_l0_mds');
    const probe = probeFirstTrees(forest);
    assert.equal(probe.status, 'partial');
    assert.equal(Math.fround(probe.parameters.maxDeltaStep!.value), Math.fround(0.3));
    assert.equal(probe.parameters.maxDeltaStep!.source, 'inferred');
    assert.ok(probe.caveats.some((c) => /max_delta_step=0\.3/.test(c)));
    let bounded = 0;
    for (const leaf of probe.trees[0].leaves) {
      const want = truth[String(leaf.nativeId)];
      assert.equal(leaf.rows, want.rows);
      if (leaf.positives !== undefined) assert.equal(leaf.positives, want.positives, `leaf ${leaf.nativeId}`);
      if (leaf.positivesAtLeast !== undefined) (bounded++, assert.ok(want.positives >= leaf.positivesAtLeast));
      if (leaf.positivesAtMost !== undefined) (bounded++, assert.ok(want.positives <= leaf.positivesAtMost));
    }
    assert.ok(bounded > 0);
    // Without exact counts the hessian reconstruction does not run, so no gradient sum is used.
    assert.equal(boostedLeafEquations(forest), undefined);
  });
});
