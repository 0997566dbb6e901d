/**
 * The benchmark's per-row baseline (test/bench/support/draft-per-row.ts) must be a correct
 * formulation, or the speed-up measured against it means nothing: on a real scikit-learn forest
 * the rows it returns, routed down every tree, reproduce every stored leaf count.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadHighs } from '../../server/src/attacks/reconstruction/highs';
import { buildLeafTable, type LeafTable } from '../../server/src/attacks/reconstruction/leaves';
import { lintFile } from '../../server/src/linter/linter';
import { solvePerRow } from '../bench/support/draft-per-row';
import { FIXTURES } from '../support/paths';
import type { FixtureEntry } from '../support/reconstruction-truth';

const DIR = join(FIXTURES, 'reconstruction');
const manifest: FixtureEntry[] = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));

/** Leaf of tree t that a row with these (binary) values reaches, or -1 when a literal has no value. */
function leafOf(table: LeafTable, t: number, values: (number | null)[]): number {
  const tree = table.trees[t];
  for (let l = 0; l < tree.nodes.length; l++) {
    let inside = true;
    for (let q = tree.literalStart[l]; q < tree.literalStart[l + 1] && inside; q++) inside = values[tree.literalFeature[q]] === tree.literalValue[q];
    if (inside) return l;
  }
  return -1;
}

describe('per-row DRAFT-style baseline', () => {
  it('returns rows that reproduce every leaf count of a real forest', async () => {
    const entry = manifest.find((e) => e.name === 'rf_compas_t10_d3')!;
    const report = await lintFile(join(DIR, entry.model), { keepForest: true });
    const built = buildLeafTable(report.forest!);
    assert.ok(built.ok);
    const table = built.table;
    const result = solvePerRow(await loadHighs(), table, entry.groups, 60);
    assert.equal(result.status, 'solved', result.detail);
    assert.equal(result.rows!.length, table.rows);
    for (let t = 0; t < table.trees.length; t++) {
      const counts = new Int32Array(table.trees[t].counts.length);
      for (const row of result.rows!) {
        const leaf = leafOf(table, t, row.values);
        assert.ok(leaf >= 0, `tree ${t}: a reconstructed row reaches no leaf`);
        counts[leaf * table.classes + row.label] += 1;
      }
      assert.deepEqual([...counts], [...table.trees[t].counts], `tree ${t}`);
    }
    for (const row of result.rows!) {
      for (const group of entry.groups) assert.ok(group.features.filter((f) => row.values[f] === 1).length <= 1, 'one-hot group broken');
    }
  });
});
