/**
 * Membership exposure in the editor (issue 14, item 4), against dist/server.js: a real scikit-learn
 * forest without bootstrap from test/fixtures/membership, with a sidecar whose "membership" entry
 * names a candidate CSV (relative to the sidecar) in a temporary workspace.
 *  - the background job scores the candidates after the reconstruction: the `membership-exposure`
 *    diagnostic states the proven count, and the report's membership section holds the same
 *    aggregates as the engine computes in this process from the same files (and no row);
 *  - proven verdicts are checked against the generator's truth (members, and cell members);
 *  - a candidate file that is missing is the section's problem, and the reconstruction still ends.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TestLanguageClient } from '../support/lsp-client';
import { FIXTURES } from '../support/paths';
import { lintFile } from '../../server/src/linter/linter';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import { readCandidates } from '../../server/src/membership/candidates';
import { scoreMembership } from '../../server/src/cli/membership';
import { csvLine, parseCsv } from '../../server/src/util/csv';
import type { ReconstructionStatusParams, StatusParams } from '../../server/src/lsp/protocol';
import type { PrivacyReport } from '../../server/src/report/model';

const DIR = join(FIXTURES, 'membership');
const NAME = 'compas_rows_t10';
const MODEL = `${NAME}.joblib`;
// Generous: the machine is shared, and a budget that ran out would change what the certified rows prove.
const SETTINGS = { timeBudgetSeconds: 120 };

/** A workspace with the model, its sidecar and, unless `missing`, data/holdout.csv (the fixture's candidates without `cell_member`, which is truth too). */
async function serve(t: TestContext, missing = false, settings: Record<string, unknown> = SETTINGS) {
  const workspace = mkdtempSync(join(tmpdir(), 'mpl-membership-'));
  copyFileSync(join(DIR, MODEL), join(workspace, MODEL));
  writeFileSync(join(workspace, `${NAME}.privacy.json`), JSON.stringify({ membership: { candidates: 'data/holdout.csv', label: 'label', membersColumn: 'member' } }));
  const table = parseCsv(readFileSync(join(DIR, `${NAME}.candidates.csv`), 'utf8'));
  const cellColumn = table[0].indexOf('cell_member');
  const memberColumn = table[0].indexOf('member');
  if (!missing) {
    mkdirSync(join(workspace, 'data'));
    writeFileSync(join(workspace, 'data', 'holdout.csv'), table.map((row) => csvLine(row.filter((_, i) => i !== cellColumn))).join(''));
  }
  const client = await TestLanguageClient.start(workspace, settings);
  t.after(async () => {
    await client.stop();
    rmSync(workspace, { recursive: true, force: true });
  });
  const truth = { cell: table.slice(1).map((r) => r[cellColumn] === '1'), member: table.slice(1).map((r) => r[memberColumn] === '1') };
  return { workspace, client, model: join(workspace, MODEL), truth };
}

function doneEvent(client: TestLanguageClient, uri: string): ReconstructionStatusParams | undefined {
  return client.notifications
    .filter((n) => n.method === 'modelPrivacyLint/status')
    .map((n) => (n.params as StatusParams).reconstruction)
    .find((r) => r?.uri === uri && r.state === 'done');
}

