/**
 * scikit-learn's IsolationForest (test/fixtures/estimators/generate.py, scikit-learn 1.2.1): the
 * IR is scikit-learn's arrays, the model is read as an outlier detector (rows without a label, no
 * target read from node values fitted to random numbers), the rules give its remedies, and every
 * certified box holds its own true training row (the `.train.csv` written next to the model).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { checkReplay } from '../../server/src/attacks/bootstrap-replay';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import type { ModelRead } from '../../server/src/formats/types';
import { assessMembership } from '../../server/src/membership/engine';
import { timberstrikeAccuracy } from '../../server/src/evaluate/timberstrike-evaluation';
import { runModelRules } from '../../server/src/rules';
import { maximumMatching } from '../support/bipartite-matching';
import { FIXTURES } from '../support/paths';

const DIR = path.join(FIXTURES, 'estimators');

/** Area under the ROC curve: the chance a member outscores a non-member (ties half). */
function auc(scores: readonly number[], truth: readonly boolean[]): number {
  let wins = 0;
  let pairs = 0;
  scores.forEach((a, i) => {
    if (!truth[i]) return;
    scores.forEach((b, j) => {
      if (truth[j]) return;
      pairs++;
      wins += a > b ? 1 : a === b ? 0.5 : 0;
    });
  });
  return wins / pairs;
}

interface IsolationTruth {
  n: number;
  features: string[];
  max_samples_: number;
  estimators_features: number[][];
  estimators_samples: number[][];
  trees: { node_count: number; children_left: number[]; children_right: number[]; feature: number[]; threshold: number[]; n_node_samples: number[] }[];
}

function truthOf(name: string): IsolationTruth {
  return JSON.parse(fs.readFileSync(path.join(DIR, `${name}.truth.json`), 'utf8')) as IsolationTruth;
}

function read(name: string): { forest: Forest; read: ModelRead } {
  const file = `${name}.joblib`;
  const result = readModel(new Uint8Array(fs.readFileSync(path.join(DIR, file))), file);
  assert.equal(result.kind, 'model', JSON.stringify(result).slice(0, 300));
  const completed = completeForest((result as ModelRead).forest);
  assert.ok(completed.ok, completed.ok ? '' : completed.problem);
  return { forest: completed.forest, read: result as ModelRead };
}

/** The training rows (features only: an outlier detector has no label). */
function trainingRows(name: string): number[][] {
  const lines = fs.readFileSync(path.join(DIR, `${name}.train.csv`), 'utf8').trim().split('\n');
  return lines.slice(1).map((line) => line.split(',').map(Number));
}

/** scikit-learn's test: the feature cast to float32, `x <= threshold` left, so a box is (low, high]. */
function inBox(intervals: readonly ([number, number] | null)[], values: readonly number[]): boolean {
  return intervals.every((bound, f) => bound === null || (Math.fround(values[f]) > bound[0] && Math.fround(values[f]) <= bound[1]));
}

