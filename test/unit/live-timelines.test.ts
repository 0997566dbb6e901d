/**
 * The running timelines' throttle (server/src/jobs/live-timelines.ts), with real timers and a short
 * interval: the first update redraws at once, a burst within the interval redraws once more at its
 * end (with the latest timeline), and a dropped run never redraws again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveTimelines } from '../../server/src/jobs/live-timelines';
import type { TimelinePoint } from '../../server/src/report/model';

const INTERVAL = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const upTo = (ms: number): TimelinePoint[] => [{ ms: 0, phase: 'start', certifiedRows: 0, reconstructedRows: 0 }, { ms, phase: 'cells', cells: ms }];

test('a burst of updates: one redraw at once, one at the end of the interval with the latest timeline', async () => {
  const seen: { uri: string; last: number | undefined }[] = [];
  const live = new LiveTimelines((uri) => seen.push({ uri, last: live.get(uri)?.at(-1)?.ms }), INTERVAL);
  live.update('a', upTo(1));
  assert.deepEqual(seen, [{ uri: 'a', last: 1 }]);
  for (let ms = 2; ms <= 5; ms++) live.update('a', upTo(ms));
  assert.equal(seen.length, 1, 'throttled');
  assert.deepEqual(live.get('a'), upTo(5), 'the latest timeline is kept at once');
  // Another file has its own throttle.
  live.update('b', upTo(7));
  assert.equal(seen.length, 2);
  await sleep(INTERVAL + 100);
  assert.deepEqual(seen.slice(2), [{ uri: 'a', last: 5 }], 'the trailing redraw shows the last update');
  await sleep(INTERVAL + 100);
  assert.equal(seen.length, 3, 'nothing more without updates');
  live.dispose();
});

test('drop: the timeline is gone and a pending redraw never fires', async () => {
  let redraws = 0;
  const live = new LiveTimelines(() => redraws++, INTERVAL);
  live.update('a', upTo(1));
  live.update('a', upTo(2)); // a trailing redraw is now pending
  live.drop('a');
  assert.equal(live.get('a'), undefined);
  await sleep(INTERVAL + 100);
  assert.equal(redraws, 1, 'no redraw of a dropped run');
  // A new run of the same file starts afresh: its first update redraws at once.
  live.update('a', upTo(3));
  assert.equal(redraws, 2);
  live.dispose();
});
