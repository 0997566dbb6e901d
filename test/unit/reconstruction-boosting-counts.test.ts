/**
 * Boosted models whose covers count rows (boosting-counts.ts): XGBoost 1.7.4 reg:squarederror
 * (every tree) and multi:softprob/softmax (the first K trees), checked against the true training
 * rows of the fixtures (test/fixtures/xgboost-counts/generate.py writes them next to each model).
 * Soundness is the main claim: every row the engine certifies must be in the real training data,
 * so in every reconstructed box the true rows of that box (and class) are at least as many as the
 * certified ones. Also: missing values, categorical splits and vector leaves are refused clearly.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import type { ReconstructedRow } from '../../server/src/attacks/reconstruction';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { featureAxes } from '../../server/src/attacks/reconstruction/feature-axes';
import { likeliestPoint } from '../../server/src/attacks/reconstruction/point-choice';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import type { ReadResult } from '../../server/src/formats/types';
import { lintBytes } from '../../server/src/linter/linter';
import { firstTreeExposesCounts } from '../../server/src/rules/first-tree-exposes-counts';
import { maximumMatching } from '../support/bipartite-matching';
import { FIXTURES } from '../support/paths';

const DIR = path.join(FIXTURES, 'xgboost-counts');

function read(file: string) {
  return readModel(new Uint8Array(fs.readFileSync(path.join(DIR, file))), file);
}
function forestOf(file: string): Forest {
  const result = read(file);
  assert.equal(result.kind, 'model', JSON.stringify(result));
  const completed = completeForest((result as { forest: Forest }).forest);
  assert.ok(completed.ok);
  return completed.forest;
}
/** Training rows: feature values (NaN = missing) and the label. */
function truthOf(name: string): { x: number[]; y: number }[] {
  const lines = fs.readFileSync(path.join(DIR, `${name}.train.csv`), 'utf8').trim().split('\n').slice(1);
  return lines.map((line) => {
    const cells = line.split(',').map((v) => (v === '' ? NaN : Number(v)));
    return { x: cells.slice(0, -1), y: cells[cells.length - 1] };
  });
}

/**
 * Whether a true row lies in a reconstructed row's box. XGBoost sends `x < threshold` left, so an
 * interval [low, high] holds the values low <= x < high; a missing value goes where the model's
 * default direction sends it (`missing`: 'low' or 'high' end).
 */
function inside(row: ReconstructedRow, x: number[], missing: 'low' | 'high' = 'low'): boolean {
  return (row.intervals ?? []).every((interval, f) => {
    if (!interval) return true;
    const low = interval[0] ?? -Infinity;
    const high = interval[1] ?? Infinity;
    if (Number.isNaN(x[f])) return missing === 'low' ? low === -Infinity : high === Infinity;
    const v = Math.fround(x[f]);
    return v >= low && v < high;
  });
}

/** Certified rows per (box, label) never exceed the true rows there; returns how many boxes were checked. */
function assertSound(rows: ReconstructedRow[], truth: { x: number[]; y: number }[], byLabel: boolean, missing: 'low' | 'high' = 'low'): number {
  const groups = new Map<string, { row: ReconstructedRow; proven: number }>();
  for (const row of rows) {
    const proven = row.certified || row.certifiedValues !== undefined;
    const key = JSON.stringify([row.intervals, byLabel ? row.label : null]);
    const g = groups.get(key) ?? { row, proven: 0 };
    if (proven) g.proven++;
    groups.set(key, g);
  }
  for (const { row, proven } of groups.values()) {
    const real = truth.filter((t) => inside(row, t.x, missing) && (!byLabel || t.y === Number(row.label))).length;
    assert.ok(real >= proven, `${proven} rows certified in ${JSON.stringify(row.intervals)} (label ${byLabel ? row.label : 'any'}) but ${real} true rows lie there`);
  }
  return groups.size;
}

