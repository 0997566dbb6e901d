/**
 * The safe pickle VM on hand-assembled pickles: opcodes, the allowlist, limits and failures;
 * and numpy decoding against arrays numpy itself pickled (test/fixtures/sklearn/numpy_arrays.*).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  NdArray,
  PyBytes,
  PyCall,
  PyDict,
  PyFloat,
  PyGlobal,
  PyList,
  PyObject,
  PySet,
  PyTuple,
  asNdArray,
  detectCompression,
  isAllowedGlobal,
  unpickle,
  type PyValue,
  type UnpickleResult,
} from '../../server/src/formats/pickle';
import { readSklearn } from '../../server/src/formats/sklearn';

const DIR = path.resolve(__dirname, '../../../test/fixtures/sklearn');

// ---- a tiny pickle assembler ----
type Part = number | string | Uint8Array | number[];
function bytes(...parts: Part[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === 'number') out.push(p);
    else if (typeof p === 'string') for (const c of Buffer.from(p, 'latin1')) out.push(c);
    else for (const c of p) out.push(c);
  }
  return Uint8Array.from(out);
}
const u32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
const u64 = (n: number) => [...u32(n % 4294967296), ...u32(Math.floor(n / 4294967296))];
const sbu = (s: string) => {
  const b = Buffer.from(s, 'utf8');
  return [0x8c, b.length, ...b];
};
const stackGlobal = (m: string, n: string) => [...sbu(m), ...sbu(n), 0x93];
const P4 = [0x80, 4];

function run(...parts: Part[]): UnpickleResult {
  return unpickle(bytes(...parts));
}
function value(...parts: Part[]): PyValue {
  const r = run(...parts);
  assert.equal(r.error, undefined, r.error?.message);
  return r.value as PyValue;
}

describe('pickle VM: values', () => {
  it('reads ints of every encoding', () => {
    assert.equal(value(P4, 'K', 200, '.'), 200);
    assert.equal(value(P4, 'M', 0x34, 0x12, '.'), 0x1234);
    assert.equal(value(P4, 'J', u32(-5 >>> 0), '.'), -5);
    assert.equal(value(0x8a, 1, 0xff, '.'), -1);
    assert.equal(value(0x8a, 0, '.'), 0);
    assert.equal(value(0x8a, 9, [0, 0, 0, 0, 0, 0, 0, 0, 1], '.'), 2n ** 64n);
    assert.equal(value(0x8a, 8, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], '.'), 2n ** 63n - 1n);
    assert.equal(value(0x8b, u32(2), [0x00, 0x80], '.'), -32768);
    assert.equal(value('I42\n.'), 42);
    assert.equal(value('I01\n.'), true);
    assert.equal(value('I00\n.'), false);
    assert.equal(value('L123456789012345678901234567890L\n.'), 123456789012345678901234567890n);
    assert.equal(value(P4, 0x88, '.'), true);
    assert.equal(value(P4, 'N.'), null);
  });

  it('keeps floats apart from ints', () => {
    const f = value(P4, 'G', [0x3f, 0xf8, 0, 0, 0, 0, 0, 0], '.');
    assert.ok(f instanceof PyFloat);
    assert.equal(f.value, 1.5);
    assert.equal((value('F0.25\n.') as PyFloat).value, 0.25);
    assert.equal((value('Finf\n.') as PyFloat).value, Infinity);
    assert.ok(Number.isNaN((value('Fnan\n.') as PyFloat).value));
  });

  it('reads strings and bytes of every encoding', () => {
    assert.equal(value(P4, sbu('héllo'), '.'), 'héllo');
    assert.equal(value('X', u32(3), 'abc', '.'), 'abc');
    assert.equal(value(0x8d, u64(2), 'hi', '.'), 'hi');
    assert.equal(value("S'a\\n\\x41\\'b'\n."), "a\nA'b");
    assert.equal(value('S"plain"\n.'), 'plain');
    assert.equal(value('V\\u00e9t\\U0001F600\n.'), 'ét😀');
    assert.equal(value('U', 2, [0x80, 0x9f], '.'), '\x80\x9f', 'latin-1, not windows-1252');
    assert.equal(value('T', u32(1), 'z', '.'), 'z');
    const b = value('C', 2, [1, 2], '.');
    assert.ok(b instanceof PyBytes && !b.mutable);
    assert.deepEqual([...b.data], [1, 2]);
    const b8 = value(0x8e, u64(1), [9], '.');
    assert.ok(b8 instanceof PyBytes);
    const ba = value(0x96, u64(2), [7, 8], '.');
    assert.ok(ba instanceof PyBytes && ba.mutable);
    assert.deepEqual([...(value('B', u32(3), [4, 5, 6], '.') as PyBytes).data], [4, 5, 6]);
  });

  it('builds containers and uses the memo', () => {
    const l = value(P4, ']', 0x94, '(', 'K', 1, 'K', 2, 'e', 'K', 3, 'a', 'h', 0, 0x86, '.');
    assert.ok(l instanceof PyTuple);
    const [a, b] = l.items;
    assert.ok(a instanceof PyList);
    assert.equal(a, b, 'memo GET returns the same object');
    assert.deepEqual(a.items, [1, 2, 3]);

    const d = value(P4, '}', '(', sbu('x'), 'K', 1, sbu('y'), 'N', 'u', sbu('z'), 'K', 2, 's', '.');
    assert.ok(d instanceof PyDict);
    assert.deepEqual(d.keys, ['x', 'y', 'z']);
    assert.equal(d.get('x'), 1);
    assert.equal(d.get('y'), null);
    assert.equal(d.get('z'), 2);

    const d0 = value('(dp0\nS\'k\'\np1\nI7\nsg1\n.');
    assert.equal(d0, 'k', 'protocol 0 PUT/GET');

    const t = value(P4, 'K', 1, 'K', 2, 'K', 3, 0x87, 'K', 4, 0x85, 0x29, '(', 'K', 5, 't', 0x87, '.');
    assert.ok(t instanceof PyTuple);
    assert.equal(t.items.length, 3);

    const s = value(P4, 0x8f, '(', 'K', 1, 'K', 2, 0x90, '.');
    assert.ok(s instanceof PySet && !s.frozen);
    assert.deepEqual(s.items, [1, 2]);
    const fs2 = value(P4, '(', 'K', 1, 0x91, '.');
    assert.ok(fs2 instanceof PySet && fs2.frozen);

    assert.equal(value(P4, 'K', 1, '2', 0x86, '.') instanceof PyTuple, true, 'DUP');
    assert.equal(value(P4, 'K', 1, 'K', 2, '0', '.'), 1, 'POP');
    assert.equal(value(P4, 'K', 1, '(', 'K', 2, 'K', 3, '1', '.'), 1, 'POP_MARK');
    assert.deepEqual((value(P4, '(', 'K', 1, 'K', 2, 'l', '.') as PyList).items, [1, 2], 'LIST');
    assert.equal((value(P4, '(', 'K', 1, 'K', 2, 'd', '.') as PyDict).get(1), 2, 'DICT');
  });

  it('records objects without calling anything', () => {
    const o = value(P4, stackGlobal('sklearn.tree._classes', 'DecisionTreeClassifier'), 0x29, 0x81, '}', sbu('a'), 'K', 1, 's', 'b', '.');
    assert.ok(o instanceof PyObject);
    assert.ok(o.cls instanceof PyGlobal);
    assert.equal(o.cls.qualified, 'sklearn.tree._classes.DecisionTreeClassifier');
    assert.equal((o.state as PyDict).get('a'), 1);

    const c = value(P4, stackGlobal('collections', 'OrderedDict'), 0x29, 'R', '(', sbu('k'), 'K', 5, 'u', '.');
    assert.ok(c instanceof PyCall);
    assert.equal(c.dictItems?.get('k'), 5);

    const ex = value(P4, stackGlobal('builtins', 'object'), 0x29, '}', 0x92, '.');
    assert.ok(ex instanceof PyObject && ex.kwargs instanceof PyDict);

    const obj = value('(csklearn.base\nBaseEstimator\nK\x01o.');
    assert.ok(obj instanceof PyObject);
    assert.deepEqual(obj.args, [1]);

    const inst = value('(K\x02isklearn.base\nBaseEstimator\n.');
    assert.ok(inst instanceof PyObject);
    assert.deepEqual(inst.args, [2]);
  });
});

describe('pickle VM: the allowlist', () => {
  it('allows what models pickle', () => {
    for (const [m, n] of [
      ['numpy.core.multiarray', '_reconstruct'],
      ['numpy._core.multiarray', '_reconstruct'],
      ['numpy._core.numeric', '_frombuffer'],
      ['numpy', 'dtype'],
      ['numpy', 'ndarray'],
      ['numpy.core.multiarray', 'scalar'],
      ['joblib.numpy_pickle', 'NumpyArrayWrapper'],
      ['copyreg', '_reconstructor'],
      ['copy_reg', '_reconstructor'],
      ['builtins', 'object'],
      ['__builtin__', 'object'],
      ['_codecs', 'encode'],
      ['collections', 'OrderedDict'],
      ['numpy.random._pickle', '__randomstate_ctor'],
      ['numpy.random._pickle', '__bit_generator_ctor'],
      ['sklearn.tree._tree', 'Tree'],
      ['sklearn.ensemble._forest', 'RandomForestClassifier'],
      ['sklearn.pipeline', 'Pipeline'],
      ['numpy', 'int64'],
    ]) {
      assert.equal(isAllowedGlobal(m, n), true, `${m}.${n}`);
    }
  });

  it('denies everything else', () => {
    for (const [m, n] of [
      ['os', 'system'],
      ['posix', 'system'],
      ['nt', 'system'],
      ['builtins', 'eval'],
      ['builtins', 'exec'],
      ['builtins', 'getattr'],
      ['builtins', '__import__'],
      ['subprocess', 'Popen'],
      ['__main__', 'Anything'],
      ['sklearn.utils', 'check_array'],
      ['sklearn.base', 'BaseEstimator.__init__'],
      ['sklearn.externals.six', 'Foo'],
      ['numpy', 'load'],
      ['numpy.testing._private.utils', 'runstring'],
      ['sklearnx.evil', 'Class'],
      ['joblib', 'load'],
      ['pickle', 'loads'],
      ['torch', 'load'],
    ]) {
      assert.equal(isAllowedGlobal(m, n), false, `${m}.${n}`);
    }
  });

  it('reports every offending global in order of first appearance, once each, and keeps scanning', () => {
    const r = run(
      P4,
      '(',
      stackGlobal('posix', 'system'),
      sbu('echo'),
      0x85,
      'R',
      stackGlobal('numpy', 'dtype'),
      'c',
      'builtins\neval\n',
      stackGlobal('posix', 'system'),
      stackGlobal('sklearn.base', 'BaseEstimator.__init__'),
      'l',
      '.',
    );
    assert.equal(r.error, undefined);
    assert.deepEqual(r.unsafe, ['posix.system', 'builtins.eval', 'sklearn.base.BaseEstimator.__init__']);
  });

  it('maps Python 2 names as Python 3 would resolve them (protocols < 3)', () => {
    assert.deepEqual(run('c__builtin__\neval\n.').unsafe, ['builtins.eval']);
    assert.deepEqual(run(0x80, 3, 'c__builtin__\neval\n.').unsafe, ['__builtin__.eval']);
  });

  it('still reports offenders when the pickle breaks after them', () => {
    const r = run(P4, 'cos\nsystem\n', 'X', u32(100), 'abc');
    assert.equal(r.error?.kind, 'truncated');
    assert.deepEqual(r.unsafe, ['os.system']);
    const res = readSklearn(bytes(P4, 'cos\nsystem\n', 'X', u32(100), 'abc'), 'x.pkl');
    assert.deepEqual(res, { kind: 'unsafe', format: 'sklearn-pickle', globals: ['os.system'] });
  });
});

describe('pickle VM: failures and limits', () => {
  it('tells truncation from corruption', () => {
    assert.equal(run(P4, 'X', u32(10), 'abc').error?.kind, 'truncated');
    assert.equal(run(P4, 'K', 1).error?.kind, 'truncated', 'no STOP');
    assert.equal(run(P4, 0x95, u64(1000), 'K', 1, '.').error?.kind, 'truncated', 'frame past the end');
    assert.equal(run(P4, 0x8e, u64(2 ** 52), '.').error?.kind, 'truncated');
    assert.equal(run(P4, 0xff).error?.kind, 'corrupt', 'unknown opcode');
    assert.equal(run(0x80, 9, '.').error?.kind, 'corrupt', 'unknown protocol');
    assert.equal(run(P4, '.').error?.kind, 'corrupt', 'stack underflow');
    assert.equal(run(P4, 'h', 3, '.').error?.kind, 'corrupt', 'memo miss');
    assert.equal(run(P4, 'K', 1, 'e', '.').error?.kind, 'corrupt', 'APPENDS without MARK');
    assert.equal(run(P4, 'K', 1, 'K', 2, 'a', '.').error?.kind, 'corrupt', 'APPEND to an int');
    assert.equal(run(P4, 'K', 1, 'K', 2, 'b', '.').error?.kind, 'corrupt', 'BUILD on an int');
    assert.equal(run(P4, 'K', 1, 'K', 2, 0x93, '.').error?.kind, 'corrupt', 'STACK_GLOBAL of ints');
    assert.equal(run('Ixyz\n.').error?.kind, 'corrupt');
  });

  it('refuses persistent ids, extension codes and out-of-band buffers', () => {
    assert.match(run('Pabc\n.').refused[0], /persistent id/);
    assert.match(run(P4, 'K', 1, 'Q', '.').refused[0], /persistent id/);
    assert.match(run(0x80, 2, 0x82, 7, '.').refused[0], /extension code 7/);
    assert.match(run(0x80, 2, 0x83, 7, 1, '.').refused[0], /extension code 263/);
    assert.match(run(0x80, 2, 0x84, u32(70000), '.').refused[0], /extension code 70000/);
    assert.match(run(0x80, 5, 0x97, 0x98, '.').refused[0], /out-of-band/);
    const r = readSklearn(bytes(0x80, 5, 0x97, '.'), 'x.pkl');
    assert.equal(r.kind === 'unreadable' && r.reason, 'unsupported-format');
  });

  it('caps memo, stack and containers', () => {
    const memoize = Array.from({ length: 20 }, () => [0x94]).flat();
    assert.equal(unpickle(bytes(P4, 'N', memoize, '.'), { limits: { maxMemo: 10 } }).error?.kind, 'too-large');
    assert.equal(unpickle(bytes(P4, 'N', memoize, '.'), { limits: { maxMemo: 30 } }).error, undefined);
    const dups = Array.from({ length: 50 }, () => [0x32]).flat();
    assert.equal(unpickle(bytes(P4, 'N', dups, '.'), { limits: { maxStack: 20 } }).error?.kind, 'too-large');
    const items = Array.from({ length: 10 }, () => 0x4e); // NONE x 10
    assert.equal(unpickle(bytes(P4, ']', '(', items, 'e', '.'), { limits: { maxContainer: 5 } }).error?.kind, 'too-large');
    assert.equal(unpickle(bytes(P4, '(', items, 't', '.'), { limits: { maxContainer: 5 } }).error?.kind, 'too-large');
  });

  it('consumes input on every step (a long run of no-op opcodes ends)', () => {
    const frames = Array.from({ length: 10000 }, () => [0x95, ...u64(0)]).flat();
    const r = unpickle(bytes(P4, frames, 'K', 1, '.'));
    assert.equal(r.value, 1);
  });

  it('detects compression by magic bytes', () => {
    assert.equal(detectCompression(Uint8Array.from([0x78, 0x9c])), 'zlib');
    assert.equal(detectCompression(Uint8Array.from([0x78, 0x01])), 'zlib');
    assert.equal(detectCompression(Uint8Array.from([0x78, 0x00])), undefined);
    assert.equal(detectCompression(Uint8Array.from([0x1f, 0x8b, 8])), 'gzip');
    assert.equal(detectCompression(bytes('BZh9')), 'bz2');
    assert.equal(detectCompression(Uint8Array.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])), 'xz');
    assert.equal(detectCompression(Uint8Array.from([0x5d, 0, 0, 0x80])), 'lzma');
    assert.equal(detectCompression(Uint8Array.from([0x04, 0x22, 0x4d, 0x18])), 'lz4');
    assert.equal(detectCompression(Uint8Array.from([0x80, 4])), undefined);
  });
});

// ---- numpy ----

interface ArrayTruth {
  shape: number[];
  values?: unknown[];
  fields?: Record<string, number[]>;
}
const arrayTruth = JSON.parse(fs.readFileSync(path.join(DIR, 'numpy_arrays.truth.json'), 'utf8')) as Record<string, ArrayTruth>;

function jsValue(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value;
  return v;
}

describe('numpy arrays as numpy pickled them', () => {
  for (const file of ['numpy_arrays.joblib', 'numpy_arrays.p0.pkl', 'numpy_arrays.p2.pkl', 'numpy_arrays.p4.pkl', 'numpy_arrays.p5.pkl']) {
    it(file, () => {
      const b = fs.readFileSync(path.join(DIR, file));
      const r = unpickle(new Uint8Array(b.buffer, b.byteOffset, b.byteLength), { joblib: true });
      assert.equal(r.error, undefined, r.error?.message);
      assert.deepEqual(r.unsafe, []);
      if (file.endsWith('.joblib')) assert.ok(r.joblibArrays >= 12);
      const d = r.value;
      assert.ok(d instanceof PyDict);
      assert.deepEqual([...d.keys].sort(), Object.keys(arrayTruth).sort());
      for (const [name, t] of Object.entries(arrayTruth)) {
        const a = asNdArray(d.get(name));
        assert.ok(a instanceof NdArray);
        assert.deepEqual(a.shape, t.shape, `${name} shape`);
        if (t.fields) {
          for (const [f, vals] of Object.entries(t.fields)) assert.deepEqual(Array.from(a.field(f)), vals, `${name}.${f}`);
        } else {
          const got = a.values().map(jsValue);
          if (a.dtype.kind === 'f' && a.dtype.itemsize === 4) {
            got.forEach((x, i) => assert.equal(x, Math.fround(t.values?.[i] as number), `${name}[${i}]`));
          } else {
            assert.deepEqual(got, t.values, name);
          }
        }
      }
    });
  }

  it('reads a joblib array with alignment padding and Fortran order', () => {
    // NumpyArrayWrapper(shape=(2, 3), order='F', dtype='<i2', alignment 16), then padding + raw bytes
    const dtype = [...stackGlobal('numpy', 'dtype'), ...sbu('i2'), 0x89, 0x88, 0x87, 'R'.charCodeAt(0), ...bytes('(', 'K', 3, sbu('<'), 'N', 'N', 'N', 'J', u32(-1 >>> 0), 'J', u32(-1 >>> 0), 'K', 0, 't', 'b')];
    const head = bytes(
      P4,
      stackGlobal('joblib.numpy_pickle', 'NumpyArrayWrapper'),
      0x29,
      0x81,
      '}',
      '(',
      sbu('shape'),
      'K',
      2,
      'K',
      3,
      0x86,
      sbu('order'),
      sbu('F'),
      sbu('dtype'),
      dtype,
      sbu('numpy_array_alignment_bytes'),
      'K',
      16,
      'u',
      'b',
    );
    // storage in Fortran order of [[1,2,3],[4,5,6]]: 1,4,2,5,3,6
    const raw = [1, 4, 2, 5, 3, 6].flatMap((x) => [x, 0]);
    const data = bytes(head, 3, [0xff, 0xff, 0xff], raw, '.');
    const r = unpickle(data, { joblib: true });
    assert.equal(r.error, undefined, r.error?.message);
    const a = r.value as NdArray;
    assert.ok(a instanceof NdArray);
    assert.deepEqual(a.shape, [2, 3]);
    assert.deepEqual(Array.from(a.numbers()), [1, 2, 3, 4, 5, 6]);
    // without the joblib hook the wrapper stays a record and the raw bytes are garbage opcodes
    assert.notEqual(unpickle(data).error, undefined);
    // cut inside the array bytes: truncated
    assert.equal(unpickle(data.subarray(0, data.length - 4), { joblib: true }).error?.kind, 'truncated');
  });
});
