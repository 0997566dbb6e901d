/**
 * First-tree probing against the truth: the generator routed every training row through the first
 * tree(s) and counted rows and labels per leaf (test/fixtures/xgboost/generate.py). The probe reads
 * only the model, and must find those numbers exactly, or say which assumption failed and then
 * report only what is still sound (never a wrong number).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probeFirstTrees, type FirstTreeProbe } from '../../server/src/attacks/first-tree-probe';
import { lintFile } from '../../server/src/linter/linter';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { leafOf as leafOfTree } from '../../server/src/forest/structure';
import { maximumMatching } from '../support/bipartite-matching';
import { FIXTURES } from '../support/paths';
import { readFixture } from './xgboost-readers.test';
import { readModel } from '../../server/src/formats';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';

const DIR = path.join(FIXTURES, 'xgboost');
interface Entry { file: string; model?: string; probe?: string; hyper?: Record<string, number> }
const MANIFEST: { files: Entry[] } = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8'));
interface Truth {
  objective: string;
  training: { rows: number; labelCounts?: Record<string, number>; labelSum?: number };
  firstTrees: { tree: number; leaves: Record<string, { rows: number; positives?: number; labelSum?: number }> }[];
}
const truthOf = (model: string): Truth => JSON.parse(fs.readFileSync(path.join(DIR, `${model}.truth.json`), 'utf8'));

function leafOf(probe: FirstTreeProbe, tree: number, id: number) {
  const leaf = probe.trees.find((t) => t.tree === tree)?.leaves.find((l) => l.nativeId === id);
  assert.ok(leaf, `tree ${tree} leaf ${id} not probed`);
  return leaf!;
}

describe('first-tree probing finds the true counts', () => {
  for (const entry of MANIFEST.files.filter((e) => e.probe === 'exact' || e.probe === 'exact-assumed')) {
    it(`${entry.file}: every leaf's rows and labels, N and the label balance`, () => {
      const { forest } = readFixture(entry.file);
      const truth = truthOf(entry.model!);
      const probe = probeFirstTrees(forest);
      assert.equal(probe.status, 'exact', JSON.stringify({ ...probe, trees: undefined }));
      assert.equal(probe.rows, truth.training.rows);
      assert.equal(probe.trees.length, truth.firstTrees.length);
      for (const ft of truth.firstTrees) {
        assert.equal(Object.keys(ft.leaves).length, probe.trees.find((t) => t.tree === ft.tree)!.leaves.length, 'every leaf reached by training rows, and only those');
        for (const [id, want] of Object.entries(ft.leaves)) {
          const leaf = leafOf(probe, ft.tree, Number(id));
          assert.ok(Number.isInteger(leaf.rows));
          assert.equal(leaf.rows, want.rows, `tree ${ft.tree} leaf ${id} rows`);
          if (want.positives !== undefined) assert.equal(leaf.positives, want.positives, `tree ${ft.tree} leaf ${id} positives`);
          if (want.labelSum !== undefined) assert.ok(Math.abs(leaf.labelSum! - want.labelSum) <= 1e-3 * Math.max(1, Math.abs(want.labelSum)), `leaf ${id} label sum ${leaf.labelSum} vs ${want.labelSum}`);
        }
      }
      if (truth.training.labelCounts) {
        const want = Object.keys(truth.training.labelCounts).sort().map((k) => truth.training.labelCounts![k]);
        assert.deepEqual(probe.classCounts, want);
      } else {
        assert.ok(Math.abs(probe.labelSum! - truth.training.labelSum!) <= 1e-3 * truth.training.labelSum!);
      }
      // The learning rate and lambda are found (stated, or inferred from the trees) as trained.
      if (entry.hyper?.eta !== undefined) assert.equal(probe.parameters.eta?.value, entry.hyper.eta);
      if (entry.hyper?.lambda !== undefined && probe.parameters.lambda?.source !== 'assumed') assert.equal(probe.parameters.lambda?.value, entry.hyper.lambda);
    });
  }

  it('classes that start from different margins (a base score per class, XGBoost 2+): each class tree\'s own hessian, every leaf exact', () => {
    // Trained by XGBoost 1.7.4 with every row's base_margin set to the margins (generate.py, 4b):
    // the IR is given them as a 2+ file states them.
    const truth = truthOf('multi_iris_margins') as Truth & { margins: number[] };
    const { forest } = readFixture('multi_iris_margins.json');
    const started = { ...forest, boosting: { ...forest.boosting!, baseScore: truth.margins } };
    const probe = probeFirstTrees(started);
    assert.equal(probe.status, 'exact', probe.reason);
    assert.equal(probe.rows, truth.training.rows);
    assert.deepEqual(probe.classCounts, Object.keys(truth.training.labelCounts!).sort().map((k) => truth.training.labelCounts![k]));
    for (const ft of truth.firstTrees) {
      for (const [id, want] of Object.entries(ft.leaves)) {
        const leaf = leafOf(probe, ft.tree, Number(id));
        assert.equal(leaf.rows, want.rows, `tree ${ft.tree} leaf ${id} rows`);
        assert.equal(leaf.positives, want.positives, `tree ${ft.tree} leaf ${id} positives`);
      }
    }
    // Read with one start for all classes, the covers are no whole multiple of one hessian: no counts claimed.
    assert.notEqual(probeFirstTrees(forest).status, 'exact');
  });

  it('multi-class with an unrecorded subsample: each class tree of round 1 counts its own draw, and its rows of its class are certified', async () => {
    const { forest } = readFixture('multi_iris_sub.json');
    const probe = probeFirstTrees(forest);
    assert.equal(probe.status, 'exact', probe.reason);
    assert.equal(probe.classDraws, true);
    assert.equal(probe.rows, undefined, 'no N from draws');
    // XGBoost 1.7.4 drew 111, 98 and 111 of the 150 rows for the three trees (their root covers over 4/9).
    assert.deepEqual(probe.trees.map((t) => t.rows), [111, 98, 111]);
    assert.ok(probe.caveats.some((c) => /hold 111, 98, 111 rows, so each grew on its own draw/.test(c)), probe.caveats.join(' '));
    const report = await lintFile(path.join(DIR, 'multi_iris_sub.json'));
    assert.equal(report.model?.trainingRows, null);
    const finding = report.findings.find((f) => f.rule === 'first-tree-exposes-counts');
    assert.ok(finding, 'the counts are a finding, not "no findings"');
    assert.match(finding.message, /each tree counts its own draw of the rows \(111, 98, 111 rows/);

    const result = await reconstruct(forest, { budgetMs: 5_000 });
    assert.equal(result.rows, null, result.reason);
    assert.equal(result.status, 'bounded');
    // Each class tree's rows of its class, summed: at most each class's 50 rows, and every one a
    // distinct true row of its class inside its box (XGBoost: lower <= x < upper, in float32).
    const truth = fs.readFileSync(path.join(DIR, 'multi_iris_sub.train.csv'), 'utf8').trim().split('\n').slice(1).map((line) => line.split(',').map(Number));
    const perClass = probe.trees.map((t) => t.leaves.reduce((s, l) => s + l.positives!, 0));
    assert.equal(result.certifiedRows, perClass.reduce((s, c) => s + c, 0));
    assert.ok(result.certifiedRows > 0.6 * truth.length, `${result.certifiedRows} certified`);
    const certified = result.reconstruction.filter((r) => r.certified);
    const adjacency = certified.map((row) => truth.flatMap((t, i) => (String(t[4]) === String(row.label) && row.intervals!.every((b, f) => b === null || (Math.fround(t[f]) >= b[0] && Math.fround(t[f]) < b[1])) ? [i] : [])));
    assert.equal(maximumMatching(adjacency, truth.length).size, certified.length, 'every certified box gets its own true row');

    // Through the scikit-learn wrapper the file states subsample=0.7: N estimated from the draws.
    const wrapped = await reconstruct(readFixture('multi_iris_sub_wrapper.json').forest, { budgetMs: 5_000 });
    assert.ok(wrapped.rows !== null && Math.abs(wrapped.rows - 150) <= 15, `N about ${wrapped.rows}`);
    assert.match(wrapped.reason ?? '', /subsample=0\.7; N about/);
  });

  it('count:poisson and reg:absoluteerror: one hessian per row in the first tree, so its rows per leaf (and poisson\'s label sums where no weight is clipped) are the true ones', () => {
    const route = (file: string, csv: string) => {
      const { forest } = readFixture(file);
      const rows = fs.readFileSync(path.join(DIR, csv), 'utf8').trim().split('\n').slice(1).map((line) => line.split(',').map(Number));
      const byLeaf = new Map<number, { rows: number; sum: number }>();
      for (const r of rows) {
        const leaf = leafOfTree(forest.trees[0], r.slice(0, -1).map(Math.fround), forest.splitRule);
        const at = byLeaf.get(leaf) ?? { rows: 0, sum: 0 };
        at.rows++;
        at.sum += r.at(-1)!;
        byLeaf.set(leaf, at);
      }
      return { forest, probe: probeFirstTrees(forest), byLeaf, n: rows.length };
    };
    const poisson = route('count_pima_poisson.json', 'count_pima_poisson.train.csv');
    assert.notEqual(poisson.probe.status, 'not-applicable', poisson.probe.reason);
    assert.equal(poisson.probe.rows, poisson.n);
    let sums = 0;
    for (const leaf of poisson.probe.trees[0].leaves) {
      assert.equal(leaf.rows, poisson.byLeaf.get(leaf.node)?.rows, `leaf ${leaf.nativeId} rows`);
      if (leaf.labelSum === undefined) continue;
      sums++;
      assert.ok(Math.abs(leaf.labelSum - poisson.byLeaf.get(leaf.node)!.sum) < 1e-3, `leaf ${leaf.nativeId} label sum ${leaf.labelSum}`);
    }
    assert.ok(sums > 0, 'some leaf gives its label sum');
    const absolute = route('reg_pima_absolute.json', 'reg_pima_absolute.train.csv');
    assert.equal(absolute.probe.status, 'rows-only');
    assert.equal(absolute.probe.rows, absolute.n);
    for (const leaf of absolute.probe.trees[0].leaves) assert.equal(leaf.rows, absolute.byLeaf.get(leaf.node)?.rows, `leaf ${leaf.nativeId} rows`);
    assert.ok(absolute.probe.caveats.some((c) => /residuals' quantile/.test(c)));
    // Every tree's root holds every row (hessian 1 in every tree).
    for (const tree of absolute.forest.trees) assert.equal(Math.round(tree.boosting!.cover![0]), absolute.n);
  });

  it('integer sample weights on a label, which the file does not record: the counts are reported as weights, no N and no rows claimed', async () => {
    // XGBClassifier fitted on 200 Pima rows with sample_weight 3 for label 0: the covers read 3 rows for each.
    const { forest } = readFixture('bin_pima_weighted.json');
    const probe = probeFirstTrees(forest);
    assert.equal(probe.status, 'exact');
    assert.deepEqual(probe.weightedCounts?.map((w) => [w.label, w.factor]), [[0, 3]]);
    const truth = fs.readFileSync(path.join(DIR, 'bin_pima.train.csv'), 'utf8').trim().split('\n').slice(1).map((line) => Number(line.split(',').at(-1)));
    const [negatives, positives] = [truth.filter((y) => y === 0).length, truth.filter((y) => y === 1).length];
    // What the probe reads is the weighted count, not the 200 rows.
    assert.equal(probe.rows, 3 * negatives + positives);
    const report = await lintFile(path.join(DIR, 'bin_pima_weighted.json'));
    assert.equal(report.model?.trainingRows, null, 'no N from weighted counts');
    assert.match(report.findings.find((f) => f.rule === 'first-tree-exposes-counts')?.message ?? '', /multiple of 3 .*probably carry sample weight 3/);
    const result = await reconstruct(forest, { budgetMs: 3_000 });
    assert.equal(result.status, 'skipped', result.reason);
    assert.equal(result.certifiedRows, 0);
    assert.match(result.reason ?? '', /look sample-weighted/);
    // No false alarm on the unweighted models of the manifest.
    for (const entry of MANIFEST.files.filter((e) => e.probe === 'exact')) {
      assert.equal(probeFirstTrees(readFixture(entry.file).forest).weightedCounts, undefined, entry.file);
    }
  });

  it('binary, subsample not recorded: tree 1\'s cover shows tree 0 grew on a draw, so its rows are not taken for N', async () => {
    // xgb.train(subsample=0.8) on 200 Pima rows; the Booster's JSON states no training parameter.
    const { forest } = readFixture('bin_pima_sub_unrecorded.json');
    const probe = probeFirstTrees(forest);
    assert.ok(probe.ownDraw, JSON.stringify({ ...probe, trees: undefined }));
    assert.ok(probe.rows! < 200, `tree 0 drew ${probe.rows} of the 200 rows`);
    assert.ok(probe.caveats.some((c) => /subsample below 1 \(the file does not record it\)/.test(c)));
    const report = await lintFile(path.join(DIR, 'bin_pima_sub_unrecorded.json'));
    assert.equal(report.model?.trainingRows, null, 'no N from a draw');
    const result = await reconstruct(forest, { budgetMs: 5_000 });
    assert.equal(result.rows, null, result.reason);
    assert.match(result.reason ?? '', /at least these rows.*size (is )?unknown/);
    assert.ok(result.certifiedRows + (result.certifiedWithoutLabel ?? 0) <= probe.rows!);
    // Every model of the manifest trained on all rows fits tree 1's cover exactly: no false alarm.
    for (const entry of MANIFEST.files.filter((e) => e.probe === 'exact' && e.hyper?.subsample === undefined)) {
      assert.equal(probeFirstTrees(readFixture(entry.file).forest).ownDraw, undefined, entry.file);
    }
  });

  it('L1 alpha: rows exact, no label count claimed', () => {
    const probe = probeFirstTrees(readFixture('bin_pima_alpha.json').forest);
    const truth = truthOf('bin_pima_alpha');
    assert.equal(probe.status, 'rows-only');
    for (const [id, want] of Object.entries(truth.firstTrees[0].leaves)) {
      const leaf = leafOf(probe, 0, Number(id));
      assert.equal(leaf.rows, want.rows);
      assert.equal(leaf.positives, undefined, 'a positives count here would be off by alpha');
    }
    assert.ok(probe.caveats.some((c) => /row counts are exact/.test(c)));
  });

  it('max_delta_step: rows exact, unclipped leaves exact, clipped leaves bounded correctly', () => {
    const probe = probeFirstTrees(readFixture('bin_pima_mds.json').forest);
    const truth = truthOf('bin_pima_mds');
    assert.equal(probe.status, 'partial');
    assert.equal(Math.fround(probe.parameters.maxDeltaStep!.value), Math.fround(0.3));
    let bounded = 0;
    for (const [id, want] of Object.entries(truth.firstTrees[0].leaves)) {
      const leaf = leafOf(probe, 0, Number(id));
      assert.equal(leaf.rows, want.rows);
      if (leaf.positives !== undefined) assert.equal(leaf.positives, want.positives, `leaf ${id}`);
      if (leaf.positivesAtLeast !== undefined) (bounded++, assert.ok(want.positives! >= leaf.positivesAtLeast, `leaf ${id}: ${want.positives} >= ${leaf.positivesAtLeast}`));
      if (leaf.positivesAtMost !== undefined) (bounded++, assert.ok(want.positives! <= leaf.positivesAtMost, `leaf ${id}: ${want.positives} <= ${leaf.positivesAtMost}`));
    }
    assert.ok(bounded > 0);
  });

  it('subsample: exact counts of the drawn rows, never more than the true leaf holds, and said so', () => {
    const probe = probeFirstTrees(readFixture('bin_pima_subsample.json').forest);
    const truth = truthOf('bin_pima_subsample');
    assert.ok(probe.rows! < truth.training.rows);
    for (const [id, want] of Object.entries(truth.firstTrees[0].leaves)) {
      const leaf = leafOf(probe, 0, Number(id));
      assert.ok(leaf.rows <= want.rows && leaf.positives! <= want.positives! && leaf.rows - leaf.positives! <= want.rows - want.positives!, `leaf ${id}`);
    }
    assert.ok(probe.caveats.some((c) => c.startsWith('with subsample=0.7, the counts are those of the rows drawn')), probe.caveats.join(' | '));
    // A rate a tuner chose prints as six digits, as every number in a message (sweep 12: "Subsample=0.9559763235078597").
    const tuned = new TextDecoder().decode(fs.readFileSync(path.join(FIXTURES, 'xgboost', 'bin_pima_subsample.json'))).replace('\\"subsample\\": 0.7', '\\"subsample\\": 0.7000123456789');
    assert.notEqual(tuned, new TextDecoder().decode(fs.readFileSync(path.join(FIXTURES, 'xgboost', 'bin_pima_subsample.json'))));
    const read = readModel(new TextEncoder().encode(tuned), 'tuned.json');
    assert.equal(read.kind, 'model');
    const completed = completeForest((read as { forest: Forest }).forest);
    assert.ok(completed.ok);
    const again = probeFirstTrees(completed.forest);
    assert.ok(again.caveats.some((c) => c.startsWith('with subsample=0.700012, the counts')), again.caveats.join(' | '));
  });

  it('refuses numbers when the hessians are not equal (sample weights): covers scaled by 1.37', () => {
    const { forest } = readFixture('bin_pima.json');
    const cover = forest.trees[0].boosting!.cover!;
    forest.trees[0].boosting!.cover = cover.map((c, i) => c * (i % 2 ? 1.37 : 1));
    const probe = probeFirstTrees(forest);
    assert.equal(probe.status, 'not-applicable');
    assert.match(probe.reason!, /sample weights/);
  });

  it('a forest is not probed', () => {
    const forest = { ...readFixture('bin_pima.json').forest, boosting: undefined };
    assert.equal(probeFirstTrees(forest).status, 'not-applicable');
  });
});

describe('first-tree probing says why it did not fit', () => {
  it('names a fractional scale_pos_weight that no reading fits, not "no hessian sums" (stop 32)', () => {
    // bin_pima_spw_frac (scale_pos_weight 1.86, probes exact) with the weight changed: the covers
    // still exist, but no split into rows of each label fits the leaf values any more.
    const forest = readFixture('bin_pima_spw_frac.json').forest;
    const changed = { ...forest, hyperParameters: { ...forest.hyperParameters, scale_pos_weight: 2.37 } };
    assert.equal(probeFirstTrees(forest).status, 'exact');
    const probe = probeFirstTrees(changed);
    assert.notEqual(probe.status, 'exact');
    assert.match(probe.reason ?? '', /scale_pos_weight=2\.37 weighs each positive row's hessian/);
    assert.doesNotMatch(probe.reason ?? '', /stores no hessian sums/);
  });
});

describe('scale_pos_weight: a cover counts rows only with its positives', () => {
  it('leaf weights that give no positives give no rows either (sweep 15: "639 rows" were n0 + 8 n1)', () => {
    // bin_pima_spw (XGBoost 1.7.4, scale_pos_weight 3, probes exact: 200 rows) with tree 0's
    // weights changed so that no regularisation fits them, as a public model's did: its covers
    // over h are n0 + 3 n1, which is not the rows.
    const forest = readFixture('bin_pima_spw.json').forest;
    const exact = probeFirstTrees(forest);
    assert.equal(exact.status, 'exact');
    assert.equal(exact.rows, 200);
    const tree = forest.trees[0];
    const odd = (w: number, n: number) => w * (1.37 + 0.11 * (n % 3));
    const changed = {
      ...forest,
      trees: [{ ...tree, boosting: { ...tree.boosting!, leafValue: tree.boosting!.leafValue.map(odd), ...(tree.boosting!.baseWeight ? { baseWeight: tree.boosting!.baseWeight.map(odd) } : {}) } }, ...forest.trees.slice(1)],
    };
    const probe = probeFirstTrees(changed);
    assert.notEqual(probe.rows, 200 + 2 * 72, 'n0 + 3 n1 read as rows');
    assert.equal(probe.rows, undefined, JSON.stringify(probe).slice(0, 300));
    assert.match(probe.reason ?? '', /scale_pos_weight=3 weighs each positive row's hessian/);
  });
});

describe('rules on boosted models', () => {
  it('first-tree-exposes-counts states the numbers and points at the smallest leaf; forest rules stay quiet', async () => {
    const report = await lintFile(path.join(DIR, 'bin_pima.json'));
    const rules = report.findings.map((f) => f.rule).sort();
    assert.deepEqual(rules, ['first-tree-exposes-counts']);
    const finding = report.findings[0];
    const truth = truthOf('bin_pima');
    assert.match(finding.message, /200 training rows, 72 with label 1 \(36%\)/);
    assert.equal(finding.data!.rows, truth.training.rows);
    const smallest = Math.min(...Object.values(truth.firstTrees[0].leaves).map((l) => l.rows));
    assert.match(finding.message, new RegExp(`holds ${smallest} rows`));
    assert.ok(finding.location.range, 'a JSON model finding has a range');
  });

  it('exported-statistics flags dumps with cover and gain at their first node line', async () => {
    const report = await lintFile(path.join(DIR, 'bin_pima.dump.txt'));
    const stats = report.findings.find((f) => f.rule === 'exported-statistics');
    assert.ok(stats);
    assert.deepEqual(stats!.location.range?.start, { line: 1, character: 0 });
    assert.ok(report.findings.some((f) => f.rule === 'first-tree-exposes-counts'));
    const model = await lintFile(path.join(DIR, 'bin_pima.json'));
    assert.ok(!model.findings.some((f) => f.rule === 'exported-statistics'), 'only dumps');
  });

  // XGBoost before 1.0 and R's xgboost print a dump's headers `booster[0]` without a colon and its
  // numbers at 6 significant digits: a public R dump (2015, multi:softprob, 7,381 rows) was "not a
  // model" for its headers, and its root cover 3280.44 is 7,380.99 rows of hessian 4/9, which the
  // float32 tolerance refused. Written here in that form from XGBoost 1.7.4's own dumps.
  const oldStyle = (text: string) =>
    text.replace(/^booster\[(\d+)\]:$/gm, 'booster[$1]').replace(/-?\d+\.\d+(?:e[-+]?\d+)?/g, (n) => String(Number(Number(n).toPrecision(6))));
  const lintText = async (text: string) => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mpl-olddump-'));
    try {
      const file = path.join(tmp, 'dump.raw.txt');
      fs.writeFileSync(file, text);
      return await lintFile(file);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  };
  const cases = [
    ['multi_iris', 150, '0: 50, 1: 50, 2: 50', 'cover=66.6667'],
    ['multi_credit', 22_600, undefined, 'cover=10044.4\n'],
  ] as const;
  for (const [name, rows, classes, rootCover] of cases) {
    it(`reads ${name}'s dump as XGBoost before 1.0 and R print it (no colon after booster[k], 6 digits), with its exact counts`, async () => {
      const text = fs.readFileSync(path.join(DIR, `${name}.dump.txt`), 'utf8');
      const old = oldStyle(text);
      assert.match(old, /^booster\[0\]\n/);
      assert.ok(old.includes(rootCover), `the root cover at 6 digits (${rootCover})`);
      const report = await lintText(old);
      assert.equal(report.format, 'xgboost-dump');
      const counts = report.findings.find((f) => f.rule === 'first-tree-exposes-counts');
      assert.ok(counts, report.findings.map((f) => `${f.rule}: ${f.message}`).join('\n'));
      assert.equal(counts!.data!.rows, rows);
      const truth = name === 'multi_credit' ? JSON.parse(fs.readFileSync(path.join(DIR, 'multi_credit.truth.json'), 'utf8')) : undefined;
      const expected = classes ?? truth.classCounts.map((c: number, k: number) => `${k}: ${c.toLocaleString('en-US')}`).join(', ');
      assert.ok(counts!.message.includes(`${rows.toLocaleString('en-US')} training rows (${expected})`), counts!.message);
    });
  }

  it('exported-statistics points to first-tree-exposes-counts only where that finding is there', async () => {
    // weighted_credit (dump_fixtures.py): sample weights make its covers weights, not rows.
    const weighted = await lintFile(path.join(DIR, 'weighted_credit.dump.txt'));
    assert.ok(!weighted.findings.some((f) => f.rule === 'first-tree-exposes-counts'));
    const stats = weighted.findings.find((f) => f.rule === 'exported-statistics')!;
    assert.doesNotMatch(stats.message, /first-tree-exposes-counts|which counts training rows/);
    assert.match(stats.message, /hessian sums/);
    const counted = await lintFile(path.join(DIR, 'bin_pima.dump.txt'));
    assert.match(counted.findings.find((f) => f.rule === 'exported-statistics')!.message, /see first-tree-exposes-counts/);
  });

  it('probing the fixtures is fast (noisy shared machine: generous bound)', () => {
    const { forest } = readFixture('bin_stroke_sk.json');
    const start = performance.now();
    // Copies: the same object is probed once (below).
    for (let i = 0; i < 20; i++) probeFirstTrees({ ...forest });
    assert.ok((performance.now() - start) / 20 < 20);
  });

  it('a model is probed once: its findings, row cap and reconstruction share the probe', () => {
    const { forest } = readFixture('bin_pima.json');
    const probe = probeFirstTrees(forest);
    assert.equal(probeFirstTrees(forest), probe);
    // Another model (here a copy, as the what-if advisor makes) gets its own.
    const other = probeFirstTrees({ ...forest });
    assert.notEqual(other, probe);
    assert.equal(other.rows, probe.rows);
  });
});

describe('hessians as XGBoost computes them (float32)', () => {
  it('an imbalanced model over 600,000 rows (base score 0.97): N and the labels exact, as in double they were not', async () => {
    const dir = path.join(FIXTURES, 'xgboost-float32');
    const truth = JSON.parse(fs.readFileSync(path.join(dir, 'imbalanced.truth.json'), 'utf8'));
    const report = await lintFile(path.join(dir, 'imbalanced.json'), { keepForest: true });
    const probe = probeFirstTrees(report.forest!);
    assert.equal(probe.status, 'exact', probe.reason);
    assert.equal(probe.rows, truth.rows);
    assert.deepEqual(probe.classCounts, truth.labelCounts);
    // The finding prints the counts as counts (582,337, not 582337).
    const finding = report.findings.find((f) => f.rule === 'first-tree-exposes-counts')!;
    assert.match(finding.message, /600,000 training rows, 582,337 with label 1/);
  });
});
