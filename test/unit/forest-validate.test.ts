/**
 * The IR's entry validator (server/src/forest/validate.ts): every committed fixture passes it, and
 * each of its checks has a mutant of a real fixture's IR that only that check catches (remove the
 * check and its test fails).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readModel } from '../../server/src/formats';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest, Tree } from '../../server/src/forest/schema';
import { MAX_TREE_DEPTH, forestProblem, treeProblem, validateForest } from '../../server/src/forest/validate';
import { lintBytes } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';
import { readFixtureForest } from '../support/model-files';

/** A deep copy with plain arrays, so a mutant never touches the original. */
const clone = (forest: Forest): Forest => JSON.parse(JSON.stringify(forest)) as Forest;

const rf = () => clone(readFixtureForest(join(FIXTURES, 'sklearn'), 'rf_compas.v14.joblib'));
const xgb = () => clone(readFixtureForest(join(FIXTURES, 'xgboost'), 'bin_pima.json'));
const dp = () => clone(readFixtureForest(join(FIXTURES, 'dp'), 'dp_compas_t10_d5_e10_s0.forest.json'));

/** First internal node of a tree whose children are both internal, and that node. */
function internalWithInternalChild(tree: Tree): { node: number; child: number } {
  for (let i = 0; i < tree.left.length; i++) {
    const l = tree.left[i];
    if (l !== -1 && tree.left[l] !== -1) return { node: i, child: l };
  }
  throw new Error('no such node');
}

function expectProblem(forest: Forest, pattern: RegExp): void {
  const problem = forestProblem(forest);
  assert.ok(problem, `expected a problem matching ${pattern}`);
  assert.match(problem, pattern);
}

function* modelFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) yield* modelFiles(file);
    else if (!/\.(csv|py|md|txt)$|truth\.json$|manifest\.json$|randint\.json$/.test(name) || name.endsWith('.dump.txt')) yield file;
  }
}

test('every model among the committed fixtures passes validation, embedded models included', () => {
  let models = 0;
  for (const file of modelFiles(FIXTURES)) {
    const read = readModel(new Uint8Array(readFileSync(file)), file);
    if (read.kind !== 'model') continue;
    for (const forest of [read.forest, ...(read.others ?? []).map((o) => o.forest)]) {
      const completed = completeForest(forest);
      assert.ok(completed.ok, `${file}: ${completed.ok ? '' : completed.problem}`);
      models++;
    }
  }
  // sklearn forests, trees, boosting, bagging, containers, XGBoost models and dumps, forest.json.
  assert.ok(models >= 150, `only ${models} models read`);
});

test('the fixtures in use are sound and carry the columns the count checks cover', () => {
  const a = rf();
  const b = xgb();
  const c = dp();
  assert.equal(forestProblem(a), undefined);
  assert.equal(forestProblem(b), undefined);
  assert.equal(forestProblem(c), undefined);
  assert.ok(a.trees[0].distinctRows, 'the forest stores n_node_samples');
  assert.ok(b.trees[0].boosting?.cover, 'the XGBoost model stores sum_hessian');
  assert.ok(c.privacy, 'the DP forest declares its noise');
});

test('a node with one child, or a child before its parent, is refused (shape)', () => {
  const f = rf();
  const { node, child } = internalWithInternalChild(f.trees[1]);
  f.trees[1].right[node] = -1;
  expectProblem(f, new RegExp(`^tree 1 node ${node} has exactly one child`));
  const g = rf();
  g.trees[0].left[child] = node;
  expectProblem(g, /children must come after their parent/);
});

test('a node with two parents (the same child twice, or shared) is refused', () => {
  const f = rf();
  const { node } = internalWithInternalChild(f.trees[2]);
  f.trees[2].right[node] = f.trees[2].left[node];
  expectProblem(f, new RegExp(`^tree 2 node ${node} has child \\d+ twice or shared`));
  // Counts off (the moved subtree's rows) would be caught first: leave only the structure to check.
  const { distinctRows: _rows, ...bare } = rf().trees[0];
  const g = { ...rf(), privacy: dp().privacy, trees: [bare] } as Forest;
  const t = g.trees[0];
  const { node: p, child } = internalWithInternalChild(t);
  // p's right child becomes its left child's left child: reached twice, p's old right subtree orphaned.
  t.right[p] = t.left[child];
  expectProblem(g, /exactly one parent/);
});

test('a node no one points at is refused', () => {
  const f = rf();
  const t = f.trees[0];
  // An extra leaf after the last node: every column grows by one entry, no parent names it.
  const n = t.left.length;
  t.left.push(-1);
  t.right.push(-1);
  t.feature.push(-2);
  t.threshold.push(-2);
  t.distinctRows!.push(0);
  t.defaultLeft?.push(true);
  t.classWeights.push(...new Array(f.classes.length).fill(0));
  expectProblem(f, new RegExp(`^tree 0 node ${n} is not reached from the root`));
});