describe('IsolationForest', () => {
  for (const name of ['iso_forest', 'iso_forest_all']) {
    it(`${name}: the IR is scikit-learn's arrays, read as an outlier detector without targets`, () => {
      const truth = truthOf(name);
      const { forest } = read(name);
      assert.equal(forest.estimator, 'IsolationForest');
      assert.equal(forest.task, 'outlier-detection');
      assert.deepEqual(forest.classes, []);
      assert.equal(forest.trees.length, truth.trees.length);
      forest.trees.forEach((tree, t) => {
        const tt = truth.trees[t];
        assert.deepEqual(tree.left, tt.children_left, `tree ${t}`);
        assert.deepEqual(tree.right, tt.children_right, `tree ${t}`);
        assert.deepEqual(tree.threshold, tt.threshold, `tree ${t}`);
        assert.deepEqual(tree.distinctRows, tt.n_node_samples, `tree ${t}`);
        // Features through estimators_features_ (the generator maps the truth the same way).
        tree.left.forEach((l, i) => l !== -1 && assert.equal(tree.feature[i], tt.feature[i], `tree ${t} node ${i}`));
        // The node values are means of random targets: not read.
        assert.equal(tree.targetMean, undefined);
        assert.equal(tree.targetVariance, undefined);
        assert.equal(tree.distinctRows![0], truth.max_samples_, `tree ${t}'s root holds its draw`);
      });
      assert.equal(forest.training.rows, truth.n);
      if (truth.max_samples_ < truth.n) {
        assert.equal(forest.training.bootstrap, true);
        assert.equal(forest.training.withoutReplacement, true);
        assert.equal(forest.training.bootstrapSize, truth.max_samples_);
        assert.equal(forest.training.samplerSeeds, truth.trees.length);
      } else {
        assert.equal(forest.training.bootstrap, false);
        assert.equal(forest.training.samplerSeeds, undefined);
      }
    });
  }

  it("notes say max_samples as stored ('auto', 64) and a count every tree shares once", () => {
    // A public IsolationForest's note read "max_samples=undefined" and listed 256 a hundred times.
    const auto = read('iso_forest_auto').read.notes.join('\n');
    assert.match(auto, /max_samples='auto' without bootstrap: each tree was grown on its own subset of 256 of the 569 rows \(256 rows in each of the 3 trees\)/);
    assert.match(auto, /estimators_features_ \(4 columns in each of the 3 trees\)/);
    assert.doesNotMatch(auto, /undefined|256, 256/);
    assert.match(read('iso_forest').read.notes.join('\n'), /max_samples=64 without bootstrap: .*64 of the 150 rows \(64 rows in each of the 4 trees\)/);
  });

  it('iso_forest_all tests renumbered columns (max_features=0.5), so the remapping is exercised', () => {
    const truth = truthOf('iso_forest_all');
    const { forest } = read('iso_forest_all');
    assert.ok(forest.trees.some((tree, t) => tree.feature.some((f, i) => tree.left[i] !== -1 && truth.estimators_features[t].indexOf(f) !== f)));
  });

  it('rules: no target is claimed, and the remedies are an isolation forest\'s', () => {
    const { forest, read: r } = read('iso_forest');
    const found = runModelRules(forest, checkReplay(forest), r, {});
    const rules = found.map((f) => f.rule);
    assert.ok(!rules.includes('leaf-reveals-target'), rules.join(', '));
    assert.ok(!rules.includes('no-bootstrap'), 'each tree drew 64 of 150 rows');
    const singleton = found.find((f) => f.rule === 'singleton-leaf');
    assert.ok(singleton);
    assert.match(singleton.message, /keep this model private/);
    assert.doesNotMatch(singleton.message, /min_samples_leaf|of class/);
    assert.match(found.find((f) => f.rule === 'exact-counts')!.message, /row counts: keep this model private/);
    assert.match(found.find((f) => f.rule === 'replayable-bootstrap')!.message, /_seeds/);

    const all = read('iso_forest_all');
    const allFound = runModelRules(all.forest, checkReplay(all.forest), all.read, {});
    const noBootstrap = allFound.find((f) => f.rule === 'no-bootstrap');
    assert.ok(noBootstrap, allFound.map((f) => f.rule).join(', '));
    assert.match(noBootstrap.message, /lower max_samples/);
    assert.ok(!allFound.some((f) => f.rule === 'replayable-bootstrap'), 'every tree drew every row: nothing to regenerate');
  });

  for (const name of ['iso_forest', 'iso_forest_all']) {
    it(`${name}: every certified box holds its own true training row; rows carry no label`, async () => {
      const truth = truthOf(name);
      const rows = trainingRows(name);
      const { forest } = read(name);
      const r = await reconstruct(forest, { budgetMs: 10_000 });
      assert.equal(r.rows, truth.n, r.reason);
      assert.match(r.reason ?? '', /outlier detector/);
      assert.equal(r.certifiedWithoutLabel, undefined, 'a row without a label is not "certified without its label"');
      // Nor are its labels "read below" (sweep 15): it has none.
      assert.doesNotMatch(r.reason ?? '', /labels read below/);
      assert.ok(r.reconstruction.every((row) => row.label === ''));
      const certified = r.reconstruction.filter((row) => row.certified);
      assert.equal(certified.length, r.certifiedRows);
      // Each tree's leaves hold its whole draw, so at least one tree's draw is certified.
      assert.ok(r.certifiedRows >= truth.max_samples_, `${r.certifiedRows} certified`);
      const adjacency = certified.map((row) => rows.flatMap((values, i) => (inBox(row.intervals!, values) ? [i] : [])));
      assert.equal(maximumMatching(adjacency, rows.length).size, certified.length, 'a certified box without its own true row');
    });
  }

  it('membership: every tree holds every row (N <= max_samples), so the mass fit ranks its 100 members above the 100 others', () => {
    const { forest } = read('iso_forest_all');
    const lines = fs.readFileSync(path.join(DIR, 'iso_forest_all.candidates.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').map(Number));
    const candidates = lines.map((cells) => ({ values: cells.slice(0, -1), label: '' }));
    const truth = lines.map((cells) => cells.at(-1) === 1);
    const result = assessMembership(forest, candidates);
    assert.equal(result.basis, 'outlier-rows');
    assert.match(result.reason ?? '', /outlier detector/);
    // Scores only: every leaf holds rows, so nothing is proven either way.
    assert.ok(result.candidates.every((c) => c.verdict === 'likely-member' || c.verdict === 'likely-non-member'));
    // 3 trees of 2 features each: 0.90 (chance is 0.5; with 100 trees over 30 features, 1.000).
    const found = auc(result.candidates.map((c) => c.score), truth);
    assert.ok(found > 0.85, `AUC ${found}`);
  });

  it('membership with draws (64 of 150 rows a tree): the scale is N / draw, and nothing is proven', () => {
    const { forest } = read('iso_forest');
    const result = assessMembership(forest, trainingRows('iso_forest').map((values) => ({ values, label: '' })));
    assert.equal(result.basis, 'outlier-rows');
    assert.match(result.reason ?? '', /scaled by N \/ the 64 rows each tree drew/);
    assert.ok(result.candidates.every((c) => c.verdict !== 'member' && c.verdict !== 'non-member' && c.score >= 0 && c.score <= 1));
  });
});

describe('IsolationForest: the evaluation scores features only', () => {
  it('TimberStrike\'s accuracy leaves the (absent) label out: scoring an always-equal empty label would raise it', async () => {
    const { forest } = read('iso_forest_all');
    const r = await reconstruct(forest, { budgetMs: 5_000 });
    const truth = trainingRows('iso_forest_all').map((values) => ({ values, label: '' }));
    const unlabelled = timberstrikeAccuracy(forest, r.reconstruction, truth);
    const asIfLabelled = timberstrikeAccuracy({ ...forest, task: 'regression' }, r.reconstruction, truth);
    assert.ok('figures' in unlabelled && 'figures' in asIfLabelled);
    assert.ok(unlabelled.figures.all < 1, 'the fixture must leave some values wrong for the comparison to mean anything');
    assert.ok(unlabelled.figures.all < asIfLabelled.figures.all, `${unlabelled.figures.all} vs ${asIfLabelled.figures.all}`);
  });
});
