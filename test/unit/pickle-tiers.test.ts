/**
 * The three tiers of pickle globals (allowed, dangerous, unknown), the called/referenced flag of
 * unknown ones, and the scan of every pickle in a file. Fixtures: test/fixtures/pickle-tiers
 * (generate.py; real models from scikit-learn 1.2.1 and xgboost 1.7.4, hostile files crafted by
 * pickling objects that only name a dangerous callable). The manifest holds what Python's own
 * unpickler meets in each file (with stubs, so nothing runs) and whether it calls each global.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import {
  DANGEROUS_MODULES,
  DANGEROUS_NAMES,
  MAX_FURTHER_PICKLES,
  classifyGlobal,
  decompress,
  detectCompression,
  unpickle,
  unpickleStream,
} from '../../server/src/formats/pickle';
import { readSklearn } from '../../server/src/formats/sklearn';
import { BUILD, EMPTY_DICT, EMPTY_TUPLE, MARK, MEMOIZE, NEWOBJ, OBJ, PROTO, REDUCE, STOP, TUPLE, TUPLE1, global, le, pk, sbu, stackGlobal, unicode } from '../support/pickle-bytes';
import type { ModelRead } from '../../server/src/formats/types';
import { lintBytes } from '../../server/src/linter/linter';
import { unknownPickleGlobalDraft } from '../../server/src/rules/unknown-pickle-global';

const DIR = path.resolve(__dirname, '../../../test/fixtures/pickle-tiers');
const DOCS = path.resolve(__dirname, '../../../docs/rules');

interface Fixture {
  file: string;
  /** What Python's unpickler meets, in order, and whether it calls it. */
  globals: { name: string; called: boolean }[];
  pickles: number;
  /** This project's tiers for the names above: these two lists, everything else allowed. */
  dangerous: string[];
  unknown: string[];
  crafted?: boolean;
  /** Made by a library that writes functions as bytecode (dill's lambda): dangerous, not crafted. */
  carriesCode?: boolean;
  expect?: 'model';
  /** Of the `__main__` names, those used as functions (held for the model to call), not built as classes. */
  scriptFunctions?: string[];
  trees?: number;
  nodes?: number[];
  further?: number;
  ignored?: number;
}

/** Globals whose tier is allowed but which the VM flags by their use (checked-callables.ts). */
const USE_CHECKED = new Set(['functools.partial', '_functools.partial']);

const manifest = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8')) as { marker: string; fixtures: Fixture[] };
const fixtures = manifest.fixtures;

function load(file: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(DIR, file)));
}

/** The pickle stream of a file: joblib's zlib container undone. */
function stream(file: string): Uint8Array {
  const b = load(file);
  const c = detectCompression(b);
  return c ? decompress(b, c) : b;
}

const tier = (q: string) => {
  const dot = q.lastIndexOf('.');
  return classifyGlobal(q.slice(0, dot), q.slice(dot + 1)).tier;
};

// ---- hand-built pickles (marked: crafted here, for the VM's edge cases)
type Part = number | string | number[] | Uint8Array;
function bytes(...parts: Part[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === 'number') out.push(p);
    else if (typeof p === 'string') for (const c of Buffer.from(p, 'latin1')) out.push(c);
    else out.push(...p);
  }
  return Uint8Array.from(out);
}
const P4 = [0x80, 4];

