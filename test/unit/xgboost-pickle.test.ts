/**
 * XGBoost models saved with joblib / pickle (test/fixtures/xgboost-pickle, written by xgboost
 * 1.7.4): the scikit-learn wrapper and the bare Booster are decoded through the scikit-learn
 * reader's registry into the IR the model's own `save_model` JSON gives (committed next to each
 * pickle), plus what only the pickle holds: the wrapper's class labels and hyper-parameters, and
 * the training parameters of the snapshot's Config.
 *
 * Until the pickle allowlist knows xgboost's classes, `readSklearn` stops at "unsafe" for these
 * files; the decoder is tested on the unpickled value, and the end-to-end test asserts the full
 * result as soon as the read is not unsafe.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';
import { PyBytes, PyDict, PyGlobal, PyObject, unpickle } from '../../server/src/formats/pickle';
import { asRawBytes } from '../../server/src/formats/pickle/numpy';
import { readSklearn } from '../../server/src/formats/sklearn';
import { DecodeError, decodeModel, type LocatedModel } from '../../server/src/formats/sklearn/decode';
import { FIXTURES } from '../support/paths';
import { readFixtureForest } from '../support/model-files';

const DIR = path.join(FIXTURES, 'xgboost-pickle');
/**
 * Hand-made snapshots of older XGBoost: `snapshot` is the format the reader must name,
 * `xgboostVersion` the version it must find (null: the file has none, before 1.0), `config: false`
 * when the snapshot holds no Config (its training parameters are then not stated).
 */
type Entry = {
  file: string; model?: string; json?: string; estimator: string; location?: string; handmade?: boolean; unread?: string;
  snapshot?: string; xgboostVersion?: string | null; config?: boolean;
  /** A container's tree models (a StackingClassifier's members), all fitted on the same `features` columns. */
  members?: string[]; features?: number;
};
const manifest: Entry[] = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8'));
const bytesOf = (file: string) => new Uint8Array(fs.readFileSync(path.join(DIR, file)));
const truthOf = (model: string) => JSON.parse(fs.readFileSync(path.join(DIR, `${model}.truth.json`), 'utf8'));

function decodeFile(file: string) {
  const result = unpickle(bytesOf(file), { joblib: true });
  assert.equal(result.error, undefined, `${file}: ${result.error?.message}`);
  return decodeModel(result.value);
}

function complete(model: LocatedModel): Forest {
  const completed = completeForest(model.forest);
  assert.ok(completed.ok, completed.ok ? '' : completed.problem);
  return completed.forest;
}

/** XGBoost keeps these parameters as float32. */
const float32 = (x: number) => Math.fround(x);

/**
 * The IR without the hyper-parameters (the pickle states more of them than the JSON), every
 * number rounded to float32: the snapshot is UBJSON, which holds XGBoost's float32 bits, where the
 * JSON holds their shortest decimal. The legacy binary format holds the major and minor version
 * only (none before 1.0): with `withoutVersion` the library version is left out.
 */
function comparable(forest: Forest, withoutVersion = false): unknown {
  // The Pipeline's steps in front of a pickled model are not in its save_model JSON.
  const { hyperParameters, pipelineInput, ...rest } = forest;
  void hyperParameters;
  void pipelineInput;
  if (!withoutVersion) return asFloat32(rest);
  const { version, ...library } = rest.library;
  void version;
  const { libraryVersion, ...boosting } = rest.boosting!;
  void libraryVersion;
  return asFloat32({ ...rest, library, boosting });
}

function asFloat32(value: unknown): unknown {
  if (typeof value === 'number') return Math.fround(value) + 0;
  if (Array.isArray(value)) return value.map(asFloat32);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asFloat32(v)]));
  return value;
}

const readable = manifest.filter((e) => e.json);

/**
 * A pickled model behind a Pipeline's named steps carries the names those steps give
 * (`input_names` in its truth, scikit-learn's get_feature_names_out); save_model's JSON numbers
 * them f0... Checks the names, then gives the forest the JSON's numbering to compare the rest.
 */
