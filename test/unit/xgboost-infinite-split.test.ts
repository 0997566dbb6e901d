/**
 * XGBoost's split `x < inf` (test/fixtures/xgboost-overflow, written by generate.py with xgboost
 * 1.7.4's exact method: two codes near 3.4e38 whose float32 midpoint overflows). A model of
 * XGBoost before 1.0 with 63 such splits read "corrupt" (sweep 17), its re-save as JSON "not valid
 * JSON" (a bare `Infinity`), and a dump's `inf` read as NaN. Checked against the library's own
 * view: its JSON dump's split conditions, and `pred_leaf` for every training row.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { checkCertifiedRows } from '../../server/src/evaluate/certified-check';
import { alignTrainingData, readTrainingData } from '../../server/src/evaluate/training-data';
import { nativeNodeId } from '../../server/src/forest/boosting';
import { BELOW_INFINITY_THRESHOLD, MISSING_ONLY_THRESHOLD } from '../../server/src/forest/missing-split';
import { leafOf } from '../../server/src/forest/structure';
import { withFiniteTokens } from '../../server/src/formats/xgboost/json-nan';
import { lintFile } from '../../server/src/linter/linter';
import { formatCondition } from '../../server/src/rules/conditions';
import { FIXTURES } from '../support/paths';

const DIR = join(FIXTURES, 'xgboost-overflow');
const FILES = ['overflow_split.json', 'overflow_split.dump.txt', 'overflow_split.dump.json'];

interface DumpNode {
  nodeid: number;
  split?: string;
  split_condition?: number;
  children?: DumpNode[];
}

/** The library's JSON dump (its `inf` read as Infinity): split condition per tree and node id. */
function dumpConditions(): Map<number, number>[] {
  const trees = JSON.parse(withFiniteTokens(readFileSync(join(DIR, 'overflow_split.dump.json'), 'utf8'))) as DumpNode[];
  return trees.map((root) => {
    const conditions = new Map<number, number>();
    const visit = (node: DumpNode) => {
      if (node.split_condition !== undefined) conditions.set(node.nodeid, node.split_condition);
      node.children?.forEach(visit);
    };
    visit(root);
    return conditions;
  });
}

async function load(file: string) {
  const report = await lintFile(join(DIR, file), { keepForest: true });
  assert.ok(report.forest, `${file}: ${report.findings.map((f) => f.message).join('\n')}`);
  return report;
}

describe("XGBoost's split at x < inf", () => {
  it('the model, its text dump and its JSON dump are read: every inf condition at 2^128, every other as the library states it', async () => {
    const truth = dumpConditions();
    const infinite = [...truth.values()].reduce((n, m) => n + [...m.values()].filter((c) => c === Infinity).length, 0);
    assert.ok(infinite >= 10, `${infinite} splits at inf in the fixture`);
    for (const file of FILES) {
      const forest = (await load(file)).forest!;
      assert.equal(forest.trees.length, truth.length, file);
      let seen = 0;
      forest.trees.forEach((tree, t) => {
        for (let node = 0; node < tree.left.length; node++) {
          if (tree.left[node] === -1) continue;
          const condition = truth[t].get(nativeNodeId(tree, node));
          assert.ok(condition !== undefined, `${file} tree ${t} node ${node}`);
          if (condition === Infinity) seen++;
          assert.equal(tree.threshold[node], condition === Infinity ? BELOW_INFINITY_THRESHOLD : Math.fround(condition), `${file} tree ${t} node ${node}`);
        }
      });
      assert.equal(seen, infinite, file);
    }
  });

  it('routes every training row where XGBoost does, the rows at the largest float32 included', async () => {
    const forest = (await load('overflow_split.json')).forest!;
    const leaves = JSON.parse(readFileSync(join(DIR, 'overflow_split.leaves.json'), 'utf8')) as number[][];
    const rows = readFileSync(join(DIR, 'overflow_split.train.csv'), 'utf8').trim().split('\n').slice(1).map((line) => line.split(',').slice(0, 4).map(Number));
    const atMax = rows.filter((r) => Math.fround(r[0]) === MISSING_ONLY_THRESHOLD).length;
    // Read as `x < FLT_MAX` these rows would go right, where XGBoost sends them left.
    assert.ok(atMax > 10, `${atMax} rows at the largest float32`);
    rows.forEach((values, i) => forest.trees.forEach((tree, t) => assert.equal(nativeNodeId(tree, leafOf(tree, values, forest.splitRule)), leaves[i][t], `row ${i + 1}, tree ${t}`)));
  });

  it('the first tree still counts the rows (its leaves of cover 0 hold none), and every proven box holds a distinct true row', async () => {
    const forest = (await load('overflow_split.json')).forest!;
    const probe = probeFirstTrees(forest);
    assert.notEqual(probe.status, 'not-applicable', probe.reason);
    assert.equal(probe.rows, 300);
    const result = await reconstruct(forest, { budgetMs: 5_000 });
    assert.ok(result.status !== 'skipped' && result.status !== 'failed', result.reason);
    const data = await readTrainingData(join(DIR, 'overflow_split.train.csv'), 'label');
    const fit = alignTrainingData(data, forest);
    assert.ok(fit.ok, fit.ok ? '' : fit.problem);
    const proven = result.reconstruction.filter((r) => r.certified || r.certifiedValues?.some((x) => x)).length;
    assert.ok(proven > 0, result.reason);
    assert.deepEqual(checkCertifiedRows(forest, result.reconstruction, fit.aligned.rows), { proven, held: proven });
  });

  it('says such a bound as "finite" and "= inf or missing", not as 3.4e38', async () => {
    const forest = (await load('overflow_split.json')).forest!;
    assert.equal(formatCondition(forest, { feature: 0, upper: BELOW_INFINITY_THRESHOLD }), 'f0 finite');
    assert.equal(formatCondition(forest, { feature: 0, lower: BELOW_INFINITY_THRESHOLD }), 'f0 = inf or missing');
    assert.equal(formatCondition(forest, { feature: 0, lower: 2.5, upper: BELOW_INFINITY_THRESHOLD }), 'f0 >= 2.5 (finite)');
  });
});
