/**
 * Class weights divided back out (server/src/formats/sklearn/class-weights.ts), against the
 * fixtures of test/fixtures/class-weights (scikit-learn 1.2.1): without bootstrap, every node's
 * counts per class equal the training rows scikit-learn's own trees route there, N is stated, and
 * the model is reconstructed with every certified row a real training row; with bootstrap draws
 * or an arbitrary sample_weight the counts stay weighted.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkReplay } from '../../server/src/attacks/bootstrap-replay';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { readFixtureForest } from '../support/model-files';
import { readTrainingRows } from '../support/reconstruction-truth';

const DIR = path.resolve(__dirname, '../../../test/fixtures/class-weights');
const manifest = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8')) as { file: string; rows: boolean; n: number; counts?: number[][]; replayedN?: boolean }[];

describe('class weights: divided out where they are class weights on rows, kept where not', () => {
  it('covers balanced and dict weights without bootstrap, and both kinds that stay weighted', () => {
    assert.ok(manifest.filter((e) => e.rows).length >= 3 && manifest.filter((e) => !e.rows).length >= 2);
  });
  for (const entry of manifest) {
    it(entry.file, () => {
      const forest = readFixtureForest(DIR, entry.file);
      if (!entry.rows) {
        assert.equal(forest.training.weighted, true, 'the counts stay weighted');
        // Integer weights with bootstrap: the root's weight is draws x weights, not N (the reader
        // claims none); the seeds replay at the true N.
        if (entry.replayedN) {
          assert.equal(forest.training.rows, undefined, 'no N from the weighted root');
          const replay = checkReplay(forest);
          assert.equal(replay.status, 'replayed');
          if (replay.status === 'replayed') assert.equal(replay.rows, entry.n);
        }
        return;
      }
      assert.equal(forest.training.weighted, false);
      assert.equal(forest.training.rows, entry.n);
      assert.deepEqual(forest.trees.map((t) => t.classWeights), entry.counts, 'row counts per node and class, as the trees route the training rows');
    });
  }
});

describe('class weights: a balanced forest without bootstrap is reconstructed, soundly', () => {
  it('rf_balanced_compas: certified rows are real training rows', async () => {
    const forest = readFixtureForest(DIR, 'rf_balanced_compas.joblib');
    const result = await reconstruct(forest, { budgetMs: 20_000 });
    assert.ok(result.status === 'exact' || result.status === 'bounded', `${result.status}: ${result.reason ?? ''}`);
    assert.ok(result.certifiedRows > 0, 'rows are certified');
    const truth = readTrainingRows(path.join(DIR, 'rf_balanced_compas.train.csv')).rows.map((r) => JSON.stringify([r.values, r.label]));
    const left = new Map<string, number>();
    for (const key of truth) left.set(key, (left.get(key) ?? 0) + 1);
    for (const row of result.reconstruction.filter((r) => r.certified)) {
      // A certified row's determined values are the real row's; undetermined ones (null) match any.
      const match = [...left.keys()].find((key) => {
        const [values, label] = JSON.parse(key) as [number[], number];
        return (left.get(key) ?? 0) > 0 && String(label) === String(row.label) && row.values.every((v, i) => v === null || v === values[i]);
      });
      assert.ok(match, `certified row not in the training data: ${JSON.stringify(row)}`);
      left.set(match, left.get(match)! - 1);
    }
  });
});
