/**
 * The pre-commit hook's `files` pattern (.pre-commit-hooks.yaml) picks the same files as the
 * CLI's directory walk (isModelFileName), so a commit is linted as `model-privacy-lint .` would be.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isModelFileName, MODEL_FILE_SUFFIXES } from '../../server/src/linter/model-files';
import { REPO_ROOT } from '../support/paths';

/** The hook's `files:` value: a Python regex, searched in repository-relative paths with `/`. */
function hookPattern(): RegExp {
  const yaml = readFileSync(join(REPO_ROOT, '.pre-commit-hooks.yaml'), 'utf8');
  const line = /^\s+files:\s*(\S.*)$/m.exec(yaml);
  assert.ok(line, 'the hook has a files: pattern');
  // Python's leading inline flag (?i) is JavaScript's `i` flag; the rest is the same syntax.
  const source = line[1].trim();
  assert.ok(source.startsWith('(?i)'), 'case-insensitive, as the CLI matches names');
  return new RegExp(source.slice(4), 'i');
}

test("the hook's files pattern selects exactly the CLI's model file names", () => {
  const pattern = hookPattern();
  const names = [
    ...MODEL_FILE_SUFFIXES.flatMap((suffix) => [`model${suffix}`, `models/deep/Model${suffix.toUpperCase()}`]),
    'xgb_model.json', 'models/my-XGB-booster.json', 'dump.raw.txt', 'out/dump.nice.txt', 'xgb.model', 'models/churn_XGB.bin',
    // not models
    'package.json', 'settings.json', 'xgb/config.json', 'model.privacy.json', 'notes.txt', 'dump.raw.txt.orig',
    'model.joblib.bak', 'model.pkl.zip', 'forest.json', 'model.ubjson', 'train.py', 'model.gz', 'xgb.json.txt',
    'word2vec.model', 'pytorch_model.bin', 'xgb/model.bin', 'xgb.model.bak',
  ];
  for (const name of names) assert.equal(pattern.test(name), isModelFileName(name), name);
  assert.ok(names.filter((name) => pattern.test(name)).length >= MODEL_FILE_SUFFIXES.length * 2 + 4);
});
