/**
 * scikit-learn estimators beyond the tree classifiers (test/fixtures/estimators/generate.py,
 * scikit-learn 1.2.1): the IR each decoder builds equals the arrays scikit-learn holds (the truth
 * JSON), the rules read the models as what they are, and the reconstruction engine's certified
 * rows are really in the training data (the `.train.csv` written next to the model).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct, type ReconstructedRow } from '../../server/src/attacks/reconstruction';
import { checkReplay } from '../../server/src/attacks/bootstrap-replay';
import { missingValueRouting } from '../../server/src/attacks/missing-values';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import { unpickle } from '../../server/src/formats/pickle';
import { readSklearn } from '../../server/src/formats/sklearn';
import { decodeModel } from '../../server/src/formats/sklearn/decode';
import type { ModelRead } from '../../server/src/formats/types';
import { runModelRules } from '../../server/src/rules';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';
import { readTrainingRows, type TrainingRow } from '../support/reconstruction-truth';

const DIR = path.join(FIXTURES, 'estimators');

interface TreeTruth {
  node_count: number;
  children_left: number[];
  children_right: number[];
  feature: number[];
  threshold: number[];
  n_node_samples: number[];
  weighted_n_node_samples: number[];
  value: number[][];
  impurity: number[];
  random_state: number | null;
}
interface Truth {
  estimator: string;
  /** init_ as scikit-learn before 0.21 pickled it (derived fixtures): its class and attributes. */
  old_init?: { class: string; prior?: number; mean?: number; priors?: number[] };
  features: string[];
  n: number;
  trees?: TreeTruth[];
  stages?: TreeTruth[][];
  learning_rate?: number;
  subsample?: number;
  init_constant?: number[] | null;
  class_prior?: number[] | null;
  classes?: number[] | null;
  stage0_positives?: Record<string, number>;
  stage0_inbag_positives?: Record<string, number>;
  stage0_class_rows?: Record<string, number>[];
}

function truthOf(name: string): Truth {
  return JSON.parse(fs.readFileSync(path.join(DIR, `${name}.truth.json`), 'utf8')) as Truth;
}

/**
 * A binary log-loss model read from its stage 0 (started at `margin`): every leaf's positives as
 * scikit-learn's rows give them, the true rows' residuals adding up to every leaf's Newton step,
 * and the reconstruction certifying every row, each a true row of its own.
 */
async function assertBinaryStageZero(name: string, forest: Forest, margin: number): Promise<void> {
  const truth = truthOf(name);
  const counted = forest.countedClasses!;
  assert.deepEqual(counted.classes, truth.classes);
  for (const [leaf, positives] of Object.entries(truth.stage0_positives!)) assert.equal(counted.trees[1].rows[Number(leaf)], positives, `leaf ${leaf}: positives`);
  assert.deepEqual(forest.logLoss!.initialMargins, [margin]);
  const rows = readTrainingRows(path.join(DIR, `${name}.train.csv`)).rows;
  for (const leaf of newtonSums(forest, rows)) {
    assert.equal(leaf.rows, leaf.stated, `${leaf.where}: rows`);
    assert.ok(Math.abs(leaf.residual - leaf.target) < 1e-9 * leaf.rows, `${leaf.where}: residuals add up to ${leaf.residual}`);
  }
  const r = await reconstruct(forest, { budgetMs: 10_000 });
  assert.equal(r.certifiedRows, truth.n, r.reason);
  assert.equal(assertSound(r.reconstruction, rows), truth.n);
}

function readFixture(name: string): { forest: Forest; notes: string[]; read: ModelRead } {
  const file = `${name}.joblib`;
  const result = readModel(new Uint8Array(fs.readFileSync(path.join(DIR, file))), file);
  assert.equal(result.kind, 'model', JSON.stringify(result).slice(0, 400));
  const read = result as ModelRead;
  // The decoder owns the whole estimator: its trees (GB's object array of stages, bagging's list)
  // are not reported again as models of their own.
  assert.equal(read.others, undefined, `${name}: the walk reported the estimator's trees as further models`);
  assert.equal(read.unread, undefined);
  const completed = completeForest(read.forest);
  assert.ok(completed.ok, completed.ok ? '' : completed.problem);
  return { forest: completed.forest, notes: read.notes, read };
}

function findings(name: string) {
  const { forest, read } = readFixture(name);
  return runModelRules(forest, checkReplay(forest), read, {});
}

/** The IR tree's structure and counts are scikit-learn's arrays, node by node. */
function assertTreeEquals(tree: Forest['trees'][number], truth: TreeTruth, where: string): void {
  assert.equal(tree.left.length, truth.node_count, where);
  assert.deepEqual(tree.left, truth.children_left, `${where}: left`);
  assert.deepEqual(tree.right, truth.children_right, `${where}: right`);
  assert.deepEqual(tree.threshold, truth.threshold, `${where}: threshold`);
  assert.deepEqual(tree.distinctRows, truth.n_node_samples, `${where}: n_node_samples`);
  tree.left.forEach((l, i) => {
    if (l !== -1) assert.equal(tree.feature[i], truth.feature[i], `${where} node ${i}: feature`);
  });
}

const REGRESSORS = ['rf_reg_nobs', 'rf_reg', 'rf_reg_maxs', 'et_reg', 'dt_reg', 'etr_reg', 'rf_reg_full', 'et_reg_full', 'rf_reg_weighted', 'rf_reg_binary'];

describe('sklearn tree regressors: the IR is scikit-learn\'s arrays', () => {
  for (const name of REGRESSORS) {
    it(name, () => {
      const truth = truthOf(name);
      const { forest } = readFixture(name);
      assert.equal(forest.estimator, truth.estimator);
      assert.equal(forest.task, 'regression');
      assert.deepEqual(forest.classes, []);
      assert.equal(forest.trees.length, truth.trees!.length);
      forest.trees.forEach((tree, t) => {
        const tt = truth.trees![t];
        assertTreeEquals(tree, tt, `tree ${t}`);
        // One column: the weighted row count (draws with bootstrap), and the mean target.
        assert.deepEqual(tree.classWeights, tt.weighted_n_node_samples, `tree ${t}: weighted_n_node_samples`);
        assert.deepEqual(tree.targetMean, tt.value.map((v) => v[0]), `tree ${t}: value`);
        // squared_error (the default): the impurity is the target's variance.
        assert.deepEqual(tree.targetVariance, tt.impurity, `tree ${t}: impurity`);
        if (tt.random_state !== null && forest.training.bootstrap) assert.equal(tree.training.seed, tt.random_state);
      });
      const bootstrap = forest.hyperParameters.bootstrap === true;
      assert.equal(forest.training.bootstrap, bootstrap);
      // N: the root count without bootstrap or with a full-size draw; unknown for a fractional
      // max_samples and for sample weights (the root holds their sum).
      if (name === 'rf_reg_weighted') {
        assert.equal(forest.training.rows, undefined);
        assert.equal(forest.training.weighted, true);
      } else if (name === 'rf_reg_maxs') {
        assert.equal(forest.training.rows, undefined);
        assert.equal(forest.training.bootstrapSize, truth.trees![0].weighted_n_node_samples[0]);
      } else {
        assert.equal(forest.training.rows, truth.n);
      }
    });
  }
});

