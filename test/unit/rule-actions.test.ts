/**
 * "Disable this rule for this file" writes the model's sidecar (`"disable"` in
 * `<model>.privacy.json`), and the linter honours it; "Show documentation" names the rule's page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CodeActionParams, CreateFile, Diagnostic, TextDocumentEdit, WorkspaceEdit } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { disableCodeActions, disableRuleEdit, docsCodeActions } from '../../server/src/lsp/rule-actions';
import { lintFile } from '../../server/src/linter/linter';
import { readSidecar } from '../../server/src/recoverability/declared-groups';
import { SHOW_RULE_DOCS_COMMAND } from '../../server/src/lsp/protocol';
import { EXAMPLES } from '../support/paths';
import { disabledInScript, disableInScriptEdit } from '../../server/src/scripts/directives';
import { applyEdits } from '../../server/src/scripts/edits';
import { ScriptIndex } from '../../server/src/scripts/workspace';

/** Applies a WorkspaceEdit to disk as an editor would (create, then text edits). */
function apply(edit: WorkspaceEdit): void {
  for (const change of edit.documentChanges ?? []) {
    if ('kind' in change) {
      const path = fileURLToPath((change as CreateFile).uri);
      if (!existsSync(path)) writeFileSync(path, '');
      continue;
    }
    const { textDocument, edits } = change as TextDocumentEdit;
    const path = fileURLToPath(textDocument.uri);
    const doc = TextDocument.create(textDocument.uri, 'json', 0, readFileSync(path, 'utf8'));
    writeFileSync(path, TextDocument.applyEdits(doc, edits as never));
  }
}

function workspace(t: { after: (fn: () => void) => void }, ...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-disable-'));
  for (const name of names) copyFileSync(join(EXAMPLES, 'models', name), join(dir, name));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('disabling a rule creates the sidecar, and the next lint leaves the rule out', async (t) => {
  const dir = workspace(t, 'diabetes_tree.pkl');
  const model = join(dir, 'diabetes_tree.pkl');
  assert.ok((await lintFile(model)).findings.some((f) => f.rule === 'singleton-leaf'));
  const edit = disableRuleEdit(model, 'singleton-leaf');
  assert.ok(edit);
  apply(edit);
  const sidecar = join(dir, 'diabetes_tree.pkl.privacy.json');
  assert.deepEqual(JSON.parse(readFileSync(sidecar, 'utf8')), { disable: ['singleton-leaf'] });
  const after = await lintFile(model);
  assert.deepEqual(after.findings.map((f) => f.rule).sort(), ['exact-counts', 'no-bootstrap']);
  assert.deepEqual(after.disabledRules, ['singleton-leaf']);
});

test("disabling a second rule keeps the sidecar's groups and the first rule; a cached report of the old sidecar is not reused", async (t) => {
  const dir = workspace(t, 'compas_no_bagging.joblib', 'compas_no_bagging.privacy.json');
  const model = join(dir, 'compas_no_bagging.joblib');
  const cache = new Map<string, Awaited<ReturnType<typeof lintFile>>>();
  const lint = async () => {
    const report = await lintFile(model, { cached: (hash) => cache.get(hash) });
    cache.set(report.contentHash, report);
    return report;
  };
  assert.equal((await lint()).findings.length, 3);
  apply(disableRuleEdit(model, 'exact-counts')!);
  apply(disableRuleEdit(model, 'no-bootstrap')!);
  const sidecar = await readSidecar(model);
  assert.equal(sidecar.path, join(dir, 'compas_no_bagging.privacy.json'), 'the existing sidecar is the one edited');
  assert.equal(sidecar.declarations.length, 2, 'its one-hot groups are kept');
  assert.deepEqual(sidecar.disable, ['exact-counts', 'no-bootstrap']);
  assert.deepEqual((await lint()).findings.map((f) => f.rule), ['singleton-leaf']);
});

test('a sidecar that is not a JSON object is not overwritten; unknown rule ids in "disable" are ignored', async (t) => {
  const dir = workspace(t, 'diabetes_tree.pkl');
  const model = join(dir, 'diabetes_tree.pkl');
  writeFileSync(join(dir, 'diabetes_tree.pkl.privacy.json'), '{ "groups": [ oops');
  assert.equal(disableRuleEdit(model, 'singleton-leaf'), undefined);
  writeFileSync(join(dir, 'diabetes_tree.pkl.privacy.json'), JSON.stringify({ disable: ['no-such-rule'] }));
  assert.equal((await lintFile(model)).findings.length, 3);
});

test('the quick-fix menu offers the documentation and disabling, once per rule, on model files', () => {
  const uri = pathToFileURL(join(EXAMPLES, 'models', 'diabetes_tree.pkl')).href;
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const diagnostic = (code: string): Diagnostic => ({ range, message: 'x', source: 'model-privacy-lint', code });
  const params: CodeActionParams = {
    textDocument: { uri },
    range,
    context: { diagnostics: [diagnostic('no-bootstrap'), diagnostic('singleton-leaf'), diagnostic('singleton-leaf'), { ...diagnostic('other'), source: 'eslint' }] },
  };
  const docs = docsCodeActions(params, (rule) => `file:///ext/docs/rules/${rule}.md`);
  assert.deepEqual(docs.map((a) => a.title), ['Show documentation for no-bootstrap', 'Show documentation for singleton-leaf']);
  assert.deepEqual(docs[1].command, { title: 'Show documentation for singleton-leaf', command: SHOW_RULE_DOCS_COMMAND, arguments: ['singleton-leaf', 'file:///ext/docs/rules/singleton-leaf.md'] });
  const disable = disableCodeActions(params, () => true);
  assert.deepEqual(disable.map((a) => a.title), ['Disable no-bootstrap for diabetes_tree.pkl (in its .privacy.json)', 'Disable singleton-leaf for diabetes_tree.pkl (in its .privacy.json)']);
  assert.equal(disable[1].diagnostics?.length, 2);
  assert.deepEqual(disableCodeActions(params, () => false), [], 'not on files the server does not analyse');
  assert.deepEqual(docsCodeActions({ ...params, context: { ...params.context, only: ['source.fixAll'] } }, () => ''), []);
});

test('a training script turns a rule off with a comment; the edit writes it below a shebang, or extends the one there', () => {
  const script = '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nimport joblib\n';
  const once = applyEdits(script, [disableInScriptEdit(script, 'script-small-leaves')]);
  assert.equal(once, '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n# model-privacy-lint: disable=script-small-leaves\nimport joblib\n');
  const twice = applyEdits(once, [disableInScriptEdit(once, 'script-stored-seeds')]);
  assert.match(twice, /^# model-privacy-lint: disable=script-small-leaves, script-stored-seeds$/m);
  assert.deepEqual([...disabledInScript(twice)], ['script-small-leaves', 'script-stored-seeds']);
  assert.deepEqual([...disabledInScript('x = 1  # model-privacy-lint: disable=script-no-bootstrap\n')], [], 'only a comment line of its own');
});

test('the script index leaves out the findings of rules the script disables', () => {
  const index = new ScriptIndex(() => []);
  const text = readFileSync(join(EXAMPLES, 'train.py'), 'utf8');
  const rules = (t: string) => index.findings(index.update('/tmp/train.py', t)).map((f) => f.rule);
  assert.ok(rules(text).includes('script-small-leaves'));
  const off = rules(`# model-privacy-lint: disable=script-small-leaves\n${text}`);
  assert.ok(!off.includes('script-small-leaves'));
  assert.equal(off.length, rules(text).filter((r) => r !== 'script-small-leaves').length);
});