test('a split on a feature the model does not have, or a non-integer feature, is refused', () => {
  for (const bad of [-1, 1.5]) {
    const g = rf();
    g.trees[0].feature[0] = bad;
    expectProblem(g, new RegExp(`^tree 0 node 0 splits on feature ${bad}, the model has ${g.features.length} features`));
  }
  const f = rf();
  f.trees[0].feature[0] = f.features.length;
  expectProblem(f, /splits on feature/);
  // Leaves keep their placeholder feature: scikit-learn's -2 is not checked.
  const leaf = f.trees[0].left.indexOf(-1);
  assert.equal(f.trees[0].feature[leaf], -2);
});

test('a non-finite threshold on a split is refused; leaves keep their placeholder', () => {
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
    const f = xgb();
    f.trees[0].threshold[0] = bad;
    expectProblem(f, new RegExp(`^tree 0 node 0 splits at threshold ${bad}`));
  }
  const g = rf();
  const leaf = g.trees[0].left.indexOf(-1);
  g.trees[0].threshold[leaf] = Number.NaN;
  assert.equal(forestProblem(g), undefined);
});

test('distinct rows that do not add up, or are not whole, are refused exactly', () => {
  const f = rf();
  f.trees[3].distinctRows![0] += 1;
  expectProblem(f, /^tree 3 node 0 has \d+ distinct rows, its children \d+ \+ \d+/);
  const g = rf();
  g.trees[0].distinctRows![5] = 2.5;
  expectProblem(g, /^tree 0 node 5 has 2.5 distinct rows; a row count must be a whole number/);
  const h = rf();
  h.trees[0].distinctRows![5] = -1;
  expectProblem(h, /node 5 has -1 distinct rows/);
});

test('class weights that do not add up are refused; float noise within tolerance and DP noise are not', () => {
  const f = rf();
  f.trees[4].classWeights[1] += 1;
  expectProblem(f, /^tree 4 node 0 has class weight [\d.]+ \(class 1\), its children [\d.]+ together/);
  const g = rf();
  g.trees[4].classWeights[1] *= 1 + 1e-9;
  assert.equal(forestProblem(g), undefined, 'rounding of summed weights is tolerated');
  // A DP forest's noised counts need not add up (noise drawn per node); the same mutant without privacy is caught.
  const noisy = dp();
  noisy.trees[0].classWeights[0] += 3;
  assert.equal(forestProblem(noisy), undefined);
  const { privacy: _noise, ...plain } = noisy;
  expectProblem(plain as Forest, /^tree 0 node \d+ has class weight .*a parent's counts are its children's/);
});

test('non-finite class weights, cover or leaf values are refused', () => {
  const f = rf();
  f.trees[0].classWeights[3] = Number.NaN;
  expectProblem(f, /^tree 0 node 1 has class weight NaN \(class 1\); counts must be finite/);
  const g = xgb();
  g.trees[0].boosting!.cover![2] = Number.POSITIVE_INFINITY;
  expectProblem(g, /^tree 0 node 2 has cover Infinity/);
  const h = xgb();
  const leaf = h.trees[0].left.indexOf(-1);
  h.trees[0].boosting!.leafValue[leaf] = Number.NaN;
  expectProblem(h, new RegExp(`^tree 0 node ${leaf} \\(a leaf\\) has value NaN`));
});

test('hessian sums (cover) must add up within float tolerance', () => {
  const f = xgb();
  f.trees[1].boosting!.cover![0] *= 1.01;
  expectProblem(f, /^tree 1 node 0 has cover [\d.]+, its children [\d.]+ together/);
  const g = xgb();
  g.trees[1].boosting!.cover![0] *= 1 + 1e-6;
  assert.equal(forestProblem(g), undefined, 'float32 rounding is tolerated');
});

test('value arrays of the wrong shape and output groups out of range are refused', () => {
  const f = rf();
  f.trees[0].classWeights.pop();
  expectProblem(f, /^tree 0: classWeights has \d+ entries, not a multiple|^tree 0: \d+ class weights for/);
  const g = rf();
  g.trees[0].classWeights.push(...g.trees[0].left.map(() => 0));
  expectProblem(g, /^tree 0: \d+ class weights for \d+ nodes and 2 classes/);
  const h = xgb();
  h.trees[0].boosting!.leafValue.pop();
  expectProblem(h, /^tree 0: boosting.leafValue has/);
  const k = xgb();
  k.trees[0].boosting!.group = 1;
  expectProblem(k, /^tree 0: adds to output group 1, the model has 1/);
});

test('typed-array columns are validated the same way', () => {
  const t = rf().trees[0];
  const typed = {
    ...t,
    left: Int32Array.from(t.left),
    right: Int32Array.from(t.right),
    feature: Int32Array.from(t.feature),
    threshold: Float64Array.from(t.threshold),
    classWeights: Float64Array.from(t.classWeights),
    distinctRows: Int32Array.from(t.distinctRows!),
  };
  assert.equal(treeProblem(typed, 2, 100), undefined);
  typed.distinctRows[0] += 1;
  assert.match(treeProblem(typed, 2, 100) ?? '', /^node 0 has \d+ distinct rows/);
});

