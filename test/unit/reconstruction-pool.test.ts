/**
 * The reconstruction pool's contract: one job at a time, the newest request per file wins, cancel
 * stops a running (synchronous) job by terminating its worker, faults become status `failed` and
 * the next job gets a fresh worker, answers are cached by key (failures are not). A stand-in worker
 * misbehaves on request; the last test runs the real worker (compiled, unbundled) on a fixture.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReconstructionPool } from '../../server/src/jobs/reconstruction-pool';
import type { ReconstructionRequest } from '../../server/src/jobs/reconstruction-job';
import { lintFile } from '../../server/src/linter/linter';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import { FIXTURES, REPO_ROOT } from '../support/paths';
import { STAND_IN_PORT } from '../support/stand-in-worker';

// `served` counts the jobs this worker instance ran: 1 means a fresh worker.
const WORKER = `${STAND_IN_PORT}
let served = 0;
parentPort.on('message', (job) => {
  served++;
  if (job.path === 'hang') for (;;) {}
  if (job.path === 'crash') process.exit(3);
  if (job.path === 'oom') { const hog = []; for (;;) hog.push(new Array(1e6).fill(1)); }
  if (job.path === 'slow') {
    parentPort.postMessage({ id: job.id, progress: { phase: 'certify', elapsedMs: 1, done: 1, total: 4 } });
    const until = Date.now() + 8000;
    while (Date.now() < until) {} // synchronous, like a HiGHS solve: no message can interrupt it
  }
  const status = job.path === 'bad' ? 'failed' : 'bounded';
  const recoverability = { status, method: 'aggregated', rows: 10, certifiedRows: served, reconstructedRows: 10, seconds: 0, determinedFeatures: {}, groups: { declared: 0, sources: [], problems: [] } };
  parentPort.postMessage({ id: job.id, outcome: { path: job.path, contentHash: 'h', key: 'key:' + job.path, recoverability, findings: [] }, restart: job.path === 'restart' });
});
`;

const REQUEST: ReconstructionRequest = { budgetMs: 500, maxFileBytes: 1e9, groups: [], thresholds: { errorShare: 0.1, warningRows: 1 }, severities: {} };

function fakePool(t: { after: (fn: () => void) => void }, logs: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-rpool-'));
  const script = join(dir, 'worker.js');
  writeFileSync(script, WORKER);
  const pool = new ReconstructionPool({ workerScript: script, memoryMb: 64, graceMs: 1000, log: (m) => logs.push(m) });
  t.after(() => {
    pool.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return pool;
}

test('a hung, crashed or out-of-memory reconstruction becomes status failed, and the next job gets a fresh worker', async (t) => {
  const logs: string[] = [];
  const pool = fakePool(t, logs);
  const cases = [
    ['hang', /took longer than 2 s/],
    ['crash', /stopped unexpectedly \(exit code 3\)/],
    ['oom', /ran out of memory \(ceiling 64 MB\)/],
  ] as const;
  for (const [path, reason] of cases) {
    const outcome = await pool.run(path, REQUEST);
    assert.equal(outcome?.recoverability.status, 'failed', path);
    assert.match(outcome!.recoverability.reason!, reason);
    assert.deepEqual(outcome!.findings, []);
    const next = await pool.run(`after-${path}`, REQUEST);
    assert.equal(next?.recoverability.certifiedRows, 1, `a fresh worker serves the job after ${path}`);
  }
  assert.equal(logs.length, 3);
  assert.ok(logs.every((m) => m.includes('restarting the reconstruction worker')));
});

test('cancel stops a running synchronous job at once; the next job gets a fresh worker', async (t) => {
  const pool = fakePool(t);
  await pool.run('warm-up', REQUEST);
  const progress: unknown[] = [];
  let started = false;
  const slow = pool.run('slow', { ...REQUEST, budgetMs: 60_000 }, undefined, {
    onStart: () => (started = true),
    onProgress: (p) => {
      progress.push(p);
      assert.equal(pool.cancel('slow'), true, 'it was running');
    },
  });
  const before = Date.now();
  assert.equal(await slow, undefined, 'a cancelled job has no answer');
  assert.ok(Date.now() - before < 6000, 'resolved without waiting for the 8 s job');
  assert.ok(started);
  assert.deepEqual(progress, [{ phase: 'certify', elapsedMs: 1, done: 1, total: 4 }]);
  assert.equal(pool.cancel('slow'), false, 'nothing left to cancel');
  assert.equal((await pool.run('next', REQUEST))?.recoverability.certifiedRows, 1, 'fresh worker');
});

test('the newest request per file wins; a worker that asks for it is replaced', async (t) => {
  const pool = fakePool(t);
  const first = pool.run('a', REQUEST);
  const queued = pool.run('b', REQUEST);
  const newer = pool.run('b', REQUEST);
  assert.equal((await first)?.path, 'a');
  assert.equal(await queued, undefined, 'superseded');
  assert.equal((await newer)?.recoverability.certifiedRows, 2, 'the same worker ran a then b');
  await pool.run('restart', REQUEST);
  assert.equal((await pool.run('c', REQUEST))?.recoverability.certifiedRows, 1, 'a fresh worker after restart: true');
});

test('answers are cached by key, failures are not', async (t) => {
  const pool = fakePool(t);
  const first = await pool.run('x', REQUEST, 'key:x');
  const again = await pool.run('x', REQUEST, 'key:x');
  assert.equal(again?.recoverability.certifiedRows, first?.recoverability.certifiedRows, 'from the cache: the worker did not run again');
  const other = await pool.run('x', REQUEST, 'key:other');
  assert.equal(other?.recoverability.certifiedRows, 2, 'another key runs');
  const bad = await pool.run('bad', REQUEST, 'key:bad');
  assert.equal(bad?.recoverability.status, 'failed');
  const badAgain = await pool.run('bad', REQUEST, 'key:bad');
  assert.equal(badAgain?.recoverability.certifiedRows, (bad?.recoverability.certifiedRows ?? 0) + 1, 'a failure is run again');
});

test('the real worker: the summary, finding and rows of assessRecoverability, with a timeline', async (t) => {
  const pool = new ReconstructionPool({ workerScript: join(REPO_ROOT, 'out/server/src/jobs/reconstruction-worker.js'), memoryMb: 1024 });
  t.after(() => pool.dispose());
  const model = join(FIXTURES, 'reconstruction/rf_compas_t20.joblib');
  const phases = new Set<string>();
  const outcome = await pool.run(model, { ...REQUEST, budgetMs: 120_000 }, undefined, { onProgress: (p) => phases.add(p.phase) });
  const report = await lintFile(model, { keepForest: true });
  const direct = await assessRecoverability(model, report.forest!, { budgetMs: 120_000 });
  assert.equal(outcome?.contentHash, report.contentHash);
  assert.equal(outcome?.recoverability.status, direct.recoverability.status);
  assert.equal(outcome?.recoverability.certifiedRows, direct.recoverability.certifiedRows);
  assert.deepEqual(outcome?.recoverability.determinedFeatures, direct.recoverability.determinedFeatures);
  assert.deepEqual(outcome?.findings.map((f) => [f.rule, f.severity]), direct.findings.map((f) => [f.rule, f.severity]));
  assert.ok(outcome?.key, 'cacheable');
  // The rows come back for the report's explicit reveal (the server keeps them in memory only).
  const key = (row: object) => JSON.stringify(row);
  assert.deepEqual(outcome?.result?.reconstruction.map(key).sort(), direct.result.reconstruction.map(key).sort(), 'the engine\'s rows');
  assert.deepEqual(outcome?.features.map((f) => f.name), report.forest!.features.map((f) => f.name));
  assert.ok(!JSON.stringify(outcome?.findings).includes('"values"'), 'the finding carries no row values');
  const timeline = outcome!.timeline;
  assert.deepEqual(new Set(timeline.map((p) => p.phase)), new Set(['start', ...phases, 'done']), 'the timeline has every phase, then the end');
  assert.deepEqual(timeline.map((p) => p.ms), timeline.map((p) => p.ms).sort((a, b) => a - b));
  assert.equal(timeline.at(-1)?.certifiedRows, direct.recoverability.certifiedRows);
  assert.ok(phases.has('cells') && phases.has('milp'), `progress phases: ${[...phases].join(', ')}`);
});