function withJsonNames(fromPickle: Forest, fromJson: Forest, truth: { input_names?: string[] }): Forest {
  if (!truth.input_names) {
    assert.equal(fromPickle.featureNamesFrom, undefined);
    return fromPickle;
  }
  assert.deepEqual(fromPickle.features.map((f) => f.name), truth.input_names);
  assert.equal(fromPickle.featureNamesFrom, 'pipeline');
  const { featureNamesFrom, ...rest } = fromPickle;
  void featureNamesFrom;
  return { ...rest, features: fromPickle.features.map((f, i) => ({ ...f, name: fromJson.features[i].name })) };
}

describe('XGBoost pickles: the decoder gives the IR of the model saved as JSON', () => {
  for (const entry of readable) {
    it(`${entry.file}${entry.handmade ? ' (hand-made)' : ''}`, () => {
      const decoded = decodeFile(entry.file);
      assert.equal(decoded.models.length, 1);
      assert.deepEqual(decoded.unread, []);
      const [model] = decoded.models;
      assert.equal(model.location, entry.location ?? 'model');
      assert.equal(model.estimator, entry.estimator);
      const format = entry.snapshot ?? (entry.handmade ? 'JSON memory snapshot' : 'UBJSON memory snapshot');
      const version = entry.xgboostVersion === undefined ? '1.7.4' : entry.xgboostVersion;
      assert.ok(model.notes.includes(`XGBoost booster inside the pickle (format: ${format}${version ? `, XGBoost ${version}` : ''})`), model.notes.join('\n'));

      const fromJson = readFixtureForest(DIR, entry.json!);
      const fromPickle = withJsonNames(complete(model), fromJson, truthOf(entry.model!));
      // A model behind a Pipeline's scaler records how raw rows become its features.
      assert.equal(fromPickle.pipelineInput !== undefined, entry.file.startsWith('pipeline_'), 'pipelineInput');
      assert.ok(fromPickle.trees.length > 0);
      // Trees (structure, thresholds, covers, leaf values, groups), features, base score, objective, classes.
      assert.deepEqual(comparable(fromPickle, entry.xgboostVersion !== undefined), comparable(fromJson, entry.xgboostVersion !== undefined));
      if (version) assert.equal(fromPickle.library.version, version);

      // Every hyper-parameter the JSON states, the pickle states alike (before 1.0 the file held no
      // objective configuration, where scale_pos_weight is) ...
      for (const [name, value] of Object.entries(fromJson.hyperParameters)) {
        if (value !== null && !(version === null && name === 'scale_pos_weight')) assert.deepEqual(fromPickle.hyperParameters[name], value, name);
      }
      // ... and the snapshot's Config states the training parameters save_model leaves out.
      const truth = truthOf(entry.model!);
      for (const name of entry.config === false ? [] : ['eta', 'lambda', 'alpha', 'max_delta_step', 'subsample', 'min_child_weight']) {
        assert.equal(float32(fromPickle.hyperParameters[name] as number), float32(truth.trainParams[name]), name);
      }
      if (entry.config === false) assert.ok(model.notes.some((n) => n.startsWith('the snapshot has no Config')), model.notes.join('\n'));
      if (truth.wrapper) {
        assert.equal(fromPickle.hyperParameters.n_estimators, truth.wrapper.n_estimators);
        assert.equal(fromPickle.hyperParameters.max_depth, truth.wrapper.max_depth);
      }
      if (truth.classes) assert.deepEqual(fromPickle.classes, truth.classes);
    });
  }

  it('states the eta the JSON does not: booster_pima was trained with eta 0.1', () => {
    const fromJson = readFixtureForest(DIR, 'booster_pima.json');
    assert.equal(fromJson.hyperParameters.eta, undefined);
    const [model] = decodeFile('booster_pima.joblib').models;
    assert.equal(model.forest.hyperParameters?.eta, 0.1);
  });

  it('first-tree probing of the pickle finds the true number of training rows', () => {
    for (const name of ['bin_pima', 'multi_iris', 'booster_pima']) {
      const [model] = decodeFile(`${name}.joblib`).models;
      const probe = probeFirstTrees(complete(model));
      assert.equal(probe.rows, truthOf(name).rows, name);
    }
  });

  it('the reconstruction of the pickle matches that of the JSON (boosting-hessians), with the true row count', async () => {
    const [model] = decodeFile('bin_pima.p4.pkl').models;
    const pickled = complete(model);
    const saved = readFixtureForest(DIR, 'bin_pima.json');
    // What the reconstruction starts from is deterministic: the first tree's probed rows and
    // positives per leaf, the same for both files.
    const [a, b] = [probeFirstTrees(pickled), probeFirstTrees(saved)];
    assert.equal(a.status, 'exact');
    assert.deepEqual(asFloat32(a.trees), asFloat32(b.trees));
    assert.deepEqual(a.classCounts, b.classCounts);
    // The rows are then placed by a time-budgeted search, whose values differ between two runs on
    // one file: compared are the method, status, row count and label balance.
    const fromPickle = await reconstruct(pickled, { budgetMs: 20_000 });
    const fromJson = await reconstruct(saved, { budgetMs: 20_000 });
    assert.equal(fromPickle.method, 'boosting-hessians');
    assert.equal(fromJson.method, 'boosting-hessians');
    assert.equal(fromPickle.status, 'bounded', fromPickle.reason);
    assert.equal(fromJson.status, 'bounded', fromJson.reason);
    const train = fs.readFileSync(path.join(DIR, 'bin_pima.train.csv'), 'utf8').trim().split('\n').slice(1);
    assert.equal(fromPickle.rows, train.length);
    assert.equal(fromPickle.reconstructedRows, train.length);
    const positives = (rows: { label: unknown }[]) => rows.filter((r) => Number(r.label) === 1).length;
    assert.equal(positives(fromPickle.reconstruction), positives(fromJson.reconstruction));
    assert.equal(positives(fromPickle.reconstruction), train.filter((line) => line.endsWith(',1')).length);
  });
});

