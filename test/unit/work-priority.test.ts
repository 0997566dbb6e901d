/**
 * The order of queued work (issue 16): lower priority first, arrival order among equals, a file the
 * user touches moves up; and the worker queue follows it: a running job is never preempted, the
 * queued ones run by priority. The worker is a stand-in that records the order it served.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRIORITY, PriorityList, priorities } from '../../server/src/jobs/work-priority';
import { WorkerQueue } from '../../server/src/jobs/worker-queue';
import { STAND_IN_PORT } from '../support/stand-in-worker';

test('the priorities: a changed file\'s findings, reconstruction, advisor, then the start-up work', () => {
  const changed = priorities('changed');
  const startup = priorities('startup');
  const order = [changed.findings, changed.reconstruction, changed.advisor, startup.findings, startup.reconstruction, startup.advisor];
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
  assert.equal(new Set(order).size, 6);
  assert.ok(startup.reconstruction < startup.advisor, 'every start-up reconstruction before any start-up advisor run');
});

test('a priority list: by priority, then arrival; remove and promote', () => {
  const list = new PriorityList<string>();
  list.push('s1', PRIORITY.startupReconstruction);
  list.push('a1', PRIORITY.startupAdvisor);
  list.push('s2', PRIORITY.startupReconstruction);
  list.push('c1', PRIORITY.changedReconstruction);
  list.push('c2', PRIORITY.changedAdvisor);
  assert.deepEqual(list.all(), ['c1', 'c2', 's1', 's2', 'a1']);
  assert.equal(list.promote((x) => x === 's2', PRIORITY.changedReconstruction), true);
  assert.deepEqual(list.all(), ['c1', 's2', 'c2', 's1', 'a1'], 'promoted after the older item of its new priority');
  assert.equal(list.promote((x) => x === 'c1', PRIORITY.startupAdvisor), false, 'never moved down');
  assert.deepEqual(list.remove((x) => x.startsWith('s')), ['s2', 's1']);
  assert.equal(list.shift(), 'c1');
  assert.deepEqual(list.clear(), ['c2', 'a1']);
  assert.equal(list.length, 0);
});

// Answers in order, after `ms` of synchronous work when the path says `slow`.
const WORKER = `${STAND_IN_PORT}
parentPort.on('message', (job) => {
  if (job.path.startsWith('slow')) { const until = Date.now() + 600; while (Date.now() < until) {} }
  parentPort.postMessage({ id: job.id, done: job.path });
});
`;

test('the worker queue runs queued jobs by priority, without preempting the running one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-prio-'));
  const script = join(dir, 'worker.js');
  writeFileSync(script, WORKER);
  const queue = new WorkerQueue<object, string>({
    workerScript: script,
    memoryMb: 64,
    timeoutMs: () => 10_000,
    result: (message) => (message as { done: string }).done,
    failure: (path, _r, detail) => `${path} failed: ${detail}`,
    label: 'test',
  });
  t.after(() => {
    queue.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const started: string[] = [];
  const submit = (path: string, priority: number) => queue.submit(path, {}, { onStart: () => started.push(path) }, priority);
  const all = [
    submit('slow-startup-1', PRIORITY.startupReconstruction),
    submit('startup-advisor', PRIORITY.startupAdvisor),
    submit('startup-2', PRIORITY.startupReconstruction),
    submit('startup-3', PRIORITY.startupReconstruction),
    submit('changed-advisor', PRIORITY.changedAdvisor),
    submit('changed', PRIORITY.changedReconstruction),
  ];
  assert.equal(queue.runningPath, 'slow-startup-1', 'the first job runs at once');
  assert.deepEqual(queue.queuedPaths, ['changed', 'changed-advisor', 'startup-2', 'startup-3', 'startup-advisor']);
  assert.equal(queue.promote('startup-3', PRIORITY.changedReconstruction), true, 'the user touched startup-3');
  const results = await Promise.all(all);
  assert.deepEqual(results, ['slow-startup-1', 'startup-advisor', 'startup-2', 'startup-3', 'changed-advisor', 'changed']);
  assert.deepEqual(started, ['slow-startup-1', 'changed', 'startup-3', 'changed-advisor', 'startup-2', 'startup-advisor'], 'the running job finished first; then by priority');
});