test('the sidecar\'s candidates: a membership-exposure diagnostic with the proven count, and the report\'s membership section', async (t) => {
  const { workspace, client, model, truth } = await serve(t);
  const uri = pathToFileURL(model).href;
  await client.waitFor('the fast findings', () => client.diagnosticsFor(model));
  await client.waitFor('the end of the reconstruction', () => doneEvent(client, uri), 180_000);
  const diagnostic = await client.waitFor('the membership-exposure diagnostic', () => client.diagnosticsFor(model)?.find((d) => d.code === 'membership-exposure'), 30_000);

  // What the engine proves in this process from the same files: the reconstruction, then the scoring.
  const forest = (await lintFile(model, { keepForest: true })).forest!;
  const direct = await assessRecoverability(model, forest, { budgetMs: 120_000 });
  const file = await readCandidates(join(workspace, 'data', 'holdout.csv'), 'label', 'member');
  const expected = scoreMembership(forest, file, { reconstruction: direct.result.reconstruction, trainingRows: direct.result.rows, severities: {} });
  const v = expected.summary.verdicts;
  assert.ok(v.member >= 27, `the fixture proves at least 27 members without a reconstruction; ${v.member} here`);

  // The diagnostic states the proven count.
  assert.match(String(diagnostic.message), new RegExp(`^${v.member} of ${truth.member.length} candidates are proven members`));
  assert.equal(diagnostic.severity, 2, 'a warning by default');

  const report = (await client.connection.sendRequest('modelPrivacyLint/report', { uri })) as PrivacyReport;
  const m = report.membership;
  assert.ok(m, 'the report has the membership section');
  assert.equal(m.problem, undefined);
  assert.equal(m.candidates, 'data/holdout.csv', 'named as the sidecar names it');
  assert.equal(m.rows, truth.member.length);
  assert.deepEqual(m.verdicts, v);
  assert.deepEqual(m.histogram, expected.summary.histogram);
  assert.equal(m.basis, 'row-counts');
  assert.equal(m.metrics?.membersColumn, 'member');
  assert.equal(m.metrics?.auc, expected.summary.metrics?.auc);
  assert.ok(report.findings.some((f) => f.rule === 'membership-exposure'), 'the finding is in the report too');

  // No proven verdict is wrong: every proven member has a training row in its cell, and there are
  // at most as many as the truth's cell members; every proven non-member is not a member.
  const cellMembers = truth.cell.filter(Boolean).length;
  assert.ok(v.member <= cellMembers);
  assert.ok(v.nonMember <= truth.member.filter((x) => !x).length);

  // Nothing per candidate crosses to the client: no scores or verdicts list in any message.
  for (const text of [...client.notifications.map((n) => JSON.stringify(n)), ...client.published.map((p) => JSON.stringify(p)), JSON.stringify(report)]) {
    assert.doesNotMatch(text, /"(candidates|scores?)":\[|"verdict":"(member|non-member|likely-member|likely-non-member|unknown)"/);
  }
});

test('a candidate file that does not exist: the section says so, the reconstruction still ends, no diagnostic', async (t) => {
  const { client, model } = await serve(t, true);
  const uri = pathToFileURL(model).href;
  await client.waitFor('the fast findings', () => client.diagnosticsFor(model));
  const done = await client.waitFor('the end of the reconstruction', () => doneEvent(client, uri), 180_000);
  assert.notEqual(done.recoverability?.status, 'failed');
  const answer = (await client.connection.sendRequest('modelPrivacyLint/report', { uri })) as PrivacyReport;
  assert.ok(answer.membership, 'the membership section is there');
  assert.match(answer.membership.problem ?? '', /cannot read data\/holdout\.csv \(ENOENT\)/);
  assert.ok(!client.diagnosticsFor(model)?.some((d) => d.code === 'membership-exposure'));
});

test('the advisor reports the membership AUC per remedy, the model as trained at the section\'s AUC', async (t) => {
  // A short budget: the advisor gets twice it; the model as trained is scored whatever the budget.
  const { client, model } = await serve(t, false, { timeBudgetSeconds: 5 });
  const uri = pathToFileURL(model).href;
  await client.waitFor('the fast findings', () => client.diagnosticsFor(model));
  // The report is asked for until the advisor's answer is in it (the advisor follows the reconstruction).
  let report: PrivacyReport | undefined;
  for (let attempt = 0; attempt < 600 && !(report?.advisor && report.membership); attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    report = (await client.connection.sendRequest('modelPrivacyLint/report', { uri })) as PrivacyReport;
  }
  assert.ok(report?.advisor && report.membership, 'the advisor answered within two minutes');
  const auc = report.membership!.metrics!.auc!;
  assert.ok(Math.abs(report.advisor!.current.membershipAuc! - auc) < 1e-3, `as trained ${report.advisor!.current.membershipAuc} vs ${auc}`);
  const scored = report.advisor!.scenarios.filter((s) => s.status !== 'skipped');
  assert.ok(scored.length > 0);
  for (const s of scored) assert.equal(typeof s.membershipAuc, 'number', s.label);
});

test('the candidate file is watched: the server registers it with the client, and a rewrite scores the new candidates', async (t) => {
  const { workspace, client, model } = await serve(t);
  const uri = pathToFileURL(model).href;
  const holdout = join(workspace, 'data', 'holdout.csv');
  await client.waitFor('the end of the reconstruction', () => doneEvent(client, uri), 180_000);
  const first = (await client.connection.sendRequest('modelPrivacyLint/report', { uri })) as PrivacyReport;
  assert.ok(first.membership && first.membership.rows > 40);

  // The server asked the client to watch exactly the sidecar's file (its folder and name).
  const watched = await client.waitFor('the candidate file\'s watcher', () =>
    [...client.registrations.values()].find((r) => r.method === 'workspace/didChangeWatchedFiles'),
  );
  assert.deepEqual((watched.registerOptions as { watchers: unknown[] }).watchers, [
    { globPattern: { baseUri: pathToFileURL(join(workspace, 'data')).href, pattern: 'holdout.csv' } },
  ]);

  // A new candidate file (its first 40 candidates), announced as the client's watcher would.
  const lines = readFileSync(holdout, 'utf8').split('\n');
  writeFileSync(holdout, lines.slice(0, 41).join('\n') + '\n');
  const runs = client.notifications.length;
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(holdout).href, type: 2 }] });
  await client.waitFor('a new reconstruction', () => (client.notifications.slice(runs).some((n) => n.method === 'modelPrivacyLint/status' && (n.params as StatusParams).reconstruction?.uri === uri && (n.params as StatusParams).reconstruction?.state === 'done') ? true : undefined), 180_000);
  const second = (await client.connection.sendRequest('modelPrivacyLint/report', { uri })) as PrivacyReport;
  assert.equal(second.membership?.rows, 40, 'the report scores the rewritten file');
  const v = second.membership!.verdicts;
  assert.equal(Object.values(v).reduce((a, b) => a + b, 0), 40);
});
