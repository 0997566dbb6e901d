/**
 * HistGradientBoosting compares float64 values with float64 thresholds (forest/value-precision.ts);
 * scikit-learn's other trees and XGBoost compare float32 casts. Checked on a real HGB fixture:
 * a value at a threshold's exact float64 value goes left there, though its float32 cast lies
 * above it, and the membership walk (leavesOf, cellBox) follows the model.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { it } from 'node:test';
import { LEAF, type Forest } from '../../server/src/forest/schema';
import { leafOf } from '../../server/src/forest/structure';
import { comparesAsFloat32 } from '../../server/src/forest/value-precision';
import { lintFile } from '../../server/src/linter/linter';
import { cellBox } from '../../server/src/membership/cell';
import { leavesOf } from '../../server/src/membership/leaves';
import { FIXTURES } from '../support/paths';

async function forestOf(path: string): Promise<Forest> {
  const report = await lintFile(path, { keepForest: true });
  assert.ok(report.forest, path);
  return report.forest;
}

it('a HistGradientBoosting value at a threshold exactly goes left, as the model sends it; a forest casts to float32', async () => {
  const hgb = await forestOf(join(FIXTURES, 'estimators', 'hgb_clf.joblib'));
  assert.equal(comparesAsFloat32(hgb), false);
  // A split whose threshold is no float32 value: its float32 cast lies on one side of it.
  let found: { t: number; node: number } | undefined;
  hgb.trees.forEach((tree, t) => {
    tree.left.forEach((left, node) => {
      if (!found && left !== LEAF && Math.fround(tree.threshold[node]) > tree.threshold[node]) found = { t, node };
    });
  });
  assert.ok(found, 'a threshold above its float32 cast');
  const tree = hgb.trees[found.t];
  // A row that reaches that node (the path's conditions), with the split's feature at its threshold.
  const values = new Array<number>(hgb.features.length).fill(0);
  const path: [number, boolean][] = [];
  for (let n = found.node, parent = -1; n !== 0; n = parent) {
    parent = tree.left.indexOf(n) >= 0 ? tree.left.indexOf(n) : tree.right.indexOf(n);
    path.unshift([parent, tree.left[parent] === n]);
  }
  const low = new Array<number>(hgb.features.length).fill(-Infinity);
  const high = new Array<number>(hgb.features.length).fill(Infinity);
  for (const [n, left] of path) {
    const f = tree.feature[n];
    if (left) high[f] = Math.min(high[f], tree.threshold[n]);
    else low[f] = Math.max(low[f], tree.threshold[n]);
  }
  for (let f = 0; f < values.length; f++) values[f] = Number.isFinite(high[f]) ? high[f] : Number.isFinite(low[f]) ? low[f] + 1 : 0;
  const f = tree.feature[found.node];
  values[f] = tree.threshold[found.node];
  assert.ok(values[f] > low[f] && values[f] <= high[f], 'the value stays on the path');
  const reached = (cast?: (v: number) => number) => {
    let n = 0;
    while (n !== found!.node && tree.left[n] !== LEAF) n = (cast ?? Math.fround)(values[tree.feature[n]]) <= tree.threshold[n] ? tree.left[n] : tree.right[n];
    return n;
  };
  assert.equal(reached((v) => v), found.node, 'the float64 walk reaches the node');
  // In float64 the value is at the threshold: left. Its float32 cast is above: right.
  const leaves = leavesOf(hgb, values);
  const leftLeaf = leafOf({ ...tree }, values, hgb.splitRule, (v) => v);
  assert.equal(leaves[found.t], leftLeaf);
  assert.notEqual(leafOf(tree, values, hgb.splitRule), leftLeaf, 'the float32 walk would go right');
  // The membership cell holds the value on that feature.
  const cell = cellBox(hgb, values);
  assert.ok(values[f] > cell.lower[f] && values[f] <= cell.upper[f], `${cell.lower[f]} < ${values[f]} <= ${cell.upper[f]}`);
  // A RandomForest compares float32 casts.
  const forest = await forestOf(join(FIXTURES, 'numeric', 'pima_t10_d5.joblib'));
  assert.equal(comparesAsFloat32(forest), true);
});
