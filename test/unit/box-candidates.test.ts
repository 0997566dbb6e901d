/**
 * Candidates (server/src/attacks/reconstruction/boxes/box-forest.ts): `best` is the walks' choice
 * (complete.ts) made without listing every leaf: of the leaves `find` lists, the first with the most
 * rows of the class still to place, with that leaf's box. Checked against `find` plus that pick on a
 * real scikit-learn forest (test/fixtures/row-boxes) and on random integer forests, for random boxes
 * and random open counts (some leaves over-full, so the room test matters), with and without
 * `ignoreRoom`.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { boxForest, Candidates, type BoxForest } from '../../server/src/attacks/reconstruction/boxes/box-forest';
import { buildLeafTable } from '../../server/src/attacks/reconstruction/leaves';
import { seededRandom } from '../../server/src/evaluate/seeded-random';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { randomIntegerForest, type NumericFixtureEntry } from '../support/numeric-truth';
import { FIXTURES } from '../support/paths';

const DIR = join(FIXTURES, 'row-boxes');

function boxes(forest: Forest): BoxForest {
  const prepared = buildLeafTable(forest);
  assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
  return boxForest(forest, prepared.table);
}

/** Compares best() with find() + the first leaf of most room, over `trials` random boxes and open counts; returns how many found a leaf with room. */
function compare(walk: BoxForest, seed: number, trials: number): number {
  const random = seededRandom(seed);
  const { features, classes } = walk;
  const listing = new Candidates(features);
  const picking = new Candidates(features);
  let withRoom = 0;
  for (let trial = 0; trial < trials; trial++) {
    const t = Math.floor(random() * walk.trees.length);
    const tree = walk.trees[t];
    const c = Math.floor(random() * classes);
    // Open counts: the stored ones with a random share of the leaves over-full (negative), inner nodes summed.
    const open = tree.counts.slice();
    for (let n = tree.left.length - 1; n >= 0; n--) {
      for (let k = 0; k < classes; k++) {
        if (tree.left[n] === -1) open[n * classes + k] -= Math.floor(random() * 4);
        else open[n * classes + k] = open[tree.left[n] * classes + k] + open[tree.right[n] * classes + k];
      }
    }
    const low = new Int32Array(features);
    const high = Int32Array.from(walk.intervals, (k) => k - 1);
    for (let f = 0; f < features; f++) {
      if (random() < 0.5) continue;
      const a = Math.floor(random() * walk.intervals[f]);
      const b = Math.floor(random() * walk.intervals[f]);
      low[f] = Math.min(a, b);
      high[f] = Math.max(a, b);
    }
    for (const ignoreRoom of [false, true]) {
      const label = `tree ${t}, class ${c}, ignoreRoom ${ignoreRoom}, trial ${trial}`;
      const found = listing.find(tree, open, classes, c, low, high, ignoreRoom);
      const bestLow = low.slice();
      const bestHigh = high.slice();
      const leaf = picking.best(tree, open, classes, c, bestLow, bestHigh, ignoreRoom);
      if (found === 0) {
        assert.equal(leaf, -1, `${label}: no leaf listed, best gave ${leaf}`);
        assert.deepEqual([...bestLow, ...bestHigh], [...low, ...high], `${label}: the box changed though no leaf was found`);
        continue;
      }
      let pick = 0;
      for (let k = 1; k < found; k++) if (open[listing.leaves[k] * classes + c] > open[listing.leaves[pick] * classes + c]) pick = k;
      assert.equal(leaf, listing.leaves[pick], label);
      const expectLow = new Int32Array(features);
      const expectHigh = new Int32Array(features);
      listing.copyBox(pick, expectLow, expectHigh);
      assert.deepEqual([...bestLow], [...expectLow], `${label}: low`);
      assert.deepEqual([...bestHigh], [...expectHigh], `${label}: high`);
      if (!ignoreRoom) withRoom++;
    }
  }
  return withRoom;
}

describe('Candidates.best: the walks\' pick without the list', () => {
  it('matches find + the first leaf of most room on a real scikit-learn forest', async () => {
    const manifest: NumericFixtureEntry[] = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));
    const entry = manifest.find((m) => m.name === 'pima_rf25')!;
    const report = await lintFile(join(DIR, entry.model), { keepForest: true });
    const withRoom = compare(boxes(report.forest!), 5, 400);
    assert.ok(withRoom > 100, `only ${withRoom} of 400 trials found a leaf with room: the comparison barely ran`);
  });

  it('matches it on random integer forests (20 seeds)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { forest } = randomIntegerForest({ features: 3, levels: 8, rows: 40, classes: 3, trees: 4, maxDepth: 5 }, seed * 977);
      compare(boxes(forest), seed, 50);
    }
  });
});
