/**
 * Differentially private forests (test/fixtures/dp, written by generate.py: diffprivlib's random
 * tree structure, every tree filled with all N rows, every leaf count released as
 * count + int(Laplace(trees / epsilon)), as the DRAFT-DP paper attacks them):
 *  - the linter reads and validates them, and their released counts are the true counts (routing
 *    the real training rows) plus integer noise distributed as the mechanism says;
 *  - method `dp-likelihood` answers with an honest estimate (nothing certified) whose error,
 *    after the papers' matching, is well below the random baseline;
 *  - its likelihood is at least that of the true training set (it maximises it);
 *  - budget and abort are respected; unknown N is estimated within the paper's interval, which
 *    holds the true N.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { RunContext } from '../../server/src/attacks/reconstruction/context';
import { negativeLogLikelihood } from '../../server/src/attacks/reconstruction/dp/formulation';
import { reconstructDp, type DpReconstructionDetails } from '../../server/src/attacks/reconstruction/dp/likelihood';
import { evaluateReconstruction, randomBaselineError } from '../../server/src/evaluate/metrics';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';
import { leafOf, readTrainingRows, type FixtureEntry, type TrainingRow } from '../support/reconstruction-truth';

const DIR = join(FIXTURES, 'dp');
type DpEntry = FixtureEntry & { epsilon: number };
const manifest: DpEntry[] = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));
const entry = (name: string) => manifest.find((e) => e.name === name)!;

async function readForest(e: DpEntry): Promise<Forest> {
  const report = await lintFile(join(DIR, e.model), { keepForest: true });
  assert.ok(report.forest, `${e.model}: ${report.findings.map((f) => f.message).join('; ')}`);
  return report.forest;
}

function truthOf(e: DpEntry): TrainingRow[] {
  return readTrainingRows(join(DIR, e.truth)).rows;
}

/** Released minus true count of every (tree, leaf, class). */
function noises(forest: Forest, truth: readonly TrainingRow[]): number[] {
  const classes = forest.classes.length;
  const out: number[] = [];
  for (const tree of forest.trees) {
    const counts = new Map<number, number[]>();
    for (const row of truth) {
      const leaf = leafOf(tree, row.values);
      const c = counts.get(leaf) ?? new Array(classes).fill(0);
      c[forest.classes.indexOf(row.label)]++;
      counts.set(leaf, c);
    }
    for (let node = 0; node < tree.left.length; node++) {
      if (tree.left[node] !== -1) continue;
      for (let c = 0; c < classes; c++) out.push(tree.classWeights[node * classes + c] - (counts.get(node)?.[c] ?? 0));
    }
  }
  return out;
}

/** True rows per formulation row, for the likelihood of the real training set. */
function trueRowCounts(details: DpReconstructionDetails, forest: Forest, truth: readonly TrainingRow[]): Int32Array {
  const { formulation, table } = details;
  const classes = formulation.classes;
  const index = new Map<string, number>();
  for (let r = 0; r < formulation.numRows; r++) index.set(`${formulation.rowTree[r]}:${formulation.rowLeaf[r]}:${formulation.rowClass[r]}`, r);
  const counts = new Int32Array(formulation.numRows);
  forest.trees.forEach((tree, t) => {
    const leafIndex = new Map<number, number>();
    table.structure.trees[t].nodes.forEach((node, l) => leafIndex.set(node, l));
    for (const row of truth) {
      const r = index.get(`${t}:${leafIndex.get(leafOf(tree, row.values))}:${forest.classes.indexOf(row.label) % classes}`);
      assert.ok(r !== undefined, 'a true row reaches a leaf no cell reaches');
      counts[r]++;
    }
  });
  return counts;
}

