/**
 * Mutants the fuzzer found that broke a promise (time, memory), kept as regression cases with
 * the fix they led to.
 *
 * 1. A flipped byte in the split indices of an XGBoost booster pickled in a joblib file made one
 *    split test feature 3,735,552; the reader grew the model to 3.7 million features and linting
 *    took 8.5 s. A stated num_feature now bounds every split index (formats/xgboost/model.ts).
 * 2. The same in a declared count: `"num_feature": "10000000"` in a 3.5 KiB XGBoost JSON took
 *    67 s and 3.4 GiB. Counts above MAX_FEATURES (formats/limits.ts) are refused as too large, in
 *    XGBoost and scikit-learn readers alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_FEATURES } from '../../server/src/formats/limits';
import { FIXTURES } from '../support/paths';
import { lintChecked, mutate } from '../support/fuzz';

const detailOf = (c: ReturnType<typeof lintChecked>) => c.report?.findings.map((f) => f.message).join('\n') ?? '';

test('regression: a flipped split index in a pickled XGBoost booster is refused fast, not read as 3.7 million features', () => {
  const name = 'test/fixtures/xgboost-pickle/reg_pima.joblib';
  const seed = new Uint8Array(readFileSync(join(FIXTURES, 'xgboost-pickle', 'reg_pima.joblib')));
  // The counterexample as fast-check printed it (seed 1, fuzz exploration run).
  const bytes = mutate(seed, { kind: 'flip', at: [0.8055772627703846], bytes: [57, 47, 71, 186, 99, 213, 6, 165, 213, 253] });
  const checked = lintChecked(bytes, name);
  assert.deepEqual(checked.failures, []);
  assert.equal(checked.report?.model, null);
  assert.match(detailOf(checked), /tree 2 splits on feature 3735552, the model declares num_feature 7/);
  assert.ok(checked.ms < 1000, `${checked.ms} ms`);
});

test('regression: a declared num_feature above the limit is refused as too large in milliseconds', () => {
  const text = readFileSync(join(FIXTURES, 'xgboost', 'bin_pima.json'), 'utf8');
  for (const count of [MAX_FEATURES + 1, 10_000_000, 2 ** 31]) {
    const damaged = text.replace(/"num_feature":"\d+"/g, `"num_feature":"${count}"`);
    const checked = lintChecked(new TextEncoder().encode(damaged), 'bin_pima.json');
    assert.deepEqual(checked.failures, []);
    assert.match(detailOf(checked), new RegExp(`\\(too-large\\)[^]*declares ${count} features, more than the ${MAX_FEATURES}`));
    assert.ok(checked.ms < 1000, `${count}: ${checked.ms} ms`);
  }
  // At the limit the model is read (a hashed-text model's width).
  const wide = lintChecked(new TextEncoder().encode(text.replace(/"num_feature":"\d+"/g, '"num_feature":"65536"')), 'bin_pima.json');
  assert.equal(wide.report?.model?.features, 65536);
});

test('regression: scikit-learn n_features_in_ above the limit is refused as too large', () => {
  const seed = readFileSync(join(FIXTURES, 'sklearn', 'rf_nobootstrap.p2.pkl'));
  const at = seed.indexOf('n_features_in_') + 'n_features_in_'.length;
  // Protocol 2: BINPUT n, then BININT1 k. Rewritten as BININT (4 bytes), no frames to fix up.
  assert.equal(seed[at], 0x71);
  assert.equal(seed[at + 2], 0x4b);
  const count = Buffer.alloc(5);
  count[0] = 0x4a;
  count.writeInt32LE(50_000_000, 1);
  const bytes = new Uint8Array(Buffer.concat([seed.subarray(0, at + 2), count, seed.subarray(at + 4)]));
  const checked = lintChecked(bytes, 'rf_nobootstrap.p2.pkl');
  assert.deepEqual(checked.failures, []);
  assert.match(detailOf(checked), /\(too-large\)[^]*declares 50000000 features/);
});