describe('pickle tiers: classification', () => {
  it('allows the harmless data classes real models name', () => {
    for (const q of [
      'sklearn.calibration._CalibratedClassifier',
      'sklearn.calibration._SigmoidCalibration',
      'sklearn.compose._column_transformer._RemainderColsList',
      'sklearn.ensemble._hist_gradient_boosting.binning._BinMapper',
      'sklearn._loss._loss.__pyx_unpickle_CyHalfBinomialLoss',
      'scipy.sparse.csr.csr_matrix',
      'scipy.sparse._csr.csr_matrix',
      'scipy.sparse._csc.csc_matrix',
      'scipy.sparse._arrays.csr_array',
      'numpy.core._multiarray_umath.log1p',
      'numpy._core._multiarray_umath.exp',
      'numpy.core._ufunc_reconstruct',
      'numpy._core._ufunc_reconstruct',
      'sklearn.ensemble._forest.RandomForestClassifier',
      'numpy.core.multiarray._reconstruct',
      // met in models committed to public repositories
      'sklearn.compose._column_transformer.make_column_selector',
      'xgboost.sklearn.XGBClassifier',
      'xgboost.compat.XGBoostLabelEncoder',
      'pandas.arrays.ArrowStringArray',
      'pandas.StringDtype',
      'pyarrow.lib._restore_array',
      'pyarrow.lib.type_for_alias',
      'pyarrow.lib.py_buffer',
      'xgboost.core.Booster',
      'sklearn.metrics._scorer._passthrough_scorer',
      'numpy.ma.core._mareconstruct',
      'numpy.ma.core.MaskedArray',
      '_loss.CyHalfBinomialLoss',
      '_loss.__pyx_unpickle_CyHalfBinomialLoss',
      'numpy.random.bit_generator.__pyx_unpickle_SeedSequence',
      // scikit-learn 0.24's and 0.21's paths of the distance metrics' reconstructor (a KNN member)
      'sklearn.neighbors._dist_metrics.newObj',
      'sklearn.neighbors.dist_metrics.newObj',
      'sklearn.neighbors._dist_metrics.EuclideanDistance',
      // category_encoders (scikit-learn-contrib), as a public PyCaret bundle names them
      'category_encoders.ordinal.OrdinalEncoder',
      'category_encoders.one_hot.OneHotEncoder',
      'category_encoders.target_encoder.TargetEncoder',
    ]) {
      assert.equal(tier(q), 'allowed', q);
    }
  });

  it('calls other libraries, the project and sklearn functions unknown', () => {
    for (const q of [
      'xgboost.sklearn.XGBBooster',
      'lightgbm.sklearn.LGBMClassifier',
      'lightgbm.basic.Booster',
      'src.data.preprocess.convert_to_numeric',
      'sklearn.utils.check_array',
      'sklearn.externals.six.Foo',
      'category_encoders.utils.convert_input',
      'scipy.sparse._csr.spmatrix_helper',
      'posixpath.join',
      'collections.Counter',
    ]) {
      assert.equal(tier(q), 'unknown', q);
    }
  });

  it('finds every listed dangerous name and module, submodules included', () => {
    for (const q of DANGEROUS_NAMES.keys()) assert.equal(tier(q), 'dangerous', q);
    for (const m of DANGEROUS_MODULES.keys()) {
      assert.equal(classifyGlobal(m, 'anything').tier, 'dangerous', m);
      assert.equal(classifyGlobal(`${m}.sub`, 'anything').tier, 'dangerous', `${m}.sub`);
    }
    for (const q of [
      'os.path.join',
      'posix.system',
      'nt.system',
      'http.client.HTTPSConnection',
      'urllib.request.urlopen',
      'requests.api.get',
      'aiohttp.client.ClientSession',
      'numpy.testing._private.utils.runstring',
      'torch.serialization.load',
      'pip._internal.main',
      'builtins.print',
      '__builtin__.eval',
      '__builtin__.apply',
      '__main__.MyTransformer',
      // a SHAP explainer in a public repository: numba's vendored cloudpickle
      'numba.cloudpickle.cloudpickle._make_function',
      'numba.core.serialize.custom_rebuild',
    ]) {
      assert.equal(tier(q), 'dangerous', q);
    }
  });

  it('treats dotted and malformed names as dangerous', () => {
    assert.equal(classifyGlobal('sklearn.base', 'BaseEstimator.__init__').tier, 'dangerous');
    assert.equal(classifyGlobal('a', 'b.c').tier, 'dangerous');
    assert.equal(classifyGlobal('copyreg', '_reconstructor.__globals__').tier, 'dangerous');
    assert.equal(classifyGlobal('os system', 'x').tier, 'dangerous');
    assert.equal(classifyGlobal('numpy', '').tier, 'dangerous');
    assert.equal(classifyGlobal('', 'x').tier, 'dangerous');
    assert.equal(classifyGlobal('xgboost..core', 'Booster').tier, 'dangerous');
  });

  it('documents every dangerous entry in docs/rules/unsafe-pickle.md', () => {
    const doc = fs.readFileSync(path.join(DOCS, 'unsafe-pickle.md'), 'utf8');
    for (const [m, why] of DANGEROUS_MODULES) assert.ok(doc.includes(`| \`${m}.*\` | ${why} |`), m);
    for (const [q, why] of DANGEROUS_NAMES) assert.ok(doc.includes(`| \`${q}\` | ${why} |`), q);
    assert.match(doc, /picklescan/);
    assert.match(doc, /modelscan/);
  });
});

