/**
 * Wide models (attacks/reconstruction/compact-features.ts) on test/fixtures/wide/pima_wide.joblib
 * (scikit-learn 1.2.1: 200 Pima rows, 8 real columns and 392 of zeros, a forest without
 * bootstrap): the engine runs on the columns the trees split on, the rows come back in all 400
 * columns (null where no tree splits), every certified box holds a distinct true row, and a
 * declared one-hot group that loses members becomes at-most-one.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { compactFeatures, COMPACT_FROM, expandResult, listedNote, listWithinCap } from '../../server/src/attacks/reconstruction/compact-features';
import type { ReconstructedRow, ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import { lintFile } from '../../server/src/linter/linter';
import { firstUnmatched, maximumMatching } from '../support/bipartite-matching';
import { containsRow, readFloat32Rows } from '../support/numeric-truth';
import { FIXTURES } from '../support/paths';

const DIR = join(FIXTURES, 'wide');

describe('wide models: the engine on the columns the trees split on', () => {
  it('pima_wide: rows in all 400 columns, null where no tree splits, every certified box holding a distinct true row', async () => {
    const forest = (await lintFile(join(DIR, 'pima_wide.joblib'), { keepForest: true })).forest!;
    assert.equal(forest.features.length, 400);
    assert.ok(forest.features.length > COMPACT_FROM);
    const split = new Set<number>();
    for (const tree of forest.trees) tree.left.forEach((l, n) => l !== -1 && split.add(tree.feature[n]));
    assert.ok([...split].every((f) => f < 8), 'only real columns are split');

    const result = await reconstruct(forest, { budgetMs: 10_000 });
    assert.match(result.reason ?? '', new RegExp(`run on the ${split.size} features the trees split on, of 400`));
    assert.equal(result.reconstruction.length, 200);
    for (const row of result.reconstruction) {
      assert.equal(row.values.length, 400);
      for (let f = 0; f < 400; f++) {
        if (split.has(f)) continue;
        assert.equal(row.values[f], null, `feature ${f}`);
        if (row.intervals) assert.equal(row.intervals[f], null, `feature ${f}'s interval`);
      }
    }
    // The truth: the 8 real columns, zeros after them.
    const truth = readFloat32Rows(join(DIR, 'pima_wide.train.csv')).map((t) => ({ ...t, values: [...t.values, ...new Array(392).fill(0)] }));
    const certified = result.reconstruction.filter((row) => row.certified);
    assert.ok(certified.length > 0);
    const matching = maximumMatching(certified.map((row) => truth.flatMap((t, i) => (containsRow(row, t) ? [i] : []))), truth.length);
    assert.equal(matching.size, certified.length, `certified row ${firstUnmatched(matching)} has no training row of its own`);
  });

  it('past the cell cap, only the rows that fit are listed in all columns, certified ones first; the counts stay every row\'s', async () => {
    const forest = (await lintFile(join(DIR, 'pima_wide.joblib'), { keepForest: true })).forest!;
    const compacted = compactFeatures(forest, [])!;
    const run = await reconstruct(compacted.forest, { budgetMs: 10_000 });
    // Every row of this model is certified: a third marked otherwise, to see which are kept first.
    const result = { ...run, reconstruction: run.reconstruction.map((row, i) => ({ ...row, certified: row.certified && i % 3 !== 0 })) };
    const certified = result.reconstruction.filter((row) => row.certified).length;
    assert.ok(certified > 0 && certified < result.reconstruction.length, `${certified} of ${result.reconstruction.length} certified`);
    // Room for the certified rows and 5 more, then for fewer rows than are certified.
    for (const fit of [certified + 5, certified - 1]) {
      const expanded = expandResult(result, compacted.used, 400, fit * 400);
      assert.equal(expanded.reconstruction.length, fit);
      assert.equal(expanded.listedRows, fit);
      assert.equal(expanded.reconstructedRows, result.reconstructedRows);
      assert.equal(expanded.certifiedRows, result.certifiedRows);
      assert.equal(expanded.reconstruction.filter((row) => row.certified).length, Math.min(fit, certified), 'certified rows first');
      assert.ok(expanded.reconstruction.every((row) => row.values.length === 400));
      assert.match(listedNote(expanded, 400) ?? '', new RegExp(`^${fit} of the ${result.reconstructedRows} rows are listed`));
    }
    // Within the cap: every row, no listedRows.
    assert.equal(expandResult(result, compacted.used, 400).listedRows, undefined);
  });

  it('rows that share an array (a group standing at its box) share its copy in all columns (sweep 12: 3,018 rows x 3,975 columns past 1 GB)', async () => {
    const forest = (await lintFile(join(DIR, 'pima_wide.joblib'), { keepForest: true })).forest!;
    const compacted = compactFeatures(forest, [])!;
    const run = await reconstruct(compacted.forest, { budgetMs: 10_000 });
    const [first] = run.reconstruction;
    // Every row standing at the first row's box, as past the walk cap.
    const shared = { ...run, reconstruction: run.reconstruction.map((row) => ({ ...row, values: first.values, intervals: first.intervals })) };
    const expanded = expandResult(shared, compacted.used, 400);
    assert.equal(new Set(expanded.reconstruction.map((row) => row.values)).size, 1);
    assert.equal(new Set(expanded.reconstruction.map((row) => row.intervals)).size, 1);
    // The same values as a copy of their own would have.
    const alone = expandResult({ ...run, reconstruction: [first] }, compacted.used, 400).reconstruction[0];
    assert.deepEqual(expanded.reconstruction[5].values, alone.values);
    assert.deepEqual(expanded.reconstruction[5].intervals, alone.intervals);
  });

  it('a declared one-hot group over columns some tree never splits becomes at-most-one over the others; narrow models are not compacted', async () => {
    const forest = (await lintFile(join(DIR, 'pima_wide.joblib'), { keepForest: true })).forest!;
    const compacted = compactFeatures(forest, [
      { kind: 'one-hot', features: [1, 5, 300] },
      { kind: 'at-most-one', features: [2, 301] },
    ])!;
    assert.ok(compacted);
    const at = (f: number) => compacted.used.indexOf(f);
    assert.ok(at(1) >= 0 && at(5) >= 0 && at(300) < 0);
    // The 1 may be column 300, no tree's: then 1 and 5 are both 0.
    assert.deepEqual(compacted.groups, [{ kind: 'at-most-one', features: [at(1), at(5)] }]);
    const narrow = (await lintFile(join(FIXTURES, 'numeric', 'pima_t10_d5.joblib'), { keepForest: true })).forest!;
    assert.equal(compactFeatures(narrow, []), undefined);
  });
});

describe('rows listed within the cap on a model that was not compacted (sweep 9: 212,215 rows x 506 features)', () => {
  it('keeps certified rows first, says how many are listed, and leaves a result within the cap alone', () => {
    const row = (certified: boolean): ReconstructedRow => ({ values: [1, 2, 3, 4], label: 0, certified });
    const rows = [row(false), row(true), row(false), row(true), row(true)];
    const result = { status: 'bounded', method: 'row-boxes', reason: 'why', rows: 5, certifiedRows: 3, reconstructedRows: 5, reconstruction: rows } as unknown as ReconstructionResult;
    const listed = listWithinCap(result, 4, 12);
    assert.equal(listed.listedRows, 3);
    assert.ok(listed.reconstruction.every((r) => r.certified));
    assert.equal(listed.reconstructedRows, 5);
    assert.match(listed.reason ?? '', /^why; 3 of the 5 rows are listed in the model's 4 columns/);
    assert.equal(listWithinCap(result, 4, 20), result);
  });
});
