import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globToRegExp, matchesAny } from '../../server/src/linter/glob';
import { DEFAULT_MODEL_GLOBS, isModelFileName } from '../../server/src/linter/model-files';

test('workspace globs match like VS Code\'s', () => {
  const model = globToRegExp('**/*.joblib');
  assert.ok(model.test('m.joblib'));
  assert.ok(model.test('a/b/m.joblib'));
  assert.ok(!model.test('m.joblib.bak'));
  assert.ok(!model.test('m.pkl'));
  const alt = globToRegExp('models/*.{pkl,pickle}');
  assert.ok(alt.test('models/x.pkl'));
  assert.ok(alt.test('models/x.pickle'));
  assert.ok(!alt.test('models/deep/x.pkl'));
  assert.ok(globToRegExp('m?.forest.json').test('m1.forest.json'));
  assert.ok(!globToRegExp('m?.forest.json').test('m1xforest.json'), 'dots are literal');
  assert.ok(globToRegExp('[ab].pkl').test('a.pkl') && !globToRegExp('[ab].pkl').test('c.pkl'));
  assert.ok(matchesAny('x/y.pkl', [model, globToRegExp('**/*.pkl')]));
});

test('the names people give model files are picked up, by the CLI walk and the default globs alike', () => {
  const globs = DEFAULT_MODEL_GLOBS.map(globToRegExp);
  // .sav is scikit-learn's documented example; joblib picks its compression by the extra ending.
  for (const name of ['m.joblib', 'm.pkl', 'm.pickle', 'finalized_model.sav', 'model.pkl.gz', 'rf.joblib.xz', 'rf.joblib.bz2', 'rf.pkl.lzma', 'rf.joblib.z', 'rf.pkl.lz4', 'm.forest.json', 'm.ubj', 'model_xgb.json']) {
    assert.ok(isModelFileName(`dir/${name}`), `walk: ${name}`);
    assert.ok(matchesAny(`dir/${name}`, globs), `globs: ${name}`);
  }
  for (const name of ['data.csv.gz', 'config.json', 'notes.txt', 'm.pkl.bak']) {
    assert.ok(!isModelFileName(`dir/${name}`), `walk: ${name}`);
    assert.ok(!matchesAny(`dir/${name}`, globs), `globs: ${name}`);
  }
});