describe('pickle tiers: what the VM records of unknown globals', () => {
  it('tells a called global from one held as a value', () => {
    // x.f(x.Cls(), x.g): Cls is called by REDUCE; f is called; g is only an argument
    const r = unpickle(
      bytes(P4, stackGlobal('x', 'f'), stackGlobal('x', 'Cls'), ')', 'R', stackGlobal('x', 'g'), 0x86, 'R', '.'),
    );
    assert.equal(r.error, undefined);
    assert.deepEqual(r.unsafe, []);
    assert.deepEqual(r.unknown, [
      { name: 'x.f', called: true },
      { name: 'x.Cls', called: true },
      { name: 'x.g', called: false },
    ]);
  });

  it('counts NEWOBJ, NEWOBJ_EX, OBJ, INST and copyreg reconstructors as calls', () => {
    const r = unpickle(
      bytes(
        P4,
        '(',
        stackGlobal('a', 'New'), ')', 0x81,
        stackGlobal('a', 'NewEx'), ')', '}', 0x92,
        '(', stackGlobal('a', 'Obj'), 'o',
        '(', 'ia\nInst\n',
        stackGlobal('copyreg', '_reconstructor'), stackGlobal('a', 'Recon'), stackGlobal('builtins', 'object'), 'N', 0x87, 'R',
        stackGlobal('a', 'Value'),
        'l',
        '.',
      ),
    );
    assert.equal(r.error, undefined, r.error?.message);
    assert.deepEqual(
      r.unknown.map((u) => `${u.name}:${u.called}`),
      ['a.New:true', 'a.NewEx:true', 'a.Obj:true', 'a.Inst:true', 'a.Recon:true', 'a.Value:false'],
    );
  });

  it('reads numpy < 1.20 ufunc reconstruction as the global it names, and refuses any other use', () => {
    const recon = 'cnumpy.core\n_ufunc_reconstruct\n';
    const ok = unpickle(bytes(0x80, 2, recon, sbu('numpy.core._multiarray_umath'), sbu('log1p'), 0x86, 'R', '.'));
    assert.deepEqual([ok.unsafe, ok.unknown], [[], []]);
    const evil = unpickle(bytes(0x80, 2, recon, sbu('os'), sbu('system'), 0x86, 'R', sbu('echo'), 0x85, 'R', '.'));
    assert.deepEqual(evil.unsafe, ['os.system']);
    const project = unpickle(bytes(0x80, 2, recon, sbu('src.data'), sbu('fn'), 0x86, 'R', ')', 'R', '.'));
    assert.deepEqual(project.unknown, [{ name: 'src.data.fn', called: true }], 'called through the reconstructed value');
    // computed arguments, a stored reference, INST: each could reach anything
    const computed = unpickle(bytes(0x80, 2, recon, sbu('os'), 'cx\ny\n', ')', 'R', 0x86, 'R', '.'));
    assert.deepEqual(computed.unsafe, ['numpy.core._ufunc_reconstruct']);
    const asValue = unpickle(bytes(0x80, 2, ']', recon, 'a', '.'));
    assert.deepEqual(asValue.unsafe, ['numpy.core._ufunc_reconstruct']);
    const viaMemo = unpickle(bytes(0x80, 2, recon, 'q', 0, sbu('numpy'), sbu('exp'), 0x86, 'R', '0', 'h', 0, '.'));
    assert.deepEqual(viaMemo.unsafe, ['numpy.core._ufunc_reconstruct'], 'fetched again from the memo and left unchecked');
    const inst = unpickle(bytes('(', "S'os'\n", "S'system'\n", 'inumpy.core\n_ufunc_reconstruct\n', '.'));
    assert.deepEqual(inst.unsafe, ['numpy.core._ufunc_reconstruct']);
  });

  it('accepts functools.partial built around a named global, and refuses any other use (sweep 12: HistGradientBoosting read as unsafe)', () => {
    const partial = 'cfunctools\npartial\n';
    const check = 'csklearn.utils.validation\ncheck_array\n';
    // partial(check_array), then partial's __setstate__((f, args, kwargs, dict)): what pickle writes.
    const state = (f: string) => [f, ')', '}', sbu('dtype'), sbu('numeric'), 's', 'N', 0x87 /* TUPLE3 */];
    const built = (f: string) => [partial, f, 0x85, 'R', '(', ...state(f).slice(0, -1), 't', 'b'];
    const ok = unpickle(bytes(0x80, 2, ...built(check), '.'));
    assert.deepEqual([ok.unsafe, ok.unknown], [[], []]);
    // Bound to a dangerous global: that global is dangerous by its own name.
    const bound = unpickle(bytes(0x80, 2, ...built('cos\nsystem\n'), '.'));
    assert.deepEqual(bound.unsafe, ['os.system']);
    // Bound to a project's function: unknown, as that function would be, and not called.
    const project = unpickle(bytes(0x80, 2, ...built('csrc.data\nfn\n'), '.'));
    assert.deepEqual([project.unsafe, project.unknown], [[], [{ name: 'src.data.fn', called: false }]]);
    // Called while loading: the partial is dangerous, and the global it binds is called.
    const called = unpickle(bytes(0x80, 2, ...built('csrc.data\nfn\n'), sbu('x'), 0x85, 'R', '.'));
    assert.deepEqual(called.unsafe, ['functools.partial']);
    assert.deepEqual(called.unknown, [{ name: 'src.data.fn', called: true }]);
    // pandas 2's blocks: partial(new_block, ndim=2)(values, placement), as Block.__reduce__ writes
    // it (sweep 17: a public DataFrame read as unsafe); the same call around another allowed global stays dangerous.
    const block = (f: string) => [partial, f, 0x85, 'R', '(', f, ')', '}', sbu('ndim'), 'K', 2, 's', 'N', 't', 'b', ']', 'K', 0, 'a', 0x85, 'R', '.'];
    const pandas = unpickle(bytes(0x80, 2, ...block('cpandas.core.internals.blocks\nnew_block\n')));
    assert.deepEqual([pandas.unsafe, pandas.unknown], [[], []]);
    assert.deepEqual(unpickle(bytes(0x80, 2, ...block(check))).unsafe, ['functools.partial']);
    // Built around a computed value, given state naming one, or held as a value: dangerous.
    const computed = unpickle(bytes(0x80, 2, partial, 'cx\ny\n', ')', 'R', 0x85, 'R', '.'));
    assert.deepEqual(computed.unsafe, ['functools.partial']);
    const swapped = unpickle(bytes(0x80, 2, partial, check, 0x85, 'R', '(', 'cx\ny\n', ')', 'R', ')', '}', 'N', 't', 'b', '.'));
    assert.deepEqual(swapped.unsafe, ['functools.partial']);
    const asValue = unpickle(bytes(0x80, 2, ']', partial, 'a', '.'));
    assert.deepEqual(asValue.unsafe, ['functools.partial']);
  });

  it("reads the pickles inside torch's _load_from_bytes(b) as the file's own, and refuses any other use (sweep 19, crafted)", () => {
    // What torch.save writes in its legacy format (a storage's __reduce__): five pickles, then raw
    // data. The storage pickle refers to its data by persistent id, which torch.load resolves from
    // the bytes after the pickles: no code, and not data outside the file.
    const legacy = pk(
      PROTO(2), 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, STOP,
      PROTO(2), 'M', 0xe9, 0x03, STOP,
      PROTO(2), EMPTY_DICT, STOP,
      PROTO(2), MARK, sbu('storage'), global('torch', 'FloatStorage'), sbu('0'), sbu('cpu'), 'K', 4, TUPLE, 'Q', STOP,
      PROTO(2), ']', sbu('0'), 'a', STOP,
      [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f],
    );
    const wrap = (inner: Uint8Array) => pk(PROTO(3), global('torch.storage', '_load_from_bytes'), MARK, 'B', le(BigInt(inner.length), 4), inner, TUPLE, REDUCE, STOP);
    const benign = unpickle(wrap(legacy));
    assert.deepEqual(benign.unsafe, []);
    assert.deepEqual(benign.unknown, [{ name: 'torch.FloatStorage', called: false }], 'the storage class inside is tiered as the file names it');
    assert.equal(benign.error, undefined);
    // A command inside the bytes: what torch.load would run.
    const evil = unpickle(wrap(pk(global('posix', 'system'), MARK, "S'touch /tmp/x'\n", TUPLE, REDUCE, STOP)));
    assert.deepEqual(evil.unsafe, ['posix.system']);
    // Bytes that do not read as pickles, the zip format, or the function held as a value: unchecked.
    assert.deepEqual(unpickle(wrap(pk('not a pickle'))).unsafe, ['torch.storage._load_from_bytes']);
    assert.deepEqual(unpickle(wrap(pk('PK', 3, 4, legacy))).unsafe, ['torch.storage._load_from_bytes']);
    assert.deepEqual(unpickle(pk(PROTO(3), ']', global('torch.storage', '_load_from_bytes'), 'a', STOP)).unsafe, ['torch.storage._load_from_bytes']);
  });

  it('still sees the globals of a frame that runs past the end of the file', () => {
    const frame = [0x95, 200, 0, 0, 0, 0, 0, 0, 0];
    const r = unpickle(bytes(P4, frame, stackGlobal('os', 'system'), sbu('echo'), 0x85, 'R'));
    assert.equal(r.error?.kind, 'truncated');
    assert.deepEqual(r.unsafe, ['os.system']);
    assert.equal(unpickle(bytes(P4, frame, 'K', 1, '.')).error?.kind, 'truncated', 'and the frame is still an error at STOP');
  });
});

