/**
 * Other libraries' own model files and Git LFS pointers (formats/foreign.ts): named for what they
 * are, never "not a format this tool reads". LightGBM and CatBoost cannot be installed here, so the
 * heads below follow their documented formats (LightGBM's `model_to_string`, CatBoost's `CBM1`
 * magic) as the public files of sweep 14 start; the pointer is Git LFS's spec v1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readModel } from '../../server/src/formats';
import { lintBytes } from '../../server/src/linter/linter';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));

const LIGHTGBM_TEXT = 'tree\nversion=v3\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\nmax_feature_idx=60\nobjective=regression\n';
const LIGHTGBM_JSON = '{"name":"tree","version":"v4","num_class":1,"num_tree_per_iteration":1,"label_index":0,"tree_info":[]}';
const CATBOOST_JSON = '{"features_info":{"float_features":[]},"model_info":{"params":{}},"oblivious_trees":[]}';
const LFS = 'version https://git-lfs.github.com/spec/v1\noid sha256:abc39a530ac9392dd98fa3864ea01e04a1d79a5df433d3dda9054a080e3c371d\nsize 1186313\n';

test('LightGBM and CatBoost model files get the unsupported-model note, as their pickles do', () => {
  const cases: [string, Uint8Array, string][] = [
    ['model.txt', bytes(LIGHTGBM_TEXT), 'LightGBM'],
    ['model.json', bytes(LIGHTGBM_JSON), 'LightGBM'],
    ['model.cbm', new Uint8Array([0x43, 0x42, 0x4d, 0x31, 0x70, 0x9a, 0x28, 0x00, 0x14, 0, 0, 0]), 'CatBoost'],
    ['model.json', bytes(CATBOOST_JSON), 'CatBoost'],
  ];
  for (const [name, content, library] of cases) {
    const read = readModel(content, name);
    assert.equal(read.kind, 'no-model', `${library} ${name}`);
    const report = lintBytes(content, name);
    assert.deepEqual(report.findings.map((f) => f.rule), ['unsupported-model'], `${library} ${name}`);
    const message = report.findings[0].message;
    assert.match(message, new RegExp(`${library} models are not read yet`));
    // A model file of its own has no place inside it to name.
    assert.ok(!message.includes(' at model'), message);
  }
});

test('a Git LFS pointer says it is one, the size of the file it stands for, and how to fetch it', () => {
  const report = lintBytes(bytes(LFS), 'extra_trees.pkl');
  assert.deepEqual(report.findings.map((f) => f.rule), ['unreadable-model']);
  assert.match(report.findings[0].message, /Git LFS pointer to a 1,186,313-byte file/);
  assert.match(report.findings[0].message, /git lfs pull/);
});

test('text that only starts like them is not claimed', () => {
  for (const text of ['tree\nhouse\n', 'tree\nversion=\n', '{"name":"tree","kind":"oak"}', 'version 1.0\n', 'CBM']) {
    const read = readModel(bytes(text), 'notes.txt');
    assert.equal(read.kind, 'unreadable', text);
    assert.equal((read as { reason: string }).reason, 'not-a-model', text);
    assert.ok(!/LightGBM|CatBoost|LFS/.test((read as { detail: string }).detail), text);
  }
});
