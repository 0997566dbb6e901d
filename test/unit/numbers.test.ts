/** util/numbers.ts: the largest and smallest of many numbers, without spreading them as arguments. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { maxOf, minOf } from '../../server/src/util/numbers';

test('maxOf and minOf take a million values, where Math.max(...values) overflows the call stack', () => {
  const values = Float64Array.from({ length: 1_000_000 }, (_, i) => Math.sin(i) * i);
  assert.throws(() => Math.max(...values), RangeError);
  let max = -Infinity;
  let min = Infinity;
  for (const v of values) {
    max = Math.max(max, v);
    min = Math.min(min, v);
  }
  assert.equal(maxOf(values), max);
  assert.equal(minOf(values), min);
  assert.equal(maxOf([], -1), -1);
  assert.equal(minOf([]), Infinity);
});