describe('pickle tiers: every pickle in a file', () => {
  const first = bytes(P4, 'K', 1, '.');
  it('scans pickles after the first, whatever opcode they begin with', () => {
    for (const start of [[0x80, 2], [0x80, 4, 0x95, 8, 0, 0, 0, 0, 0, 0, 0], [], ['N', '0'], ['K', 7, '0'], [0x88, '0']] as Part[][]) {
      const evil = bytes(...start, 'cos\nsystem\n', '(', "S'echo'\n", 't', 'R', '.');
      const s = unpickleStream(bytes(first, evil));
      assert.deepEqual(s.unsafe, ['os.system'], JSON.stringify(start));
      const r = readSklearn(bytes(first, evil), 'model.pkl');
      assert.deepEqual(r, { kind: 'unsafe', format: 'sklearn-pickle', globals: ['os.system'] });
    }
  });

  it('ignores trailing bytes that cannot begin a pickle, and says how many', () => {
    const s = unpickleStream(bytes(first, 0x00, 'cos\nsystem\n'));
    assert.deepEqual([s.unsafe, s.further, s.ignored], [[], 0, 12]);
    const broken = unpickleStream(bytes(first, 'K', 1, 'K'));
    assert.deepEqual([broken.further, broken.ignored], [0, 3], 'a pickle that breaks is ignored from its start');
  });

  it('merges unknown globals across pickles, called in any = called', () => {
    const a = bytes(P4, stackGlobal('lib', 'f'), '.');
    const b = bytes(P4, stackGlobal('lib', 'f'), ')', 'R', stackGlobal('lib', 'g'), '0', '.');
    const s = unpickleStream(bytes(first, a, b));
    assert.equal(s.further, 2);
    assert.deepEqual(s.unknown, [
      { name: 'lib.f', called: true },
      { name: 'lib.g', called: false },
    ]);
  });

  it(`stops after ${MAX_FURTHER_PICKLES} further pickles and does not call the file checked`, () => {
    const many = (n: number) => bytes(first, ...Array.from({ length: n }, () => ['N', '.']).flat());
    const atLimit = unpickleStream(many(MAX_FURTHER_PICKLES));
    assert.deepEqual([atLimit.further, atLimit.unchecked], [MAX_FURTHER_PICKLES, false]);
    const over = unpickleStream(many(MAX_FURTHER_PICKLES + 1));
    assert.equal(over.unchecked, true);
    const r = readSklearn(many(MAX_FURTHER_PICKLES + 1), 'x.pkl');
    assert.equal(r.kind, 'unreadable');
    if (r.kind === 'unreadable') assert.match(r.detail, /more than 65 pickles/);
  });
});

