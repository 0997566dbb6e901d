/**
 * The cache keys of the editor's background work (issue 16): a reconstruction's key changes with
 * the model's bytes, its sidecar, and every setting that changes the answer, and with nothing else
 * (the same inputs give the same key, so an identical rewrite is a cache hit); the advisor's key
 * follows its reconstruction's key and its own budget.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { advisorKey, reconstructionKey, type ReconstructionRequest } from '../../server/src/jobs/reconstruction-job';

const REQUEST: ReconstructionRequest = { budgetMs: 30_000, maxFileBytes: 1e9, groups: [], thresholds: { errorShare: 0.1, warningRows: 1 }, severities: {} };

test('a reconstruction key names the bytes, the sidecar and the settings', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const model = join(dir, 'm.joblib');
  writeFileSync(model, 'bytes');
  const base = await reconstructionKey(model, 'hash-1', REQUEST);
  assert.equal(await reconstructionKey(model, 'hash-1', { ...REQUEST }), base, 'same inputs, same key');
  assert.equal(await reconstructionKey(model, 'hash-1', { ...REQUEST, advise: { current: {} as never } }), base, 'an advisor request\'s result is not part of it');
  const variants: [string, Promise<string>][] = [
    ['bytes', reconstructionKey(model, 'hash-2', REQUEST)],
    ['budget', reconstructionKey(model, 'hash-1', { ...REQUEST, budgetMs: 10_000 })],
    ['thresholds', reconstructionKey(model, 'hash-1', { ...REQUEST, thresholds: { errorShare: 0.2, warningRows: 1 } })],
    ['severities', reconstructionKey(model, 'hash-1', { ...REQUEST, severities: { 'reconstructable-training-set': 'warning' } })],
    ['groups', reconstructionKey(model, 'hash-1', { ...REQUEST, groups: [{ name: 'g', features: ['a', 'b'] }] as never })],
  ];
  for (const [what, key] of variants) assert.notEqual(await key, base, what);
  writeFileSync(`${model}.privacy.json`, '{"groups": []}');
  const withSidecar = await reconstructionKey(model, 'hash-1', REQUEST);
  assert.notEqual(withSidecar, base, 'a sidecar appeared');
  writeFileSync(`${model}.privacy.json`, '{"groups": [] }');
  assert.notEqual(await reconstructionKey(model, 'hash-1', REQUEST), withSidecar, 'the sidecar changed');
  writeFileSync(`${model}.privacy.json`, '{"groups": []}');
  assert.equal(await reconstructionKey(model, 'hash-1', REQUEST), withSidecar, 'written again with the same text');
});

test('an advisor key follows its reconstruction and its budget', () => {
  assert.equal(advisorKey('r1', 60_000), advisorKey('r1', 60_000));
  assert.notEqual(advisorKey('r1', 60_000), advisorKey('r2', 60_000));
  assert.notEqual(advisorKey('r1', 60_000), advisorKey('r1', 20_000));
});
