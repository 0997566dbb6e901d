/**
 * Bootstrap replay against scikit-learn itself: for every bootstrap fixture forest, the replayed
 * multiplicity of every row in every tree equals np.bincount(_generate_sample_indices(...)).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkReplay, replayMultiplicities } from '../../server/src/attacks/bootstrap-replay';
import { completeForest } from '../../server/src/forest/complete';
import { sklearnReader } from '../../server/src/formats/sklearn';
import { FIXTURES } from '../support/paths';

const DIR = join(FIXTURES, 'sklearn');

interface Truth {
  n_samples: number;
  n_samples_bootstrap?: number;
  bootstrap: boolean;
  trees: { random_state: number }[];
  bootstrap_multiplicities?: number[][];
}

const bootstrapped = readdirSync(DIR)
  .filter((name) => name.endsWith('.truth.json'))
  .map((name) => ({ name: name.replace('.truth.json', ''), truth: JSON.parse(readFileSync(join(DIR, name), 'utf8')) as Truth }))
  .filter(({ truth }) => truth.bootstrap_multiplicities);

test('there are bootstrap fixtures to replay', () => {
  assert.ok(bootstrapped.length >= 3, bootstrapped.map((b) => b.name).join(', '));
});

for (const { name, truth } of bootstrapped) {
  test(`${name}: replayed multiplicities equal numpy's for every tree`, () => {
    const read = sklearnReader.read(readFileSync(join(DIR, `${name}.joblib`)), `${name}.joblib`);
    assert.equal(read.kind, 'model');
    if (read.kind !== 'model') return;
    truth.bootstrap_multiplicities!.forEach((expected, t) => {
      const seed = read.forest.trees[t].training?.seed;
      assert.equal(seed, truth.trees[t].random_state, `tree ${t} seed`);
      const ours = replayMultiplicities(seed!, truth.n_samples, truth.n_samples_bootstrap!);
      assert.deepEqual([...ours], expected, `tree ${t}`);
    });
  });

  test(`${name}: the replay is verified against the stored distinct counts, and N is found when not stored`, () => {
    const read = sklearnReader.read(readFileSync(join(DIR, `${name}.joblib`)), `${name}.joblib`);
    assert.equal(read.kind, 'model');
    if (read.kind !== 'model') return;
    const completed = completeForest(read.forest);
    assert.ok(completed.ok);
    const verdict = checkReplay(completed.forest);
    assert.equal(verdict.status, 'replayed');
    if (verdict.status !== 'replayed') return;
    // N itself may be undetermined (a range), but the true N is in it and the samples are exact.
    assert.ok(verdict.rows <= truth.n_samples && truth.n_samples <= (verdict.rowsAtMost ?? verdict.rows), `${verdict.rows}..${verdict.rowsAtMost}`);
    assert.equal(verdict.drawn, truth.n_samples_bootstrap);
    assert.equal(verdict.treesChecked, truth.trees.length);
  });
}

test('a fractional max_samples with the stored draw size: the N that round to it, the same as the search over a window finds', () => {
  // Soundness sweep 16: the search over N +- N took 6 s of a 10,000-row forest's fast findings.
  const read = sklearnReader.read(readFileSync(join(DIR, 'rf_max_samples_half.joblib')), 'rf_max_samples_half.joblib');
  assert.equal(read.kind, 'model');
  if (read.kind !== 'model') return;
  const completed = completeForest(read.forest);
  assert.ok(completed.ok);
  const forest = completed.forest;
  assert.equal(forest.hyperParameters.max_samples, 0.5);
  assert.ok(forest.training.bootstrapSize !== undefined && forest.training.rows === undefined);
  const direct = checkReplay(forest);
  const searched = checkReplay({ ...forest, training: { ...forest.training, bootstrapSize: undefined } });
  assert.equal(direct.status, 'replayed');
  assert.equal(searched.status, 'replayed');
  if (direct.status !== 'replayed' || searched.status !== 'replayed') return;
  assert.deepEqual([direct.rows, direct.rowsAtMost], [searched.rows, searched.rowsAtMost]);
});

test('a wrong seed is caught by the distinct-count check', () => {
  const { name } = bootstrapped[0];
  const read = sklearnReader.read(readFileSync(join(DIR, `${name}.joblib`)), `${name}.joblib`);
  assert.equal(read.kind, 'model');
  if (read.kind !== 'model') return;
  const completed = completeForest(read.forest);
  assert.ok(completed.ok);
  completed.forest.trees[1].training.seed = (completed.forest.trees[1].training.seed! + 1) >>> 0;
  const verdict = checkReplay(completed.forest);
  assert.equal(verdict.status, 'mismatch');
  if (verdict.status === 'mismatch') assert.equal(verdict.tree, 1);
});