describe('sklearn tree regressors: rules', () => {
  for (const name of REGRESSORS) {
    it(`${name}: leaf-reveals-target counts the one-row leaves scikit-learn stores, and states one's target`, () => {
      const truth = truthOf(name);
      let expected = 0;
      for (const tt of truth.trees!) tt.children_left.forEach((l, i) => (expected += l === -1 && tt.n_node_samples[i] === 1 ? 1 : 0));
      const found = findings(name).filter((f) => f.rule === 'leaf-reveals-target');
      if (expected === 0) {
        assert.equal(found.length, 0);
        return;
      }
      assert.equal(found.length, 1);
      const f = found[0];
      assert.equal(f.severity, 'warning');
      assert.equal(f.data?.revealingLeaves, expected);
      const { tree, node } = f.location;
      const tt = truth.trees![tree!];
      assert.equal(tt.n_node_samples[node!], 1);
      assert.equal(tt.children_left[node!], -1);
      assert.match(f.message, new RegExp(`target ${String(Number(tt.value[node!][0].toPrecision(6))).replace('.', '\\.')} for the row with`));
    });
  }
  it('no-bootstrap and exact-counts speak of rows, not classes; bootstrap replay is verified on a regressor', () => {
    const nobs = findings('rf_reg_nobs');
    assert.ok(nobs.some((f) => f.rule === 'no-bootstrap' && /120 training rows/.test(f.message)));
    const counts = nobs.find((f) => f.rule === 'exact-counts');
    assert.ok(counts && /exact row counts/.test(counts.message) && !/each class/.test(counts.message), counts?.message);
    const single = findings('dt_reg').find((f) => f.rule === 'no-bootstrap');
    assert.ok(single && /mean target/.test(single.message) && !/label/.test(single.message), single?.message);
    const boot = findings('rf_reg');
    assert.ok(!boot.some((f) => f.rule === 'no-bootstrap'));
    const replay = boot.find((f) => f.rule === 'replayable-bootstrap');
    assert.ok(replay && /verified on 4 trees/.test(replay.message), replay?.message);
  });
});

/** Whether a training row lies in a reconstructed row's box (scikit-learn: float32(x) <= threshold goes left). */
function inside(row: ReconstructedRow, x: readonly number[]): boolean {
  return (row.intervals ?? []).every((interval, f) => {
    if (!interval) return true;
    const v = Math.fround(x[f]);
    return v > (interval[0] ?? -Infinity) && v <= (interval[1] ?? Infinity);
  });
}

/**
 * Soundness: per distinct box, the rows certified there (with their label, when `certified`; the
 * intervals alone, when only `certifiedValues`) are no more than the true rows there. Returns the
 * rows checked.
 */
function assertSound(rows: readonly ReconstructedRow[], truth: readonly TrainingRow[]): number {
  const byBox = new Map<string, { row: ReconstructedRow; proven: number; withLabel: Map<number, number> }>();
  for (const row of rows) {
    if (!row.certified && !row.certifiedValues) continue;
    const key = JSON.stringify(row.intervals);
    const entry = byBox.get(key) ?? { row, proven: 0, withLabel: new Map<number, number>() };
    entry.proven++;
    if (row.certified) entry.withLabel.set(row.label as number, (entry.withLabel.get(row.label as number) ?? 0) + 1);
    byBox.set(key, entry);
  }
  let checked = 0;
  for (const { row, proven, withLabel } of byBox.values()) {
    const there = truth.filter((t) => inside(row, t.values));
    assert.ok(there.length >= proven, `${proven} rows certified in a box that holds ${there.length} true rows`);
    for (const [label, n] of withLabel) {
      const same = there.filter((t) => Math.abs(t.label - label) <= 1e-6 * Math.max(1, Math.abs(label)));
      assert.ok(same.length >= n, `${n} rows certified with target ${label}; the box holds ${same.length} true rows with it`);
    }
    checked += proven;
  }
  return checked;
}