describe('differentially private forests: the generated fixtures', () => {
  for (const e of manifest) {
    it(`${e.name}: read, validated, and noised as the mechanism says`, async () => {
      const forest = await readForest(e);
      assert.deepEqual(forest.privacy, { mechanism: 'laplace-leaf-counts', epsilon: e.epsilon, split: 'per-tree', rounding: 'truncate' });
      assert.equal(forest.trees.length, e.trees);
      assert.equal(forest.training.rows, e.rows);
      for (const tree of forest.trees) {
        // A full tree of the stated depth, internal nodes holding the sums of their children.
        assert.equal(tree.left.filter((l) => l === -1).length, 2 ** e.max_depth!);
        for (let node = tree.left.length - 1; node >= 0; node--) {
          if (tree.left[node] === -1) continue;
          for (let c = 0; c < 2; c++) assert.equal(tree.classWeights[node * 2 + c], tree.classWeights[tree.left[node] * 2 + c] + tree.classWeights[tree.right[node] * 2 + c]);
        }
      }
      const noise = noises(forest, truthOf(e));
      assert.ok(noise.every(Number.isInteger));
      // P(int(Y) = 0) = 1 - exp(-eps_leaf); the share of zero noises is within 5 points of it
      // (at least 160 counts: a standard deviation below 4 points).
      const epsLeaf = e.epsilon / e.trees;
      const zeros = noise.filter((n) => n === 0).length / noise.length;
      assert.ok(Math.abs(zeros - (1 - Math.exp(-epsLeaf))) < 0.05 + 2 * Math.sqrt(0.25 / noise.length), `zero noise share ${zeros}, expected ${1 - Math.exp(-epsLeaf)}`);
      // Mean |int(Y)| is close to its expectation sum_k k P(|int(Y)| = k) = e^-eps / (1 - e^-eps).
      const meanAbs = noise.reduce((a, n) => a + Math.abs(n), 0) / noise.length;
      const expected = Math.exp(-epsLeaf) / -Math.expm1(-epsLeaf);
      assert.ok(Math.abs(meanAbs - expected) < 0.35 * expected + 0.05, `mean |noise| ${meanAbs}, expected ${expected}`);
    });
  }
});

describe('differentially private forests: the dp-likelihood reconstruction', () => {
  for (const name of ['dp_compas_t10_d5_e30_s0', 'dp_compas_t10_d5_e10_s0', 'dp_adult_t10_d5_e10_s0']) {
    it(`${name}: an honest estimate, well below the random baseline, at least as likely as the truth`, async () => {
      const e = entry(name);
      const forest = await readForest(e);
      const truth = truthOf(e);
      let details: DpReconstructionDetails | undefined;
      const ctx = new RunContext({ groups: e.groups, budgetMs: 12_000 });
      ctx.method = 'dp-likelihood';
      const result = await reconstructDp(forest, ctx, (d) => (details = d));
      assert.equal(result.method, 'dp-likelihood');
      assert.ok(result.status === 'bounded' || result.status === 'timeout', `${result.status}: ${result.reason}`);
      assert.equal(result.certifiedRows, 0);
      assert.ok(result.reconstruction.every((r) => !r.certified));
      assert.match(result.reason ?? '', /estimate/);
      assert.match(result.reason ?? '', /no row is certified/);
      assert.equal(result.rows, e.rows);
      assert.equal(result.reconstructedRows, e.rows);
      assert.ok(result.stats.firstReconstructionMs !== undefined && result.stats.firstReconstructionMs <= result.seconds * 1000);

      const quality = evaluateReconstruction(result.reconstruction, truth);
      const baseline = randomBaselineError(truth, e.groups, forest.classes);
      assert.ok(quality.error < 0.6 * baseline, `error ${quality.error.toFixed(3)}, random baseline ${baseline.toFixed(3)}`);

      // The maximum likelihood is at least as likely as the real training set (within what the
      // solver proved: a timed-out search may fall short, but never by much at these budgets).
      assert.ok(details?.negativeLogLikelihood !== undefined);
      const truthCost = negativeLogLikelihood(details.formulation, trueRowCounts(details, forest, truth)).cost;
      if (result.status === 'bounded') assert.ok(details.negativeLogLikelihood <= truthCost + 1e-6, `reconstruction ${details.negativeLogLikelihood}, truth ${truthCost}`);
      else assert.ok(details.negativeLogLikelihood <= truthCost * 1.05, `reconstruction ${details.negativeLogLikelihood}, truth ${truthCost}`);
    });
  }

  it('goes through the dispatcher for any forest with a privacy block', async () => {
    const e = entry('dp_compas_t5_d3_e30_s1_n40');
    const forest = await readForest(e);
    const result = await reconstruct(forest, { groups: e.groups, budgetMs: 20_000 });
    assert.equal(result.method, 'dp-likelihood');
    assert.equal(result.status, 'bounded');
    assert.equal(result.reconstructedRows, 40);
    const truth = truthOf(e);
    assert.ok(evaluateReconstruction(result.reconstruction, truth).error < randomBaselineError(truth, e.groups, forest.classes));
  });

  it('skips mechanisms whose noise it does not model, and says why', async () => {
    const forest = await readForest(entry('dp_compas_t5_d3_e30_s1_n40'));
    const perLevel = await reconstruct({ ...forest, privacy: { ...forest.privacy!, split: 'per-level' } });
    assert.equal(perLevel.method, 'dp-likelihood');
    assert.equal(perLevel.status, 'skipped');
    assert.match(perLevel.reason ?? '', /per-level/);
    const rounded = await reconstruct({ ...forest, privacy: { ...forest.privacy!, rounding: 'round' } });
    assert.equal(rounded.status, 'skipped');
    assert.match(rounded.reason ?? '', /round/);
  });
});