describe('boosting-counts: reg:squarederror, every tree counts rows', () => {
  it('reg_pima_exact: the one set of cells the covers admit, its intervals certified; a one-row cell gets its true label', async () => {
    const truth = truthOf('reg_pima_exact');
    const result = await reconstruct(forestOf('reg_pima_exact.json'), { budgetMs: 20_000 });
    assert.equal(result.method, 'boosting-counts');
    assert.equal(result.rows, 20);
    assert.equal(result.reconstructedRows, 20);
    // Every row's feature intervals are proven; the rows sharing a cell keep an estimated (mean) label.
    assert.ok(result.reconstruction.every((r) => r.certified || r.certifiedValues !== undefined), result.reason);
    assert.equal(result.status, 'bounded');
    assertSound(result.reconstruction, truth, false);
    // Each cell holds exactly as many true rows as reconstructed ones (the cells are unique).
    const byBox = new Map<string, ReconstructedRow[]>();
    for (const r of result.reconstruction) byBox.set(JSON.stringify(r.intervals), [...(byBox.get(JSON.stringify(r.intervals)) ?? []), r]);
    for (const rows of byBox.values()) {
      const real = truth.filter((t) => inside(rows[0], t.x));
      assert.equal(real.length, rows.length);
      // The cell's label estimate is its true mean label: with unique cells the leaf equations pin it here.
      const mean = real.reduce((s, t) => s + t.y, 0) / real.length;
      assert.ok(Math.abs(Number(rows[0].label) - mean) < 1e-3, `cell mean ${rows[0].label} vs true ${mean}`);
    }
    // The certified row is a real row, label included (float32 rounding of weights and covers aside).
    const certified = result.reconstruction.filter((r) => r.certified);
    assert.equal(result.certifiedRows, certified.length);
    assert.ok(certified.length >= 1);
    for (const row of certified) {
      const match = truth.filter((t) => inside(row, t.x));
      assert.equal(match.length, 1);
      assert.ok(Math.abs(match[0].y - Number(row.label)) < 1e-3, `label ${row.label} vs true ${match[0].y}`);
    }
  });

  it('reg_compas and reg_pima_small: certified intervals are sound, and the labels add up to the true label sum', async () => {
    for (const name of ['reg_compas', 'reg_pima_small']) {
      const truth = truthOf(name);
      const result = await reconstruct(forestOf(`${name}.json`), { budgetMs: 20_000 });
      assert.equal(result.method, 'boosting-counts');
      assert.equal(result.status, 'bounded', result.reason);
      assert.equal(result.reconstructedRows, truth.length);
      const proven = result.reconstruction.filter((r) => r.certifiedValues !== undefined || r.certified).length;
      assert.ok(proven > 0, `${name}: no interval certified`);
      assert.ok(assertSound(result.reconstruction, truth, false) > 1);
      // Tree 0's leaf equations sum to the total: sum of labels = sum of the true labels.
      const total = result.reconstruction.reduce((s, r) => s + Number(r.label), 0);
      const real = truth.reduce((s, t) => s + t.y, 0);
      assert.ok(Math.abs(total - real) < 1e-2 * truth.length, `${name}: labels sum to ${total}, truth ${real}`);
    }
  });

  it('the UBJSON copy reads to the same reconstruction (labels up to the decimal writing of float32 in JSON)', async () => {
    const a = await reconstruct(forestOf('reg_compas.json'), { budgetMs: 20_000 });
    const b = await reconstruct(forestOf('reg_compas.ubj'), { budgetMs: 20_000 });
    assert.deepEqual(b.reconstruction.map((r) => ({ ...r, label: 0 })), a.reconstruction.map((r) => ({ ...r, label: 0 })));
    b.reconstruction.forEach((r, i) => assert.ok(Math.abs(Number(r.label) - Number(a.reconstruction[i].label)) < 1e-6));
  });

  it('an aborted run answers at once with status timeout', async () => {
    const controller = new AbortController();
    controller.abort();
    const started = Date.now();
    const result = await reconstruct(forestOf('reg_compas.json'), { budgetMs: 20_000, signal: controller.signal });
    assert.ok(Date.now() - started < 2_000);
    assert.equal(result.status, 'timeout');
    assert.equal(result.method, 'boosting-counts');
  });

  it('first-tree-exposes-counts says every tree of a squared-error model counts rows', () => {
    const forest = forestOf('reg_pima_small.json');
    const [finding] = firstTreeExposesCounts.check({ forest } as never) as { message: string; data: Record<string, unknown> }[];
    assert.match(finding.message, /all 4 trees state the row count of each of their leaves/);
    assert.equal(finding.data.everyTreeCounts, true);
    // The probe's counts in tree 0 match the truth's leaf sizes: 40 rows over its leaves.
    assert.equal(probeFirstTrees(forest).rows, truthOf('reg_pima_small').length);
  });
});

