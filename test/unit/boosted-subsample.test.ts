/**
 * Squared-error boosted regressors grown on row subsamples (boosted-subsample.ts): tree 0's draw
 * certified as boxes, targets from tree 0's one-row leaves, the rest an estimate, N estimated;
 * checked against the true training rows of XGBoost 1.7.4 models
 * (test/fixtures/xgboost-counts/generate.py: reg_pima_sub, XGBRegressor(subsample=0.7) on the 150
 * rows of reg_pima_deep.train.csv, which states subsample; reg_pima_sub_booster, xgb.train with
 * subsample=0.7, which states no training parameter).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { certifiedTarget } from '../../server/src/attacks/reconstruction/boosted-box-labels';
import { subsampledRows } from '../../server/src/attacks/reconstruction/boosted-subsample';
import { exactDrawRows } from '../../server/src/forest/subsample';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import type { Forest } from '../../server/src/forest/schema';
import { leafOf } from '../../server/src/forest/structure';
import { summarizeReconstruction } from '../../server/src/recoverability/summary';
import { reconstructionFindings } from '../../server/src/rules';
import { detailOf, SUMMARY_LIMIT, summaryOf } from '../../server/src/rules/message';
import { DEFAULT_THRESHOLDS } from '../../server/src/rules/reconstructable-training-set';
import { countsForest, countsTruth, insideXgb } from '../support/xgboost-counts';

const forestOf = countsForest;
const truth = countsTruth('reg_pima_deep');

const inside = insideXgb;
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-3 * Math.max(1, Math.abs(b));
const roots = (forest: Forest) => forest.trees.map((tree) => Math.round(tree.boosting!.cover![0]));

describe('squared-error boosting on row subsamples: tree 0\'s draw certified, the rest an estimate', () => {
  it('subsampledRows: the stated rate, else the roots\' spread; none when the trees saw the same rows', () => {
    assert.equal(subsampledRows([100, 100, 100], undefined), undefined);
    assert.equal(subsampledRows([100, 100, 100], 1), undefined);
    // A stated rate of 1 with differing roots is no subsample (the caller's count check says why).
    assert.equal(subsampledRows([100, 90, 110], 1), undefined);
    // Equal roots with a stated rate: scikit-learn's exact draw int(rate x N), here N = 100 or 101.
    const stated = subsampledRows([70, 70, 70], 0.7)!;
    assert.deepEqual([stated.rate, stated.rows], [0.7, 100]);
    assert.match(stated.rowsSource, /^at least: .*N from 100 to 101/);
    assert.deepEqual(exactDrawRows(70, 0.7), [100, 101]);
    // GradientBoostingRegressor(subsample=0.8) on the 442 diabetes rows draws 353: only N = 442 gives it.
    assert.deepEqual(exactDrawRows(353, 0.8), [442]);
    const determined = subsampledRows([353, 353], 0.8)!;
    assert.equal(determined.rows, 442);
    assert.match(determined.rowsSource, /^determined/);
    // Roots that differ with a stated rate (XGBoost's Bernoulli draws): the mean over the rate.
    assert.equal(subsampledRows([68, 72, 70], 0.7)!.rows, 100);
    // Binomial draws of N = 1000 rows at 0.5: mean 500, variance 250. Twelve roots bracket N only
    // loosely (a sample variance is off by sqrt(2 / 11) of itself): N is at least the largest root,
    // with the range the spread allows, the true 1,000 inside it.
    const spread = subsampledRows([484, 516, 484, 516, 484, 516, 484, 516, 484, 516, 484, 516], undefined)!;
    assert.equal(spread.rows, 516);
    assert.equal(spread.rowsKind, 'at-least');
    assert.ok(spread.rate > 0.4 && spread.rate < 0.6, JSON.stringify(spread));
    const [, low] = /roughly from ([\d,]+) up/.exec(spread.rowsSource)!.map((x) => Number(x.replace(/,/g, '')));
    assert.ok(low >= 516 && low <= 1000, spread.rowsSource);
    // Two hundred roots bracket it on both sides.
    const draws = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? 484 : 516));
    const many = subsampledRows(draws, undefined)!;
    const [, from, to] = /roughly between ([\d,]+) and ([\d,]+)/.exec(many.rowsSource)!.map((x) => Number(x.replace(/,/g, '')));
    assert.ok(from <= 1000 && 1000 <= to, many.rowsSource);
    // Too few trees to read a spread: N is at least the largest draw.
    const few = subsampledRows([80, 90], undefined)!;
    assert.equal(few.rows, 90);
    assert.match(few.rowsSource, /at least/);
  });

  it('reg_pima_sub (subsample stated): tree 0\'s draw as proven boxes, targets exactly for its one-row leaves, every claim holding true rows', async () => {
    const forest = forestOf('reg_pima_sub.json');
    assert.equal(forest.hyperParameters.subsample, 0.7);
    const r = roots(forest);
    assert.ok(new Set(r).size > 1, 'each tree drew its own rows');
    const result = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(result.method, 'box-estimate');
    assert.equal(result.status, 'bounded', result.reason);
    assert.equal(result.rows, Math.max(...r, Math.round(r.reduce((a, b) => a + b, 0) / r.length / 0.7)));
    assert.ok(Math.abs(result.rows! - truth.length) <= 0.1 * truth.length, `N ${result.rows} against ${truth.length}`);
    assert.equal(result.reconstructedRows, result.rows);
    assert.equal(result.certifiedRows + (result.certifiedWithoutLabel ?? 0), r[0]);
    // The rate is stated: said as such, and the first-tree finding's N is the reconstruction's.
    assert.match(result.reason ?? '', /subsample=0\.7\)/);
    assert.doesNotMatch(result.reason ?? '', /does not record/);
    assert.ok(probeFirstTrees(forest).caveats.some((c) => c.includes(`N is about ${result.rows!.toLocaleString('en-US')})`)), probeFirstTrees(forest).caveats.join(' '));
    const tree0 = forest.trees[0];
    const oneRow = tree0.left.filter((l, node) => l === -1 && Math.round(tree0.boosting!.cover![node]) === 1).length;
    assert.ok(oneRow >= 1);
    assert.equal(result.certifiedRows, oneRow);
    // Per distinct proven box, the true rows inside are at least the rows claimed there.
    const claims = new Map<string, number>();
    for (const row of result.reconstruction.filter((row) => row.certified || row.certifiedValues)) claims.set(JSON.stringify(row.intervals), (claims.get(JSON.stringify(row.intervals)) ?? 0) + 1);
    for (const [key, n] of claims) assert.ok(truth.filter((t) => inside(JSON.parse(key), t.x)).length >= n, key);
    for (const row of result.reconstruction.filter((row) => row.certified)) {
      assert.ok(truth.some((t) => inside(row.intervals!, t.x) && close(t.y, Number(row.label))), `certified target ${row.label}: no true row in the box has it`);
    }
    assert.match(result.reason ?? '', /subsample: tree 0 only/);
    // The finding counts both: the rows proven with their target and the boxes whose target is estimated.
    const [finding] = reconstructionFindings(forest, summarizeReconstruction(forest, result, { declared: 0, sources: [], problems: [] }), DEFAULT_THRESHOLDS, {});
    const summary = summaryOf(finding.message);
    assert.ok(summary.length <= SUMMARY_LIMIT, summary);
    // XGBoost draws each row with probability subsample: N is an estimate, and said to be one.
    assert.equal(result.rowsKind, 'estimate');
    assert.equal(summary, `${r[0]} of about ${result.rows} rows proven as boxes, ${result.certifiedRows} with labels: see the report.`);
    assert.match(detailOf(finding.message), new RegExp(`${result.certifiedWithoutLabel} more rows are proven to be in the training data with their feature intervals, their labels only estimated`));
  });

  it('why tree 0 only: a later tree\'s one-row leaf may hold a row its box shares with rows that tree did not draw', () => {
    const forest = forestOf('reg_pima_sub.json');
    const probe = probeFirstTrees(forest);
    const eta = probe.parameters.eta!.value;
    const lambda = probe.parameters.lambda?.value ?? 1;
    let wrongIfAllTrees = 0;
    for (const row of truth) {
      // The row's own leaf in every tree, as the narrowest box: the leaves' boxes cut by its values.
      const cell = forest.features.map((_, f) => {
        let low = -Infinity;
        let high = Infinity;
        for (const tree of forest.trees) {
          tree.left.forEach((l, node) => {
            if (l === -1 || tree.feature[node] !== f) return;
            if (tree.threshold[node] <= Math.fround(row.x[f])) low = Math.max(low, tree.threshold[node]);
            else high = Math.min(high, tree.threshold[node]);
          });
        }
        return [low, high] as [number, number];
      });
      forest.trees.forEach((tree) => assert.ok(leafOf(tree, row.x, forest.splitRule) >= 0));
      const first = certifiedTarget(forest, cell, { eta, lambda, trees: 1 });
      const all = certifiedTarget(forest, cell, { eta, lambda, trees: forest.trees.length });
      if (first === undefined && all !== undefined && !close(all, row.y)) wrongIfAllTrees++;
    }
    assert.ok(wrongIfAllTrees > 0, 'reading every tree\'s one-row leaves would certify wrong targets');
  });

  it('reg_pima_sub_booster (no parameter stated): the subsample is read from the roots, N at least the largest root, with the range the spread allows', async () => {
    const forest = forestOf('reg_pima_sub_booster.json');
    assert.equal(forest.hyperParameters.subsample, undefined);
    const result = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(result.method, 'box-estimate');
    assert.equal(result.rowsKind, 'at-least');
    assert.equal(result.rows, Math.max(...roots(forest)));
    const [, low, high] = /puts N roughly between ([\d,]+) and ([\d,]+)/.exec(result.reason ?? '')!.map((x) => Number(x.replace(/,/g, '')));
    assert.ok(low <= truth.length && truth.length <= high, `${truth.length} rows, range ${low}-${high}`);
    assert.match(result.reason ?? '', /which the file does not record/);
    assert.ok(result.rows! >= Math.max(...roots(forest)));
    assert.equal(result.certifiedRows + (result.certifiedWithoutLabel ?? 0), roots(forest)[0]);
    for (const row of result.reconstruction.filter((row) => row.certified)) {
      assert.ok(truth.some((t) => inside(row.intervals!, t.x) && close(t.y, Number(row.label))), `certified target ${row.label}`);
    }
  });
});
