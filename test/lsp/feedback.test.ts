/**
 * Fast feedback after a save (issue 16), against dist/server.js over stdio:
 *  - cache: once a model's reconstruction and advisor ended, writing it again with the same bytes
 *    (as a retrain with fixed seeds does) or rewriting another model starts no new job for it (no
 *    work-done progress of its own, the server says so in its log), and its diagnostics and report
 *    are the same; "Re-run Analysis" (`fresh`) runs it again;
 *  - priority: with a folder's start-up reconstructions queued, a model rewritten with new bytes
 *    gets its new fast findings and its reconstruction before the queued ones; the running
 *    reconstruction of another file is not stopped;
 *  - start-up: every file's fast findings come before any reconstruction, and one work-done
 *    progress counts "k of n models" up to n, then ends.
 * Models: copies of examples/models (COMPAS with its sidecar) and of the reconstruction fixtures
 * (real scikit-learn forests, test/fixtures/reconstruction).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TestLanguageClient } from '../support/lsp-client';
import { EXAMPLES, FIXTURES } from '../support/paths';
import type { StatusParams } from '../../server/src/lsp/protocol';
import type { PrivacyReport } from '../../server/src/report/model';

const MODELS = join(EXAMPLES, 'models');
const RECON = join(FIXTURES, 'reconstruction');

async function serve(t: TestContext, files: Record<string, string>, settings: Record<string, unknown>) {
  const workspace = mkdtempSync(join(tmpdir(), 'mpl-feedback-'));
  for (const [name, source] of Object.entries(files)) copyFileSync(source, join(workspace, name));
  const client = await TestLanguageClient.start(workspace, settings, { workDoneProgress: true });
  t.after(async () => {
    await client.stop();
    rmSync(workspace, { recursive: true, force: true });
  });
  return { workspace, client, uri: (name: string) => pathToFileURL(join(workspace, name)).href };
}

type ProgressValue = { kind: string; title?: string; message?: string; percentage?: number };
const progress = (client: TestLanguageClient) =>
  client.notifications.filter((n) => n.method === '$/progress').map((n) => n.params as { token: string | number; value: ProgressValue });

/** Worker jobs of a file: each reconstruction or advisor run shows a progress whose message starts with the file's name. */
const jobsOf = (client: TestLanguageClient, name: string) =>
  progress(client).filter((p) => p.value.kind === 'begin' && p.value.title !== 'Model Privacy Lint' && p.value.message?.startsWith(`${name}:`)).map((p) => p.value.title);

const statuses = (client: TestLanguageClient) => client.notifications.filter((n) => n.method === 'modelPrivacyLint/status').map((n) => n.params as StatusParams);
const runningOrder = (client: TestLanguageClient) => statuses(client).filter((s) => s.reconstruction?.state === 'running').map((s) => s.reconstruction!.uri);
const done = (client: TestLanguageClient, uri: string) => statuses(client).filter((s) => s.reconstruction?.uri === uri && s.reconstruction.state === 'done');
const logs = (client: TestLanguageClient) => client.notifications.filter((n) => n.method === 'window/logMessage').map((n) => (n.params as { message: string }).message);
const report = (client: TestLanguageClient, uri: string) => client.connection.sendRequest('modelPrivacyLint/report', { uri }) as Promise<PrivacyReport>;

async function reportWithAdvisor(client: TestLanguageClient, uri: string): Promise<PrivacyReport> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const r = await report(client, uri);
    if (r?.advisor) return r;
    if (Date.now() > deadline) throw new Error('timed out waiting for the advisor in the report');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The report without the time it was generated (the rest must be the same answer). */
const comparable = (r: PrivacyReport) => ({ ...r, generatedAt: undefined });