describe('differentially private forests: budget, abort, unknown N', () => {
  it('keeps to a short budget on the largest formulation (Default Credit, about 250,000 columns)', async () => {
    const e = entry('dp_credit_t10_d5_e10_s0');
    const forest = await readForest(e);
    const started = Date.now();
    const result = await reconstruct(forest, { groups: e.groups, budgetMs: 1_500 });
    const elapsed = Date.now() - started;
    assert.equal(result.method, 'dp-likelihood');
    assert.equal(result.status, 'timeout');
    assert.equal(result.certifiedRows, 0);
    // The only step that cannot be interrupted is one HiGHS call, itself bounded by the budget.
    assert.ok(elapsed < 4_000, `took ${elapsed} ms for a 1.5 s budget`);
  });

  it('stops when aborted, before or during the work', async () => {
    const e = entry('dp_credit_t10_d5_e10_s0');
    const forest = await readForest(e);
    const before = await reconstruct(forest, { groups: e.groups, signal: AbortSignal.abort() });
    assert.equal(before.status, 'timeout');
    assert.match(before.reason ?? '', /cancelled/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const during = await reconstruct(forest, { groups: e.groups, signal: controller.signal, budgetMs: 60_000 });
    assert.equal(during.status, 'timeout');
    assert.match(during.reason ?? '', /cancelled/);
    assert.ok(Date.now() - started < 10_000);
  });

  for (const name of manifest.map((e) => e.name)) {
    it(`${name}: the confidence interval on N from the noisy totals holds the true N`, async () => {
      const e = entry(name);
      const forest = await readForest(e);
      const unknown: Forest = { ...forest, training: { ...forest.training, rows: undefined } };
      let details: DpReconstructionDetails | undefined;
      const ctx = new RunContext({ groups: e.groups, budgetMs: e.epsilon >= 30 ? 10_000 : 1 });
      // Budget 1 ms below epsilon 30: only the interval is checked there (it is computed first).
      const result = await reconstructDp(unknown, ctx, (d) => (details = d));
      const interval = result.stats.rowsInterval!;
      assert.ok(interval.low <= e.rows && e.rows <= interval.high, `N = ${e.rows} outside [${interval.low}, ${interval.high}]`);
      assert.equal(result.rows, null);
      if (e.epsilon >= 30) {
        assert.ok(details);
        assert.equal(details.formulation.rowsLow, interval.low);
        assert.equal(details.formulation.rowsHigh, interval.high);
        assert.ok(result.reconstructedRows >= interval.low && result.reconstructedRows <= interval.high);
        assert.match(result.reason ?? '', /N estimated/);
        const truth = truthOf(e);
        assert.ok(evaluateReconstruction(result.reconstruction, truth).error < randomBaselineError(truth, e.groups, forest.classes));
      }
    });
  }
});
