/**
 * Property-based fuzzing of every reader through the linter's entry point (lintBytes): byte flips,
 * truncations, splices, insertions, edge numbers in text formats, and damage inside zlib/gzip
 * joblib files packed again so it gets past the checksum, applied to every committed fixture of
 * every format (test/support/fuzz.ts). Seeded: CI runs the same mutants every run; a failure
 * prints the seed and path fast-check needs to replay it.
 *
 * The property: the linter never throws, a file without a model gets a finding (unreadable-model,
 * unsafe-pickle, no-tree-model, ...) whose rule is documented, one file takes under FILE_MS, and
 * the process stays under MAX_RSS_BYTES. A file with a dangerous global stays unsafe whatever
 * is done to bytes after it (checked in fuzz-hostile.test.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lintFile } from '../../server/src/linter/linter';
import { REPO_ROOT } from '../support/paths';
import { FILE_MS, FUZZ_SEED, lintChecked, mutate, mutationArb, seedCorpus, type Family, type Seed } from '../support/fuzz';

const corpus = seedCorpus();
const byFamily = (family: Family) => corpus.filter((s) => s.family === family);

/** Runs per family: about 6,500 mutants in all, ~20 s on 2 cores. */
const RUNS: Record<Family, number> = {
  pickle: 1200,
  joblib: 900,
  'joblib-compressed': 900,
  'xgboost-json': 750,
  'xgboost-ubj': 750,
  'xgboost-binary': 600,
  'xgboost-dump': 600,
  'forest-json': 600,
  sidecar: 150,
};

function fuzzFamily(family: Family, seeds: Seed[]): { tried: number; models: number; unreadable: number } {
  const tally = { tried: 0, models: 0, unreadable: 0 };
  fc.assert(
    fc.property(fc.constantFrom(...seeds), mutationArb(family), (seed, mutation) => {
      const bytes = mutate(seed.bytes, mutation);
      // The sidecar is read beside a model; here its bytes go through the linter as a file of their own.
      const checked = lintChecked(bytes, seed.name);
      tally.tried++;
      if (checked.report?.model) tally.models++;
      if (checked.report?.findings.some((f) => f.rule === 'unreadable-model')) tally.unreadable++;
      assert.deepEqual(checked.failures, [], `${seed.name} after ${JSON.stringify(mutation)}`);
    }),
    { seed: FUZZ_SEED + family.length, numRuns: RUNS[family], endOnFailure: true },
  );
  return tally;
}

describe('fuzz: mutated fixtures of every format through lintBytes', () => {
  test('the corpus holds every format family', () => {
    for (const family of Object.keys(RUNS) as Family[]) assert.ok(byFamily(family).length > 0, `no ${family} fixture`);
    // Every joblib codec: zlib, gzip, bz2, lzma, xz, lz4.
    const codecs = new Set(byFamily('joblib-compressed').map((s) => /\.(zlib|gzip|bz2|lzma|xz|lz4)/.exec(s.name)?.[1]));
    assert.deepEqual([...codecs].sort(), ['bz2', 'gzip', 'lz4', 'lzma', 'xz', 'zlib']);
  });

  for (const family of Object.keys(RUNS) as Family[]) {
    test(`${family}: no crash, a finding for every file, time and memory within limits`, { timeout: 300_000 }, () => {
      const tally = fuzzFamily(family, byFamily(family));
      assert.equal(tally.tried, RUNS[family]);
      console.log(`# ${family}: ${JSON.stringify(tally)}`);
      // The mutants must reach the readers' error paths, not only be refused by a sniff.
      if (family !== 'sidecar') assert.ok(tally.unreadable > 0, `${family}: no mutant was unreadable`);
    });
  }

  test('sidecar: a mutated <model>.privacy.json beside a real model never breaks linting the model', { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpl-sidecar-'));
    try {
      const model = join(dir, 'compas_no_bagging.joblib');
      copyFileSync(join(REPO_ROOT, 'examples', 'models', 'compas_no_bagging.joblib'), model);
      const sidecar = byFamily('sidecar')[0];
      let withModel = 0;
      await fc.assert(
        fc.asyncProperty(mutationArb('sidecar'), async (mutation) => {
          writeFileSync(join(dir, 'compas_no_bagging.privacy.json'), mutate(sidecar.bytes, mutation));
          const start = performance.now();
          const report = await lintFile(model, { budgetMs: 1_000 });
          assert.ok(performance.now() - start < FILE_MS);
          // The model is read whatever the sidecar holds: a bad sidecar is ignored, never fatal.
          assert.ok(report.model, JSON.stringify(mutation));
          withModel++;
        }),
        { seed: FUZZ_SEED, numRuns: 150, endOnFailure: true },
      );
      assert.equal(withModel, 150);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the mutators change the bytes (a fuzzer that fuzzes nothing would pass the properties)', () => {
    const seed = byFamily('joblib-compressed').find((s) => s.name.endsWith('rf.zlib.joblib'))!;
    const inner = mutate(seed.bytes, { kind: 'inner', at: [0.5], bytes: [7] });
    assert.notDeepEqual(inner, seed.bytes);
    const checked = lintChecked(inner, seed.name);
    assert.deepEqual(checked.failures, []);
    const json = byFamily('xgboost-json')[0];
    const edited = Buffer.from(mutate(json.bytes, { kind: 'number', at: [0.5], bytes: [0], value: '1e309' })).toString('utf8');
    assert.ok(edited.includes('1e309'));
  });
});
