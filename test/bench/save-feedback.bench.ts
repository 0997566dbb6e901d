/**
 * Benchmark: feedback after a save in a folder of the seven example models (examples/models), with
 * the reconstruction and the what-if advisor on (default settings but a 10 s budget, so 20 s for
 * the advisor), through the bundled language server over stdio:
 *  - start-up: time until every model's background work ended;
 *  - a retrain that rewrites all seven files, six with the same bytes and one with another model:
 *    time from the rewrite to the changed model's new fast findings and to its reconstruction
 *    result, and the reconstructions / advisor runs spent on the six unchanged models (counted from
 *    the server's log lines, which say how long each ran);
 *  - the same rewrite of one model once the first start-up advisor run began (the others queued).
 * `MPL_SERVER=<path to server.js>` measures another build (e.g. a copy of dist/ from before a change).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TestLanguageClient } from '../support/lsp-client';
import { EXAMPLES, FIXTURES } from '../support/paths';
import type { StatusParams } from '../../server/src/lsp/protocol';

const MODELS = join(EXAMPLES, 'models');
const NAMES = ['compas_no_bagging.joblib', 'diabetes_forest.joblib', 'diabetes_no_bagging.joblib', 'diabetes_tree.pkl', 'diabetes_xgb.dump.txt', 'diabetes_xgb.json', 'private_stump.forest.json'];
const CHANGED = 'diabetes_forest.joblib';
// Another scikit-learn forest: new bytes for the changed file, never seen by the server before.
const NEW_BYTES = join(FIXTURES, 'reconstruction', 'rf_compas_t10_d3.joblib');
const SETTINGS = { timeBudgetSeconds: 10 };

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-feedback-'));
  mkdirSync(join(dir, 'models'));
  for (const name of [...NAMES, 'compas_no_bagging.privacy.json']) copyFileSync(join(MODELS, name), join(dir, 'models', name));
  return dir;
}

const done = (client: TestLanguageClient, uri: string, from = 0) =>
  client.notifications.slice(from).some((n) => n.method === 'modelPrivacyLint/status' && (n.params as StatusParams).reconstruction?.uri === uri && (n.params as StatusParams).reconstruction?.state === 'done');
/**
 * Worker jobs (reconstructions, advisor runs) of the files `names` that began from notification
 * `from` on, and their wall time: each job has a work-done progress ("Reconstructing training rows",
 * "What-if advisor") whose messages start with the file name, from begin to end. A cached answer
 * starts no job.
 */
function solverWork(client: TestLanguageClient, times: number[], names: string[], from: number): { runs: number; seconds: number } {
  const begun = new Map<string | number, number>();
  let runs = 0;
  let ms = 0;
  for (let i = from; i < client.notifications.length; i++) {
    const n = client.notifications[i];
    if (n.method !== '$/progress') continue;
    const { token, value } = n.params as { token: string | number; value: { kind: string; title?: string; message?: string } };
    if (value.kind === 'begin' && value.title !== 'Model Privacy Lint' && names.some((name) => value.message?.startsWith(`${name}:`))) {
      begun.set(token, times[i]);
      runs++;
    } else if (value.kind === 'end' && begun.has(token)) {
      ms += times[i] - begun.get(token)!;
      begun.delete(token);
    }
  }
  return { runs, seconds: ms / 1000 };
}

/** Records when each notification arrived (the test client keeps none). */
function timestamps(client: TestLanguageClient): number[] {
  const times: number[] = client.notifications.map(() => Date.now());
  const push = client.notifications.push.bind(client.notifications);
  client.notifications.push = (...items) => {
    for (const _ of items) times.push(Date.now());
    return push(...items);
  };
  return times;
}

