/**
 * The point search after the walks (server/src/attacks/reconstruction/boxes/point-search.ts), on
 * the real scikit-learn fixtures without bootstrap (test/fixtures/row-boxes) and on small random
 * forests. The walks run first with no time left for the search (so their own error is known),
 * then the search on the same rows. Checked:
 *  - it lowers the leaf-count error the walks left (the reason it exists), never raises it;
 *  - the error it reports is the forest's open counts' and the one routing its points gives;
 *  - every row stays inside its group's proven box, and pinned groups do not move.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { completeRows, leafCountError } from '../../server/src/attacks/reconstruction/boxes/complete';
import { searchPoints } from '../../server/src/attacks/reconstruction/boxes/point-search';
import type { CompletedRow, RowGroup } from '../../server/src/attacks/reconstruction/boxes/row-groups';
import { boxToRow } from '../../server/src/attacks/reconstruction/rows';
import type { LeafTable } from '../../server/src/attacks/reconstruction/leaves';
import type { ReconstructedRow } from '../../server/src/attacks/reconstruction/types';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { randomIntegerForest, routedLeafCountError, type NumericFixtureEntry } from '../support/numeric-truth';
import { FIXTURES } from '../support/paths';
import { propagatedGroups } from '../support/row-boxes-groups';

const DIR = join(FIXTURES, 'row-boxes');
const manifest: NumericFixtureEntry[] = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));
const noSearch = () => false;
const breathe = async () => undefined;

/** Walks only (the deadline has passed, so the search inside completeRows does not run), then the search. */
async function walkThenSearch(forest: Forest, searchMs: number, threads = 1) {
  const { table, walk, groups, propagation } = await propagatedGroups(forest, 8_000);
  assert.ok(propagation.ok && propagation.complete, propagation.contradiction);
  const walked = await completeRows(walk, groups, noSearch, Date.now() - 1);
  assert.equal(walked.moves, 0, 'no search after the deadline');
  const before = snapshot(walked.rows);
  const searched = await searchPoints(walk, groups, walked.rows, walked.leafCountError, { stopped: noSearch, deadline: Date.now() + searchMs, breathe, threads });
  return { table, walk, groups, walkError: walked.leafCountError, rows: walked.rows, before, searched };
}

function snapshot(rows: readonly CompletedRow[]): string[] {
  return rows.map((row) => `${row.low.join(',')}|${row.high.join(',')}`);
}

/** Every row inside its group's box; rows of pinned groups exactly at it. */
function checkInsideGroups(label: string, rows: readonly CompletedRow[], groups: readonly RowGroup[], before: string[]): void {
  rows.forEach((row, r) => {
    const group = groups[row.group];
    for (let f = 0; f < row.low.length; f++) {
      assert.ok(row.low[f] >= group.low[f] && row.high[f] <= group.high[f] && row.low[f] <= row.high[f], `${label}: row ${r} feature ${f}: [${row.low[f]}, ${row.high[f]}] outside its group's [${group.low[f]}, ${group.high[f]}]`);
    }
    if (group.unplaced === 0) assert.equal(snapshot([row])[0], before[r], `${label}: row ${r} of a pinned group moved`);
  });
}

/** The rows as the engine reports them (a point inside each row's box), for routing through the trees. */
function asReported(table: LeafTable, forest: Forest, rows: readonly CompletedRow[]): ReconstructedRow[] {
  return rows.map((row) => ({ values: boxToRow(table.axes, row.low, row.high).values, label: forest.classes[row.classIndex], certified: false }));
}

