import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LegacyMT19937 } from '../../server/src/attacks/mt19937';
import { replayMultiplicities } from '../../server/src/attacks/bootstrap-replay';
import { FIXTURES } from '../support/paths';

interface Case {
  seed: number;
  high: number;
  values: number[];
}
const { cases } = JSON.parse(readFileSync(join(FIXTURES, 'numpy/randint.json'), 'utf8')) as { cases: Case[] };

test('randint(0, high, dtype=int32) equals numpy bit for bit', () => {
  assert.ok(cases.length > 50);
  for (const { seed, high, values } of cases) {
    const ours: number[] = [];
    new LegacyMT19937(seed).randintInt32(0, high, values.length, (v) => ours.push(v));
    assert.deepEqual(ours, values, `seed ${seed}, high ${high}`);
  }
});

test('multiplicities count every draw once', () => {
  const counts = replayMultiplicities(42, 100, 100);
  assert.equal(counts.reduce((a, b) => a + b, 0), 100);
  const expected = new Array(100).fill(0);
  const long = cases.find((c) => c.seed === 42 && c.high === 100)!;
  // The first 50 draws of the same generator are the fixture's values.
  const first50 = replayMultiplicities(42, 100, 50);
  for (const v of long.values) expected[v]++;
  assert.deepEqual([...first50], expected);
});

test('seeds outside numpy\'s range are refused', () => {
  assert.throws(() => new LegacyMT19937(-1), RangeError);
  assert.throws(() => new LegacyMT19937(2 ** 32), RangeError);
});
