/**
 * The training parameters a pickled XGBoost booster's snapshot states in its Config
 * (formats/xgboost/snapshot.ts). XGBoost 1.x keeps them in each updater's `train_param`; 2.x in
 * the booster's `tree_train_param` (the layout of a public XGBClassifier pickled by 2.1.4, whose
 * note said "the snapshot has no Config"). Debian's XGBoost is 1.7.4, so the 2.x Config is written
 * here in that layout around a model 1.7.4 saved.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readSnapshot } from '../../server/src/formats/xgboost/snapshot';
import { FIXTURES } from '../support/paths';

const model = JSON.parse(readFileSync(join(FIXTURES, 'xgboost', 'bin_pima.json'), 'utf8'));

function snapshot(config: unknown): Uint8Array {
  return new Uint8Array(Buffer.from(JSON.stringify({ Config: config, Model: model }), 'utf8'));
}

test("XGBoost 2.x's tree_train_param is read as the training parameters", () => {
  const built = readSnapshot(
    snapshot({
      learner: {
        gradient_booster: {
          name: 'gbtree',
          tree_train_param: { eta: '0.100000001', lambda: '1', subsample: '0.800000012', max_depth: '5' },
          updater: [{ name: 'grow_quantile_histmaker', hist_train_param: { max_cached_hist_node: '65536' } }],
        },
      },
    }),
  );
  assert.ok(built.ok);
  assert.equal(built.forest.hyperParameters?.subsample, 0.8);
  assert.equal(built.forest.hyperParameters?.eta, 0.1);
  assert.ok(built.notes.some((n) => /stated by the snapshot's Config: eta 0.1, lambda 1, max_depth 5, subsample 0.8/.test(n)), built.notes.join(' | '));
});

test("XGBoost 1.x's updater train_param still is", () => {
  const built = readSnapshot(snapshot({ learner: { gradient_booster: { name: 'gbtree', updater: { grow_colmaker: { train_param: { eta: '0.300000012', lambda: '2' } } } } } }));
  assert.ok(built.ok);
  assert.equal(built.forest.hyperParameters?.lambda, 2);
});