describe('sklearn tree regressors: reconstruction', () => {
  it('rf_reg_nobs (no bootstrap): feature intervals certified through the counts, every one in the training data', async () => {
    const { forest } = readFixture('rf_reg_nobs');
    const truth = readTrainingRows(path.join(DIR, 'rf_reg_nobs.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 20_000 });
    assert.equal(r.method, 'aggregated');
    assert.ok(r.status === 'exact' || r.status === 'bounded', `${r.status}: ${r.reason}`);
    assert.equal(r.rows, 120);
    const proven = r.certifiedRows + (r.certifiedWithoutLabel ?? 0);
    assert.ok(proven > 0, r.reason);
    assert.equal(assertSound(r.reconstruction, truth), proven);
    assert.match(r.reason ?? '', /determined by the leaf means/);
  });
  it('dt_reg (one deep tree): rows of one-row and zero-variance leaves certified with their exact target', async () => {
    const { forest } = readFixture('dt_reg');
    const truth = readTrainingRows(path.join(DIR, 'dt_reg.train.csv')).rows;
    const tt = truthOf('dt_reg').trees![0] as TreeTruth & { impurity: number[] };
    // A leaf of one row, or whose rows share one target (variance 0 up to rounding), states its rows' target.
    let pureRows = 0;
    tt.children_left.forEach((l, i) => {
      const n = tt.n_node_samples[i];
      const mean = tt.value[i][0];
      if (l === -1 && (n === 1 || n * Math.max(0, tt.impurity[i]) <= 1e-12 * mean * mean)) pureRows += n;
    });
    assert.ok(pureRows > tt.children_left.filter((l, i) => l === -1 && tt.n_node_samples[i] === 1).length, 'the fixture has a zero-variance leaf of several rows');
    const r = await reconstruct(forest, { budgetMs: 20_000 });
    assert.equal(r.rows, 80);
    // One tree: each leaf's rows are a cell, each a box; a pure leaf's target is its value.
    assert.equal(r.certifiedRows, pureRows, r.reason);
    assert.equal(r.certifiedRows + (r.certifiedWithoutLabel ?? 0), 80);
    assert.equal(assertSound(r.reconstruction, truth), 80);
  });
  it('rf_reg_full (RandomForestRegressor, bootstrap, fully grown): one tree\'s in-bag rows certified as boxes, those in one-row leaves with their exact target', async () => {
    const { forest } = readFixture('rf_reg_full');
    const truth = readTrainingRows(path.join(DIR, 'rf_reg_full.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(r.method, 'box-estimate');
    assert.equal(r.status, 'bounded', r.reason);
    assert.equal(r.rows, 120, 'N replayed from the stored seeds');
    assert.equal(r.reconstructedRows, 120);
    const anchor = truthOf('rf_reg_full').trees![r.stats.anchorTree!];
    // The anchor's leaves hold its distinct in-bag rows; a one-row leaf's value is its row's target.
    const oneRow = anchor.children_left.filter((l, i) => l === -1 && anchor.n_node_samples[i] === 1).length;
    assert.ok(oneRow > 40, `${oneRow} one-row leaves`);
    assert.equal(r.certifiedRows, oneRow);
    assert.equal(r.certifiedRows + (r.certifiedWithoutLabel ?? 0), anchor.n_node_samples[0]);
    assert.equal(assertSound(r.reconstruction, truth), anchor.n_node_samples[0]);
    assert.match(r.reason ?? '', /certified with their target/);
  });
  it("rf_reg_mae (criterion='absolute_error', medians): one-row leaves state their row's target, leaf-reveals-target counts them, rows in them certified with it", async () => {
    const { forest } = readFixture('rf_reg_mae');
    const truthModel = truthOf('rf_reg_mae');
    forest.trees.forEach((tree, t) => {
      assert.equal(tree.targetMean, undefined);
      assert.deepEqual(tree.targetMedian, truthModel.trees![t].value.map((v) => v[0]), `tree ${t}: value`);
    });
    let oneRowLeaves = 0;
    for (const tt of truthModel.trees!) tt.children_left.forEach((l, i) => (oneRowLeaves += l === -1 && tt.n_node_samples[i] === 1 ? 1 : 0));
    const reveal = findings('rf_reg_mae').find((f) => f.rule === 'leaf-reveals-target');
    assert.equal(reveal?.data?.revealingLeaves, oneRowLeaves);
    const truth = readTrainingRows(path.join(DIR, 'rf_reg_mae.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 10_000 });
    const anchor = truthModel.trees![r.stats.anchorTree!];
    const anchorOneRow = anchor.children_left.filter((l, i) => l === -1 && anchor.n_node_samples[i] === 1).length;
    assert.equal(r.certifiedRows, anchorOneRow);
    // Every certified row, with its target, is a distinct true row.
    assert.equal(assertSound(r.reconstruction, truth), anchor.n_node_samples[0]);
  });
  it('rf_reg_binary (a regressor on a 0/1 label, min_samples_leaf=3): rows in zero-variance leaves certified with their target', async () => {
    const { forest } = readFixture('rf_reg_binary');
    const truth = readTrainingRows(path.join(DIR, 'rf_reg_binary.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(r.method, 'box-estimate');
    const anchor = truthOf('rf_reg_binary').trees![r.stats.anchorTree!];
    // scikit-learn's arrays: the anchor's leaves whose impurity is (rounding aside) zero, and their distinct rows.
    let pureRows = 0;
    let oneRowLeaves = 0;
    anchor.children_left.forEach((l, i) => {
      if (l !== -1) return;
      if (anchor.n_node_samples[i] === 1) oneRowLeaves++;
      if (anchor.n_node_samples[i] === 1 || anchor.impurity[i] < 1e-12) pureRows += anchor.n_node_samples[i];
    });
    assert.equal(oneRowLeaves, 0, 'min_samples_leaf=3: no leaf of one distinct row');
    assert.ok(pureRows > 50, `${pureRows} rows in pure leaves`);
    assert.equal(r.certifiedRows, pureRows);
    assert.equal(r.certifiedRows + (r.certifiedWithoutLabel ?? 0), anchor.n_node_samples[0]);
    assert.equal(assertSound(r.reconstruction, truth), anchor.n_node_samples[0]);
    assert.ok(r.reconstruction.filter((row) => row.certified).every((row) => row.label === 0 || row.label === 1));
  });
  it('et_reg_full (ExtraTreesRegressor defaults, no bootstrap): every row certified as a box by row-boxes, targets from one-row leaves', async () => {
    const { forest } = readFixture('et_reg_full');
    const truth = readTrainingRows(path.join(DIR, 'et_reg_full.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(r.method, 'row-boxes', r.reason);
    const anchor = truthOf('et_reg_full').trees![r.stats.anchorTree!];
    const oneRow = anchor.children_left.filter((l, i) => l === -1 && anchor.n_node_samples[i] === 1).length;
    assert.ok(oneRow > 60, `${oneRow} one-row leaves`);
    assert.equal(r.certifiedRows, oneRow);
    assert.equal(r.certifiedRows + (r.certifiedWithoutLabel ?? 0), 120);
    assert.equal(assertSound(r.reconstruction, truth), 120);
  });
  it('rf_reg_weighted (sample weights, no bootstrap): an estimate whose boxes come from the distinct rows, with its reason', async () => {
    const { forest } = readFixture('rf_reg_weighted');
    assert.equal(forest.training.weighted, true);
    const truth = readTrainingRows(path.join(DIR, 'rf_reg_weighted.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(r.method, 'box-estimate');
    assert.match(r.reason ?? '', /sample-weighted/);
    assert.equal(r.rows, 120);
    const anchor = truthOf('rf_reg_weighted').trees![r.stats.anchorTree!];
    const oneRow = anchor.children_left.filter((l, i) => l === -1 && anchor.n_node_samples[i] === 1).length;
    assert.equal(r.certifiedRows, oneRow);
    assert.equal(assertSound(r.reconstruction, truth), 120);
  });
  it('estimated targets are the forest\'s prediction at the row\'s point (scikit-learn\'s own arrays, routed here)', async () => {
    const { forest } = readFixture('rf_reg');
    const trees = truthOf('rf_reg').trees!;
    const r = await reconstruct(forest, { budgetMs: 5_000 });
    const estimated = r.reconstruction.filter((row) => !row.certified);
    assert.ok(estimated.length > 0);
    for (const row of estimated) {
      const x = row.values.map((v) => v ?? 0);
      const predicted = trees.reduce((sum, t) => {
        let node = 0;
        while (t.children_left[node] !== -1) node = Math.fround(x[t.feature[node]]) <= t.threshold[node] ? t.children_left[node] : t.children_right[node];
        return sum + t.value[node][0];
      }, 0) / trees.length;
      assert.ok(Math.abs((row.label as number) - predicted) < 1e-9, `${row.label} against ${predicted}`);
    }
  });
});

/** The leaf a row reaches: scikit-learn compares float32(x) <= threshold. */
function leafOf(tree: Forest['trees'][number], x: readonly number[]): number {
  let node = 0;
  while (tree.left[node] !== -1) node = Math.fround(x[tree.feature[node]]) <= tree.threshold[node] ? tree.left[node] : tree.right[node];
  return node;
}

/**
 * Per stage tree and leaf of a log-loss model read with `logLoss` (every stage grown on every row): the true training
 * rows' residuals gradientScale (y - p) - w p (1 - p), p each row's probability of the tree's class
 * before its stage (the sigmoid of one margin, or the softmax of one per class) from the IR's
 * margins and leaf values, w = leaf value / learning rate; with the leaf's rows and w x lambda,
 * what the residuals must add up to (membership/newton-steps.ts).
 */
function newtonSums(forest: Forest, rows: readonly TrainingRow[]): { residual: number; rows: number; stated: number; target: number; where: string }[] {
  const logLoss = forest.logLoss!;
  const { classes } = logLoss;
  const stages = logLoss.stages ?? forest.trees;
  const groups = logLoss.initialMargins.length;
  const sums = stages.map((tree) => tree.left.map(() => ({ residual: 0, rows: 0 })));
  for (const row of rows) {
    const margins = [...logLoss.initialMargins];
    const k = classes.indexOf(row.label);
    assert.ok(k >= 0, `label ${row.label}`);
    for (let round = 0; round * groups < stages.length; round++) {
      const exp = margins.map((m) => Math.exp(m));
      const total = exp.reduce((a, b) => a + b, 0);
      const leaves = margins.map((_, g) => {
        const t = round * groups + g;
        const tree = stages[t];
        let node = 0;
        while (tree.left[node] !== -1) node = Math.fround(row.values[tree.feature[node]]) <= tree.threshold[node] ? tree.left[node] : tree.right[node];
        const p = groups === 1 ? 1 / (1 + Math.exp(-margins[0])) : exp[g] / total;
        const y = (groups === 1 ? k === 1 : k === g) ? 1 : 0;
        const w = tree.boosting!.leafValue[node] / logLoss.learningRate;
        sums[t][node].residual += logLoss.gradientScale * (y - p) - w * p * (1 - p);
        sums[t][node].rows++;
        return node;
      });
      leaves.forEach((node, g) => (margins[g] += stages[round * groups + g].boosting!.leafValue[node]));
    }
  }
  return stages.flatMap((tree, t) =>
    tree.left.flatMap((l, node) => (l === -1 ? [{ ...sums[t][node], stated: tree.classWeights[node], target: (tree.boosting!.leafValue[node] / logLoss.learningRate) * logLoss.lambda, where: `tree ${t} leaf ${node}` }] : [])),
  );
}

describe('no-bootstrap on boosted models: the lever each estimator has', () => {
  // bootstrap=True exists on forests only; these fixtures are scikit-learn 1.2.1's boosted classifiers.
  const cases: [string, RegExp][] = [
    ['gb_clf', /subsample below 1/],
    ['hgb_clf', /min_samples_leaf/],
    ['ada_clf', /min_samples_leaf|bagged forest/],
  ];
  for (const [name, lever] of cases) {
    it(`${name}: ${lever.source}, never bootstrap=True`, async () => {
      const report = await lintFile(path.join(DIR, `${name}.joblib`));
      const finding = report.findings.find((f) => f.rule === 'no-bootstrap');
      assert.ok(finding, report.findings.map((f) => f.rule).join(', '));
      assert.match(finding.message, lever);
      assert.doesNotMatch(finding.message, /bootstrap=True/);
    });
  }
});

describe('sklearn gradient boosting', () => {
  it('gb_reg (squared_error): the boosted IR of reg:squarederror, lambda 0, equal to scikit-learn\'s arrays', () => {
    const truth = truthOf('gb_reg');
    const { forest } = readFixture('gb_reg');
    assert.equal(forest.task, 'regression');
    assert.equal(forest.boosting?.objective, 'reg:squarederror');
    assert.deepEqual(forest.boosting?.baseScore, truth.init_constant);
    assert.equal(forest.hyperParameters.eta, truth.learning_rate);
    assert.equal(forest.hyperParameters.lambda, 0);
    assert.equal(forest.training.rows, truth.n);
    assert.equal(forest.trees.length, truth.stages!.length);
    forest.trees.forEach((tree, t) => {
      const tt = truth.stages![t][0];
      assertTreeEquals(tree, tt, `stage ${t}`);
      assert.deepEqual(tree.boosting?.cover, tt.weighted_n_node_samples);
      assert.deepEqual(tree.boosting?.baseWeight, tt.value.map((v) => v[0]));
      assert.deepEqual(tree.boosting?.leafValue, tt.value.map((v) => truth.learning_rate! * v[0]));
      assert.ok(tree.classWeights.every((w) => w === 0));
    });
  });
  it('gb_reg: its first-tree finding names it as scikit-learn\'s model, with its loss', async () => {
    // Before stop 32: "The first tree of this reg:squarederror model", on a GradientBoostingRegressor;
    // until stop 34 "(read as XGBoost's reg:squarederror)".
    const report = await lintFile(path.join(DIR, 'gb_reg.joblib'));
    const finding = report.findings.find((f) => f.rule === 'first-tree-exposes-counts');
    assert.match(finding?.message ?? '', /The first tree of this GradientBoostingRegressor \(squared error\) states/);
  });
  it('gb_reg: on the true rows every leaf\'s stored weight is -G/H of squared error (the mapping holds exactly)', () => {
    const { forest } = readFixture('gb_reg');
    const rows = readTrainingRows(path.join(DIR, 'gb_reg.train.csv')).rows;
    const prediction = rows.map(() => forest.boosting!.baseScore[0]);
    let leaves = 0;
    forest.trees.forEach((tree, t) => {
      const reached = rows.map((r) => leafOf(tree, r.values));
      const b = tree.boosting!;
      tree.left.forEach((l, node) => {
        if (l !== -1) return;
        const mine = rows.map((_, i) => i).filter((i) => reached[i] === node);
        const g = mine.reduce((s, i) => s + (prediction[i] - rows[i].label), 0);
        assert.equal(mine.length, b.cover![node], `stage ${t} node ${node}: rows`);
        assert.ok(Math.abs(-g / mine.length - b.baseWeight![node]) < 1e-9 * (1 + Math.abs(g)), `stage ${t} node ${node}: ${-g / mine.length} vs ${b.baseWeight![node]}`);
        leaves++;
      });
      rows.forEach((_, i) => (prediction[i] += b.leafValue[reached[i]]));
    });
    assert.ok(leaves >= forest.trees.length * 2);
  });
  it('gb_reg: boosting-counts certifies feature intervals, every one in the training data', async () => {
    const { forest } = readFixture('gb_reg');
    const truth = readTrainingRows(path.join(DIR, 'gb_reg.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 20_000 });
    assert.equal(r.method, 'boosting-counts');
    assert.ok(r.status === 'exact' || r.status === 'bounded', `${r.status}: ${r.reason}`);
    assert.equal(r.rows, 120);
    const proven = r.certifiedRows + (r.certifiedWithoutLabel ?? 0);
    assert.ok(proven > 0, r.reason);
    assert.equal(assertSound(r.reconstruction, truth), proven);
  });
  it('gb_reg_sub (subsample 0.7): no N stated; stage 0\'s draw certified as boxes (targets where a leaf holds one row), N estimated, every claim in the training data', async () => {
    const { forest, notes } = readFixture('gb_reg_sub');
    assert.equal(forest.training.rows, undefined);
    assert.ok(notes.some((n) => /subsample=0\.7/.test(n)));
    const truth = truthOf('gb_reg_sub');
    forest.trees.forEach((tree, t) => assert.deepEqual(tree.boosting?.cover, truth.stages![t][0].weighted_n_node_samples));
    const rows = readTrainingRows(path.join(DIR, 'gb_reg_sub.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 5_000 });
    assert.equal(r.method, 'box-estimate');
    assert.equal(r.status, 'bounded', r.reason);
    // scikit-learn draws int(0.7 N) rows per stage: the N that give this draw (here 120 or 121), the least reported.
    const drawn = forest.trees[0].boosting!.cover![0];
    assert.equal(drawn, Math.floor(0.7 * rows.length));
    assert.equal(r.rows, rows.length);
    assert.match(r.reason ?? '', /training-set size: at least: int\(0\.7 x N\) = 84/);
    // Stage 0's leaves: its whole draw, each row in its leaf's box; a one-row leaf gives the target.
    assert.equal(r.certifiedRows + (r.certifiedWithoutLabel ?? 0), drawn);
    const oneRowLeaves = forest.trees[0].left.filter((l, node) => l === -1 && forest.trees[0].boosting!.cover![node] === 1).length;
    assert.equal(r.certifiedRows, oneRowLeaves);
    assert.equal(assertSound(r.reconstruction, rows), drawn);
  });
  it('gb_clf (binary log-loss): every stage read as row counts, stage 0\'s values and the prior giving each node\'s positives exactly', async () => {
    const truth = truthOf('gb_clf');
    const { forest, notes } = readFixture('gb_clf');
    assert.equal(forest.task, 'regression');
    assert.deepEqual(forest.classes, []);
    assert.equal(forest.trees.length, truth.stages!.length);
    assert.ok(notes.some((n) => /every tree of the 3 stages is read as row counts/.test(n)), notes.join(' | '));
    forest.trees.forEach((tree, t) => {
      assertTreeEquals(tree, truth.stages![t][0], `stage ${t}`);
      assert.deepEqual(tree.classWeights, truth.stages![t][0].n_node_samples);
    });
    // Both classes' rows from stage 0: negatives, then positives.
    const counted = forest.countedClasses!;
    assert.deepEqual(counted.classes, truth.classes);
    assert.deepEqual(counted.trees.map((c) => c.tree), [0, 0]);
    const leaves = Object.keys(truth.stage0_positives!);
    assert.ok(leaves.length >= 2);
    for (const leaf of leaves) {
      const node = Number(leaf);
      assert.equal(counted.trees[1].rows[node], truth.stage0_positives![leaf], `leaf ${leaf}: positives`);
      assert.equal(counted.trees[0].rows[node] + counted.trees[1].rows[node], truth.stages![0][0].n_node_samples[node]);
    }
    // Internal nodes too (the mean residual): the root holds every positive.
    assert.equal(counted.trees[1].rows[0], Object.values(truth.stage0_positives!).reduce((a, b) => a + b, 0));
    const rows = readTrainingRows(path.join(DIR, 'gb_clf.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 10_000 });
    // Every row certified with its class: stage 0's class rows per leaf are distinct rows of that class.
    assert.equal(r.certifiedRows, truth.n, r.reason);
    assert.equal(assertSound(r.reconstruction, rows), truth.n);
  });
  it("gb_clf: every stage's leaf values are learning_rate x scikit-learn's Newton steps, which the true rows' residuals satisfy from the prior's log-odds", () => {
    const truth = truthOf('gb_clf');
    const { forest } = readFixture('gb_clf');
    const logLoss = forest.logLoss!;
    assert.equal(logLoss.learningRate, truth.learning_rate);
    const p0 = truth.class_prior![1];
    assert.ok(Math.abs(logLoss.initialMargins[0] - Math.log(p0 / (1 - p0))) < 1e-12);
    assert.deepEqual([logLoss.gradientScale, logLoss.lambda], [1, 0]);
    forest.trees.forEach((tree, t) => {
      assert.equal(tree.boosting!.group, 0);
      tree.left.forEach((l, node) => l === -1 && assert.ok(Math.abs(tree.boosting!.leafValue[node] - truth.learning_rate! * truth.stages![t][0].value[node][0]) < 1e-12, `stage ${t} leaf ${node}`));
    });
    const sums = newtonSums(forest, readTrainingRows(path.join(DIR, 'gb_clf.train.csv')).rows);
    assert.ok(sums.length > forest.trees.length);
    for (const leaf of sums) {
      assert.equal(leaf.rows, leaf.stated, `${leaf.where}: rows`);
      assert.ok(Math.abs(leaf.residual - leaf.target) < 1e-9 * leaf.rows, `${leaf.where}: residuals add up to ${leaf.residual}`);
    }
  });
  it('gb_quantile_sub (quantile loss, subsample 0.9 on 168 rows): N determined by the draw alone, said without a class prior (sweep 12)', async () => {
    const { forest } = readFixture('gb_quantile_sub');
    assert.equal(forest.training.rows, 168);
    const r = await reconstruct(forest, { budgetMs: 3_000 });
    assert.equal(r.rows, 168);
    assert.match(r.reason ?? '', /training-set size: determined by the draw: int\(0\.9 x N\) = 151 for this N only\)/);
    assert.doesNotMatch(r.reason ?? '', /class prior/);
  });

  it('gb_clf_sub (subsample 0.7): stage 0\'s counts are exact for the rows it drew; N determined by the draw and the prior; every drawn row certified with its class', async () => {
    const truth = truthOf('gb_clf_sub');
    const { forest, notes } = readFixture('gb_clf_sub');
    const rows = readTrainingRows(path.join(DIR, 'gb_clf_sub.train.csv')).rows;
    assert.equal(forest.task, 'classification');
    assert.equal(forest.training.bootstrap, true);
    assert.equal(forest.training.withoutReplacement, true);
    // 150 rows, prior 0.633: int(0.7 N) = 105 holds for N = 150 and 151, whole positives only for 150.
    assert.equal(forest.training.rows, rows.length);
    assert.ok(notes.some((n) => /N = 150: the only N/.test(n)));
    const tree = forest.trees[0];
    const inbag = truth.stage0_inbag_positives!;
    for (const leaf of Object.keys(inbag)) assert.equal(tree.classWeights[Number(leaf) * 2 + 1], inbag[leaf], `leaf ${leaf}: the drawn rows' positives`);
    const drawn = truth.stages![0][0].n_node_samples[0];
    assert.equal(drawn, Math.floor(0.7 * rows.length));
    // Every stage, on its own draw, kept for membership: count trees of the drawn rows with
    // learning_rate x scikit-learn's Newton steps.
    const logLoss = forest.logLoss!;
    assert.deepEqual([logLoss.subsample, logLoss.classes, logLoss.stages!.length], [0.7, truth.classes, truth.stages!.length]);
    logLoss.stages!.forEach((stage, t) => {
      assertTreeEquals(stage, truth.stages![t][0], `stage ${t}`);
      assert.deepEqual(stage.classWeights, truth.stages![t][0].n_node_samples);
      stage.left.forEach((l, node) => l === -1 && assert.ok(Math.abs(stage.boosting!.leafValue[node] - truth.learning_rate! * truth.stages![t][0].value[node][0]) < 1e-12, `stage ${t} leaf ${node}`));
    });
    const r = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(r.method, 'box-estimate');
    assert.equal(r.rows, rows.length);
    // Mixed leaves too: drawn without replacement, each class's count is its distinct rows.
    assert.equal(r.certifiedRows, drawn);
    assert.equal(assertSound(r.reconstruction, rows), drawn);
  });
  it('gb_clf_multi: every tree read as row counts, stage 0\'s tree per class as that class\'s rows (equal to the training rows\'), with a note', () => {
    const truth = truthOf('gb_clf_multi');
    const { forest, notes } = readFixture('gb_clf_multi');
    assert.equal(forest.boosting, undefined);
    assert.equal(forest.trees.length, truth.stages!.length * 3);
    assert.ok(notes.some((n) => /stage 0's tree for each class gives that class's rows/.test(n)), notes.join(' | '));
    forest.trees.forEach((tree, i) => {
      const tt = truth.stages![Math.floor(i / 3)][i % 3];
      assertTreeEquals(tree, tt, `tree ${i}`);
      assert.deepEqual(tree.classWeights, tt.weighted_n_node_samples);
      assert.equal(tree.targetMean, undefined);
    });
    assert.equal(forest.training.rows, truth.n);
    // Stage 0's tree k: its leaves' rows of class k, as the training rows give them.
    const counted = forest.countedClasses!;
    assert.deepEqual(counted.classes, truth.classes);
    assert.equal(counted.trees.length, 3);
    counted.trees.forEach(({ tree, rows }, k) => {
      assert.equal(tree, k);
      for (const [leaf, n] of Object.entries(truth.stage0_class_rows![k])) assert.equal(rows[Number(leaf)], n, `class ${k}, leaf ${leaf}`);
      assert.equal(rows[0], truth.stage0_class_rows![k] && Object.values(truth.stage0_class_rows![k]).reduce((a, b) => a + b, 0));
    });
  });
  it("gb_clf_multi: each class's tree steps by (K - 1) / K x sum(y - p) / sum(p (1 - p)) from the prior's logs, which the true rows' residuals satisfy", () => {
    const truth = truthOf('gb_clf_multi');
    const { forest } = readFixture('gb_clf_multi');
    const logLoss = forest.logLoss!;
    assert.deepEqual(logLoss.initialMargins, truth.class_prior!.map((p) => Math.log(p)));
    assert.deepEqual([logLoss.learningRate, logLoss.gradientScale, logLoss.lambda], [truth.learning_rate, 2 / 3, 0]);
    forest.trees.forEach((tree, i) => assert.equal(tree.boosting!.group, i % 3));
    const sums = newtonSums(forest, readTrainingRows(path.join(DIR, 'gb_clf_multi.train.csv')).rows);
    for (const leaf of sums) {
      assert.equal(leaf.rows, leaf.stated, `${leaf.where}: rows`);
      assert.ok(Math.abs(leaf.residual - leaf.target) < 1e-9 * leaf.rows, `${leaf.where}: residuals add up to ${leaf.residual}`);
    }
  });
  it("gb_clf_zero (init='zero', binary): stage 0 steps from margin 0, so its values give every node's positives; every row certified with its class", async () => {
    const truth = truthOf('gb_clf_zero');
    const { forest, notes } = readFixture('gb_clf_zero');
    assert.equal(truth.class_prior, null, 'the fixture has no prior: init_ is the string "zero"');
    assert.ok(notes.some((n) => /log-loss from init='zero'/.test(n)), notes.join(' | '));
    // The Newton steps from margin 0 (probability 1/2), which the true rows' residuals satisfy.
    await assertBinaryStageZero('gb_clf_zero', forest, 0);
  });
  it("gb_clf_multi_zero (init='zero', 3 classes): each class's stage-0 tree steps from margin 0 (probability 1/3) and gives that class's rows", () => {
    const truth = truthOf('gb_clf_multi_zero');
    const { forest } = readFixture('gb_clf_multi_zero');
    const counted = forest.countedClasses!;
    assert.deepEqual(counted.classes, truth.classes);
    counted.trees.forEach(({ rows }, k) => {
      for (const [leaf, n] of Object.entries(truth.stage0_class_rows![k])) assert.equal(rows[Number(leaf)], n, `class ${k}, leaf ${leaf}`);
    });
    assert.deepEqual(forest.logLoss!.initialMargins, [0, 0, 0]);
    for (const leaf of newtonSums(forest, readTrainingRows(path.join(DIR, 'gb_clf_multi_zero.train.csv')).rows)) {
      assert.equal(leaf.rows, leaf.stated, `${leaf.where}: rows`);
      assert.ok(Math.abs(leaf.residual - leaf.target) < 1e-9 * leaf.rows, `${leaf.where}: residuals add up to ${leaf.residual}`);
    }
  });
  // Sweep 16: a public scikit-learn 0.18 model's init_ was told "not the class prior". The fixtures
  // are 1.2.1's models with init_ as 0.20 pickled it (manifest: derived).
  it('gb_clf_old_init (LogOddsEstimator, scikit-learn before 0.21): its prior is the starting log-odds, so stage 0 gives every leaf\'s positives and every row is certified', async () => {
    const truth = truthOf('gb_clf_old_init');
    assert.equal(truth.old_init?.class, 'LogOddsEstimator');
    const { forest, notes } = readFixture('gb_clf_old_init');
    assert.ok(notes.some((n) => /LogOddsEstimator/.test(n)), notes.join(' | '));
    await assertBinaryStageZero('gb_clf_old_init', forest, truth.old_init!.prior!);
  });
  it('gb_reg_old_init (MeanEstimator, scikit-learn before 0.21): its mean is the base score, as DummyRegressor\'s constant is', () => {
    const truth = truthOf('gb_reg_old_init');
    assert.equal(truth.old_init?.class, 'MeanEstimator');
    const { forest } = readFixture('gb_reg_old_init');
    assert.equal(forest.boosting?.objective, 'reg:squarederror');
    assert.deepEqual(forest.boosting?.baseScore, [truth.old_init!.mean]);
    assert.deepEqual(forest.boosting?.baseScore, truth.init_constant, 'the mean 1.2.1 started from');
  });
  it('gb_clf_multi_old_init (PriorProbabilityEstimator): read as row counts, the note says why (0.20 moved the margins class by class within a stage)', () => {
    assert.equal(truthOf('gb_clf_multi_old_init').old_init?.class, 'PriorProbabilityEstimator');
    const { forest, notes } = readFixture('gb_clf_multi_old_init');
    assert.equal(forest.countedClasses, undefined);
    assert.ok(notes.some((n) => /before 0\.21 \(PriorProbabilityEstimator\).*read as row counts only/.test(n)), notes.join(' | '));
  });
  it('gb_clf_multi: the reconstruction gives every row a class, certified only where the first round proves it', async () => {
    const r = await reconstruct(readFixture('gb_clf_multi').forest, { budgetMs: 5_000 });
    assert.match(r.reason ?? '', /rows certified with their class/);
    assert.doesNotMatch(r.reason ?? '', /absolute_error/);
    const classes = new Set(truthOf('gb_clf_multi').classes!);
    assert.ok(r.reconstruction.every((row) => classes.has(row.label as number)), 'every label is a class');
    assert.ok(r.certifiedRows > 0);
  });
});

/**
 * HistGradientBoosting pickles name globals outside this branch's allowlist (the loss's Cython
 * unpickler, _BinMapper), so the decoder is checked on the inert unpickled value directly; through
 * readSklearn the file is either refused as unsafe for exactly those globals or read the same way.
 */
function decodeHist(name: string): { forest: Forest; notes: string[] } {
  const bytes = new Uint8Array(fs.readFileSync(path.join(DIR, `${name}.joblib`)));
  const unpickled = unpickle(bytes, { joblib: true });
  assert.equal(unpickled.error, undefined);
  const decoded = decodeModel(unpickled.value);
  assert.equal(decoded.models.length, 1, JSON.stringify(decoded.unread));
  assert.equal(decoded.unread.length, 0);
  const completed = completeForest(decoded.models[0].forest);
  assert.ok(completed.ok, completed.ok ? '' : completed.problem);
  const viaReader = readSklearn(bytes, `${name}.joblib`);
  if (viaReader.kind === 'unsafe') {
    assert.ok(viaReader.globals.every((g) => /^sklearn\._loss\._loss\.__pyx_unpickle_Cy\w+$|^sklearn\.ensemble\._hist_gradient_boosting\.binning\._BinMapper$/.test(g)), viaReader.globals.join(', '));
  } else {
    assert.equal(viaReader.kind, 'model');
    if (viaReader.kind === 'model') assert.deepEqual(viaReader.forest, decoded.models[0].forest);
  }
  return { forest: completed.forest, notes: decoded.models[0].notes };
}

interface PredictorTruth {
  value: number[];
  count: number[];
  feature_idx: number[];
  num_threshold: number[];
  missing_go_to_left: number[];
  left: number[];
  right: number[];
  is_leaf: number[];
}
interface HistTruth {
  iterations: PredictorTruth[][];
  baseline: number[];
  learning_rate: number;
  l2_regularization: number;
  early_stopping: boolean;
  classes: number[] | null;
  iteration0_positives?: Record<string, number>;
  n: number;
}

function assertPredictorEquals(tree: Forest['trees'][number], p: PredictorTruth, where: string): void {
  assert.equal(tree.left.length, p.value.length, where);
  p.is_leaf.forEach((leaf, i) => {
    assert.equal(tree.left[i], leaf ? -1 : p.left[i], `${where} node ${i}: left`);
    assert.equal(tree.right[i], leaf ? -1 : p.right[i], `${where} node ${i}: right`);
    if (!leaf) assert.equal(tree.feature[i], p.feature_idx[i], `${where} node ${i}: feature`);
    if (!leaf) assert.equal(tree.threshold[i], p.num_threshold[i], `${where} node ${i}: threshold`);
  });
  assert.deepEqual(tree.distinctRows, p.count, `${where}: count`);
}

describe('sklearn histogram gradient boosting', () => {
  it('hgb_reg (squared_error): the boosted IR of reg:squarederror with lambda = l2_regularization', () => {
    const truth = JSON.parse(fs.readFileSync(path.join(DIR, 'hgb_reg.truth.json'), 'utf8')) as HistTruth;
    const { forest } = decodeHist('hgb_reg');
    assert.equal(forest.boosting?.objective, 'reg:squarederror');
    assert.deepEqual(forest.boosting?.baseScore, truth.baseline);
    assert.equal(forest.hyperParameters.lambda, truth.l2_regularization);
    assert.equal(forest.hyperParameters.eta, truth.learning_rate);
    assert.equal(forest.training.rows, truth.n);
    assert.equal(forest.trees.length, truth.iterations.length);
    forest.trees.forEach((tree, t) => {
      const p = truth.iterations[t][0];
      assertPredictorEquals(tree, p, `iteration ${t}`);
      assert.deepEqual(tree.boosting?.cover, p.count);
      assert.deepEqual(tree.boosting?.leafValue, p.value);
      // The directions as stated (stop 33): for HistGradientBoosting, "every split to its larger
      // child" does not show that training had no missing values (hgb-missing.test.ts).
      assert.deepEqual(Array.from(tree.defaultLeft!, (d, n) => (tree.left[n] === -1 ? 0 : d ? 1 : 0)), p.missing_go_to_left.map((d, n) => (p.is_leaf[n] ? 0 : d)));
    });
  });
  it('hgb_reg: on the true rows every node\'s weight is -G/(H + l2) of squared error (float32 gradients)', () => {
    const { forest } = decodeHist('hgb_reg');
    const l2 = forest.hyperParameters.lambda as number;
    const rows = readTrainingRows(path.join(DIR, 'hgb_reg.train.csv')).rows;
    const prediction = rows.map(() => forest.boosting!.baseScore[0]);
    let nodes = 0;
    forest.trees.forEach((tree, t) => {
      const b = tree.boosting!;
      const reached = rows.map((r) => leafOf(tree, r.values));
      // Every node (internal ones too): the rows whose path passes through it.
      const through = (node: number) =>
        rows.map((_, i) => i).filter((i) => {
          let n = 0;
          while (n !== node && tree.left[n] !== -1) n = Math.fround(rows[i].values[tree.feature[n]]) <= tree.threshold[n] ? tree.left[n] : tree.right[n];
          return n === node;
        });
      for (let node = 0; node < tree.left.length; node++) {
        const mine = through(node);
        const g = mine.reduce((s, i) => s + Math.fround(prediction[i] - rows[i].label), 0);
        assert.equal(mine.length, b.cover![node], `iteration ${t} node ${node}: rows`);
        const w = -g / (mine.length + l2);
        assert.ok(Math.abs(w - b.baseWeight![node]) < 1e-4 * (1 + Math.abs(w)), `iteration ${t} node ${node}: ${w} vs ${b.baseWeight![node]}`);
        nodes++;
      }
      rows.forEach((_, i) => (prediction[i] += b.leafValue[reached[i]]));
    });
    assert.ok(nodes > forest.trees.length * 3);
  });
  it('hgb_reg: feature intervals certified (boosting-counts, or one tree\'s leaves where the directions differ), every one in the training data', async () => {
    const { forest } = decodeHist('hgb_reg');
    const truth = readTrainingRows(path.join(DIR, 'hgb_reg.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 20_000 });
    // Directions that differ from split to split (the larger child's, as stated) could be missing
    // values': one tree's leaves as boxes; directions all one way: the counts over every tree.
    const mixed = missingValueRouting(forest).routes.includes('mixed');
    assert.equal(r.method, mixed ? 'leaf-regions' : 'boosting-counts', r.reason);
    assert.ok(r.status === 'exact' || r.status === 'bounded', `${r.status}: ${r.reason}`);
    const proven = r.certifiedRows + (r.certifiedWithoutLabel ?? 0);
    assert.ok(proven > 0, r.reason);
    assert.equal(assertSound(r.reconstruction, truth), proven);
  });
  it('hgb_clf (binary log-loss): every iteration read as row counts, iteration 0\'s values and the prior giving each leaf\'s positives exactly', async () => {
    const truth = JSON.parse(fs.readFileSync(path.join(DIR, 'hgb_clf.truth.json'), 'utf8')) as HistTruth;
    const { forest } = decodeHist('hgb_clf');
    assert.equal(forest.task, 'regression');
    assert.equal(forest.trees.length, truth.iterations.length);
    forest.trees.forEach((tree, t) => assertPredictorEquals(tree, truth.iterations[t][0], `iteration ${t}`));
    const [negatives, positives] = forest.countedClasses!.trees;
    assert.equal(negatives.tree, 0);
    for (const [leaf, n] of Object.entries(truth.iteration0_positives!)) {
      assert.equal(positives.rows[Number(leaf)], n, `leaf ${leaf}`);
      assert.equal(negatives.rows[Number(leaf)] + n, truth.iterations[0][0].count[Number(leaf)]);
    }
    const rows = readTrainingRows(path.join(DIR, 'hgb_clf.train.csv')).rows;
    const r = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(r.certifiedRows, truth.n, r.reason);
    assert.equal(assertSound(r.reconstruction, rows), truth.n);
  });
  it("hgb_clf: leaf values (times the learning rate already) are -G / (H + l2) steps of the log-loss from the baseline, which the true rows' residuals satisfy", () => {
    const truth = JSON.parse(fs.readFileSync(path.join(DIR, 'hgb_clf.truth.json'), 'utf8')) as HistTruth;
    const { forest } = decodeHist('hgb_clf');
    const logLoss = forest.logLoss!;
    assert.deepEqual([logLoss.initialMargins, logLoss.learningRate, logLoss.gradientScale, logLoss.lambda], [truth.baseline, truth.learning_rate, 1, truth.l2_regularization]);
    forest.trees.forEach((tree, t) => tree.left.forEach((l, node) => l === -1 && assert.equal(tree.boosting!.leafValue[node], truth.iterations[t][0].value[node], `iteration ${t} leaf ${node}`)));
    const sums = newtonSums(forest, readTrainingRows(path.join(DIR, 'hgb_clf.train.csv')).rows);
    for (const leaf of sums) {
      assert.equal(leaf.rows, leaf.stated, `${leaf.where}: rows`);
      // scikit-learn sums float32 gradients and hessians.
      assert.ok(Math.abs(leaf.residual - leaf.target) < 1e-4 * leaf.rows, `${leaf.where}: residuals add up to ${leaf.residual}, the step says ${leaf.target}`);
    }
  });
  it("hgb_clf_multi: each class's tree steps -G / (H + l2) of the multinomial loss from the baseline, which the true rows' residuals satisfy", () => {
    const truth = JSON.parse(fs.readFileSync(path.join(DIR, 'hgb_clf_multi.truth.json'), 'utf8')) as HistTruth;
    const { forest } = decodeHist('hgb_clf_multi');
    const logLoss = forest.logLoss!;
    assert.deepEqual([logLoss.initialMargins, logLoss.gradientScale, logLoss.lambda], [truth.baseline, 1, truth.l2_regularization]);
    const sums = newtonSums(forest, readTrainingRows(path.join(DIR, 'hgb_clf_multi.train.csv')).rows);
    for (const leaf of sums) {
      assert.equal(leaf.rows, leaf.stated, `${leaf.where}: rows`);
      assert.ok(Math.abs(leaf.residual - leaf.target) < 1e-4 * leaf.rows, `${leaf.where}: residuals add up to ${leaf.residual}, the step says ${leaf.target}`);
    }
  });
  it('hgb_clf_multi: row counts only, with a note; hgb_reg_es: N is the training split, noted', () => {
    const multi = decodeHist('hgb_clf_multi');
    assert.equal(multi.forest.trees.length, 6);
    assert.equal(multi.forest.boosting, undefined);
    assert.ok(multi.notes.some((n) => /iteration 0's tree for each class gives that class's rows/.test(n)), multi.notes.join(' | '));
    // Iteration 0's tree k: its leaves' rows of class k, as the training rows give them.
    const multiTruth = JSON.parse(fs.readFileSync(path.join(DIR, 'hgb_clf_multi.truth.json'), 'utf8')) as HistTruth & { iteration0_class_rows: Record<string, number>[] };
    const counted = multi.forest.countedClasses!;
    assert.equal(counted.trees.length, 3);
    counted.trees.forEach(({ tree, rows }, k) => {
      assert.equal(tree, k);
      for (const [leaf, n] of Object.entries(multiTruth.iteration0_class_rows[k])) assert.equal(rows[Number(leaf)], n, `class ${k}, leaf ${leaf}`);
    });
    const truth = JSON.parse(fs.readFileSync(path.join(DIR, 'hgb_reg_es.truth.json'), 'utf8')) as HistTruth;
    assert.equal(truth.early_stopping, true);
    const es = decodeHist('hgb_reg_es');
    assert.equal(es.forest.training.rows, truth.iterations[0][0].count[0]);
    assert.ok(es.forest.training.rows! < truth.n);
    assert.ok(es.notes.some((n) => /validation split/.test(n)));
  });
});

describe('sklearn bagging of trees: stored _seeds', () => {
  for (const name of ['bag_clf', 'bag_reg', 'bag_clf_half', 'bag_clf_boot_half']) {
    it(`${name}: _seeds regenerate every tree's sample in scikit-learn (estimators_samples_), so replayable-bootstrap warns`, async () => {
      const truth = truthOf(name);
      const { forest } = readFixture(name);
      assert.equal(forest.training.samplerSeeds, truth.trees!.length);
      const report = await lintFile(path.join(DIR, `${name}.joblib`));
      const finding = report.findings.find((f) => f.rule === 'replayable-bootstrap');
      assert.ok(finding, report.findings.map((f) => f.rule).join(', '));
      assert.match(finding.message, /_seeds/);
    });
  }
  it('bag_reg_nobs: every tree saw every row, nothing to regenerate: no replayable-bootstrap', async () => {
    const report = await lintFile(path.join(DIR, 'bag_reg_nobs.joblib'));
    assert.ok(!report.findings.some((f) => f.rule === 'replayable-bootstrap'));
  });
});

describe('sklearn bagging of trees', () => {
  for (const name of ['bag_clf', 'bag_reg', 'bag_reg_nobs', 'bag_clf_half', 'bag_clf_boot_half']) {
    it(`${name}: one forest, features remapped to the original columns, no replay seed`, () => {
      const truth = truthOf(name) as Truth & { estimators_features: number[][]; bootstrap: boolean; max_samples: number };
      const { forest, notes } = readFixture(name);
      assert.equal(forest.estimator, truth.estimator);
      assert.equal(forest.trees.length, truth.trees!.length);
      const regression = name.startsWith('bag_reg');
      assert.equal(forest.task, regression ? 'regression' : 'classification');
      forest.trees.forEach((tree, t) => {
        const tt = truth.trees![t];
        // The truth's features are already mapped through estimators_features_ by the generator.
        assertTreeEquals(tree, tt, `tree ${t}`);
        const k = regression ? 1 : forest.classes.length;
        const weights = tree.classWeights;
        tt.weighted_n_node_samples.forEach((w, i) => assert.equal(weights.slice(i * k, i * k + k).reduce((a, b) => a + b, 0), w, `tree ${t} node ${i}: draws`));
        if (regression) assert.deepEqual(tree.targetMean, tt.value.map((v) => v[0]));
        else assert.deepEqual(weights, tt.value.flat());
        assert.equal(tree.training.seed, undefined);
      });
      // Trees on feature subsets (all but bag_clf_half, which keeps every column in order) test renumbered columns.
      if (!name.endsWith('_half')) assert.ok(
        forest.trees.some((tree, t) => tree.feature.some((f, i) => tree.left[i] !== -1 && truth.estimators_features[t].indexOf(f) !== f)),
        'no tree tests a renumbered column: the fixture does not exercise the remapping',
      );
      assert.ok(notes.some((n) => /estimators_features_/.test(n)));
      // N is fit's _n_samples whatever the draw; a draw of a fraction is int(fraction x N) rows.
      assert.equal(forest.training.rows, truth.n);
      const drawn = truth.max_samples === 1 ? truth.n : Math.floor(truth.max_samples * truth.n);
      if (truth.bootstrap) {
        assert.equal(forest.training.bootstrap, true);
        assert.equal(forest.training.withoutReplacement, undefined);
        assert.equal(forest.training.bootstrapSize, drawn);
        assert.ok(notes.some((n) => /not replayed/.test(n)));
      } else if (truth.max_samples === 1) {
        assert.equal(forest.training.bootstrap, false);
      } else {
        // Subsets without replacement: each tree saw its own rows, read as draws of N.
        assert.equal(forest.training.bootstrap, true);
        assert.equal(forest.training.withoutReplacement, true);
        assert.equal(forest.training.bootstrapSize, drawn);
        forest.trees.forEach((tree, t) => assert.equal(tree.distinctRows![0], drawn, `tree ${t}'s root`));
      }
    });
  }
  for (const name of ['bag_clf_half', 'bag_clf_boot_half']) {
    it(`${name}: the reconstruction has the N fit stored (a draw of a fraction of the rows, not an estimate from the distinct counts)`, async () => {
      const truth = truthOf(name) as Truth & { n: number };
      const r = await reconstruct(readFixture(name).forest, { budgetMs: 10_000 });
      assert.equal(r.rows, truth.n, r.reason);
      assert.equal(r.reconstruction.length, truth.n);
      assert.match(r.reason ?? '', /training-set size: stated by the model/);
    });
  }
  it('bag_clf_half: no rule claims every tree saw every row, and no replay by this tool is claimed', () => {
    const found = findings('bag_clf_half');
    assert.ok(!found.some((f) => f.rule === 'no-bootstrap'), found.map((f) => f.rule).join(', '));
    // The warning about _seeds says scikit-learn regenerates the samples, not that this tool replayed them.
    for (const f of [...found, ...findings('bag_clf')].filter((x) => x.rule === 'replayable-bootstrap')) {
      assert.match(f.message, /does not replay them itself/);
      assert.doesNotMatch(f.message, /verified on/);
    }
  });
});

describe('sklearn AdaBoost of trees', () => {
  it('ada_clf: every row in every tree: read as row counts (n_node_samples), tree 0\'s weights times N as each node\'s rows of each class', () => {
    const truth = truthOf('ada_clf');
    const { forest, notes } = readFixture('ada_clf');
    assert.equal(forest.training.weighted, false);
    assert.equal(forest.training.bootstrap, false);
    assert.equal(forest.training.rows, truth.n);
    assert.equal(forest.task, 'regression');
    assert.ok(notes.some((n) => /tree 0 weighs every row 1\/N/.test(n)), notes.join(' | '));
    forest.trees.forEach((tree, t) => {
      const tt = truth.trees![t];
      assertTreeEquals(tree, tt, `tree ${t}`);
      // Every weight is positive, so every tree holds every row.
      assert.deepEqual(tree.classWeights, tt.n_node_samples);
      assert.equal(tree.classWeights[0], truth.n);
      assert.equal(tree.training.seed, undefined);
    });
    // Tree 0's weights are 1/N per row: times N they are its rows of each class.
    const counted = forest.countedClasses!;
    assert.deepEqual(counted.classes, [0, 1]);
    const value = truth.trees![0].value;
    counted.trees.forEach(({ tree, rows }, k) => {
      assert.equal(tree, 0);
      rows.forEach((n, node) => assert.ok(Math.abs(n - value[node][k] * truth.n) < 1e-6, `class ${k} node ${node}: ${n} vs ${value[node][k] * truth.n}`));
    });
  });
  it('ada_clf_one_tree (AdaBoost stopped after a perfect first tree): still read as row counts with its classes', async () => {
    const truth = truthOf('ada_clf_one_tree');
    const { forest } = readFixture('ada_clf_one_tree');
    assert.equal(forest.trees.length, 1);
    const counted = forest.countedClasses!;
    assert.ok(counted, 'countedClasses');
    counted.trees.forEach(({ rows }, k) => assert.equal(rows[0], Math.round(truth.trees![0].value[0][k] * truth.n)));
    const r = await reconstruct(forest, { budgetMs: 5_000 });
    assert.equal(r.certifiedRows, truth.n, r.reason);
    assert.equal(assertSound(r.reconstruction, readTrainingRows(path.join(DIR, 'ada_clf_one_tree.train.csv')).rows), truth.n);
  });
  it('ada_clf_weighted (fit with sample_weight): tree 0\'s weights are no rows, so the counts stay weighted', () => {
    const { forest } = readFixture('ada_clf_weighted');
    assert.equal(forest.task, 'classification');
    assert.equal(forest.training.weighted, true);
    assert.equal(forest.countedClasses, undefined);
  });
  it('ada_clf: the reconstruction certifies every row with its class in a leaf of tree 0', async () => {
    const truth = truthOf('ada_clf');
    const r = await reconstruct(readFixture('ada_clf').forest, { budgetMs: 10_000 });
    const rows = readTrainingRows(path.join(DIR, 'ada_clf.train.csv')).rows;
    assert.equal(r.certifiedRows, truth.n, r.reason);
    assert.equal(assertSound(r.reconstruction, rows), truth.n);
  });
  it('ada_reg: trees on weighted resamples: draws, no distinct rows, no replay seed', () => {
    const truth = truthOf('ada_reg');
    const { forest } = readFixture('ada_reg');
    assert.equal(forest.training.bootstrap, true);
    assert.equal(forest.training.rows, truth.n);
    forest.trees.forEach((tree, t) => {
      const tt = truth.trees![t];
      assert.deepEqual(tree.left, tt.children_left);
      assert.deepEqual(tree.threshold, tt.threshold);
      assert.deepEqual(tree.classWeights, tt.weighted_n_node_samples);
      // The resample's copies are rows to the tree: n_node_samples counts draws, not distinct rows.
      assert.deepEqual(tt.n_node_samples, tt.weighted_n_node_samples);
      assert.equal(tree.distinctRows, undefined);
      assert.deepEqual(tree.targetMean, tt.value.map((v) => v[0]));
      assert.equal(tree.training.seed, undefined);
    });
    assert.ok(!findings('ada_reg').some((f) => f.rule === 'replayable-bootstrap' || f.rule === 'no-bootstrap'));
  });
});
