/**
 * Language-server tests: the bundled server (dist/server.js) spoken to over stdio, as VS Code does.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TestLanguageClient } from '../support/lsp-client';
import { EXAMPLES, FIXTURES } from '../support/paths';
import { lintFile } from '../../server/src/linter/linter';
import { isModelFileName } from '../../server/src/linter/model-files';

function workspaceWithExamples(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-lsp-'));
  for (const name of readdirSync(join(EXAMPLES, 'models'))) copyFileSync(join(EXAMPLES, 'models', name), join(dir, name));
  return dir;
}

/** Settings with the background reconstruction off (see serveExamples). */
const FAST_ONLY = { reconstruction: { enabled: false } };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server on a fresh copy of the examples, stopped and cleaned up when the test ends. */
async function serveExamples(t: TestContext, prepare: (workspace: string) => void = () => {}) {
  const workspace = workspaceWithExamples();
  prepare(workspace);
  // The fast findings are what these tests check; the background reconstruction that follows
  // them has its own tests (reconstruction.test.ts) and would otherwise add a finding mid-test.
  const client = await TestLanguageClient.start(workspace, FAST_ONLY);
  t.after(async () => {
    await client.stop();
    rmSync(workspace, { recursive: true, force: true });
  });
  return { workspace, client };
}

test('publishes the linter\'s findings for every model file in the workspace, with rule links', async (t) => {
  // A forest with os.system hidden in an attribute: loading it in Python would write the marker.
  const marker = JSON.parse(readFileSync(join(FIXTURES, 'sklearn/manifest.json'), 'utf8')).marker as string;
  rmSync(marker, { force: true });
  const { workspace, client } = await serveExamples(t, (dir) => {
    writeFileSync(join(dir, 'garbage.pkl'), Buffer.from('this is not a pickle at all, just text'));
    writeFileSync(join(dir, 'empty.joblib'), Buffer.alloc(0));
    copyFileSync(join(FIXTURES, 'sklearn/evil_nested_forest.pkl'), join(dir, 'evil.pkl'));
  });

  // Model files only: models/ also holds a privacy sidecar (compas_no_bagging.privacy.json).
  const models = readdirSync(join(EXAMPLES, 'models')).filter(isModelFileName);
  for (const name of models) {
    const path = join(workspace, name);
    const diagnostics = await client.waitFor(`diagnostics for ${name}`, () => client.diagnosticsFor(path));
    const expected = await lintFile(path);
    assert.deepEqual(
      diagnostics.map((d) => [d.code, d.message]),
      expected.findings.map((f) => [f.rule, f.message]),
      `${name}: the server publishes what the linter finds`,
    );
    assert.ok(diagnostics.length > 0, `${name} has findings`);
    for (const diagnostic of diagnostics) {
      assert.equal(diagnostic.source, 'model-privacy-lint');
      const href = diagnostic.codeDescription?.href;
      assert.ok(href && existsSync(fileURLToPath(href)), `rule page exists for ${diagnostic.code}: ${href}`);
    }
  }
  for (const [name, reason] of [['garbage.pkl', 'not-a-model'], ['empty.joblib', 'empty']]) {
    const diagnostics = await client.waitFor(`diagnostics for ${name}`, () => client.diagnosticsFor(join(workspace, name)));
    assert.equal(diagnostics.length, 1, `${name}: one clear finding`);
    assert.equal(diagnostics[0].code, 'unreadable-model');
    assert.match(String(diagnostics[0].message), new RegExp(`\\(${reason}\\)`));
  }
  const evil = await client.waitFor('diagnostics for evil.pkl', () => client.diagnosticsFor(join(workspace, 'evil.pkl')));
  assert.deepEqual(evil.map((d) => d.code), ['unsafe-pickle']);
  assert.equal(evil[0].severity, 1);
  assert.match(String(evil[0].message), /posix\.system/);
  assert.ok(!existsSync(marker), 'nothing in the pickle ran');
  const status = client.notifications.filter((n) => n.method === 'modelPrivacyLint/status');
  assert.ok(status.some((n) => (n.params as { state: string }).state === 'busy'), 'status says when it is busy');
  await client.waitFor('idle status', () =>
    (client.notifications.at(-1)?.params as { state?: string } | undefined)?.state === 'idle' ? true : undefined,
  );
});