/** Waits until the server reports nothing busy (status item idle, every progress ended) for a while. */
async function settled(client: TestLanguageClient, quietMs = 4000): Promise<void> {
  let last = client.notifications.length;
  let since = Date.now();
  await client.waitFor('the server to settle', () => {
    if (client.notifications.length !== last) {
      last = client.notifications.length;
      since = Date.now();
    }
    const status = client.notifications.filter((n) => n.method === 'modelPrivacyLint/status').at(-1)?.params as StatusParams | undefined;
    // Every work-done progress that began has ended (the advisor runs are not in the status item's state).
    const open = new Set<string | number>();
    for (const n of client.notifications) {
      if (n.method !== '$/progress') continue;
      const { token, value } = n.params as { token: string | number; value: { kind: string } };
      if (value.kind === 'begin') open.add(token);
      else if (value.kind === 'end') open.delete(token);
    }
    return status?.state !== 'busy' && open.size === 0 && Date.now() - since > quietMs ? true : undefined;
  }, 15 * 60_000);
}

async function rewrite(client: TestLanguageClient, dir: string, all: boolean): Promise<{ findingsMs: number; reconstructionMs: number; from: number }> {
  const changed = join(dir, 'models', CHANGED);
  const uri = pathToFileURL(changed).href;
  const fromNote = client.notifications.length;
  const fromPub = client.published.length;
  const started = Date.now();
  const changes = [];
  for (const name of all ? NAMES : [CHANGED]) {
    const path = join(dir, 'models', name);
    if (name === CHANGED) copyFileSync(NEW_BYTES, path);
    else writeFileSync(path, readFileSync(path)); // the same bytes, written again
    changes.push({ uri: pathToFileURL(path).href, type: 2 });
  }
  await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes });
  await client.waitFor('new fast findings', () => (client.published.slice(fromPub).some((p) => p.uri === uri) ? true : undefined), 60_000);
  const findingsMs = Date.now() - started;
  await client.waitFor('its reconstruction', () => (done(client, uri, fromNote) ? true : undefined), 15 * 60_000);
  return { findingsMs, reconstructionMs: Date.now() - started, from: fromNote };
}

async function main(): Promise<void> {
  const server = process.env.MPL_SERVER;
  console.log(`server: ${server ?? 'dist/server.js'}`);
  {
    const dir = workspace();
    const t0 = Date.now();
    const client = await TestLanguageClient.start(dir, SETTINGS, { workDoneProgress: true, ...(server ? { server } : {}) });
    const times = timestamps(client);
    try {
      await settled(client);
      console.log(`start-up, 7 models: all background work ended after ${((Date.now() - t0) / 1000).toFixed(1)} s (incl. 4 s quiet)`);
      const r = await rewrite(client, dir, true);
      const unchanged = NAMES.filter((n) => n !== CHANGED);
      await settled(client);
      const work = solverWork(client, times, unchanged, r.from);
      console.log(`retrain rewrote 7 files (6 same bytes): changed model's fast findings ${r.findingsMs} ms, its reconstruction ${(r.reconstructionMs / 1000).toFixed(1)} s; on the 6 unchanged: ${work.runs} worker job(s) (reconstruction or advisor), ${work.seconds.toFixed(1)} s of worker time`);
    } finally {
      await client.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  {
    const dir = workspace();
    const client = await TestLanguageClient.start(dir, SETTINGS, { workDoneProgress: true, ...(server ? { server } : {}) });
    try {
      // Wait until the first start-up advisor run: the other models' advisor runs are queued by then.
      const advisorBegun = () => client.notifications.some((n) => n.method === '$/progress' && (n.params as { value: { title?: string } }).value.title === 'What-if advisor');
      await client.waitFor('a start-up advisor run', () => (advisorBegun() ? true : undefined), 300_000);
      const r = await rewrite(client, dir, false);
      console.log(`rewrite of 1 model while the start-up advisor runs are queued: its fast findings ${r.findingsMs} ms, its reconstruction ${(r.reconstructionMs / 1000).toFixed(1)} s`);
    } finally {
      await client.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