describe('XGBoost pickles that cannot be read say why', () => {
  it('an XGBClassifier never fitted is an unread model with its reason', () => {
    const decoded = decodeFile('unfitted.joblib');
    assert.deepEqual(decoded.models, []);
    assert.deepEqual(decoded.unread, [{ location: 'model', estimator: 'XGBClassifier', reason: 'the XGBClassifier was never fitted (it holds no booster)' }]);
  });

  const booster = (handle: PyBytes | number | null) => {
    const value = new PyObject(new PyGlobal('xgboost.core', 'Booster'), []);
    const state = new PyDict();
    state.set('handle', handle);
    value.state = state;
    return value;
  };

  it('a cut-short snapshot is truncated, a handle that is not bytes is corrupt, a None handle holds no model', () => {
    const bytes = fs.readFileSync(path.join(DIR, 'booster_pima.p4.pkl'));
    const start = bytes.indexOf(Buffer.from('{L\x00\x00\x00\x00\x00\x00\x00\x06Config', 'latin1'));
    assert.ok(start > 0);
    const cut = new PyBytes(new Uint8Array(bytes.subarray(start, start + 500)), true);
    assert.throws(() => decodeModel(booster(cut)), (e: unknown) => e instanceof DecodeError && e.reason === 'truncated');
    assert.throws(() => decodeModel(booster(42)), (e: unknown) => e instanceof DecodeError && e.reason === 'corrupt');
    const none = decodeModel(booster(null));
    assert.equal(none.unread[0].reason, 'the Booster holds no model (its handle is None)');
  });

  /** The handle's bytes of a hand-made pickle (the only bytearray in it, protocol 4: BINBYTES8 inside bytearray(...)). */
  const handleOf = (file: string): Uint8Array => {
    const result = unpickle(bytesOf(file), { joblib: true });
    const state = (result.value as PyObject).state as PyDict;
    return asRawBytes(state.get('handle')!)!;
  };

  it('a legacy binary snapshot cut short or damaged is refused with its reason; bytes of no known form are unsupported-format', () => {
    for (const file of ['booster_legacy_binary.pkl', 'booster_pre1_binary.pkl', 'booster_config_offset.pkl']) {
      const handle = handleOf(file);
      // CONFIG-offset: the 14-byte header, the model's int64 length, the model, then the Config.
      const end = file === 'booster_config_offset.pkl' ? 22 + Number(Buffer.from(handle).readBigInt64LE(14)) : handle.length;
      for (const n of [1, 10, 30, 150, 400, Math.floor(end / 2), end - 1]) {
        const cut = new PyBytes(handle.slice(0, n), true);
        assert.throws(
          () => decodeModel(booster(cut)),
          (e: unknown) => e instanceof DecodeError && ['truncated', 'unsupported-format', 'corrupt'].includes(e.reason) && e.message.length > 20,
          `${file} cut at ${n}`,
        );
      }
    }
    // The CONFIG-offset layout with its model cut: the declared length runs past the end. Its
    // Config cut: the model is whole and read, without the training parameters, and said so.
    const offset = handleOf('booster_config_offset.pkl');
    assert.throws(() => decodeModel(booster(new PyBytes(offset.slice(0, 200), true))), (e: unknown) => e instanceof DecodeError && e.reason === 'truncated' && /declares a \d+-byte model/.test(e.message));
    const [configCut] = decodeModel(booster(new PyBytes(offset.slice(0, offset.length - 10), true))).models;
    assert.ok(configCut.notes.some((n) => n.startsWith("the snapshot's Config does not parse")), configCut.notes.join('\n'));
    assert.equal(configCut.forest.hyperParameters?.eta, undefined);
    // A damaged tree structure (tree 0's num_roots) is corrupt, with what was found.
    const binf = handleOf('booster_legacy_binary.pkl').slice();
    const treeParam = 4 + 136 + 8 + 'binary:logistic'.length + 8 + 'gbtree'.length + 160;
    binf[treeParam] = 7;
    assert.throws(() => decodeModel(booster(new PyBytes(binf, true))), (e: unknown) => e instanceof DecodeError && e.reason === 'corrupt' && /legacy binary format/.test(e.message) && /7 roots/.test(e.message));
    const unknown = new PyBytes(Uint8Array.from(Buffer.from('not a model of any kind, not even close to one')), true);
    assert.throws(() => decodeModel(booster(unknown)), (e: unknown) => e instanceof DecodeError && e.reason === 'unsupported-format' && /save_model/.test(e.message));
  });
});

