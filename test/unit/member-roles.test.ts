/**
 * Wrappers that change what their member's numbers mean (formats/sklearn/member-roles.ts): a
 * OneVsRestClassifier's members are binary models of "class c or not", and a
 * TransformedTargetRegressor's regressor was fitted on the transformed target. Fixtures:
 * test/fixtures/containers/generate.py (scikit-learn 1.2.1).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { completeForest } from '../../server/src/forest/complete';
import { readModel } from '../../server/src/formats';
import { formatClass } from '../../server/src/rules/format';
import { leafRevealsTarget } from '../../server/src/rules/leaf-reveals-target';

const DIR = path.resolve(__dirname, '../../../test/fixtures/containers');
const read = (name: string) => {
  const r = readModel(fs.readFileSync(path.join(DIR, name)), name);
  assert.equal(r.kind, 'model');
  if (r.kind !== 'model') throw new Error('not a model');
  return r;
};

describe('member roles', () => {
  it('OneVsRestClassifier: each member knows its class; its 0 and 1 read "not c" and c', () => {
    const r = read('one_vs_rest.joblib');
    const members = [{ location: r.location!, forest: r.forest }, ...(r.others ?? [])];
    const positives = new Map(members.map((m) => [m.location, m.forest.oneVsRest?.positive]));
    // Three glucose bands: estimators_[k] is the model of band k against the rest.
    assert.deepEqual([0, 1, 2].map((k) => positives.get(`model.estimators_[${k}]`)), [0, 1, 2]);
    const done = completeForest(r.forest);
    assert.ok(done.ok);
    if (!done.ok) return;
    const k = done.forest.oneVsRest!.positive;
    assert.equal(formatClass(done.forest, 1), String(k));
    assert.equal(formatClass(done.forest, 0), `not ${String(k)}`);
    assert.ok(r.notes.some((n) => n.includes(`model of class ${String(k)} against the rest`)), r.notes.join(' | '));
  });

  it("TransformedTargetRegressor: the regressor's targets are log1p's, and leaf-reveals-target says so", () => {
    const r = read('transformed_target.joblib');
    assert.equal(r.location, 'model.regressor_');
    assert.equal(r.forest.targetTransform, 'numpy.log1p');
    assert.ok(r.notes.some((n) => /transformed by numpy\.log1p/.test(n)));
    // Make one leaf hold one row, as a deep tree's do, to see the wording (the fixture's trees are shallow).
    const done = completeForest(r.forest);
    assert.ok(done.ok);
    if (!done.ok) return;
    const tree = done.forest.trees[0];
    const leaf = Array.from(tree.left).findIndex((l) => l === -1);
    const distinct = Array.from(tree.distinctRows!);
    distinct[leaf] = 1;
    const forest = { ...done.forest, trees: [{ ...tree, distinctRows: distinct }] };
    const [finding] = leafRevealsTarget.check({ forest, categories: new Map() } as never);
    assert.match(finding.message, /\(as transformed by numpy\.log1p before fitting, which the TransformedTargetRegressor inverts\)/);
  });
});
