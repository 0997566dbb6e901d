/**
 * Boosted models of a million rows (stop 32): past memory.ts's HESSIAN_MATCH_CELL_CAP the later
 * trees are not matched and tree 0's exact counts answer alone, with its rows sharing their leaf's
 * box; the box widths are measured once per shared box. Public XGBoost files of 455k to 1.2M rows
 * ran out of the 1 GB ceiling ("failed") before. Checked here on the committed bin_pima fixture
 * (200 rows, XGBoost 1.7.4) with the cap lowered, against its true training rows.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { certifiedBoxTightness } from '../../server/src/attacks/reconstruction/boxes/row-tightness';
import { weightedMedian } from '../../server/src/attacks/reconstruction/boxes/tightness';
import { maximumMatching } from '../support/bipartite-matching';
import { FIXTURES } from '../support/paths';
import { readFixtureForest } from '../support/model-files';

const DIR = path.join(FIXTURES, 'xgboost');
const truth = fs.readFileSync(path.join(DIR, 'bin_pima.train.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').map(Number));

describe('boosted models past the matching cap', () => {
  it('answers with tree 0 alone: every row certified in its leaf box, each holding a distinct true row with its label', async () => {
    const forest = readFixtureForest(DIR, 'bin_pima.json');
    const full = await reconstruct(forest, { budgetMs: 20_000 });
    const capped = await reconstruct(forest, { budgetMs: 20_000, hessianMatchCellCap: 100 });
    assert.equal(capped.method, 'boosting-hessians');
    assert.match(capped.reason ?? '', /past the 100 cells the matching of the later trees holds within the memory ceiling, so only tree 0 is read/);
    assert.equal(capped.stats.treesMatched, 1);
    assert.ok((full.stats.treesMatched ?? 0) > 1, 'the full run matches the later trees');
    // The same certified rows as the full run (tree 0 certifies them either way), fewer seconds.
    assert.equal(capped.certifiedRows, full.certifiedRows);
    assert.equal(capped.certifiedRows, truth.length);
    const F = truth[0].length - 1;
    const inBox = (row: (typeof capped.reconstruction)[number], t: number[]) =>
      String(row.label) === String(t[F]) && (row.intervals ?? []).every((b, f) => b === null || (Math.fround(t[f]) >= b[0] && Math.fround(t[f]) < b[1]));
    const adjacency = capped.reconstruction.map((row) => truth.flatMap((t, i) => (row.certified && inBox(row, t) ? [i] : [])));
    assert.equal(maximumMatching(adjacency, truth.length).size, capped.certifiedRows, 'a certified box without its own true row');
    // A leaf's rows share one box: as many distinct boxes as tree 0 has leaves with rows.
    const distinct = new Set(capped.reconstruction.map((row) => row.intervals));
    assert.ok(distinct.size < capped.reconstruction.length / 4, `${distinct.size} boxes for ${capped.reconstruction.length} rows`);
    // Measured once per shared box, weighted: the widths a row-by-row measure (copies) gives.
    const copies = capped.reconstruction.map((row) => ({ ...row, intervals: row.intervals?.map((b) => (b ? ([b[0], b[1]] as [number, number]) : null)) }));
    assert.ok(capped.boxes);
    assert.deepEqual(capped.boxes, certifiedBoxTightness(forest, copies));
  });

  it('weights a shared box by its rows: the median of the expanded list', () => {
    const values = Float64Array.from([0.9, 0.1, 0.5, 0.3]);
    const weights = Float64Array.from([1, 5, 1, 1]);
    // expanded: 0.1 x5, 0.3, 0.5, 0.9 -> 8 values, middle two 0.1 and 0.1
    assert.equal(weightedMedian(values, weights), 0.1);
    assert.equal(weightedMedian(Float64Array.from([0.9, 0.1, 0.5, 0.3]), Float64Array.from([1, 1, 1, 1])), 0.4);
    // random lists against the plain median of the expanded list
    let s = 7;
    const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(rand() * 9);
      const v = Float64Array.from({ length: n }, () => Math.round(rand() * 10) / 10);
      const w = Float64Array.from({ length: n }, () => 1 + Math.floor(rand() * 4));
      const expanded = [...v].flatMap((x, i) => Array<number>(w[i]).fill(x)).sort((a, b) => a - b);
      const mid = expanded.length >> 1;
      const plain = expanded.length % 2 ? expanded[mid] : (expanded[mid - 1] + expanded[mid]) / 2;
      assert.ok(Math.abs(weightedMedian(v, w) - plain) < 1e-12, `${[...v]} x ${[...w]}`);
    }
  });
});