test('a mutant reaches the user as unreadable-model naming tree, node and what is wrong', () => {
  const text = readFileSync(join(FIXTURES, 'dp', 'dp_compas_t10_d5_e10_s0.forest.json'), 'utf8');
  const json = JSON.parse(text) as { trees: { feature: number[] }[] };
  json.trees[2].feature[0] = 999;
  const report = lintBytes(new TextEncoder().encode(JSON.stringify(json)), 'mutant.forest.json');
  assert.equal(report.model, null);
  assert.deepEqual(report.findings.map((f) => f.rule), ['unreadable-model']);
  assert.match(report.findings[0].message, /tree 2 node 0 splits on feature 999, the model has \d+ features/);
});

test('validation is linear: a million-node tree checks in well under a second', () => {
  // A complete binary tree in breadth-first order, counts that add up.
  const depth = 19;
  const n = 2 ** (depth + 1) - 1;
  const left = new Int32Array(n).fill(-1);
  const right = new Int32Array(n).fill(-1);
  const feature = new Int32Array(n).fill(-2);
  const threshold = new Float64Array(n);
  const classWeights = new Float64Array(n);
  for (let i = 0; 2 * i + 2 < n; i++) {
    left[i] = 2 * i + 1;
    right[i] = 2 * i + 2;
    feature[i] = i % 10;
  }
  for (let i = n - 1; i >= 0; i--) classWeights[i] = left[i] === -1 ? 1 : classWeights[left[i]] + classWeights[right[i]];
  const start = performance.now();
  assert.equal(treeProblem({ left, right, feature, threshold, classWeights }, 1, 10), undefined);
  const ms = performance.now() - start;
  assert.ok(ms < 1000, `${n} nodes took ${ms.toFixed(0)} ms`);
});

/** A chain-shaped tree (every split peels one leaf off) of the given depth, counts adding up. */
function chain(depth: number): Forest {
  const n = 2 * depth + 1;
  const left = new Array<number>(n).fill(-1);
  const right = new Array<number>(n).fill(-1);
  const feature = new Array<number>(n).fill(-2);
  const threshold = new Array<number>(n).fill(-2);
  for (let k = 0; k < depth; k++) {
    left[2 * k] = 2 * k + 1;
    right[2 * k] = 2 * k + 2;
    feature[2 * k] = 0;
    threshold[2 * k] = k + 0.5;
  }
  const classWeights = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) classWeights[i] = left[i] === -1 ? 1 : classWeights[left[i]] + classWeights[right[i]];
  return {
    format: 'model-privacy-lint/forest', formatVersion: 1, library: { name: 'test' }, estimator: 'DecisionTreeRegressor', task: 'regression',
    classes: [], features: [{ name: 'x', kind: 'numeric' }], splitRule: 'less-or-equal', hyperParameters: {},
    training: { bootstrap: false, weighted: false }, trees: [{ left, right, feature, threshold, classWeights, training: {} }],
  };
}

test('a tree deeper than MAX_TREE_DEPTH is refused as too large (walks cost depth^2), one at the limit is not', () => {
  assert.equal(validateForest(chain(MAX_TREE_DEPTH)), undefined);
  assert.deepEqual(validateForest(chain(MAX_TREE_DEPTH + 1)), {
    problem: `tree 0 is deeper than ${MAX_TREE_DEPTH} levels (node ${2 * MAX_TREE_DEPTH + 1}), more than this tool analyses`,
    reason: 'too-large',
  });
  const report = lintBytes(new TextEncoder().encode(JSON.stringify(chain(MAX_TREE_DEPTH + 1))), 'deep.forest.json');
  assert.deepEqual(report.findings.map((f) => f.rule), ['unreadable-model']);
  assert.match(report.findings[0].message, /\(too-large\)[^]*tree 0 is deeper than/);
});

test("logLoss: a margin per class (one for two), each stage tree scoring its class in turn, its own stages checked as trees", () => {
  const multi = () => clone(readFixtureForest(join(FIXTURES, 'estimators'), 'gb_clf_multi.joblib'));
  const sub = () => clone(readFixtureForest(join(FIXTURES, 'estimators'), 'gb_clf_sub.joblib'));
  assert.equal(forestProblem(multi()), undefined);
  assert.equal(forestProblem(sub()), undefined);
  const margins = multi();
  margins.logLoss!.classes.push(3);
  expectProblem(margins, /logLoss: 3 initial margins for 4 classes/);
  const order = multi();
  order.trees[1].boosting!.group = 0;
  expectProblem(order, /logLoss: stage tree 1 has no leaf values for group 1/);
  const rounds = multi();
  rounds.trees.pop();
  expectProblem(rounds, /logLoss: 5 stage trees are not whole rounds of 3/);
  const stage = sub();
  stage.logLoss!.stages![2].left[0] = 99;
  expectProblem(stage, /logLoss: stage tree 2/);
});
