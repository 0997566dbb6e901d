/**
 * Links from model files to the script lines that build and save them: examples/train.py and its
 * six models (four scikit-learn, an XGBoost model and its dump), a notebook whose cells share imports, and model diagnostics decorated with the
 * script lines and the fix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ScriptIndex } from '../../server/src/scripts/workspace';
import { EXAMPLES } from '../support/paths';

const TRAIN = join(EXAMPLES, 'train.py');
const model = (name: string) => join(EXAMPLES, 'models', name);
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle));

test('each example model links to the lines of examples/train.py that build and save it', () => {
  const source = readFileSync(TRAIN, 'utf8');
  const index = new ScriptIndex();
  index.update(TRAIN, source);
  const expected: Record<string, [string, string]> = {
    'diabetes_forest.joblib': ['forest = RandomForestClassifier(n_estimators=20', 'joblib.dump(forest,'],
    'diabetes_no_bagging.joblib': ['no_bagging = RandomForestClassifier(', 'joblib.dump(no_bagging,'],
    'diabetes_tree.pkl': ['tree = DecisionTreeClassifier(', 'pickle.dump(tree, f'],
    'compas_no_bagging.joblib': ['compas = RandomForestClassifier(', 'joblib.dump(compas,'],
    'diabetes_xgb.json': ['booster = xgb.train(', 'booster.save_model('],
    'diabetes_xgb.dump.txt': ['booster = xgb.train(', 'booster.dump_model('],
  };
  for (const [name, [ctor, save]] of Object.entries(expected)) {
    const refs = index.references(model(name));
    assert.deepEqual(
      refs.map((r) => [r.role, r.line]),
      [['estimator', lineOf(source, ctor)], ['save', lineOf(source, save)]],
      name,
    );
    assert.equal(refs[0].uri, pathToFileURL(TRAIN).href);
    assert.ok(refs[1].text.startsWith(save.trim()), `${name}: ${refs[1].text}`);
  }
  // a model of the same name elsewhere is not written by this script (paths are under its folder)
  assert.deepEqual(index.references('/elsewhere/models/diabetes_forest.joblib'), []);
  // the fix behind a model finding
  const [link] = index.links(model('diabetes_no_bagging.joblib'));
  assert.equal(index.fixFor(link, 'no-bootstrap')?.fix?.title, 'add bootstrap=True');
  assert.equal(index.fixFor(link, 'reconstructable-training-set')?.rule, 'script-no-bootstrap');
  const [forest] = index.links(model('diabetes_forest.joblib'));
  assert.equal(index.fixFor(forest, 'replayable-bootstrap')?.fix?.title, 'strip the stored seeds before saving');
  assert.equal(index.label(forest.entry, forest.save.call.start), `train.py:${lineOf(source, 'joblib.dump(forest,') + 1}`);
});

test('a notebook: imports in one cell apply to the next, locations carry the cell and the .ipynb line', () => {
  const notebook = {
    cells: [
      { cell_type: 'markdown', metadata: {}, source: ['# RandomForestClassifier(bootstrap=False) in markdown is not code\n'] },
      { cell_type: 'code', metadata: {}, execution_count: 1, outputs: [], source: ['import joblib\n', '%matplotlib inline\n', 'from sklearn.ensemble import RandomForestClassifier as RF'] },
      { cell_type: 'code', metadata: {}, execution_count: 2, outputs: [], source: ['clf = RF(n_estimators=5,\n', '         bootstrap=False)\n', 'clf.fit(X, y)\n', 'joblib.dump(clf, "nb_model.joblib")\n'] },
    ],
    metadata: {}, nbformat: 4, nbformat_minor: 5,
  };
  const text = JSON.stringify(notebook, null, 1);
  const index = new ScriptIndex(() => ['/data/nb_model.joblib']);
  const entry = index.update('/w/analysis.ipynb', text);
  assert.equal(entry.kind, 'notebook');
  const refs = index.references('/data/nb_model.joblib');
  assert.deepEqual(refs.map((r) => [r.role, r.cell, r.line, r.text]), [
    ['estimator', 2, 0, 'clf = RF(n_estimators=5,'],
    ['save', 2, 3, 'joblib.dump(clf, "nb_model.joblib")'],
  ]);
  const findings = index.findings(entry);
  const noBootstrap = findings.find((f) => f.rule === 'script-no-bootstrap');
  assert.ok(noBootstrap, 'the notebook gets the finding');
  assert.equal(noBootstrap.fix, undefined, 'notebooks get diagnostics, not edits to their JSON');
  // the diagnostic's range is the JSON string of that source line in the .ipynb file
  const range = index.range(entry, noBootstrap.start, noBootstrap.end);
  const fileLines = text.split('\n');
  assert.equal(fileLines[range.start.line].trim(), '"         bootstrap=False)\\n",');
  assert.equal(index.label(entry, noBootstrap.save.call.start), 'analysis.ipynb cell 3, line 4');
});

test('broken notebooks and scripts are read as empty, never thrown on', () => {
  const index = new ScriptIndex();
  for (const [path, text] of [['/w/a.ipynb', '{"cells": [ {"cell_type": "code", "source": 3'], ['/w/b.ipynb', 'not json'], ['/w/c.py', 'def (:\n  """']]) {
    const entry = index.update(path, text);
    assert.deepEqual(index.findings(entry), []);
  }
});
