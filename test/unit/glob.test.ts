import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { globToRegExp, matchesAny } from '../../server/src/linter/glob';
import { collectModelFiles, DEFAULT_MODEL_GLOBS, isModelFileName } from '../../server/src/linter/model-files';
import { EXAMPLES, FIXTURES, REPO_ROOT } from '../support/paths';

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
  // XGBoost's legacy binary models: save_model("xgb.model"), "model_xgb.bin", "churn.xgb".
  for (const name of ['m.joblib', 'm.pkl', 'm.pickle', 'finalized_model.sav', 'model.pkl.gz', 'rf.joblib.xz', 'rf.joblib.bz2', 'rf.pkl.lzma', 'rf.joblib.z', 'rf.pkl.lz4', 'model.pbz2', 'm.forest.json', 'm.ubj', 'model_xgb.json', 'xgb.model', 'model_xgb.bin', 'churn.xgb']) {
    assert.ok(isModelFileName(`dir/${name}`), `walk: ${name}`);
    assert.ok(matchesAny(`dir/${name}`, globs), `globs: ${name}`);
  }
  // .model / .bin without `xgb`: gensim, sentencepiece and PyTorch name their files so.
  for (const name of ['data.csv.gz', 'config.json', 'notes.txt', 'm.pkl.bak', 'word2vec.model', 'tokenizer.model', 'pytorch_model.bin', 'xgb.model.bak', 'model.xgboost']) {
    assert.ok(!isModelFileName(`dir/${name}`), `walk: ${name}`);
    assert.ok(!matchesAny(`dir/${name}`, globs), `globs: ${name}`);
  }
});

test('package.json states the same default globs as the server, and activates on them', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.contributes.configuration.properties['modelPrivacyLint.files'].default, DEFAULT_MODEL_GLOBS);
  const activation = (pkg.activationEvents as string[]).filter((e) => e.startsWith('workspaceContains:')).map((e) => e.slice('workspaceContains:'.length));
  for (const glob of activation) assert.ok(DEFAULT_MODEL_GLOBS.includes(glob), `activation on ${glob}, which is not a default glob`);
  for (const glob of ['**/*.ubj', '**/*xgb*.json', '**/*xgb*.model', '**/*xgb*.bin', '**/*.xgb']) assert.ok(activation.includes(glob), `no activation on ${glob}`);
  // The binary ones open in the report editor and have the explorer's commands.
  const selectors = (pkg.contributes.customEditors[0].selector as { filenamePattern: string }[]).map((s) => s.filenamePattern);
  for (const pattern of ['*.ubj', '*.xgb', '*xgb*.model', '*xgb*.bin', '*.sav', '*.pbz2', '*.{joblib,pkl,pickle,sav}.{gz,z,bz2,xz,lzma,lz4}']) assert.ok(selectors.includes(pattern), pattern);
  for (const menu of pkg.contributes.menus['explorer/context'] as { when: string }[]) {
    assert.ok(menu.when.includes('sav|pbz2|ubj|xgb)$') && menu.when.includes('xgb.*\\.(json|model|bin)$') && menu.when.includes('(joblib|pkl|pickle|sav)\\.(gz|z|bz2|xz|lzma|lz4)$'), menu.when);
  }
  // Dumps of any name, recognised by their first line, are synchronised as text documents.
  assert.equal(pkg.contributes.languages[0].id, 'xgboost-dump');
  assert.ok(new RegExp(pkg.contributes.languages[0].firstLine).test('booster[0]:'));
});

test('a directory walk takes files whose first bytes are an XGBoost model or dump, or a LightGBM model, whatever their name, and no other', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-walk-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // XGBoost's own files (the bundled dump, a legacy binary and a JSON fixture), under the names people give them.
  for (const name of ['trees.txt', 'xgb_dump.txt', 'model.dump.txt', 'xgb.dump']) copyFileSync(join(EXAMPLES, 'models', 'diabetes_xgb.dump.txt'), join(dir, name));
  for (const name of ['0001.model', 'test.model', 'booster.txt', 'model.bst']) copyFileSync(join(FIXTURES, 'xgboost', 'bin_pima_xgb.model'), join(dir, name));
  copyFileSync(join(EXAMPLES, 'models', 'diabetes_xgb.json'), join(dir, 'booster.json'));
  writeFileSync(join(dir, 'lgbm.txt'), 'tree\nversion=v4\nnum_class=1\n');
  // Text and files of other libraries with those endings: left alone.
  writeFileSync(join(dir, 'xgb_features.txt'), 'Pregnancies\nGlucose\n');
  writeFileSync(join(dir, 'requirements.txt'), 'xgboost==1.7.4\n');
  writeFileSync(join(dir, 'config.json'), '{"name": "model", "learner": "none"}');
  writeFileSync(join(dir, 'empty.txt'), '');
  // BibTeX's style files share XGBoost's `.bst`.
  writeFileSync(join(dir, 'plainnat.bst'), 'ENTRY\n  { address author booktitle }\n  {}\n  { label }\n');
  // gensim's Word2Vec.save writes a pickle: not an XGBoost model, so not taken by its content.
  copyFileSync(join(EXAMPLES, 'models', 'diabetes_tree.pkl'), join(dir, 'word2vec.model'));
  writeFileSync(join(dir, 'pointer.model'), 'version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 10\n');
  const walked = await collectModelFiles([dir]);
  assert.deepEqual(walked.files.map((f) => basename(f)), ['0001.model', 'booster.json', 'booster.txt', 'lgbm.txt', 'model.bst', 'model.dump.txt', 'test.model', 'trees.txt', 'xgb.dump', 'xgb_dump.txt']);
  // The server's scan follows its globs alone (its watchers do): only the dump's own name.
  const byName = await collectModelFiles([dir], isModelFileName, false);
  assert.deepEqual(byName.files.map((f) => basename(f)), ['model.dump.txt']);
});
