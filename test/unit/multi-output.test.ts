/**
 * Multi-output trees and forests (test/fixtures/estimators/generate.py, scikit-learn 1.2.1:
 * `fit(X, Y)` with two labels or targets per row). Every output's counts count the same rows, so
 * the first output is read: the IR is scikit-learn's first-output arrays, the rows come back with
 * that label, every certified box holds a distinct true training row with it, and the header and
 * findings say that the other output is not read. Before stop 32: `unsupported-model`.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import { lintBytes } from '../../server/src/linter/linter';
import { summarizeReconstruction } from '../../server/src/recoverability/summary';
import { writeText } from '../../server/src/report/text';
import { DEFAULT_THRESHOLDS, reconstructionDraft } from '../../server/src/rules/reconstructable-training-set';
import { maximumMatching } from '../support/bipartite-matching';
import { containsRow, readFloat32Rows } from '../support/numeric-truth';
import { FIXTURES } from '../support/paths';

const DIR = path.join(FIXTURES, 'estimators');

interface MultiOutputTruth {
  n: number;
  n_outputs: number;
  classes?: number[][];
  trees: { node_count: number; children_left: number[]; n_node_samples: number[]; weighted_n_node_samples: number[]; value: number[][] }[];
}

const truthOf = (name: string) => JSON.parse(fs.readFileSync(path.join(DIR, `${name}.truth.json`), 'utf8')) as MultiOutputTruth;
const bytesOf = (name: string) => new Uint8Array(fs.readFileSync(path.join(DIR, `${name}.joblib`)));

function forestOf(name: string): Forest {
  const read = readModel(bytesOf(name), `${name}.joblib`);
  assert.equal(read.kind, 'model', JSON.stringify(read).slice(0, 300));
  if (read.kind !== 'model') throw new Error('unreachable');
  const completed = completeForest(read.forest);
  assert.ok(completed.ok, completed.ok ? '' : completed.problem);
  return completed.forest;
}

describe('multi-output models: the first output is read', () => {
  for (const name of ['rf_multi_output', 'dt_multi_output']) {
    it(`${name}: the IR holds scikit-learn's first-output class counts and classes`, () => {
      const truth = truthOf(name);
      const forest = forestOf(name);
      assert.equal(truth.n_outputs, 2);
      assert.equal(forest.outputs, 2);
      assert.deepEqual(forest.classes, truth.classes![0]);
      const k = truth.classes![0].length;
      const stride = truth.trees[0].value[0].length / truth.n_outputs; // scikit-learn pads each output to the widest
      assert.ok(stride > k, 'the second output has more classes, so the first output is padded');
      assert.equal(forest.trees.length, truth.trees.length);
      forest.trees.forEach((tree, t) => {
        const tt = truth.trees[t];
        assert.deepEqual(tree.left, tt.children_left);
        const counts = tt.value.flatMap((v) => v.slice(0, k));
        assert.deepEqual(tree.classWeights, counts, `tree ${t}: the first output's counts`);
      });
    });
  }

  it('rf_reg_multi_output: the first target\'s means, no variance (the impurity averages both targets)', () => {
    const truth = truthOf('rf_reg_multi_output');
    const forest = forestOf('rf_reg_multi_output');
    assert.equal(forest.task, 'regression');
    assert.equal(forest.outputs, 2);
    forest.trees.forEach((tree, t) => {
      assert.deepEqual(tree.targetMean, truth.trees[t].value.map((v) => v[0]), `tree ${t}`);
      assert.equal(tree.targetVariance, undefined);
    });
  });

  for (const name of ['rf_multi_output', 'dt_multi_output', 'rf_reg_multi_output']) {
    it(`${name}: every certified box holds a distinct true training row with the first output's label`, async () => {
      const forest = forestOf(name);
      const rows = readFloat32Rows(path.join(DIR, `${name}.train.csv`));
      assert.equal(rows.length, truthOf(name).n);
      const r = await reconstruct(forest, { budgetMs: 10_000 });
      assert.notEqual(r.status, 'skipped', r.reason);
      const certified = r.reconstruction.filter((row) => row.certified && row.intervals);
      assert.ok(certified.length > 0, `${name}: nothing certified (${r.reason})`);
      // A regressor's label is its target: certified boxes are checked on the features alone.
      const holds = (row: (typeof certified)[number], i: number) =>
        forest.task === 'regression' ? containsRow({ ...row, label: rows[i].label }, rows[i]) : containsRow(row, rows[i]);
      const adjacency = certified.map((row) => rows.flatMap((_, i) => (holds(row, i) ? [i] : [])));
      assert.equal(maximumMatching(adjacency, rows.length).size, certified.length, 'a certified box without its own true row');
    });
  }

  it('says so: the header, the JSON model and the reconstruction finding', async () => {
    const report = lintBytes(bytesOf('dt_multi_output'), 'dt_multi_output.joblib');
    assert.equal(report.model?.outputs, 2);
    assert.ok(!report.findings.some((f) => f.rule === 'unsupported-model'), report.findings.map((f) => f.rule).join(', '));
    assert.match(writeText([report]), /DecisionTreeClassifier, 1 tree, 150 training rows, 2 outputs \(the first read\)/);
    const forest = forestOf('dt_multi_output');
    const result = await reconstruct(forest, { budgetMs: 10_000 });
    const finding = reconstructionDraft(forest, summarizeReconstruction(forest, result, { declared: 0, sources: [], problems: [] }), DEFAULT_THRESHOLDS);
    assert.match(finding?.draft.message ?? '', /Labels are the first of the model's 2 outputs; the other outputs are not reconstructed\./);
  });
});
