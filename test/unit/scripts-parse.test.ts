/**
 * The training-script reader on tricky Python: names inside strings and comments are not calls,
 * multi-line calls and continuations are one call, import aliases resolve, saves find their object
 * and path, and the ranges it reports are the exact source text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from '../../server/src/scripts/lexer';
import { analyzeScript } from '../../server/src/scripts/analyze';
import { pathMatches } from '../../server/src/scripts/paths';

const TRICKY = `"""Docs mention RandomForestClassifier(bootstrap=False) and joblib.dump(m, "x.joblib")."""
import os, joblib as jl
from sklearn import ensemble
from sklearn.tree import DecisionTreeClassifier as DTC
import diffprivlib.models as dp
import xgboost as xgb
from pathlib import Path

# forest = RandomForestClassifier(bootstrap=False)  -- a comment, not code
s = 'RandomForestClassifier(' ; t = f"{s}RandomForestClassifier()" ; u = rb'\\RandomForestClassifier('
OUT = Path(__file__).resolve().parent / "models"
forest = ensemble.RandomForestClassifier(
    n_estimators=10,   # trees
    bootstrap=False,
    criterion="gini)",  # a bracket in a string
).fit(X, y)
tree = DTC(min_samples_leaf=3) \\
    .fit(X, y)
private = dp.RandomForestClassifier(epsilon=2.0, bounds=(0, 1))
params = {"subsample": 0.5, 'max_depth': 3}
booster = xgb.train(params, dtrain, num_boost_round=5)
jl.dump(forest, OUT / "forest.joblib")
jl.dump(tree, os.path.join(BASE, "models", f"tree.joblib"))
with open("dp.pkl", 'wb') as fh:
    pickle.dump(private, fh)
booster.dump_model("dump.txt", with_stats=True)
`;

test('lexer: strings of every kind, comments and continuations are single tokens', () => {
  const tokens = tokenize(TRICKY);
  const strings = tokens.filter((t) => t.kind === 'string');
  assert.ok(strings.some((t) => t.text.startsWith('"""Docs') && t.value!.includes('joblib.dump')), 'triple-quoted docstring is one string');
  assert.ok(strings.some((t) => t.text === `rb'\\RandomForestClassifier('` && t.value === '\\RandomForestClassifier('), 'raw bytes keep the backslash');
  const f = strings.find((t) => t.text.startsWith('f"{s}'));
  assert.equal(f?.placeholders, true);
  assert.equal(strings.find((t) => t.text === 'f"tree.joblib"')?.placeholders, false);
  assert.ok(tokens.some((t) => t.kind === 'comment' && t.text.includes('a comment, not code')));
  // the call over 5 lines and the backslash continuation are each one logical line
  const inside = (from: string, to: string) => {
    const start = TRICKY.indexOf(from);
    const end = TRICKY.indexOf(to, start);
    return tokens.filter((t) => t.kind === 'newline' && t.start > start && t.start < end).length;
  };
  assert.equal(inside('forest = ensemble', '.fit(X, y)'), 0);
  assert.equal(inside('tree = DTC', '.fit(X, y)'), 0);
  assert.equal(inside("s = 'Random", 'OUT ='), 1, 'three statements on one line end in one newline');
});

test('lexer: unterminated strings and stray characters never throw', () => {
  for (const source of ['x = "abc', "y = '''never closed\n\n", 'f(a, b', ')))', '\\', 'a = $ ? `', '']) {
    assert.doesNotThrow(() => tokenize(source));
    assert.doesNotThrow(() => analyzeScript(source));
  }
});

test('finds the estimators behind aliases, not the ones in strings and comments', () => {
  const model = analyzeScript(TRICKY);
  assert.deepEqual(
    model.estimators.map((e) => [e.estimator, e.library, e.variable]),
    [
      ['RandomForestClassifier', 'sklearn', 'forest'],
      ['DecisionTreeClassifier', 'sklearn', 'tree'],
      ['RandomForestClassifier', 'diffprivlib', 'private'],
      ['xgb.train', 'xgboost', 'booster'],
    ],
  );
  const forest = model.estimators[0];
  const bootstrap = forest.call.args.find((a) => a.keyword === 'bootstrap')!;
  assert.equal(TRICKY.slice(bootstrap.start, bootstrap.end), 'bootstrap=False');
  assert.equal(TRICKY.slice(bootstrap.value.start, bootstrap.value.end), 'False');
  assert.equal(forest.call.args.length, 3, 'the bracket inside the string does not end the call');
  assert.equal(TRICKY[forest.call.close], ')');
  const eps = model.estimators[2].call.args.find((a) => a.keyword === 'epsilon')!;
  assert.equal(TRICKY.slice(eps.value.start, eps.value.end), '2.0');
  // xgb.train's params dict, from the variable assigned before
  assert.deepEqual(model.estimators[3].params?.entries.map((e) => e.key.kind === 'str' && e.key.value), ['subsample', 'max_depth']);
});

test('finds saves with their object and path: Path /, os.path.join under an unknown folder, open(..., "wb"), dumps', () => {
  const model = analyzeScript(TRICKY);
  assert.deepEqual(model.saves.map((s) => [s.method, s.objectName, s.estimator?.variable]), [
    ['joblib.dump', 'forest', 'forest'],
    ['joblib.dump', 'tree', 'tree'],
    ['pickle.dump', 'private', 'private'],
    ['dump_model', 'booster', 'booster'],
  ]);
  const [forest, tree, dpSave, dump] = model.saves;
  assert.deepEqual(forest.path, { kind: 'path', base: 'script', parts: ['models', 'forest.joblib'] });
  assert.ok(pathMatches(forest.path, '/w/proj/models/forest.joblib', '/w/proj'));
  assert.ok(!pathMatches(forest.path, '/w/other/models/forest.joblib', '/w/proj'));
  // BASE is unknown: the known components must end the model's path
  assert.deepEqual(tree.path, { kind: 'path', base: 'unknown', parts: ['models', 'tree.joblib'] });
  assert.ok(pathMatches(tree.path, '/anywhere/models/tree.joblib', '/w/proj'));
  assert.ok(!pathMatches(tree.path, '/anywhere/tree.joblib', '/w/proj'));
  assert.ok(pathMatches(dpSave.path, '/data/run/dp.pkl', '/w/proj'), 'relative literal matched by suffix');
  assert.ok(pathMatches(dump.path, '/x/dump.txt', '/w'));
});

test('a name imported from another module is not ours; fit chains and pipelines keep the estimator', () => {
  const model = analyzeScript([
    'from mylib import RandomForestClassifier',
    'a = RandomForestClassifier()',
    'from sklearn.ensemble import ExtraTreesClassifier',
    'from sklearn.pipeline import make_pipeline',
    'pipe = make_pipeline(StandardScaler(), ExtraTreesClassifier(n_estimators=5))',
    'pipe.fit(X, y)',
    'joblib.dump(pipe, "pipe.joblib")',
    'import joblib',
    'joblib.dump(RandomForestClassifier().fit(X, y), "inline.joblib")',
  ].join('\n'));
  assert.deepEqual(model.estimators.map((e) => e.estimator), ['ExtraTreesClassifier']);
  assert.equal(model.saves[0].estimator?.estimator, 'ExtraTreesClassifier');
  assert.equal(model.saves[0].objectName, 'pipe');
  assert.equal(model.saves[1].estimator, undefined, 'mylib\'s RandomForestClassifier is not scikit-learn\'s');
});

test('seed stripping is seen only when both the trees and the forest lose their seeds before the save', () => {
  const base = 'from sklearn.ensemble import RandomForestClassifier\nimport joblib\nm = RandomForestClassifier()\nm.fit(X, y)\n';
  const loop = 'for t in m.estimators_:\n    t.random_state = None\n';
  const save = 'joblib.dump(m, "m.joblib")\n';
  assert.equal(analyzeScript(base + save).saves[0].seedsStripped, false);
  assert.equal(analyzeScript(base + loop + save).saves[0].seedsStripped, false, 'the forest seed regenerates the trees\' seeds');
  assert.equal(analyzeScript(base + loop + 'm.random_state = None\n' + save).saves[0].seedsStripped, true);
  assert.equal(analyzeScript(base + save + loop + 'm.random_state = None\n').saves[0].seedsStripped, false, 'after the save is too late');
  assert.equal(analyzeScript(base + loop + 'm.random_state = None\nm = RandomForestClassifier().fit(X, y)\n' + save).saves[0].seedsStripped, false, 'a new model has new seeds');
});