describe('boosting-counts: multi-class, the first K trees', () => {
  for (const [file, name] of [['multi_iris_k3.json', 'multi_iris_k3'], ['multi_compas_k3.ubj', 'multi_compas_k3']]) {
    it(`${name}: class counts equal the truth, certified rows are real (box and class)`, async () => {
      const truth = truthOf(name);
      const result = await reconstruct(forestOf(file), { budgetMs: 20_000 });
      assert.equal(result.method, 'boosting-counts');
      assert.ok(result.status === 'bounded' || result.status === 'exact', result.reason);
      assert.equal(result.reconstructedRows, truth.length);
      for (const k of [0, 1, 2]) {
        assert.equal(result.reconstruction.filter((r) => Number(r.label) === k).length, truth.filter((t) => t.y === k).length, `class ${k}`);
      }
      assert.ok(result.certifiedRows > 0);
      assert.equal(result.certifiedRows, result.reconstruction.filter((r) => r.certified).length);
      assertSound(result.reconstruction, truth, true);
    });
  }
});

describe('missing values, categorical splits, vector leaves', () => {
  it('mixed default directions (the model saw missing values): tree 0 proves its rows as boxes that leave Glucose open where a missing Glucose reaches the leaf, each holding a distinct true row', async () => {
    const forest = forestOf('reg_missing.json');
    const truth = truthOf('reg_missing');
    const result = await reconstruct(forest);
    // Before stop 33: skipped.
    assert.equal(result.method, 'leaf-regions', result.reason);
    assert.equal(result.status, 'bounded');
    assert.match(result.reason ?? '', /missing values of Glucose/);
    assert.ok(probeFirstTrees(forest).caveats.some((c) => /missing values of Glucose/.test(c)));
    // Every row is listed; those whose leaf region bounds no feature (open to missing Glucose) are
    // not counted as proven boxes (since stop 40: a whole-space box proves only that a row exists).
    assert.equal(result.reconstruction.length, truth.length);
    const bounding = result.reconstruction.filter((row) => row.intervals!.some((b) => b !== null));
    assert.ok(bounding.length > 0 && bounding.length < truth.length);
    assert.equal(result.certifiedWithoutLabel, bounding.length);
    assert.ok(result.reconstruction.every((row) => (row.certifiedValues !== undefined) === bounding.includes(row)));
    // A row missing Glucose lies only in a box that leaves Glucose open; each box holds its own true row.
    const strictlyInside = (row: ReconstructedRow, x: number[]) =>
      (row.intervals ?? []).every((interval, f) => interval === null || (!Number.isNaN(x[f]) && Math.fround(x[f]) >= interval[0] && Math.fround(x[f]) < interval[1]));
    const adjacency = result.reconstruction.map((row) => truth.flatMap((t, i) => (strictlyInside(row, t.x) ? [i] : [])));
    assert.equal(maximumMatching(adjacency, truth.length).size, result.reconstruction.length);
    const GLUCOSE = 1;
    assert.ok(result.reconstruction.some((row) => row.intervals![GLUCOSE] === null) && result.reconstruction.some((row) => row.intervals![GLUCOSE] !== null));
    // Each row's target is the model's prediction at its point (an estimate), not left empty.
    assert.ok(result.reconstruction.every((row) => typeof row.label === 'number' && Number.isFinite(row.label)));
    assert.match(result.reason ?? '', /its target the model's prediction there \(an estimate\)/);
  });

  it('missing values always sent right: read as the highest interval, and the certificate stays sound with them', async () => {
    const truth = truthOf('reg_missing_right');
    assert.ok(truth.some((t) => Number.isNaN(t.x[1])));
    const result = await reconstruct(forestOf('reg_missing_right.json'), { budgetMs: 20_000 });
    assert.equal(result.method, 'boosting-counts');
    assert.match(result.reason ?? '', /highest interval of Glucose also stand for a missing value/);
    assert.ok(result.reconstruction.some((r) => r.certifiedValues !== undefined || r.certified));
    assertSound(result.reconstruction, truth, false, 'high');
  });

  it('categorical splits (enable_categorical, 1.7.4): read from the model files as 0/1 features, refused with a clear reason in the dumps', () => {
    // Since stop 36 (forest/set-splits.ts; categorical-splits.test.ts checks the walk against XGBoost).
    // cat_sklearn.json, saved by XGBClassifier, was "corrupt" before stop 32: its parameters' string holds `"missing": NaN`.
    const trees = new Set<number>();
    for (const file of ['cat_hist.json', 'cat_hist.ubj', 'cat_sklearn.json']) {
      const result = read(file) as ReadResult;
      assert.equal(result.kind, 'model', `${file}: ${JSON.stringify(result).slice(0, 200)}`);
      if (result.kind !== 'model') continue;
      const sets = result.forest.features.filter((f) => f.setOf);
      assert.ok(sets.length > 0, file);
      assert.ok(sets.every((f) => f.setOf!.side === 'right' && /^colour ∈ \{[\d, ]+\}/.test(f.name)), sets.map((f) => f.name).join(' | '));
      trees.add(result.forest.trees.length);
    }
    assert.equal(trees.size, 1, 'the JSON and UBJ files read alike');
    // Dumps state a categorical split as text only: still refused, not misread.
    for (const file of ['cat_hist.dump.txt', 'cat_hist.dump.json']) {
      const result = read(file) as ReadResult;
      assert.equal(result.kind, 'no-model', `${file}: ${JSON.stringify(result).slice(0, 200)}`);
      if (result.kind === 'no-model') assert.match(result.unread[0].reason, /categorical/, file);
    }
    const report = lintBytes(new Uint8Array(fs.readFileSync(path.join(DIR, 'cat_sklearn.json'))), 'cat_sklearn.json');
    assert.ok(!report.findings.some((f) => f.rule === 'unsupported-model'), report.findings.map((f) => f.rule).join(', '));
    assert.ok(report.findings.some((f) => f.rule === 'first-tree-exposes-counts'), report.findings.map((f) => f.rule).join(', '));
  });

  it('a linear booster (gblinear) is a model without trees, not an unreadable file', () => {
    const report = lintBytes(new Uint8Array(fs.readFileSync(path.join(DIR, 'linear.json'))), 'linear.json');
    assert.deepEqual(report.findings.map((f) => [f.rule, f.severity]), [['no-tree-model', 'information']]);
    assert.match(report.findings[0].message, /XGBoost linear model \(booster gblinear: no trees\)/);
  });

  it('vector leaves (multi_strategy, XGBoost 2.x; derived here from a 1.7.4 file) are refused, not misread', () => {
    const model = JSON.parse(fs.readFileSync(path.join(DIR, 'multi_iris_k3.json'), 'utf8'));
    model.learner.gradient_booster.model.trees[0].tree_param.size_leaf_vector = '3';
    const result = readModel(new TextEncoder().encode(JSON.stringify(model)), 'vector.json');
    assert.equal(result.kind, 'no-model');
    if (result.kind === 'no-model') assert.match(result.unread[0]?.reason ?? '', /vector leaves/);
  });
});

describe('boosting-counts: values the first round leaves unbounded', () => {
  it("a multi-class model's rows get the whole model's likeliest point where the first round's trees bound nothing", async () => {
    const file = path.join(FIXTURES, 'membership', 'wine_xgb_multi.json');
    const read = readModel(new Uint8Array(fs.readFileSync(file)), file);
    assert.equal(read.kind, 'model');
    const completed = completeForest((read as { forest: Forest }).forest);
    assert.ok(completed.ok);
    const forest = completed.forest;
    const result = await reconstruct(forest, { budgetMs: 10_000 });
    assert.equal(result.method, 'boosting-counts', result.reason);
    const whole = featureAxes(forest);
    assert.ok(whole.ok);
    let filled = 0;
    for (const row of result.reconstruction) {
      row.intervals!.forEach((interval, f) => {
        if (interval !== null) return;
        // Unbounded by the first round: the point the whole model's thresholds make likeliest.
        assert.equal(row.values[f], likeliestPoint(whole.axes, f, -Infinity, Infinity), `feature ${f}`);
        if (row.values[f] !== null) filled++;
      });
    }
    assert.ok(filled > 0, 'no unbounded value was filled');
  });
});
