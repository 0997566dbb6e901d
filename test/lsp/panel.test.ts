/**
 * What the Problems panel gets from the bundled server (dist/server.js) on the examples workspace
 * (models and train.py): short first lines, the training-script links once per model file, the
 * quick-fix menu's "Show documentation" and "Disable ... for this file", and a disabled rule gone
 * from the next diagnostics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FileChangeType, type CodeAction, type CreateFile, type TextDocumentEdit, type WorkspaceEdit } from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { TestLanguageClient } from '../support/lsp-client';
import { EXAMPLES } from '../support/paths';
import { isModelFileName } from '../../server/src/linter/model-files';
import { SHOW_RULE_DOCS_COMMAND } from '../../server/src/lsp/protocol';

function applyToDisk(edit: WorkspaceEdit): string[] {
  const touched: string[] = [];
  for (const change of edit.documentChanges ?? []) {
    if ('kind' in change) {
      const path = fileURLToPath((change as CreateFile).uri);
      if (!existsSync(path)) writeFileSync(path, '');
      continue;
    }
    const { textDocument, edits } = change as TextDocumentEdit;
    const path = fileURLToPath(textDocument.uri);
    writeFileSync(path, TextDocument.applyEdits(TextDocument.create(textDocument.uri, 'json', 0, readFileSync(path, 'utf8')), edits as never));
    touched.push(textDocument.uri);
  }
  return touched;
}

test('the examples workspace: short first lines, script links once per model, docs and disable in the quick-fix menu', { timeout: 120_000 }, async (t) => {
  const workspace = mkdtempSync(join(tmpdir(), 'mpl-panel-'));
  cpSync(EXAMPLES, workspace, { recursive: true });
  const client = await TestLanguageClient.start(workspace, { reconstruction: { enabled: false } });
  t.after(async () => {
    await client.stop();
    rmSync(workspace, { recursive: true, force: true });
  });
  const models = readdirSync(join(workspace, 'models')).filter(isModelFileName).map((name) => join(workspace, 'models', name));
  // train.py saves diabetes_no_bagging.joblib: wait until its diagnostics carry the script links
  await client.waitFor('the script links on diabetes_no_bagging.joblib', () =>
    client.diagnosticsFor(join(workspace, 'models', 'diabetes_no_bagging.joblib'))?.some((d) => d.relatedInformation?.length) ? true : undefined,
  );
  let diagnostics = 0;
  let rows = 0;
  for (const model of models) {
    const ds = await client.waitFor(`diagnostics for ${model}`, () => client.diagnosticsFor(model));
    diagnostics += ds.length;
    // a model file's rows in the panel: its findings and their related information
    rows += ds.length + ds.reduce((n, d) => n + (d.relatedInformation?.length ?? 0), 0);
    assert.ok(ds.filter((d) => d.relatedInformation?.length).length <= 1, `${model}: script links under at most one finding`);
    for (const d of ds) {
      const first = String(d.message).split('\n')[0];
      assert.ok(first.length <= 80, `${model} [${d.code}]: ${first}`);
    }
  }
  assert.ok(diagnostics >= 10, `${diagnostics} diagnostics`);
  assert.ok(rows <= 2 * diagnostics, `${rows} rows for ${diagnostics} diagnostics`);

  // the quick-fix menu of a binary model's finding
  const model = join(workspace, 'models', 'diabetes_tree.pkl');
  const uri = pathToFileURL(model).href;
  const ds = client.diagnosticsFor(model)!;
  const target = ds.find((d) => d.code === 'singleton-leaf')!;
  const actions = (await client.connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri }, range: target.range, context: { diagnostics: [target], only: ['quickfix'] },
  })) as CodeAction[];
  const titles = actions.map((a) => a.title);
  assert.ok(titles.includes('Show documentation for singleton-leaf'), titles.join(' | '));
  assert.ok(titles.includes('Open privacy report'), titles.join(' | '));
  const docs = actions.find((a) => a.title === 'Show documentation for singleton-leaf')!;
  assert.equal(docs.command?.command, SHOW_RULE_DOCS_COMMAND);
  assert.equal(docs.command?.arguments?.[0], 'singleton-leaf');
  assert.match(String(docs.command?.arguments?.[1]), /^file:.*\/docs\/rules\/singleton-leaf\.md$/);
  const disable = actions.find((a) => a.title.startsWith('Disable singleton-leaf for diabetes_tree.pkl'));
  assert.ok(disable?.edit, titles.join(' | '));

  // the editor applies the edit and saves the sidecar; the watcher tells the server
  const before = client.published.length;
  applyToDisk(disable.edit);
  const sidecar = join(workspace, 'models', 'diabetes_tree.pkl.privacy.json');
  assert.deepEqual(JSON.parse(readFileSync(sidecar, 'utf8')).disable, ['singleton-leaf']);
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(sidecar).href, type: FileChangeType.Created }] });
  const next = await client.waitFor('diabetes_tree.pkl published again without singleton-leaf', () => {
    const mine = client.published.slice(before).filter((p) => p.uri === uri);
    return mine.length ? mine[mine.length - 1].diagnostics : undefined;
  });
  assert.deepEqual(next.map((d) => d.code).sort(), ['exact-counts', 'no-bootstrap']);

  // a training script's finding: its fix, the documentation, and a comment that disables the rule
  const script = join(workspace, 'train.py');
  const scriptUri = pathToFileURL(script).href;
  const small = client.diagnosticsFor(script)!.find((d) => d.code === 'script-small-leaves')!;
  assert.ok(!small.relatedInformation, 'script lines are named in the detail, not as related rows');
  assert.match(String(small.message), /\((Built at train\.py:\d+, s|S)aved at train\.py:\d+\.\)$/);
  const scriptActions = (await client.connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri: scriptUri }, range: small.range, context: { diagnostics: [small], only: ['quickfix'] },
  })) as CodeAction[];
  const scriptTitles = scriptActions.map((a) => a.title);
  for (const title of ['Show documentation for script-small-leaves', 'Disable script-small-leaves for train.py (comment)']) {
    assert.ok(scriptTitles.includes(title), scriptTitles.join(' | '));
  }
  assert.ok(scriptTitles.some((x) => x.startsWith('Raise min_samples_leaf to')), scriptTitles.join(' | '));
});
