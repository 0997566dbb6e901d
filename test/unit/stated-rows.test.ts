/**
 * Recent scikit-learn forests state the rows given to fit (`_n_samples`, and their draw
 * `_n_samples_bootstrap`); Debian's 1.2.1 does not write them, so they are added here to a real
 * forest's fitted state. With class weights the counts do not give N: the stated one does (sweep 9:
 * a public 1.9 forest with class_weight='balanced' read "about 4,904" of its stated 4,900).
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { stateDict, unpickle } from '../../server/src/formats/pickle';
import { decodeModel } from '../../server/src/formats/sklearn/decode';
import { FIXTURES } from '../support/paths';

function forestWith(file: string, state: Record<string, number>) {
  const graph = unpickle(readFileSync(join(FIXTURES, 'class-weights', file)), { joblib: true }).value!;
  for (const [k, v] of Object.entries(state)) stateDict(graph)!.set(k, v);
  return decodeModel(graph).models[0];
}

it('a class-weighted bootstrap forest takes N from _n_samples, with a note; without it N is not stated', () => {
  const without = forestWith('rf_balanced_bootstrap.joblib', {});
  assert.equal(without.forest.training.rows, undefined);
  const stated = forestWith('rf_balanced_bootstrap.joblib', { _n_samples: 200, _n_samples_bootstrap: 200 });
  assert.equal(stated.forest.training.rows, 200);
  assert.ok(stated.notes.some((n) => /training rows: 200, stated by the model \(_n_samples\)/.test(n)), stated.notes.join(' | '));
});