test('an unchanged model costs no new job: same bytes written again, another model rewritten; Re-run Analysis runs it again', async (t) => {
  const compas = 'compas_no_bagging.joblib';
  const other = 'other.joblib';
  const { workspace, client, uri } = await serve(
    t,
    {
      [compas]: join(MODELS, compas),
      'compas_no_bagging.privacy.json': join(MODELS, 'compas_no_bagging.privacy.json'),
      [other]: join(RECON, 'rf_compas_t10_d3.joblib'),
    },
    { timeBudgetSeconds: 5 },
  );
  const model = join(workspace, compas);
  const before = await reportWithAdvisor(client, uri(compas));
  // The other model's work too, so that what follows starts from a quiet server.
  await client.waitFor('the other model\'s reconstruction', () => done(client, uri(other))[0], 120_000);
  await client.waitFor('the folder progress to end', () => (progress(client).some((p) => p.value.kind === 'end' && progress(client).find((b) => b.token === p.token)?.value.title === 'Model Privacy Lint') ? true : undefined), 120_000);
  assert.deepEqual(jobsOf(client, compas), ['Reconstructing training rows', 'What-if advisor'], 'one reconstruction and one advisor run at start-up');
  const diagnostics = client.diagnosticsFor(model);
  assert.ok(diagnostics?.some((d) => d.code === 'reconstructable-training-set'));
  const doneBefore = done(client, uri(compas)).length;

  // A retrain with fixed seeds: the same bytes written again; and the other model rewritten with new bytes.
  writeFileSync(model, readFileSync(model));
  copyFileSync(join(RECON, 'rf_credit_t5_d5.joblib'), join(workspace, other));
  const published = client.published.length;
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri(compas), type: 2 }, { uri: uri(other), type: 2 }] });
  await client.waitFor('the unchanged model\'s diagnostics again', () => (client.published.slice(published).some((p) => p.uri === uri(compas)) ? true : undefined));
  await client.waitFor('the other model\'s new reconstruction', () => (done(client, uri(other)).length === 2 ? true : undefined), 120_000);
  await client.waitFor('the other model\'s advisor run to end', () => (logs(client).some((m) => m.includes(`${other}: what-if advisor:`)) ? true : undefined), 120_000).catch(() => undefined);
  assert.ok(logs(client).some((m) => m.includes(`${compas}: same bytes, sidecar and settings as the analysis done: nothing to run again`)), 'the server says it keeps the answers');
  assert.deepEqual(jobsOf(client, compas), ['Reconstructing training rows', 'What-if advisor'], 'no new reconstruction or advisor job for the unchanged model');
  assert.equal(done(client, uri(compas)).length, doneBefore, 'no new reconstruction ended for it');
  assert.deepEqual(jobsOf(client, other).filter((title) => title === 'Reconstructing training rows').length, 2, 'the changed model was reconstructed again');
  assert.deepEqual(client.diagnosticsFor(model), diagnostics, 'the same diagnostics');
  const after = await report(client, uri(compas));
  assert.deepEqual(comparable(after), comparable(before), 'the same report, advisor included');

  // "Re-run Analysis": the cached answers are ignored, the model is reconstructed and advised again.
  await client.connection.sendRequest('modelPrivacyLint/analyzeWorkspace', { fresh: true });
  await reportWithAdvisor(client, uri(compas));
  await client.waitFor('a fresh advisor run', () => (jobsOf(client, compas).length === 4 ? true : undefined), 180_000);
  assert.deepEqual(jobsOf(client, compas), ['Reconstructing training rows', 'What-if advisor', 'Reconstructing training rows', 'What-if advisor']);
});

