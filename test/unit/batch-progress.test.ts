/**
 * The folder's progress ("Model Privacy Lint: 3 of 7 models"): begins with 0 of n, counts each
 * file once when its work ends, counts a file added again anew, ends when all are done; reports
 * that come before the client accepted the progress are folded into its begin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import { BatchProgress } from '../../server/src/lsp/batch-progress';

function fakeReporter() {
  const events: string[] = [];
  const reporter = {
    begin: (title: string, percentage: number, message: string) => events.push(`begin ${title}: ${message} (${percentage}%)`),
    report: (percentage: number, message: string) => events.push(`report ${message} (${percentage}%)`),
    done: () => events.push('end'),
    token: { onCancellationRequested: () => ({ dispose() {} }) },
  } as unknown as WorkDoneProgressServerReporter;
  return { events, reporter };
}

test('counts files as their work ends, once each, and ends with the last', async () => {
  const { events, reporter } = fakeReporter();
  const batch = new BatchProgress(() => Promise.resolve(reporter), ['a', 'b', 'c']);
  await Promise.resolve();
  assert.equal(batch.text, '0 of 3 models');
  batch.settle('b');
  batch.settle('b'); // twice: counted once
  batch.settle('x'); // not in the batch
  batch.add(['d']);
  batch.settle('a');
  batch.add(['a']); // analysed again: to be done again
  assert.equal(batch.text, '1 of 4 models');
  for (const f of ['a', 'c', 'd']) batch.settle(f);
  assert.equal(batch.active, false);
  assert.deepEqual(events, [
    'begin Model Privacy Lint: 0 of 3 models (0%)',
    'report 1 of 3 models (33%)',
    'report 1 of 4 models (25%)',
    'report 2 of 4 models (50%)',
    'report 1 of 4 models (25%)',
    'report 2 of 4 models (50%)',
    'report 3 of 4 models (75%)',
    'report 4 of 4 models (100%)',
    'end',
  ]);
});

test('an end before the client accepted the progress still ends it', async () => {
  const { events, reporter } = fakeReporter();
  let accept: (r: WorkDoneProgressServerReporter) => void = () => {};
  const batch = new BatchProgress(() => new Promise((resolve) => (accept = resolve)), ['a']);
  batch.settle('a');
  accept(reporter);
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(events, ['end']);
});
