/**
 * The worker pool must survive a file whose analysis hangs, crashes or runs out of memory: that
 * file gets an `analysis-failed` finding and the next file is served by a fresh worker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, promises as fsp, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LintPool } from '../../server/src/jobs/lint-pool';
import { STAND_IN_PORT } from '../support/stand-in-worker';

// A stand-in worker that misbehaves on request: the pool's contract is about the worker, not the linter.
const WORKER = `${STAND_IN_PORT}
parentPort.on('message', (job) => {
  if (job.path === 'hang') for (;;) {}
  if (job.path === 'crash') process.exit(3);
  if (job.path === 'oom') { const hog = []; for (;;) hog.push(new Array(1e6).fill(1)); }
  const reply = () => parentPort.postMessage({ id: job.id, report: { path: job.path, format: 'fake', contentHash: 'h', model: null, findings: [], notes: [] } });
  if (job.path === 'slow') setTimeout(reply, 600); else reply();
});
`;

test('a hung, crashed or out-of-memory analysis becomes a finding and the pool goes on', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-pool-'));
  const script = join(dir, 'worker.js');
  writeFileSync(script, WORKER);
  const logs: string[] = [];
  const pool = new LintPool({ workerScript: script, readTimeout: { baseMs: 1500, perMbMs: 0 }, memoryMb: 64, log: (m) => logs.push(m) });
  t.after(() => {
    pool.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [path, pattern] of [['hang', /longer than 2 s/], ['crash', /stopped unexpectedly/], ['oom', /memory|stopped/]] as const) {
    const report = await pool.lint(path, {});
    assert.ok(report, path);
    assert.equal(report.findings.length, 1, path);
    assert.equal(report.findings[0].rule, 'unreadable-model');
    assert.equal(report.findings[0].data?.reason, 'analysis-failed');
    assert.match(report.findings[0].message, pattern);
    const next = await pool.lint('fine', {});
    assert.equal(next?.format, 'fake', `the pool serves the next file after ${path}`);
  }
  assert.equal(logs.length, 3);
});

test('a newer request for the same file replaces a queued one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-pool-'));
  const script = join(dir, 'worker.js');
  writeFileSync(script, WORKER);
  const pool = new LintPool({ workerScript: script, readTimeout: { baseMs: 5000, perMbMs: 0 }, memoryMb: 64 });
  t.after(() => {
    pool.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const first = pool.lint('slow', {});
  const queued = pool.lint('b', {});
  const newer = pool.lint('b', {});
  assert.equal((await first)?.path, 'slow');
  assert.equal(await queued, undefined, 'superseded');
  assert.equal((await newer)?.path, 'b');
});

test('requests reach the queue in the order they were made, whichever size read finishes first', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-pool-'));
  const script = join(dir, 'worker.js');
  writeFileSync(script, WORKER);
  const pool = new LintPool({ workerScript: script, readTimeout: { baseMs: 5000, perMbMs: 0 }, memoryMb: 64 });
  // The older request's size read is the slow one: without the ordering it would reach the queue
  // last and replace the newer request.
  const stat = fsp.stat;
  let calls = 0;
  fsp.stat = ((...args: Parameters<typeof stat>) =>
    ++calls === 2 ? new Promise((r) => setTimeout(r, 150)).then(() => stat(...args)) : stat(...args)) as typeof stat;
  t.after(() => {
    fsp.stat = stat;
    pool.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  // 'slow' holds the worker, so both requests for 'b' wait in the queue.
  const first = pool.lint('slow', { severities: {} });
  const older = pool.lint('b', { severities: { 'unsafe-pickle': 'information' } });
  const newer = pool.lint('b', { severities: { 'unsafe-pickle': 'error' } });
  assert.equal((await first)?.path, 'slow');
  assert.equal(await older, undefined, 'the older request is the one replaced');
  assert.equal((await newer)?.path, 'b');
});
