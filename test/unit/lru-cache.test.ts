/**
 * The in-memory LRU that bounds the server's caches (reconstructions with their rows, advice,
 * fast findings): evicts the least recently used entry when over its entry count or its byte
 * budget, a read counts as a use, and a value larger than the whole budget is not kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LruCache, estimatedBytes } from '../../server/src/jobs/lru-cache';

const bySize = (maxEntries: number, maxBytes: number) => new LruCache<string, { bytes: number }>({ maxEntries, maxBytes, size: (v) => v.bytes });

test('over its entry count, the least recently used entry goes; a read is a use', () => {
  const cache = bySize(3, 1e9);
  cache.set('a', { bytes: 1 });
  cache.set('b', { bytes: 1 });
  cache.set('c', { bytes: 1 });
  assert.ok(cache.get('a'), 'a read: a becomes the most recent');
  cache.set('d', { bytes: 1 });
  assert.deepEqual(['a', 'b', 'c', 'd'].filter((k) => cache.has(k)), ['a', 'c', 'd'], 'b was the least recently used');
  assert.equal(cache.size, 3);
});

test('over its byte budget, old entries go until the new one fits; an entry above the budget is not kept', () => {
  const cache = bySize(100, 100);
  cache.set('a', { bytes: 40 });
  cache.set('b', { bytes: 40 });
  assert.equal(cache.bytes, 80);
  cache.set('c', { bytes: 50 });
  assert.deepEqual(['a', 'b', 'c'].filter((k) => cache.has(k)), ['b', 'c']);
  assert.equal(cache.bytes, 90);
  cache.set('huge', { bytes: 101 });
  assert.equal(cache.has('huge'), false, 'larger than the whole budget');
  assert.deepEqual(['b', 'c'].filter((k) => cache.has(k)), ['b', 'c'], 'and it evicted nothing');
});

test('setting a key again replaces its value and its size; delete frees its bytes', () => {
  const cache = bySize(10, 100);
  cache.set('a', { bytes: 30 });
  cache.set('a', { bytes: 60 });
  assert.equal(cache.size, 1);
  assert.equal(cache.bytes, 60);
  assert.equal(cache.get('a')?.bytes, 60);
  assert.equal(cache.delete('a'), true);
  assert.equal(cache.bytes, 0);
  assert.equal(cache.delete('a'), false);
});

test('estimatedBytes grows with the rows a value holds, and a cycle counts as too big', () => {
  const rows = (n: number) => ({ rows: Array.from({ length: n }, (_, i) => [i, i * 0.5, 'a']) });
  assert.ok(estimatedBytes(rows(1000)) > 10 * estimatedBytes(rows(10)));
  const cyclic: { self?: unknown } = {};
  cyclic.self = cyclic;
  assert.equal(estimatedBytes(cyclic), Number.MAX_SAFE_INTEGER);
});