describe('point search on real scikit-learn forests without bootstrap', () => {
  for (const name of ['pima_rf25', 'pima_rf20_msl5', 'wine_et20']) {
    it(`${name}: lowers the walks' leaf-count error, reports it truly, keeps every row in its proven box`, async () => {
      const e = manifest.find((m) => m.name === name)!;
      const report = await lintFile(join(DIR, e.model), { keepForest: true });
      const forest = report.forest!;
      const { table, walk, groups, walkError, rows, before, searched } = await walkThenSearch(forest, 3_000);
      assert.ok(walkError > 0, `${name}: the walks already fit every count; nothing to search`);
      assert.ok(searched.leafCountError < walkError, `${name}: the search left the error at ${searched.leafCountError} (walks: ${walkError})`);
      assert.ok(searched.moves > 0);
      assert.equal(searched.leafCountError, leafCountError(walk), `${name}: reported error against the open counts`);
      assert.equal(searched.leafCountError, routedLeafCountError(forest, asReported(table, forest, rows)), `${name}: reported error against routing the rows' points`);
      checkInsideGroups(name, rows, groups, before);
    });
  }
});

describe('point search in threads (point-search-thread.ts)', () => {
  // The threads move rows over shared counts at once; what each reports of the error is stale, so
  // the search recounts it: the answer must still be the counts' and the routed points' error.
  for (const name of ['pima_rf25', 'wine_et20']) {
    it(`${name}: two threads lower the walks' error, report it truly, keep every row in its proven box`, async () => {
      const e = manifest.find((m) => m.name === name)!;
      const report = await lintFile(join(DIR, e.model), { keepForest: true });
      const forest = report.forest!;
      const { table, walk, groups, walkError, rows, before, searched } = await walkThenSearch(forest, 3_000, 2);
      assert.equal(searched.threads, 2, `${name}: the sweeps did not run in threads`);
      assert.ok(searched.leafCountError < walkError, `${name}: the search left the error at ${searched.leafCountError} (walks: ${walkError})`);
      assert.ok(searched.moves > 0);
      assert.equal(searched.leafCountError, leafCountError(walk), `${name}: reported error against the open counts`);
      assert.equal(searched.leafCountError, routedLeafCountError(forest, asReported(table, forest, rows)), `${name}: reported error against routing the rows' points`);
      checkInsideGroups(name, rows, groups, before);
    });
  }

  it('a stop raised while the threads sweep ends the search within a sweep', async () => {
    const e = manifest.find((m) => m.name === 'pima_rf25')!;
    const forest = (await lintFile(join(DIR, e.model), { keepForest: true })).forest!;
    const { walk, groups } = await propagatedGroups(forest, 8_000);
    const walked = await completeRows(walk, groups, noSearch, Date.now() - 1);
    const stopAt = Date.now() + 150;
    const started = Date.now();
    const searched = await searchPoints(walk, groups, walked.rows, walked.leafCountError, { stopped: () => Date.now() >= stopAt, deadline: Date.now() + 60_000, breathe, threads: 2 });
    assert.ok(Date.now() - started < 1_500, `stopped after ${Date.now() - started} ms`);
    assert.equal(searched.leafCountError, leafCountError(walk));
  });
});

describe('point search on small random forests over integers', () => {
  it('never raises the error, reports it truly and keeps rows in their groups (40 seeds)', async () => {
    let lowered = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const label = `seed ${seed}`;
      const { forest } = randomIntegerForest({ features: 3, levels: 8, rows: 40, classes: 2, trees: 6, maxDepth: 5 }, seed * 131);
      const { table, walk, groups, walkError, rows, before, searched } = await walkThenSearch(forest, 300);
      assert.ok(searched.leafCountError <= walkError, `${label}: ${walkError} -> ${searched.leafCountError}`);
      if (searched.leafCountError < walkError) lowered++;
      assert.equal(searched.leafCountError, leafCountError(walk), `${label}: reported error against the open counts`);
      assert.equal(searched.leafCountError, routedLeafCountError(forest, asReported(table, forest, rows)), `${label}: against routing the points`);
      checkInsideGroups(label, rows, groups, before);
    }
    assert.ok(lowered > 0, 'the search lowered the error on no seed');
  });
});
