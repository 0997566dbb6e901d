/**
 * LateProgress (lsp/late-progress.ts): the reporter of a server-created work-done progress arrives
 * after a request to the client; an end before it still ends the progress, and a refusal is quiet.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import { LateProgress } from '../../server/src/lsp/late-progress';

function fakeReporter(log: string[]): WorkDoneProgressServerReporter {
  return {
    token: { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) },
    begin: (title: string) => log.push(`begin ${title}`),
    report: (p: number | string) => log.push(`report ${p}`),
    done: () => log.push('done'),
  } as unknown as WorkDoneProgressServerReporter;
}

function deferred(): { promise: Promise<WorkDoneProgressServerReporter>; resolve: (r: WorkDoneProgressServerReporter) => void; reject: () => void } {
  let resolve!: (r: WorkDoneProgressServerReporter) => void;
  let reject!: () => void;
  const promise = new Promise<WorkDoneProgressServerReporter>((res, rej) => {
    resolve = res;
    reject = () => rej(new Error('refused'));
  });
  return { promise, resolve, reject };
}

test('begins when the reporter arrives, then reports through it until the end', async () => {
  const log: string[] = [];
  const created = deferred();
  const progress = new LateProgress(() => created.promise, (r) => r.begin('title'));
  assert.equal(progress.reporter, undefined, 'nothing before the reply');
  created.resolve(fakeReporter(log));
  await created.promise;
  await Promise.resolve();
  assert.deepEqual(log, ['begin title']);
  progress.reporter!.report(50);
  assert.equal(progress.end(), true);
  assert.equal(progress.end(), false, 'a second end is a no-op');
  assert.equal(progress.reporter, undefined);
  assert.deepEqual(log, ['begin title', 'report 50', 'done']);
});

test('an end before the reply ends the progress when the reporter comes, without beginning it', async () => {
  const log: string[] = [];
  const created = deferred();
  const progress = new LateProgress(() => created.promise, (r) => r.begin('title'));
  assert.equal(progress.end(), true);
  assert.equal(progress.active, false);
  created.resolve(fakeReporter(log));
  await created.promise;
  await Promise.resolve();
  assert.deepEqual(log, ['done']);
});

test('a client that refuses: no reporter, no error, the end still counts', async () => {
  const created = deferred();
  const progress = new LateProgress(() => created.promise, () => assert.fail('never begins'));
  created.reject();
  await created.promise.catch(() => undefined);
  await Promise.resolve();
  assert.equal(progress.reporter, undefined);
  assert.equal(progress.end(), true);
});
