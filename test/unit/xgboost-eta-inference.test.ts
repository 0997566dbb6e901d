/**
 * The learning rate of XGBoost models saved without it (test/fixtures/xgboost-eta, written by
 * generate.py with xgboost 1.7.4).
 *
 * A shallow one (hist, depth 2, eta 0.05). The hist updater stores
 * eta x w on the leaves, so eta comes from the internal nodes; three of them cannot fit lambda and
 * eta together, and the probe read eta 1 and no positives (a public XGBoost 3.1 JSON: sweep 18).
 * With lambda at XGBoost's default, the nodes agree on eta 0.05: the positives come out as the
 * training rows hold them, and rest on that assumed lambda (so they certify no label).
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { leafOf } from '../../server/src/forest/structure';
import { lintFile } from '../../server/src/linter/linter';
import { nativeNodeId } from '../../server/src/forest/boosting';
import { FIXTURES } from '../support/paths';

const DIR = join(FIXTURES, 'xgboost-eta');

describe('eta of a shallow hist model that does not state it', () => {
  it('is found from the internal nodes under the default lambda, and the positives per leaf are the true ones', async () => {
    const forest = (await lintFile(join(DIR, 'shallow_hist.json'), { keepForest: true })).forest!;
    const probe = probeFirstTrees(forest);
    assert.equal(probe.status, 'exact', probe.caveats.join(' '));
    assert.ok(Math.abs((probe.parameters.eta?.value ?? 0) - 0.05) < 1e-6, JSON.stringify(probe.parameters));
    assert.equal(probe.parameters.lambda?.source, 'assumed');
    // The truth: every training row routed through tree 0, counted per leaf and label.
    const lines = readFileSync(join(DIR, 'shallow_hist.train.csv'), 'utf8').trim().split('\n').slice(1);
    const tree = forest.trees[probe.trees[0].tree];
    const rows = new Map<number, number>();
    const positives = new Map<number, number>();
    for (const line of lines) {
      const cells = line.split(',').map(Number);
      const leaf = leafOf(tree, cells.slice(0, -1), forest.splitRule);
      rows.set(leaf, (rows.get(leaf) ?? 0) + 1);
      positives.set(leaf, (positives.get(leaf) ?? 0) + cells[cells.length - 1]);
    }
    assert.equal(probe.trees[0].leaves.length, 4);
    for (const leaf of probe.trees[0].leaves) {
      assert.equal(leaf.rows, rows.get(leaf.node), `leaf ${leaf.node} rows`);
      assert.equal(leaf.positives, positives.get(leaf.node), `leaf ${leaf.node} positives`);
    }
  });

  // 800,000 rows with a fractional scale_pos_weight: lambda's share of H + lambda is too small to
  // fit beside eta, and the probe read no rows at all (a public JSON of 860,719 rows: sweep 18).
  it('is found under the default lambda when hundreds of thousands of rows leave lambda unfittable: rows and positives per leaf as XGBoost routed them', async () => {
    const forest = (await lintFile(join(DIR, 'spw_hist.json'), { keepForest: true })).forest!;
    const probe = probeFirstTrees(forest);
    assert.equal(probe.status, 'exact', probe.reason ?? probe.caveats.join(' '));
    assert.ok(Math.abs((probe.parameters.eta?.value ?? 0) - 0.05) < 1e-6, JSON.stringify(probe.parameters));
    assert.equal(probe.parameters.lambda?.source, 'assumed');
    assert.equal(probe.rows, 800_000);
    const truth = JSON.parse(readFileSync(join(DIR, 'spw_hist.leaves.json'), 'utf8')) as Record<string, [number, number]>;
    const tree = forest.trees[probe.trees[0].tree];
    assert.equal(probe.trees[0].leaves.length, Object.keys(truth).length);
    for (const leaf of probe.trees[0].leaves) {
      const [rows, positives] = truth[String(nativeNodeId(tree, leaf.node))];
      assert.equal(leaf.rows, rows, `leaf ${leaf.node} rows`);
      assert.equal(leaf.positives, positives, `leaf ${leaf.node} positives`);
    }
  });

  it("the finding says the labels rest on the default regularisation, where the rows are exact", async () => {
    // Sweep 18: "states, exactly, ... 49 with label 1" above "lambda=1 and alpha=0 ... assumed".
    const assumed = (await lintFile(join(DIR, 'shallow_hist.json'))).findings.find((f) => f.rule === 'first-tree-exposes-counts')!;
    assert.match(assumed.message, /states, exactly for rows, and for labels under XGBoost's default regularisation \(see below\), how many/);
    assert.match(assumed.message, /Lambda=1 and alpha=0 are XGBoost's defaults, assumed/);
    // A model whose lambda and alpha are found from its nodes: exactly, for both.
    const found = (await lintFile(join(FIXTURES, 'xgboost', 'bin_pima.json'))).findings.find((f) => f.rule === 'first-tree-exposes-counts')!;
    assert.match(found.message, /states, exactly, how many/);
  });
});
