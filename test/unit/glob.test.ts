import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globToRegExp, matchesAny } from '../../server/src/glob';

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