test('a model rewritten while start-up work is queued goes first; the running reconstruction goes on', async (t) => {
  // Scanned in name order: a_adult (seconds to certify, without groups) runs first, the others wait.
  const files = {
    'a_adult.joblib': join(RECON, 'rf_adult_t15.joblib'),
    'b_credit.joblib': join(RECON, 'rf_credit_t20.joblib'),
    'c_compas.joblib': join(RECON, 'rf_compas_t20.joblib'),
    'd_extra.joblib': join(RECON, 'et_compas_t10.joblib'),
  };
  const { workspace, client, uri } = await serve(t, files, { timeBudgetSeconds: 120, advisor: { enabled: false } });
  await client.waitFor('the first start-up reconstruction', () => runningOrder(client)[0], 60_000);
  assert.equal(runningOrder(client)[0], uri('a_adult.joblib'));
  const token = await client.waitFor('its progress', () => progress(client).find((p) => p.value.title === 'Reconstructing training rows')?.token);
  await client.waitFor('its engine to start', () => (progress(client).some((p) => p.token === token && p.value.kind === 'report') ? true : undefined), 60_000);
  assert.equal(done(client, uri('a_adult.joblib')).length, 0, 'still running');

  // The last file in the queue is rewritten with another model.
  const target = 'd_extra.joblib';
  copyFileSync(join(RECON, 'rf_compas_t10_d3.joblib'), join(workspace, target));
  const published = client.published.length;
  const runningBefore = runningOrder(client).length;
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri(target), type: 2 }] });
  await client.waitFor('its reconstruction', () => done(client, uri(target))[0], 120_000);
  const newFindings = client.published.slice(published).findIndex((p) => p.uri === uri(target));
  assert.ok(newFindings >= 0, 'its new fast findings were published');
  const next = runningOrder(client).slice(runningBefore);
  assert.equal(next[0], uri(target), `the rewritten model's reconstruction ran before the queued start-up ones (order: ${next.join(', ')})`);
  assert.equal(done(client, uri(target)).at(-1)?.reconstruction?.recoverability?.rows, 100, 'the new model\'s (rf_compas_t10_d3, 100 rows)');

  await client.waitFor('every start-up reconstruction', () => (['a_adult.joblib', 'b_credit.joblib', 'c_compas.joblib'].every((n) => done(client, uri(n)).length > 0) ? true : undefined), 240_000);
  assert.ok(!logs(client).some((m) => m.includes('a_adult.joblib: reconstruction stopped')), 'the running reconstruction of another file was not stopped');
  assert.equal(runningOrder(client).filter((u) => u === uri('a_adult.joblib')).length, 1, 'nor started again');
  assert.notEqual(done(client, uri('a_adult.joblib'))[0].reconstruction?.recoverability?.status, 'failed');
});

test('start-up: every file\'s fast findings before any reconstruction, and a progress that counts k of n models', async (t) => {
  const files = {
    'one.joblib': join(RECON, 'rf_compas_t10_d3.joblib'),
    'two.joblib': join(RECON, 'rf_credit_t5_d5.joblib'),
    'three.joblib': join(RECON, 'et_compas_t10.joblib'),
  };
  const { client, uri } = await serve(t, files, { timeBudgetSeconds: 60, advisor: { enabled: false } });
  const batchToken = await client.waitFor('the folder progress', () => progress(client).find((p) => p.value.title === 'Model Privacy Lint')?.token);
  await client.waitFor('its end', () => (progress(client).some((p) => p.token === batchToken && p.value.kind === 'end') ? true : undefined), 240_000);
  const values = progress(client).filter((p) => p.token === batchToken).map((p) => p.value);
  assert.equal(values[0].kind, 'begin');
  const messages = [...new Set(values.map((v) => v.message).filter(Boolean))];
  assert.deepEqual(messages, ['0 of 3 models', '1 of 3 models', '2 of 3 models', '3 of 3 models'], 'counted up, file by file');
  assert.equal(values.at(-2)?.percentage, 100);
  for (const name of Object.keys(files)) assert.equal(done(client, uri(name)).length, 1, `${name} reconstructed once`);

  // Fast findings of all three files went out before the first reconstruction began.
  const firstRunning = client.notifications.findIndex((n) => n.method === 'modelPrivacyLint/status' && (n.params as StatusParams).reconstruction?.state === 'running');
  assert.ok(firstRunning >= 0);
  const before = client.published.filter((_, i) => client.publishedAfter[i] <= firstRunning);
  assert.deepEqual([...new Set(before.map((p) => p.uri))].sort(), Object.keys(files).map(uri).sort(), 'every file\'s diagnostics before the first reconstruction');
  assert.ok(before.every((p) => !p.diagnostics.some((d) => d.code === 'reconstructable-training-set')), 'fast findings only');
  assert.ok(statuses(client).some((s) => / \(\d of 3 models\)$/.test(s.text)), 'the status item counts too');
});