describe('pickle tiers: fixtures made by the libraries and by pickle', () => {
  before(() => fs.rmSync(manifest.marker, { force: true }));

  it('has every kind of file the tiers need', () => {
    const files = new Set(fixtures.map((f) => f.file));
    for (const f of [
      'calibrated_rf.joblib',
      'hgb.joblib',
      'tfidf.joblib',
      'pipeline_project_fn.joblib',
      'pipeline_project_fn.p0.pkl',
      'xgb_classifier.joblib',
      'forest_then_os_system.pkl',
      'forest_then_os_system.zlib.joblib',
      'forest_then_os_system.p0.pkl',
      'evil_os_system.p0.pkl',
    ]) {
      assert.ok(files.has(f), f);
    }
    assert.ok(fixtures.filter((f) => f.dangerous.length > 0).length >= 40);
    // A notebook's own class (__main__) is unsafe to load but no attack: those files are made by the libraries.
    // So is a lambda that dill writes as bytecode (carriesCode).
    for (const f of fixtures) {
      if (f.dangerous.some((q) => !q.startsWith('__main__.'))) assert.ok(f.crafted === true || f.carriesCode === true, `${f.file}: hostile files are marked crafted`);
    }
  });

  for (const fx of fixtures) {
    it(`${fx.file}: ${fx.dangerous.length ? 'dangerous' : fx.unknown.length ? 'unknown' : 'allowed'}`, () => {
      const s = unpickleStream(stream(fx.file), { joblib: true });
      assert.equal(s.first.error, undefined, s.first.error?.message);
      // the VM meets exactly the globals Python meets, in the same order, in every pickle of the file
      assert.deepEqual(s.globals, fx.globals.map((g) => g.name));
      assert.equal(1 + s.further, fx.pickles, 'whole pickles, as many as Python loads one after another');
      assert.deepEqual(s.unsafe, fx.dangerous, 'dangerous globals');
      // every name Python met is in the tier the manifest says
      for (const g of fx.globals) {
        // functools.partial is dangerous by how it is used (called while loading), not by its name.
        if (USE_CHECKED.has(g.name)) continue;
        const want = fx.dangerous.includes(g.name) ? 'dangerous' : fx.unknown.includes(g.name) ? 'unknown' : 'allowed';
        assert.equal(tier(g.name), want, g.name);
      }
      if (fx.dangerous.length > 0) {
        const r = readSklearn(load(fx.file), fx.file);
        // Only `__main__` names: unsafe to load, but the rest of the file is still read (and told).
        // So is a function cloudpickle rebuilt from bytecode, never called while loading.
        const rebuiltOnly = fx.carriesCode === true && fx.expect === 'model';
        if (fx.dangerous.every((q) => q.startsWith('__main__.')) || rebuiltOnly) {
          assert.ok(r.kind === 'model' || r.kind === 'no-model', JSON.stringify(r).slice(0, 300));
          if (r.kind === 'model' || r.kind === 'no-model') {
            if (rebuiltOnly) assert.deepEqual(r.bytecodeFunctions?.names, fx.dangerous);
            else assert.deepEqual(r.scriptGlobals, fx.dangerous);
            if (fx.scriptFunctions) assert.deepEqual(r.scriptFunctions, fx.scriptFunctions, 'classes built bare vs names used as functions');
          }
          if (fx.expect === 'model') {
            assert.equal(r.kind, 'model');
            if (r.kind === 'model') assert.deepEqual(r.forest.trees.map((t) => t.left.length), fx.nodes, 'the forest beside the notebook class, as scikit-learn holds it');
          }
          return;
        }
        assert.equal(r.kind, 'unsafe', JSON.stringify(r).slice(0, 300));
        if (r.kind === 'unsafe') assert.deepEqual(r.globals, fx.dangerous);
        return;
      }
      // unknown ones, with Python's own called flag
      const truth = new Map(fx.globals.map((g) => [g.name, g.called]));
      assert.deepEqual(
        s.unknown,
        fx.unknown.map((name) => ({ name, called: truth.get(name) })),
        'unknown globals and whether loading calls them',
      );
      const r = readSklearn(load(fx.file), fx.file);
      assert.notEqual(r.kind, 'unsafe');
      if (fx.expect !== 'model') return; // the decoder may not support the estimator (yet): the tiers are what is tested here
      assert.equal(r.kind, 'model', JSON.stringify(r).slice(0, 300));
      if (r.kind !== 'model') return;
      assert.equal(r.forest.trees.length, fx.trees);
      assert.deepEqual(r.forest.trees.map((t) => t.left.length), fx.nodes, 'nodes per tree, as scikit-learn holds them');
      assert.deepEqual(r.unknownGlobals ?? [], s.unknown);
      const further = r.notes.find((n) => /more pickles? after the first/.test(n));
      assert.equal(further ? Number(further.split(' ')[0]) : 0, fx.further ?? 0);
      const ignored = r.notes.find((n) => /bytes after the pickle's end were ignored/.test(n));
      assert.equal(ignored ? Number(ignored.split(' ')[0]) : 0, fx.ignored ?? 0);
    });
  }

  it('left no marker file behind', () => {
    assert.equal(fs.existsSync(manifest.marker), false);
  });
});

describe('pickle tiers: the unknown-pickle-global finding', () => {
  it('is a warning naming the project function as imported, not called; the model is still analysed', () => {
    const report = lintBytes(load('pipeline_project_fn.joblib'), 'pipeline_project_fn.joblib');
    assert.ok(report.model, 'analysed');
    const f = report.findings.filter((x) => x.rule === 'unknown-pickle-global');
    assert.equal(f.length, 1);
    assert.equal(f[0].severity, 'warning');
    assert.match(f[0].message, /imports src\.data\.preprocess\.convert_to_numeric as a value without calling it/);
    assert.doesNotMatch(f[0].message, /calls /);
    assert.deepEqual(f[0].data, { globals: [{ name: 'src.data.preprocess.convert_to_numeric', called: false }] });
    assert.ok(report.findings.some((x) => x.rule === 'singleton-leaf' || x.rule === 'exact-counts'), 'the forest rules ran too');
  });

  it('says "calls" for a class loading builds (a project\'s own wrapper around the forest)', () => {
    const s = unpickleStream(stream('project_wrapper.joblib'), { joblib: true });
    const read = { kind: 'model', format: 'sklearn-joblib', forest: { trees: [] }, notes: [], unknownGlobals: s.unknown } as unknown as ModelRead;
    const d = unknownPickleGlobalDraft(read);
    assert.match(d!.message, /calls src\.models\.wrapper\.ModelWrapper when loaded/);
    assert.doesNotMatch(d!.message, /as a value/);
  });

  it('lists four names of each kind, then how many more', () => {
    const unknownGlobals = Array.from({ length: 7 }, (_, i) => ({ name: `lib.C${i}`, called: i < 6 }));
    const read = { kind: 'model', format: 'x', forest: { trees: [] }, notes: [], unknownGlobals } as unknown as ModelRead;
    const m = unknownPickleGlobalDraft(read)!.message;
    assert.match(m, /names 7 globals/);
    assert.match(m, /calls lib\.C0, lib\.C1, lib\.C2, lib\.C3 and 2 more when loaded/);
    assert.match(m, /imports lib\.C6 as a value/);
  });

  it('is absent for allowed-only models and silenced by its severity', () => {
    const allowed = lintBytes(load('pipeline_log1p.joblib'), 'pipeline_log1p.joblib');
    assert.ok(allowed.model);
    assert.equal(allowed.findings.filter((x) => x.rule === 'unknown-pickle-global').length, 0);
    const off = lintBytes(load('pipeline_project_fn.p4.pkl'), 'pipeline_project_fn.p4.pkl', { severities: { 'unknown-pickle-global': 'off' } });
    assert.equal(off.findings.filter((x) => x.rule === 'unknown-pickle-global').length, 0);
    assert.ok(off.model);
  });

  it('a hostile second pickle makes the file an unsafe-pickle error and nothing else', () => {
    for (const file of ['forest_then_os_system.pkl', 'forest_then_os_system.zlib.joblib', 'forest_then_os_system.p0.pkl']) {
      const report = lintBytes(load(file), file);
      assert.equal(report.model, null);
      assert.deepEqual(report.findings.map((f) => [f.rule, f.severity]), [['unsafe-pickle', 'error']], file);
    }
  });
});

describe('pickle tiers: a notebook\'s own class (__main__)', () => {
  it('is an unsafe-pickle warning when loading only builds the class, and the forest beside it is analysed all the same', () => {
    const file = 'pipeline_main_transformer.joblib';
    const report = lintBytes(fs.readFileSync(path.join(DIR, file)), file);
    const unsafe = report.findings.find((f) => f.rule === 'unsafe-pickle');
    // Until stop 34: an error, "do not load it", for the commonest notebook pattern; the file only builds
    // a bare Renamer (NEWOBJ, then its state as data), so nothing it chooses runs.
    assert.equal(unsafe?.severity, 'warning');
    assert.deepEqual(unsafe?.data?.globals, ['__main__.Renamer']);
    assert.deepEqual(unsafe?.data?.scriptFunctions, []);
    assert.match(unsafe?.message ?? '', /^Loading needs the saving script's own class: define it in a module\./);
    assert.match(unsafe?.message ?? '', /script or notebook that saved it/);
    // Before: "the model was not analysed" and nothing else.
    assert.equal(report.model?.estimator, 'RandomForestClassifier');
    assert.ok(report.findings.some((f) => f.rule === 'replayable-bootstrap'), report.findings.map((f) => f.rule).join(', '));
  });

  it("stays an error when the file holds one of the script's functions for the model to call", () => {
    const file = 'pipeline_main_function.joblib';
    const report = lintBytes(fs.readFileSync(path.join(DIR, file)), file);
    const unsafe = report.findings.find((f) => f.rule === 'unsafe-pickle');
    assert.equal(unsafe?.severity, 'error');
    assert.deepEqual(unsafe?.data?.scriptFunctions, ['__main__.log_amounts']);
    assert.match(unsafe?.message ?? '', /do not load it/);
    assert.equal(report.model?.estimator, 'RandomForestClassifier');
  });

  it('stays an error when the file calls a __main__ name, gives it arguments, or reaches through it (crafted)', () => {
    const built = pk(PROTO(4), stackGlobal('__main__', 'Wrapper'), EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, BUILD, STOP);
    const calls: [string, Uint8Array][] = [
      ['REDUCE', pk(PROTO(4), stackGlobal('__main__', 'system'), unicode('id'), TUPLE1, REDUCE, STOP)],
      ['NEWOBJ with arguments', pk(PROTO(4), stackGlobal('__main__', 'Wrapper'), unicode('x'), TUPLE1, NEWOBJ, STOP)],
      ['OBJ', pk(PROTO(2), MARK, global('__main__', 'main'), OBJ, STOP)],
      ['a dotted name', pk(PROTO(4), stackGlobal('__main__', 'subprocess.Popen'), EMPTY_TUPLE, NEWOBJ, STOP)],
      ['built, then called', pk(PROTO(4), stackGlobal('__main__', 'Wrapper'), MEMOIZE, EMPTY_TUPLE, NEWOBJ, 0x30, [0x68, 0], EMPTY_TUPLE, REDUCE, STOP)],
    ];
    const severity = (bytes: Uint8Array) => lintBytes(bytes, 'crafted.pkl').findings.find((f) => f.rule === 'unsafe-pickle')?.severity;
    assert.equal(severity(built), 'warning', 'a bare object of the class, its state set as data');
    for (const [what, bytes] of calls) assert.equal(severity(bytes), 'error', what);
  });
});

describe('pickle tiers: files saved with dill', () => {
  it('reads a forest and an XGBoost model that dill wrote (its array and type helpers are data)', () => {
    // Before: "unsafe-pickle" naming dill._dill._create_array, and the model was not analysed.
    const forest = lintBytes(load('dill_forest.pkl'), 'dill_forest.pkl');
    assert.deepEqual(forest.findings.filter((f) => f.rule === 'unsafe-pickle' || f.rule === 'unknown-pickle-global'), []);
    assert.equal(forest.model?.estimator, 'RandomForestClassifier');
    const fx = fixtures.find((f) => f.file === 'dill_forest.pkl');
    const r = readSklearn(load('dill_forest.pkl'), 'dill_forest.pkl');
    assert.equal(r.kind, 'model');
    if (r.kind === 'model') assert.deepEqual(r.forest.trees.map((t) => t.left.length), fx?.nodes, 'nodes per tree, as scikit-learn holds them');
    const xgb = lintBytes(load('dill_xgb_classifier.pkl'), 'dill_xgb_classifier.pkl');
    assert.deepEqual(xgb.findings.filter((f) => f.rule === 'unsafe-pickle'), []);
    assert.equal(xgb.model?.estimator, 'XGBClassifier');
    assert.equal(xgb.model?.trees, 3);
  });

  it('keeps a lambda dill rebuilt from bytecode an unsafe-pickle error', () => {
    const report = lintBytes(load('dill_pipeline_lambda.pkl'), 'dill_pipeline_lambda.pkl');
    const unsafe = report.findings.find((f) => f.rule === 'unsafe-pickle');
    assert.equal(unsafe?.severity, 'error');
    assert.ok((unsafe?.data?.globals as string[]).includes('dill._dill._create_code'));
  });

  it("reads older dill's _get_attr(_import_module(path), name) as the global it names, and refuses any other use", () => {
    // As dill 0.2-0.3.0 wrote numpy's reconstructor (a public protocol 3 XGBClassifier file; crafted
    // here, since Debian's dill 0.3.6 no longer writes it).
    const getAttr = stackGlobal('dill._dill', '_get_attr');
    const importModule = stackGlobal('dill._dill', '_import_module');
    const named = (path: string, name: string) => [getAttr, importModule, sbu(path), 0x85, 'R', sbu(name), 0x86, 'R'];
    const ok = unpickle(bytes(P4, ...named('numpy.core.multiarray', '_reconstruct'), '.'));
    assert.deepEqual(ok.unsafe, []);
    assert.ok(ok.globals.includes('numpy.core.multiarray._reconstruct'));
    // the name's own tier: os.system is dangerous; a builtin's name would be reached by the fallback
    assert.deepEqual(unpickle(bytes(P4, ...named('os', 'system'), '.')).unsafe, ['os.system']);
    assert.deepEqual(unpickle(bytes(P4, ...named('numpy', 'eval'), '.')).unsafe, ['dill._dill._import_module', 'dill._dill._get_attr']);
    // an imported module kept as a value, or given to anything else
    assert.deepEqual(unpickle(bytes(P4, importModule, sbu('numpy.core.multiarray'), 0x85, 'R', '.')).unsafe, ['dill._dill._import_module']);
    assert.deepEqual(unpickle(bytes(P4, getAttr, stackGlobal('numpy', 'ndarray'), sbu('x'), 0x86, 'R', '.')).unsafe, ['dill._dill._get_attr']);
  });

  it("accepts _create_array only as f(*args) + setstate with a named f, and _load_type only for a builtin data type", () => {
    const create = stackGlobal('dill._dill', '_create_array');
    const recon = stackGlobal('numpy.core.multiarray', '_reconstruct');
    const arrayArgs: Part[] = [stackGlobal('numpy', 'ndarray'), 'K', 0, 0x85, 'C', 1, 'b', 0x87];
    // _create_array(f, args, state, npdict): MARK f args state npdict TUPLE REDUCE
    const call = (f: Part[], npdict: Part) => bytes(P4, create, '(', ...f, ')', npdict, 't', 'R', '.');
    const ok = call([recon, ...arrayArgs], 'N');
    assert.deepEqual(unpickle(ok).unsafe, []);
    // npdict given, f computed, the helper kept as a value: each could call anything
    assert.deepEqual(unpickle(call([recon, ...arrayArgs], '}')).unsafe, ['dill._dill._create_array']);
    const computedF: Part[] = [stackGlobal('a', 'make'), ')', 'R', ')'];
    assert.deepEqual(unpickle(call(computedF, 'N')).unsafe, ['dill._dill._create_array']);
    // a named dangerous f is dangerous by its own name
    assert.deepEqual(unpickle(call([stackGlobal('os', 'system'), sbu('echo'), 0x85], 'N')).unsafe, ['os.system']);
    const asValue = unpickle(bytes(P4, ']', create, 'a', '.'));
    assert.deepEqual(asValue.unsafe, ['dill._dill._create_array']);
    const loadType = stackGlobal('dill._dill', '_load_type');
    const bytearray = unpickle(bytes(P4, loadType, sbu('bytearray'), 0x85, 'R', 'C', 1, 'x', 0x85, 'R', '.'));
    assert.deepEqual(bytearray.unsafe, []);
    assert.ok(bytearray.globals.includes('builtins.bytearray'));
    const code = unpickle(bytes(P4, loadType, sbu('CodeType'), 0x85, 'R', '.'));
    assert.deepEqual(code.unsafe, ['dill._dill._load_type']);
  });
});

describe('pickle tiers: functions cloudpickle rebuilt from bytecode', () => {
  it('an MLflow-style Pipeline with a lambda: unsafe-pickle (an error), and the forest is analysed', () => {
    // Before: "Loading this pickle would run dangerous code ... the model was not analysed."
    const file = 'cloudpickle_pipeline_lambda.pkl';
    const report = lintBytes(load(file), file);
    const unsafe = report.findings.find((f) => f.rule === 'unsafe-pickle');
    assert.equal(unsafe?.severity, 'error');
    assert.equal(unsafe?.data?.bytecodeFunctions, 1);
    assert.match(unsafe?.message ?? '', /1 function .* as bytecode.*runs it whenever it is used/);
    assert.equal(report.model?.estimator, 'RandomForestClassifier');
    assert.ok(report.findings.some((f) => f.rule === 'replayable-bootstrap'), report.findings.map((f) => f.rule).join(', '));
  });

  const cp = (name: string) => stackGlobal('cloudpickle.cloudpickle', name);
  const setstate = stackGlobal('cloudpickle.cloudpickle_fast', '_function_setstate');
  // _make_function(_builtin_type('CodeType')(), {}), memoized as 0
  const made: Part[] = [cp('_make_function'), cp('_builtin_type'), sbu('CodeType'), 0x85, 'R', ')', 'R', '}', 0x86, 'R', 0x94];

  it('reads rebuilding alone as such, and calling a rebuilt function while loading as dangerous', () => {
    const built = unpickle(bytes(P4, ...made, setstate, 'h', 0, '}', 0x86, 'R', '0', '.'));
    assert.deepEqual(built.bytecode, { functions: 1, names: ['cloudpickle.cloudpickle._make_function', 'cloudpickle.cloudpickle._builtin_type', 'cloudpickle.cloudpickle_fast._function_setstate'] });
    // the same function, then called (REDUCE), or used as a class (NEWOBJ): its code would run now
    assert.equal(unpickle(bytes(P4, ...made, ')', 'R', '.')).bytecode, undefined);
    assert.equal(unpickle(bytes(P4, ...made, ')', 0x81, '.')).bytecode, undefined);
    // _builtin_type asked for anything but a code object or a cell; _function_setstate on another object
    assert.equal(unpickle(bytes(P4, cp('_builtin_type'), sbu('FunctionType'), 0x85, 'R', '.')).bytecode, undefined);
    assert.equal(unpickle(bytes(P4, ...made, '0', setstate, '}', '}', 0x86, 'R', '.')).bytecode, undefined);
    // subimport of a module that runs commands
    assert.equal(unpickle(bytes(P4, ...made, '0', cp('subimport'), sbu('os'), 0x85, 'R', '.')).bytecode, undefined);
    assert.notEqual(unpickle(bytes(P4, ...made, '0', cp('subimport'), sbu('numpy'), 0x85, 'R', '.')).bytecode, undefined);
    // each unchecked case leaves the file an unsafe-pickle error without analysis
    for (const data of [bytes(P4, ...made, ')', 'R', '.')]) {
      const s = unpickleStream(data);
      assert.equal(s.bytecode, undefined);
      assert.ok(s.unsafe.includes('cloudpickle.cloudpickle._make_function'));
    }
  });

  it('a second pickle that calls what it rebuilds makes the whole file dangerous', () => {
    const calm = bytes(P4, ...made, setstate, 'h', 0, '}', 0x86, 'R', '0', '.');
    const calls = bytes(P4, ...made, ')', 'R', '.');
    const s = unpickleStream(Uint8Array.from([...calm, ...calls]));
    assert.equal(s.bytecode, undefined);
  });
});