test('a model rewritten on disk is analysed again, and a deleted one is cleared', async (t) => {
  const { workspace, client } = await serveExamples(t);
  const target = join(workspace, 'diabetes_forest.joblib');
  const before = await client.waitFor('first diagnostics', () => client.diagnosticsFor(target));
  assert.ok(before.some((d) => d.code === 'replayable-bootstrap'));
  assert.ok(!before.some((d) => d.code === 'no-bootstrap'));

  // A training run overwrites the file with a forest trained without bagging.
  copyFileSync(join(EXAMPLES, 'models', 'diabetes_no_bagging.joblib'), target);
  client.diagnostics.delete(pathToFileURL(target).href);
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [{ uri: pathToFileURL(target).href, type: 2 }],
  });
  const after = await client.waitFor('diagnostics after the rewrite', () => client.diagnosticsFor(target));
  assert.ok(after.some((d) => d.code === 'no-bootstrap'), 'the new model is analysed');
  assert.ok(!after.some((d) => d.code === 'replayable-bootstrap'));

  rmSync(target);
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [{ uri: pathToFileURL(target).href, type: 3 }],
  });
  await client.waitFor('cleared diagnostics', () => (client.diagnosticsFor(target)?.length === 0 ? true : undefined));
});

test('an XGBoost dump of any name is analysed when opened, as VS Code recognises it by its first line; other text is not', async (t) => {
  const { workspace, client } = await serveExamples(t);
  // The workspace scan follows the globs: a dump named trees.txt is not among them.
  await client.waitFor('the scan\'s diagnostics', () => client.diagnosticsFor(join(workspace, 'diabetes_xgb.dump.txt')));
  const trees = join(workspace, 'trees.txt');
  const notes = join(workspace, 'notes.txt');
  copyFileSync(join(EXAMPLES, 'models', 'diabetes_xgb.dump.txt'), trees);
  writeFileSync(notes, 'booster settings: depth 3\n');
  assert.equal(client.diagnosticsFor(trees), undefined);
  // What VS Code sends: the language from package.json's firstLine pattern, or plain text.
  for (const [path, languageId] of [[trees, 'xgboost-dump'], [notes, 'plaintext']]) {
    await client.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri: pathToFileURL(path).href, languageId, version: 1, text: readFileSync(path, 'utf8') },
    });
  }
  const diagnostics = await client.waitFor('diagnostics for trees.txt', () => client.diagnosticsFor(trees));
  const expected = await lintFile(trees);
  assert.deepEqual(diagnostics.map((d) => d.code), expected.findings.map((f) => f.rule));
  assert.ok(diagnostics.some((d) => d.code === 'first-tree-exposes-counts'), diagnostics.map((d) => d.code).join(', '));
  // A request for another file proves the server worked through its queue: notes.txt got nothing.
  await client.connection.sendRequest('modelPrivacyLint/analyzeFile', { uri: pathToFileURL(join(workspace, 'diabetes_tree.pkl')).href });
  assert.equal(client.diagnosticsFor(notes), undefined);
});