describe('XGBoost pickles through readSklearn (end to end)', () => {
  const XGBOOST_GLOBALS = new Set(['xgboost.sklearn.XGBClassifier', 'xgboost.sklearn.XGBRegressor', 'xgboost.core.Booster']);
  for (const entry of readable.filter((e) => !e.handmade)) {
    it(entry.file, (t) => {
      const read = readSklearn(bytesOf(entry.file), entry.file);
      assert.equal(read.format, entry.file.endsWith('.joblib') ? 'sklearn-joblib' : 'sklearn-pickle');
      if (read.kind === 'unsafe') {
        // Today's allowlist: xgboost's classes, and nothing else, make the file unsafe.
        assert.ok(read.globals.every((g) => XGBOOST_GLOBALS.has(g)), read.globals.join(', '));
        t.diagnostic('the pickle allowlist does not know xgboost yet: the read stops at "unsafe"');
        return;
      }
      assert.equal(read.kind, 'model', JSON.stringify(read).slice(0, 300));
      if (read.kind !== 'model') return;
      assert.equal(read.forest.estimator, entry.estimator);
      assert.equal(read.location, entry.location);
      assert.ok(read.notes.some((n) => n.startsWith('XGBoost booster inside the pickle (format: UBJSON memory snapshot')), read.notes.join('\n'));
      const completed = completeForest(read.forest);
      assert.ok(completed.ok);
      if (!completed.ok) return;
      const fromJson = readFixtureForest(DIR, entry.json!);
      assert.deepEqual(comparable(withJsonNames(completed.forest, fromJson, truthOf(entry.model!))), comparable(fromJson));
      const probe = probeFirstTrees(completed.forest);
      assert.equal(probe.rows, truthOf(entry.model!).rows);
    });
  }
});

describe('XGBoost beside scikit-learn models in one file', () => {
  it("numbers the columns one way: the booster's f0.. become scikit-learn's x0.. beside a forest", () => {
    const entry = manifest.find((e) => e.file === 'stacking_rf_xgb.joblib')!;
    const decoded = decodeFile(entry.file);
    assert.deepEqual(decoded.models.map((m) => m.location).sort(), [...entry.members!].sort());
    const numbering = Array.from({ length: entry.features! }, (_, i) => `x${i}`);
    // Before: the forest's findings said x22 and the booster's f22 for the same column.
    for (const m of decoded.models) assert.deepEqual(m.forest.features.map((f) => f.name), numbering, m.location);
    // Alone, a booster keeps XGBoost's own numbering (as its dumps and plots show it).
    const alone = decodeFile('bin_pima.joblib').models[0];
    assert.ok(alone.forest.features.every((f, i) => f.name === `f${i}`), alone.forest.features.map((f) => f.name).join(' '));
  });
});
