/**
 * XGBoost's hist method splits a 0/1 column at 1 itself (`x < 1`), not at 0.5 (sweep 10: two
 * public XGBClassifiers behind a OneHotEncoder ended `failed`, "categorical group ... names feature
 * N, which the forest splits as a numeric feature", and lost their reconstruction finding). On a
 * real Pipeline (test/fixtures/pipeline-inputs/xgb_onehot.py, python3-xgboost 1.7.4, every one-hot
 * split at 1): the one-hot columns read as 0/1, the Pipeline's groups hold, the reconstruction
 * certifies rows, and every proven row pairs with a distinct training row. A group that names a
 * column the forest does split as a number is left out with a note, not the whole reconstruction.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { featureAxes } from '../../server/src/attacks/reconstruction/feature-axes';
import { checkCertifiedRows } from '../../server/src/evaluate/certified-check';
import { alignTrainingData, readTrainingData } from '../../server/src/evaluate/training-data';
import { leafOf } from '../../server/src/forest/structure';
import { lintFile } from '../../server/src/linter/linter';
import { declaredGroupsFor } from '../../server/src/recoverability/declared-groups';
import { FIXTURES } from '../support/paths';

const MODEL = join(FIXTURES, 'pipeline-inputs', 'stroke_xgb_onehot.joblib');
const TRAIN = join(FIXTURES, 'pipeline-inputs', 'stroke_xgb_onehot.train.csv');

async function load() {
  const report = await lintFile(MODEL, { keepForest: true });
  assert.ok(report.forest, report.findings.map((f) => f.message).join('\n'));
  const declared = await declaredGroupsFor(MODEL, report.forest);
  return { forest: report.forest, groups: declared.groups };
}

describe('XGBoost hist splits of one-hot columns (x < 1)', () => {
  it('read as 0/1, and the Pipeline\'s groups hold', async () => {
    const { forest, groups } = await load();
    assert.equal(forest.splitRule, 'less');
    const axes = featureAxes(forest);
    assert.ok(axes.ok);
    const onehot = forest.features.flatMap((f, i) => (f.name.startsWith('cat__') ? [i] : []));
    const split = onehot.filter((f) => axes.axes.thresholds[f].length > 0);
    assert.ok(split.length > 0, 'some one-hot column is split');
    for (const f of split) {
      assert.deepEqual(Array.from(axes.axes.thresholds[f]), [1], forest.features[f].name);
      assert.equal(axes.axes.binary[f], 1, `${forest.features[f].name} is 0/1`);
    }
    // A numeric column split at 1 would stay numeric: only declared 0/1 columns are read so.
    for (let f = 0; f < forest.features.length; f++) if (!onehot.includes(f) && axes.axes.thresholds[f].length > 0) assert.equal(axes.axes.binary[f], 0);
    assert.equal(groups.length, 2);
  });

  it('certifies rows with the groups, each a distinct training row', async () => {
    const { forest, groups } = await load();
    const result = await reconstruct(forest, { budgetMs: 8_000, groups });
    assert.notEqual(result.status, 'failed', result.reason);
    assert.ok(result.certifiedRows > 0, result.reason);
    assert.doesNotMatch(result.reason ?? '', /left out/);
    const fit = alignTrainingData(await readTrainingData(TRAIN, 'work_type'), forest);
    assert.ok(fit.ok, fit.ok ? '' : fit.problem);
    const proven = result.reconstruction.filter((r) => r.certified).length;
    assert.deepEqual(checkCertifiedRows(forest, result.reconstruction, fit.aligned.rows), { proven, held: proven });
  });

  it('a group naming a column split as a number is left out with a note, the reconstruction goes on', async () => {
    const { forest, groups } = await load();
    const age = forest.features.findIndex((f) => f.name === 'num__age');
    const wrong = [...groups, { kind: 'at-most-one' as const, features: [age, groups[0].features[0]] }];
    const result = await reconstruct(forest, { budgetMs: 8_000, groups: wrong });
    assert.notEqual(result.status, 'failed', result.reason);
    assert.ok(result.certifiedRows > 0);
    assert.match(result.reason ?? '', /a declared group was left out: each names a feature the forest splits as a number, not as 0\/1: num__age \(split at /);
  });

  it("behind a sparse OneHotEncoder (a present 1, an absent 'missing'), the splits read as 0/1: every row reaches XGBoost's own leaf, the groups hold, every proven row is a true row", async () => {
    const model = join(FIXTURES, 'pipeline-inputs', 'stroke_xgb_sparse_onehot.joblib');
    const truth = JSON.parse(readFileSync(join(FIXTURES, 'pipeline-inputs', 'stroke_xgb_sparse_onehot.truth.json'), 'utf8'));
    const report = await lintFile(model, { keepForest: true });
    const forest = report.forest!;
    assert.deepEqual(forest.features.map((f) => f.name), truth.features);
    assert.ok(report.notes.some((n) => /splits on one-hot columns \(a present 1 one way, an absent 0 the other\) are read as splits between 0 and 1/.test(n)), report.notes.join(' | '));
    const axes = featureAxes(forest);
    assert.ok(axes.ok);
    const onehot = forest.features.flatMap((f, i) => (f.name.startsWith('cat__') && axes.axes.thresholds[i].length > 0 ? [i] : []));
    assert.ok(onehot.length > 0);
    for (const f of onehot) assert.equal(axes.axes.binary[f], 1, forest.features[f].name);
    truth.rows.forEach((row: number[], r: number) => forest.trees.forEach((tree, t) => assert.equal(leafOf(tree, row, forest.splitRule), truth.leaves[r][t], `row ${r + 1}, tree ${t}`)));
    const declared = await declaredGroupsFor(model, forest);
    const result = await reconstruct(forest, { budgetMs: 8_000, groups: declared.groups });
    assert.doesNotMatch(result.reason ?? '', /left out/);
    assert.ok(result.certifiedRows > 0, result.reason);
    const rows = truth.rows.map((values: number[], r: number) => ({ values, label: truth.labels[r] }));
    const proven = result.reconstruction.filter((x) => x.certified || x.certifiedValues?.some((v) => v)).length;
    assert.deepEqual(checkCertifiedRows(forest, result.reconstruction, rows), { proven, held: proven });
  });
});
