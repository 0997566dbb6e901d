/**
 * A tree model this tool does not read is listed as unread, unless it was never fitted: a custom
 * ensemble that keeps its constructor's estimators beside the fitted copies listed an unfitted
 * LGBMClassifier template (its _Booster None) as "not analysed" (sweep 6). scikit-learn's own
 * check_is_fitted test decides for its classes; LightGBM's scikit-learn API for LGBM* (no LightGBM
 * installs here, so its case is tested on the function itself).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readModel } from '../../server/src/formats';
import { PyDict, PyGlobal } from '../../server/src/formats/pickle';
import { unreadTreeModel } from '../../server/src/formats/sklearn/estimators';
import { FIXTURES } from '../support/paths';
import { BUILD, EMPTY_DICT, EMPTY_TUPLE, NEWOBJ, PROTO, SETITEM, STOP, pk, sbu, stackGlobal } from '../support/pickle-bytes';

const read = (name: string) => readModel(fs.readFileSync(path.join(FIXTURES, 'sklearn', name)), name);

describe('unfitted templates are not unread models', () => {
  it('a fitted forest beside an unfitted RandomTreesEmbedding: the forest is read, nothing listed as unread', () => {
    const r = read('unfitted_template.pkl');
    assert.equal(r.kind, 'model');
    if (r.kind !== 'model') return;
    assert.deepEqual(r.unread ?? [], []);
  });
  it('a fitted RandomTreesEmbedding alone is still "not read yet"', () => {
    const r = read('random_trees_embedding.pkl');
    assert.equal(r.kind, 'no-model');
    if (r.kind !== 'no-model') return;
    assert.match(r.unread.map((m) => m.reason).join(' '), /RandomTreesEmbedding is not read yet/);
  });
  it("LightGBM's scikit-learn API: _Booster None is never fitted, a Booster or a fitted wrapper is unread", () => {
    const cls = new PyGlobal('lightgbm.sklearn', 'LGBMClassifier');
    const state = (booster: PyDict | null): PyDict => {
      const d = new PyDict();
      d.set('n_estimators', 100);
      d.set('_Booster', booster);
      return d;
    };
    assert.match(unreadTreeModel(cls, state(null))!, /was never fitted/);
    assert.equal(unreadTreeModel(cls, state(new PyDict())), 'LightGBM models are not read yet');
    assert.equal(unreadTreeModel(new PyGlobal('lightgbm.basic', 'Booster'), undefined), 'LightGBM models are not read yet');
  });
});

describe("another library's model is named once", () => {
  it('a LightGBM Booster in a dict: unsupported-model names it, and its class is not an unknown global too (crafted)', () => {
    // {"model": lightgbm.basic.Booster() with its state}, built opcode by opcode (no LightGBM here).
    const bytes = pk(PROTO(4), EMPTY_DICT, sbu('model'), stackGlobal('lightgbm.basic', 'Booster'), EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, sbu('handle'), sbu('tree\n'), SETITEM, BUILD, SETITEM, STOP);
    const r = readModel(bytes, 'bundle.pkl');
    assert.equal(r.kind, 'no-model');
    if (r.kind !== 'no-model') return;
    assert.deepEqual(r.unread.map((m) => m.estimator), ['Booster']);
    // Before: also "unknown-pickle-global: lightgbm.basic.Booster".
    assert.deepEqual(r.unknownGlobals ?? [], []);
  });

  it("a fitted LGBMClassifier: its _Booster (lightgbm.basic.Booster) is the library's own part, not an unknown global (crafted)", () => {
    // LGBMClassifier() with {_Booster: Booster(state)}: every pickled LightGBM wrapper has one
    // (sweep 13: three public files warned of lightgbm.basic.Booster beside the model's note).
    const booster = [stackGlobal('lightgbm.basic', 'Booster'), EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, sbu('handle'), sbu('tree\n'), SETITEM, BUILD];
    const other = [sbu('scale'), stackGlobal('mylib.helpers', 'Scaler'), EMPTY_TUPLE, NEWOBJ, SETITEM];
    const bytes = pk(PROTO(4), stackGlobal('lightgbm.sklearn', 'LGBMClassifier'), EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, sbu('_Booster'), ...booster, SETITEM, ...other, BUILD, STOP);
    const r = readModel(bytes, 'lgbm.pkl');
    assert.equal(r.kind, 'no-model');
    if (r.kind !== 'no-model') return;
    assert.deepEqual(r.unread.map((m) => m.estimator), ['LGBMClassifier']);
    // Another library's name is still reported.
    assert.deepEqual((r.unknownGlobals ?? []).map((g) => g.name), ['mylib.helpers.Scaler']);
  });
});