test("an old joblib model is analysed again when a side file of its arrays appears or changes, its own bytes unchanged", async (t) => {
  const dir = join(FIXTURES, 'old-joblib');
  const sides = readdirSync(dir).filter((name) => /^tree\.pkl_\d+\.npy$/.test(name));
  // The pickle alone first: joblib before 0.10 writes the arrays beside it.
  const { workspace, client } = await serveExamples(t, (w) => copyFileSync(join(dir, 'tree.pkl'), join(w, 'tree.pkl')));
  const target = join(workspace, 'tree.pkl');
  const missing = await client.waitFor('diagnostics without the side files', () => client.diagnosticsFor(target));
  assert.ok(missing.some((d) => d.code === 'unreadable-model' && /side files/.test(String(d.message))), missing.map((d) => d.message).join(' | '));

  // The side files arrive (as a training run writes them); only their watcher's events say so.
  for (const name of sides) copyFileSync(join(dir, name), join(workspace, name));
  client.diagnostics.delete(pathToFileURL(target).href);
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
    changes: sides.map((name) => ({ uri: pathToFileURL(join(workspace, name)).href, type: 1 })),
  });
  const read = await client.waitFor('diagnostics with the side files', () => client.diagnosticsFor(target));
  assert.ok(!read.some((d) => d.code === 'unreadable-model'), read.map((d) => d.message).join(' | '));
  assert.deepEqual(read.map((d) => [d.code, d.message]), (await lintFile(target)).findings.map((f) => [f.rule, f.message]));

  // One side file removed: the model cannot be read again, though the pickle never changed.
  rmSync(join(workspace, sides[0]));
  client.diagnostics.delete(pathToFileURL(target).href);
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(join(workspace, sides[0])).href, type: 3 }] });
  const gone = await client.waitFor('diagnostics after a side file went', () => client.diagnosticsFor(target));
  assert.ok(gone.some((d) => d.code === 'unreadable-model' && new RegExp(sides[0].replace(/\./g, '\\.')).test(String(d.message))), gone.map((d) => d.message).join(' | '));
});

test('severity settings apply when the configuration changes', async (t) => {
  const { workspace, client } = await serveExamples(t);
  const target = join(workspace, 'diabetes_tree.pkl');
  const before = await client.waitFor('first diagnostics', () => client.diagnosticsFor(target));
  assert.ok(before.some((d) => d.code === 'exact-counts'));
  client.setSettings({ ...FAST_ONLY, severity: { 'exact-counts': 'off', 'no-bootstrap': 'error' } });
  client.diagnostics.clear();
  await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
  const after = await client.waitFor('diagnostics with new severities', () => client.diagnosticsFor(target));
  assert.ok(!after.some((d) => d.code === 'exact-counts'), 'turned off');
  assert.equal(after.find((d) => d.code === 'no-bootstrap')?.severity, 1, 'raised to error');
});

test('run modes: manual analyses only on request, onSave on save', async (t) => {
  const { workspace, client } = await serveExamples(t);
  // The server started with default settings; switch to manual and start over with a new file.
  await client.waitFor('start-up scan', () => client.diagnosticsFor(join(workspace, 'diabetes_tree.pkl')));
  await client.changeSettings({ ...FAST_ONLY, run: 'manual' });
  const added = join(workspace, 'added.forest.json');
  copyFileSync(join(EXAMPLES, 'models', 'private_stump.forest.json'), added);
  const uri = pathToFileURL(added).href;
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 1 }] });
  await client.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'json', version: 1, text: readFileSync(added, 'utf8') },
  });
  // Nothing may arrive for the new file: wait past the server's debounce, then a request for another
  // file proves the server has worked through what it had queued.
  await pause(300);
  await client.connection.sendRequest('modelPrivacyLint/analyzeFile', { uri: pathToFileURL(join(workspace, 'diabetes_tree.pkl')).href });
  assert.equal(client.diagnosticsFor(added), undefined, 'manual: no analysis on create or open');
  await client.connection.sendRequest('modelPrivacyLint/analyzeFile', { uri });
  assert.ok(client.diagnosticsFor(added)?.some((d) => d.code === 'no-bootstrap'), 'analysed on request');

  await client.changeSettings({ ...FAST_ONLY, run: 'onSave' });
  // A file the server has never seen (a settings change re-runs only known files), opened then saved.
  const saved = join(workspace, 'saved.forest.json');
  copyFileSync(join(EXAMPLES, 'models', 'private_stump.forest.json'), saved);
  const savedUri = pathToFileURL(saved).href;
  await client.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri: savedUri, languageId: 'json', version: 1, text: readFileSync(saved, 'utf8') },
  });
  await pause(300);
  await client.connection.sendRequest('modelPrivacyLint/analyzeFile', { uri: pathToFileURL(join(workspace, 'diabetes_tree.pkl')).href });
  assert.equal(client.diagnosticsFor(saved), undefined, 'onSave: no analysis on open');
  await client.connection.sendNotification('textDocument/didSave', { textDocument: { uri: savedUri } });
  await client.waitFor('diagnostics after save', () => client.diagnosticsFor(saved));
});
