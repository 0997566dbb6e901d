/**
 * Training scripts through the bundled server (dist/server.js) over stdio: a script gets its
 * diagnostics on open and again after a save that changes it; the model it saves carries related
 * information pointing at the script and names the fix; code actions edit the open document.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeAction, Diagnostic, TextEdit } from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { TestLanguageClient } from '../support/lsp-client';
import { EXAMPLES } from '../support/paths';

test('a script is checked on open and after a save; its models point back at it and name the fix', { timeout: 90_000 }, async (t) => {
  const workspace = mkdtempSync(join(tmpdir(), 'mpl-scripts-'));
  cpSync(EXAMPLES, workspace, { recursive: true });
  const client = await TestLanguageClient.start(workspace, { reconstruction: { enabled: false } });
  t.after(async () => {
    await client.stop();
    rmSync(workspace, { recursive: true, force: true });
  });
  const script = join(workspace, 'train.py');
  const uri = pathToFileURL(script).href;
  const source = readFileSync(script, 'utf8');
  const codes = (ds: Diagnostic[] | undefined) => (ds ?? []).map((d) => String(d.code));

  // the workspace scan publishes the script's diagnostics before it is opened
  const initial = await client.waitFor('diagnostics for train.py', () => client.diagnosticsFor(script));
  assert.equal(codes(initial).filter((c) => c === 'script-no-bootstrap').length, 3, codes(initial).join(', '));

  // the model saved by the script: related information to the script lines, and the fix named
  const model = join(workspace, 'models', 'diabetes_no_bagging.joblib');
  const modelDiagnostics = await client.waitFor('no-bootstrap on diabetes_no_bagging.joblib, linked to train.py', () => {
    const d = client.diagnosticsFor(model)?.find((x) => x.code === 'no-bootstrap');
    return d?.relatedInformation?.length ? d : undefined;
  });
  const ctorLine = source.split('\n').findIndex((l) => l.startsWith('no_bagging = RandomForestClassifier('));
  const saveLine = source.split('\n').findIndex((l) => l.startsWith('joblib.dump(no_bagging'));
  assert.deepEqual(
    modelDiagnostics.relatedInformation!.map((r) => [r.location.uri, r.location.range.start.line, r.message]),
    // one row per script: at the estimator, naming the save
    [[uri, ctorLine, `trained by train.py:${ctorLine + 1}, saved by train.py:${saveLine + 1}`]],
  );
  // the fix leads the second line, right under the short first line the Problems panel shows
  assert.match(String(modelDiagnostics.message), new RegExp(`^[^\\n]{1,80}\\nQuick fix in train\\.py:${ctorLine + 1}: add bootstrap=True\\. `));
  // the script links are about the file: once, on its most severe diagnostic, not under every finding
  const ofModel = client.diagnosticsFor(model)!;
  assert.equal(ofModel.filter((d) => d.relatedInformation?.length).length, 1, ofModel.map((d) => `${d.code}: ${d.relatedInformation?.length ?? 0}`).join(', '));
  assert.ok(ofModel.length > 1, 'the model has further findings, without the links');

  // open it in the editor; ask for the quick fix at the bootstrap=False diagnostic
  await client.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: source } });
  const target = initial.find((d) => d.code === 'script-no-bootstrap' && d.range.start.line === ctorLine)!;
  const actions = (await client.connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri }, range: target.range, context: { diagnostics: [target], only: ['quickfix'] },
  })) as CodeAction[];
  const fix = actions.find((a) => a.title.startsWith('Add bootstrap=True'));
  assert.ok(fix, `quick fix offered: ${actions.map((a) => a.title)}`);
  assert.equal(fix.isPreferred, true);
  assert.deepEqual(fix.diagnostics?.map((d) => d.code), ['script-no-bootstrap']);
  const change = fix.edit!.documentChanges![0] as { textDocument: { uri: string; version: number }; edits: TextEdit[] };
  assert.equal(change.textDocument.version, 1);
  const fixed = TextDocument.applyEdits(TextDocument.create(uri, 'python', 1, source), change.edits);
  assert.equal(fixed, source.replace('n_estimators=10, bootstrap=False, max_depth=6', 'n_estimators=10, bootstrap=True, max_depth=6'));

  // the editor applies it, the file is saved: diagnostics again, from the new text
  const before = client.published.length;
  await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: fixed }] });
  writeFileSync(script, fixed);
  await client.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
  const after = await client.waitFor('new diagnostics for train.py after the save', () => {
    const mine = client.published.slice(before).filter((p) => p.uri === uri);
    const last = mine[mine.length - 1];
    return last && codes(last.diagnostics).filter((c) => c === 'script-no-bootstrap').length === 2 ? last.diagnostics : undefined;
  });
  assert.ok(after.some((d) => d.code === 'script-stored-seeds' && d.range.start.line === saveLine), 'the bagged forest now needs its seeds stripped');
  // the model (not retrained) now names the next fix for its reconstruction risk, not bootstrap
  const relinked = await client.waitFor('the model diagnostic without the applied fix', () => {
    const d = client.diagnosticsFor(model)?.find((x) => x.code === 'no-bootstrap');
    return d && !/add bootstrap=True/.test(String(d.message)) ? d : undefined;
  });
  assert.equal(relinked.relatedInformation?.length, 1);

  // fix all: the safe fixes of the whole file in one action
  const all = (await client.connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [], only: ['source.fixAll.modelPrivacyLint'] },
  })) as CodeAction[];
  assert.equal(all.length, 1);
  const allEdits = (all[0].edit!.documentChanges![0] as { edits: TextEdit[] }).edits;
  const everything = TextDocument.applyEdits(TextDocument.create(uri, 'python', 2, fixed), allEdits);
  assert.equal((everything.match(/bootstrap=True/g) ?? []).length, 2, 'compas gets bagging too');
  assert.equal((everything.match(/_tree\.random_state = None/g) ?? []).length, 2, 'the two bagged forests lose their seeds');
});
