/**
 * The privacy report over LSP (issue 5), against dist/server.js on a copy of the COMPAS example
 * (a real scikit-learn forest without bagging, with its sidecar's one-hot groups):
 *  - `modelPrivacyLint/report` answers with a report whose headline is the reconstruction's outcome
 *    (the `done` status event) and what the engine proves in this process from the same file;
 *  - `modelPrivacyLint/revealRows` answers null until a reconstruction ended, then the engine's rows;
 *  - `modelPrivacyLint/reportChanged` follows the fast findings and the reconstruction's end;
 *  - no notification, diagnostic, log line or report carries a reconstructed row's values;
 *  - the "Open privacy report" code action on a text model file's diagnostics.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TestLanguageClient } from '../support/lsp-client';
import { EXAMPLES } from '../support/paths';
import { lintFile } from '../../server/src/linter/linter';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import type { ReconstructionStatusParams, StatusParams } from '../../server/src/lsp/protocol';
import type { PrivacyReport, RevealedRows } from '../../server/src/report/model';

const MODELS = join(EXAMPLES, 'models');
const COMPAS = 'compas_no_bagging.joblib';
// Generous: the machine is shared, and a budget that ran out would change the certified count.
const SETTINGS = { timeBudgetSeconds: 120 };

async function serve(t: TestContext, names: string[], settings: Record<string, unknown> = SETTINGS) {
  const workspace = mkdtempSync(join(tmpdir(), 'mpl-report-'));
  for (const name of names) copyFileSync(join(MODELS, name), join(workspace, name));
  const client = await TestLanguageClient.start(workspace, settings);
  t.after(async () => {
    await client.stop();
    rmSync(workspace, { recursive: true, force: true });
  });
  return { workspace, client };
}

function doneEvent(client: TestLanguageClient, uri: string): ReconstructionStatusParams | undefined {
  return client.notifications
    .filter((n) => n.method === 'modelPrivacyLint/status')
    .map((n) => (n.params as StatusParams).reconstruction)
    .find((r) => r?.uri === uri && r.state === 'done');
}

const reportChanges = (client: TestLanguageClient, uri: string) =>
  client.notifications.filter((n) => n.method === 'modelPrivacyLint/reportChanged' && (n.params as { uri: string }).uri === uri).length;

test('the report\'s headline is the reconstruction\'s outcome; the rows are revealed only on request, and only after it ended', async (t) => {
  // What the engine proves in this process from the same file and sidecar.
  const path = join(MODELS, COMPAS);
  const direct = await assessRecoverability(path, (await lintFile(path, { keepForest: true })).forest!, { budgetMs: 120_000 });
  assert.equal(direct.recoverability.status, 'exact', `${direct.recoverability.status}: ${direct.recoverability.reason}`);
  assert.equal(direct.result.certifiedRows, 100);

  const { workspace, client } = await serve(t, [COMPAS, 'compas_no_bagging.privacy.json']);
  const model = join(workspace, COMPAS);
  const uri = pathToFileURL(model).href;
  await client.waitFor('the fast findings', () => client.diagnosticsFor(model));
  await client.waitFor('a reportChanged after the fast findings', () => (reportChanges(client, uri) > 0 ? true : undefined));

  const done = await client.waitFor('the end of the reconstruction', () => doneEvent(client, uri), 120_000);
  const changesAtDone = reportChanges(client, uri);
  await client.waitFor('a reportChanged for the reconstruction', () => (reportChanges(client, uri) >= 2 ? true : undefined));
  assert.ok(changesAtDone >= 2, 'reportChanged was sent with the end of the reconstruction');

  const report = (await client.connection.sendRequest('modelPrivacyLint/report', { uri })) as PrivacyReport;
  const r = done.recoverability!;
  assert.equal(report.headline.status, r.status);
  assert.equal(report.headline.method, r.method);
  assert.equal(report.headline.rows, r.rows);
  assert.equal(report.headline.certifiedRows, r.certifiedRows);
  assert.equal(report.headline.reconstructedRows, r.reconstructedRows);
  assert.equal(report.headline.certifiedRows, direct.result.certifiedRows, 'and what the engine proves directly');
  assert.equal(report.headline.rows, 100);
  assert.equal(report.headline.certifiedShare, 1);
  assert.equal(report.headline.claim, 'certified');
  assert.equal(report.file.name, COMPAS);
  // The same findings as the diagnostics, listed most severe first as the Problems panel shows them
  // (a diagnostic's severity: 1 error ... 4 hint).
  const diagnostics = client.diagnosticsFor(model)!;
  const bySeverity = diagnostics.map((d, i) => ({ d, i })).sort((a, b) => a.d.severity! - b.d.severity! || a.i - b.i).map(({ d }) => d.code);
  assert.deepEqual(report.findings.map((f) => f.rule), bySeverity, 'the findings are the diagnostics, most severe first');
  assert.equal(report.rows.length, direct.result.reconstruction.length);
  assert.ok(report.timeline.length >= 2, 'the timeline has the phases and the end');
  assert.equal(report.timeline.at(-1)!.certifiedRows, 100);

  const revealed = (await client.connection.sendRequest('modelPrivacyLint/revealRows', { uri })) as RevealedRows;
  assert.ok(revealed, 'rows are revealed once the reconstruction ended');
  const forest = (await lintFile(path, { keepForest: true })).forest!;
  assert.deepEqual(revealed.features, forest.features.map((f) => f.name));
  // The engine's rows, as a multiset (the order of a reconstruction carries no meaning)...
  const key = (row: { values: unknown[]; label: unknown; certified: boolean }) => JSON.stringify([row.values, row.label, row.certified]);
  assert.deepEqual(revealed.rows.map(key).sort(), direct.result.reconstruction.map(key).sort(), 'the revealed rows are the engine\'s');
  // ... in the report's row order.
  assert.deepEqual(revealed.rows.map((row) => row.certified), report.rows.map((row) => row.certified));
  assert.deepEqual(revealed.rows.map((row) => row.values.filter((v) => v !== null).length), report.rows.map((row) => row.determinedFeatures));

  // Nothing the server pushed on its own, nor the report, carries the values of a row.
  const traffic = [
    ...client.notifications.map((n) => JSON.stringify(n)),
    ...client.published.map((p) => JSON.stringify(p)),
    JSON.stringify(report),
  ];
  const fingerprints = revealed.rows.map((row) => JSON.stringify(row.values).slice(1, -1)).filter((text) => text.split(',').length >= 5);
  assert.ok(fingerprints.length > 0);
  for (const text of traffic) {
    assert.doesNotMatch(text, /"values"|"reconstruction":\[/, 'no row values field');
    for (const fingerprint of new Set(fingerprints)) assert.ok(!text.includes(fingerprint), `a row's values leaked: ${text.slice(0, 200)}`);
  }
});

test('without a reconstruction: the report says not-run and revealRows answers null', async (t) => {
  const { workspace, client } = await serve(t, [COMPAS], { reconstruction: { enabled: false } });
  const model = join(workspace, COMPAS);
  const uri = pathToFileURL(model).href;
  await client.waitFor('the fast findings', () => client.diagnosticsFor(model));
  const report = (await client.connection.sendRequest('modelPrivacyLint/report', { uri })) as PrivacyReport;
  assert.equal(report.headline.status, 'not-run');
  assert.equal(report.headline.certifiedRows, 0);
  assert.equal(report.headline.claim, 'none');
  assert.deepEqual(report.rows, []);
  assert.equal(await client.connection.sendRequest('modelPrivacyLint/revealRows', { uri }), null);
  // A file the server never analysed: no report (the client asks for an analysis first).
  const other = pathToFileURL(join(workspace, 'absent.joblib')).href;
  assert.equal(await client.connection.sendRequest('modelPrivacyLint/report', { uri: other }), null);
  assert.equal(await client.connection.sendRequest('modelPrivacyLint/revealRows', { uri: other }), null);
});

test('"Open privacy report" on a text model file\'s diagnostics', async (t) => {
  const name = 'private_stump.forest.json';
  const { workspace, client } = await serve(t, [name], { reconstruction: { enabled: false } });
  const model = join(workspace, name);
  const uri = pathToFileURL(model).href;
  const diagnostics = await client.waitFor('diagnostics', () => client.diagnosticsFor(model));
  assert.ok(diagnostics.length > 0);
  const actions = (await client.connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: diagnostics[0].range,
    context: { diagnostics: [diagnostics[0]] },
  })) as { title: string; kind: string; command: { command: string; arguments: unknown[] } }[];
  // the report, then the rule's documentation and its disabling for this file (rule-actions.ts)
  assert.deepEqual(actions.map((a) => a.title), [
    'Open privacy report',
    `Show documentation for ${diagnostics[0].code}`,
    `Disable ${diagnostics[0].code} for ${name} (in its .privacy.json)`,
  ]);
  assert.equal(actions[0].title, 'Open privacy report');
  assert.equal(actions[0].kind, 'quickfix');
  assert.deepEqual(actions[0].command, { title: 'Open privacy report', command: 'modelPrivacyLint.showReport', arguments: [uri] });
  // Not on a file the server does not know as a model, nor without our diagnostics.
  const none = await client.connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri: pathToFileURL(join(workspace, 'train.py')).href },
    range: diagnostics[0].range,
    context: { diagnostics: [diagnostics[0]] },
  });
  assert.deepEqual(none, []);
  assert.deepEqual(await client.connection.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: diagnostics[0].range, context: { diagnostics: [] } }), []);
});

test('the report names the training-script lines that build and save the model', async (t) => {
  // examples/train.py saves to os.path.join(HERE, "models", ...): the same layout in a temporary workspace.
  const workspace = mkdtempSync(join(tmpdir(), 'mpl-report-script-'));
  mkdirSync(join(workspace, 'models'));
  copyFileSync(join(EXAMPLES, 'train.py'), join(workspace, 'train.py'));
  copyFileSync(join(MODELS, COMPAS), join(workspace, 'models', COMPAS));
  const client = await TestLanguageClient.start(workspace, { reconstruction: { enabled: false } });
  t.after(async () => {
    await client.stop();
    rmSync(workspace, { recursive: true, force: true });
  });
  const model = join(workspace, 'models', COMPAS);
  const uri = pathToFileURL(model).href;
  const script = pathToFileURL(join(workspace, 'train.py')).href;
  await client.waitFor('the fast findings', () => client.diagnosticsFor(model));
  // Scripts are scanned after the models: ask until the links are there.
  let report: PrivacyReport | undefined;
  for (let attempt = 0; attempt < 100 && !(report && report.scripts.length >= 2); attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    report = (await client.connection.sendRequest('modelPrivacyLint/report', { uri })) as PrivacyReport;
  }
  assert.ok(report, 'a report');
  const lines = readFileSync(join(EXAMPLES, 'train.py'), 'utf8').split('\n');
  const estimator = report.scripts.find((s) => s.role === 'estimator');
  const save = report.scripts.find((s) => s.role === 'save');
  assert.equal(estimator?.uri, script);
  assert.match(lines[estimator!.line], /RandomForestClassifier\(/, 'the estimator line constructs the forest');
  assert.match(lines[save!.line], /joblib\.dump\(compas/, 'the save line dumps this model');
});
