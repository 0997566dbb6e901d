/**
 * What the worker processes (jobs/worker-queue.ts) contain: a V8 fatal error, which in a worker
 * thread aborts the whole process; memory outside the V8 heap (Buffers), which a heap ceiling does
 * not count; a read that never ends. Each ends the job with its reason, and the next job runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkerQueue } from '../../server/src/jobs/worker-queue';
import { LintPool } from '../../server/src/jobs/lint-pool';
import { workerScript } from '../../server/src/jobs/worker-scripts';
import { STAND_IN_PORT } from '../support/stand-in-worker';
import { EXAMPLES } from '../support/paths';

// `served` counts the jobs this worker process ran: 1 means a fresh one.
const WORKER = `${STAND_IN_PORT}
let served = 0;
const kept = [];
parentPort.on('message', (job) => {
  served++;
  // Doubles until V8 cannot grow the array's backing store: "Fatal JavaScript invalid size error".
  if (job.path === 'fatal') { const a = []; for (let i = 0; ; i++) a.push(i + 0.5); }
  // Off-heap memory, written so that it is resident: 16 MB at a time, up to 2 GB.
  if (job.path === 'buffers') { for (let i = 0; i < 128; i++) { kept.push(Buffer.alloc(16 * 1024 * 1024, 1)); const until = Date.now() + 20; while (Date.now() < until) {} } }
  if (job.path === 'heavy') for (let i = 0; i < 10; i++) kept.push(Buffer.alloc(16 * 1024 * 1024, 1));
  process.send({ id: job.id, done: job.path + ':' + served, rss: process.memoryUsage.rss() });
});
`;

function queue(t: { after: (fn: () => void) => void }, memoryMb: number, idleMemoryMb?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-faults-'));
  const script = join(dir, 'worker.js');
  writeFileSync(script, WORKER);
  const logs: string[] = [];
  const q = new WorkerQueue<object, string>({
    workerScript: script,
    memoryMb,
    timeoutMs: () => 60_000,
    result: (message) => (message as { done: string }).done,
    failure: (path, _r, detail) => `${path} failed: ${detail}`,
    label: 'test',
    raise: { memory: 'raise --max-memory-mb' },
    ...(idleMemoryMb !== undefined ? { idleMemoryMb } : {}),
    log: (m) => logs.push(m),
  });
  t.after(() => {
    q.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return { q, logs };
}

test('a V8 fatal error ends the worker process only: the job fails with the reason, the next job runs', async (t) => {
  // A heap ceiling above the array's largest backing store (about 1.3 GB), so V8's size limit comes first.
  const { q } = queue(t, 4096);
  const result = await q.submit('fatal', {});
  assert.match(result!, /^fatal failed: the test hit a size limit of V8 \(Fatal JavaScript invalid size error \d+: an array larger than V8 can hold\)/);
  assert.equal(await q.submit('fine', {}), 'fine:1', 'a fresh worker, in a process that is still alive');
});

test('memory outside the V8 heap counts: Buffers past the ceiling stop the job', { skip: process.platform !== 'linux' && 'sampled from /proc' }, async (t) => {
  const { q, logs } = queue(t, 256);
  const started = Date.now();
  const result = await q.submit('buffers', {});
  assert.match(result!, /^buffers failed: the test ran out of memory \(ceiling 256 MB\) and was stopped \(raise --max-memory-mb\)$/);
  assert.ok(Date.now() - started < 2500, 'stopped well before the 2 GB it would have taken (128 x 20 ms)');
  assert.equal(logs.length, 1);
  assert.equal(await q.submit('fine', {}), 'fine:1');
});

test('a worker left holding more than idleMemoryMb after a job is replaced', async (t) => {
  const { q } = queue(t, 1024, 128);
  assert.equal(await q.submit('a', {}), 'a:1');
  assert.equal(await q.submit('b', {}), 'b:2', 'a small worker is kept');
  assert.equal(await q.submit('heavy', {}), 'heavy:3');
  assert.equal(await q.submit('c', {}), 'c:1', 'the 160 MB one was replaced');
});

test('the real lint worker: a read that never ends is cut after its watchdog, and the next file is read', { skip: process.platform === 'win32' && 'needs mkfifo' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-fifo-'));
  const stuck = join(dir, 'stuck.joblib');
  assert.equal(spawnSync('mkfifo', [stuck]).status, 0);
  const pool = new LintPool({ workerScript: workerScript('lint-worker'), memoryMb: 512, readTimeout: { baseMs: 1000, perMbMs: 2000 }, raise: { time: 'raise the setting' } });
  t.after(() => {
    pool.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const started = Date.now();
  const [cut, next] = await Promise.all([pool.lint(stuck, {}), pool.lint(join(EXAMPLES, 'models/diabetes_forest.joblib'), {})]);
  assert.equal(cut?.findings[0]?.rule, 'unreadable-model');
  assert.match(cut!.findings[0].message, /took longer than 1 s and was stopped \(raise the setting\)/);
  assert.equal(next?.model?.trees, 20, 'the file queued behind it was read');
  assert.ok(Date.now() - started < 15_000, `the stuck file held the queue ${Date.now() - started} ms`);
});
