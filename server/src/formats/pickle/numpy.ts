/**
 * numpy arrays and dtypes as pickles describe them, decoded without numpy.
 *
 * - dtype: `numpy.dtype(typestr, False, True)` REDUCE + BUILD state
 *   `(version, byteorder, subarray, names, fields, elsize, alignment, flags[, metadata])`.
 * - plain pickles: `numpy.core.multiarray._reconstruct(ndarray, (0,), b'b')` REDUCE + BUILD state
 *   `(version, shape, dtype, is_fortran, rawdata)` (rawdata: bytes, or a list for object arrays,
 *   or `_codecs.encode(str, 'latin1')` under protocol 2).
 * - protocol 5: `numpy.core.numeric._frombuffer(buffer, dtype, shape, order)`.
 * - joblib: NumpyArrayWrapper records; the VM reads their raw bytes (see vm.ts) into NdArray.
 */
import {
  PyBytes,
  PyCall,
  PyDict,
  PyGlobal,
  PyValue,
  asInt,
  asNumber,
  asString,
  seqItems,
} from './values';
import { NdArray as GenericNdArray, NumpyError, type DType, type DTypeField } from './ndarray';

export { NumpyError, type DType, type DTypeField } from './ndarray';

/** An array as the pickle reader holds it: the elements of an object array are pickle values. */
export type NdArray = GenericNdArray<PyValue>;
export const NdArray = GenericNdArray;

const NUMPY_MODULES = new Set(['numpy.core.multiarray', 'numpy._core.multiarray', 'numpy.core.numeric', 'numpy._core.numeric', 'numpy']);

function isNumpyGlobal(v: PyValue | undefined, name: string): boolean {
  return v instanceof PyGlobal && v.name === name && NUMPY_MODULES.has(v.module);
}

const dtypeCache = new WeakMap<object, DType>();
const arrayCache = new WeakMap<object, NdArray>();

/** Decodes a pickled `numpy.dtype`. Throws NumpyError when it is not one. */
export function asDType(v: PyValue | undefined, depth = 0): DType {
  if (depth > 32) throw new NumpyError('a numpy dtype nested too deep');
  if (!(v instanceof PyCall) || !isDTypeGlobal(v.callable)) {
    throw new NumpyError('expected a numpy dtype');
  }
  const cached = dtypeCache.get(v);
  if (cached) return cached;
  const args = seqItems(v.args);
  const typestr = asString(args?.[0]);
  if (typestr === undefined) throw new NumpyError('a numpy dtype without a type string');
  const m = /^([<>|=]?)([a-zA-Z])(\d*)$/.exec(typestr);
  if (!m) throw new NumpyError(`unknown numpy type string '${typestr}'`);
  let kind = m[2];
  if (kind === 'a') kind = 'S';
  if (kind === '?') kind = 'b';
  let itemsize = m[3] ? Number(m[3]) : 0;
  if (kind === 'U') itemsize *= 4;
  let byteorder = m[1] || '=';
  let fields: DTypeField[] | undefined;
  let subarray: DType['subarray'];
  const state = seqItems(v.state);
  if (state && state.length >= 6) {
    const bo = asString(state[1]);
    if (bo) byteorder = bo;
    const sub = seqItems(state[2]);
    if (sub && sub.length === 2) {
      const base = asDType(sub[0], depth + 1);
      const shape = (seqItems(sub[1]) ?? [sub[1]]).map((x) => asInt(x) ?? -1);
      subarray = { base, shape };
    }
    const names = seqItems(state[3]);
    const fdict = state[4];
    if (names && fdict instanceof PyDict) {
      fields = [];
      for (const nameV of names) {
        const name = asString(nameV);
        const entry = seqItems(name === undefined ? undefined : fdict.get(name));
        if (name === undefined || !entry || entry.length < 2) throw new NumpyError('a structured numpy dtype with a malformed field');
        const offset = asInt(entry[1]);
        if (offset === undefined || offset < 0) throw new NumpyError(`field '${name}' has no valid offset`);
        fields.push({ name, dtype: asDType(entry[0], depth + 1), offset });
      }
    }
    const elsize = asInt(state[5]);
    if (elsize !== undefined && elsize > 0) itemsize = elsize;
  }
  if (kind === 'O') itemsize = 8;
  if (!(itemsize > 0) && kind !== 'V') throw new NumpyError(`numpy type '${typestr}' has no item size`);
  const littleEndian = byteorder !== '>';
  const dt: DType = { kind, itemsize, littleEndian, fields, subarray, str: `${byteorder === '=' ? '<' : byteorder}${kind}${itemsize}` };
  if (fields) {
    for (const f of fields) {
      if (f.offset + f.dtype.itemsize > itemsize) throw new NumpyError(`field '${f.name}' lies outside its record`);
    }
  }
  dtypeCache.set(v, dt);
  return dt;
}

export function isDTypeGlobal(v: PyValue | undefined): boolean {
  return v instanceof PyGlobal && v.name === 'dtype' && (v.module === 'numpy' || NUMPY_MODULES.has(v.module));
}

/** Whether a value is a pickled numpy array (any of the encodings above). */
export function isArray(v: PyValue | undefined): boolean {
  if (v instanceof NdArray) return true;
  return v instanceof PyCall && (isNumpyGlobal(v.callable, '_reconstruct') || isNumpyGlobal(v.callable, '_frombuffer'));
}

/** Bytes from `bytes`, `bytearray` or protocol 2's `_codecs.encode(str, 'latin1')`. */
export function asRawBytes(v: PyValue | undefined): Uint8Array | undefined {
  if (v instanceof PyBytes) return v.data;
  if (v instanceof PyCall && v.callable instanceof PyGlobal && v.callable.module === '_codecs' && v.callable.name === 'encode') {
    const args = seqItems(v.args);
    const s = asString(args?.[0]);
    const enc = asString(args?.[1]) ?? 'utf-8';
    if (s === undefined) return undefined;
    if (/^latin[-_]?1$|^iso[-_]?8859[-_]1$/i.test(enc)) {
      const out = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c > 255) return undefined;
        out[i] = c;
      }
      return out;
    }
    if (/^utf[-_]?8$/i.test(enc)) return new TextEncoder().encode(s);
    return undefined;
  }
  if (v instanceof PyCall && v.callable instanceof PyGlobal && v.callable.module === 'builtins' && (v.callable.name === 'bytes' || v.callable.name === 'bytearray')) {
    // protocol 2's spelling of an empty bytes object: bytes()
    const args = seqItems(v.args);
    if (args && args.length === 0) return new Uint8Array(0);
    if (args && args.length === 1) return asRawBytes(args[0]);
    return undefined;
  }
  if (typeof v === 'string') {
    // Python 2 str read as latin-1
    const out = new Uint8Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = v.charCodeAt(i) & 0xff;
    return out;
  }
  return undefined;
}

export function shapeOf(v: PyValue | undefined): number[] {
  const items = seqItems(v);
  if (!items) {
    const n = asInt(v);
    if (n === undefined) throw new NumpyError('an array shape that is not a tuple of ints');
    return [n];
  }
  return items.map((x) => {
    const n = asInt(x);
    if (n === undefined || n < 0) throw new NumpyError('an array shape that is not a tuple of non-negative ints');
    return n;
  });
}

function checkedSize(shape: number[]): number {
  let n = 1;
  for (const d of shape) {
    n *= d;
    if (n > Number.MAX_SAFE_INTEGER) throw new NumpyError('an array shape too large to exist');
  }
  return n;
}

/** Decodes a pickled numpy array; throws NumpyError when the value is not one or is malformed. */
export function asNdArray(v: PyValue | undefined): NdArray {
  if (v instanceof NdArray) return v;
  if (!(v instanceof PyCall)) throw new NumpyError('expected a numpy array');
  const cached = arrayCache.get(v);
  if (cached) return cached;
  let arr: NdArray;
  if (isNumpyGlobal(v.callable, '_reconstruct')) {
    let state = seqItems(v.state);
    if (!state) throw new NumpyError('a numpy array without its state');
    if (state.length === 5) state = state.slice(1);
    if (state.length !== 4) throw new NumpyError('a numpy array state of unexpected length');
    const shape = shapeOf(state[0]);
    const dtype = asDType(state[1]);
    const fortran = state[2] === true || state[2] === 1;
    arr = build(shape, dtype, fortran, state[3]);
  } else if (isNumpyGlobal(v.callable, '_frombuffer')) {
    const args = seqItems(v.args);
    if (!args || args.length < 4) throw new NumpyError('a numpy _frombuffer call with missing arguments');
    const dtype = asDType(args[1]);
    const shape = shapeOf(args[2]);
    const order = asString(args[3]);
    arr = build(shape, dtype, order === 'F', args[0]);
  } else {
    throw new NumpyError('expected a numpy array');
  }
  arrayCache.set(v, arr);
  return arr;
}

/**
 * An array from `ndarray.__reduce__`'s state without its data (version, shape, dtype, Fortran
 * order) and the data's bytes kept elsewhere: old joblib's ZNDArrayWrapper and its z-file.
 */
export function arrayFromStateAndData(state: PyValue | undefined, data: Uint8Array): NdArray {
  let items = seqItems(state);
  if (!items) throw new NumpyError('a numpy array state that is not a tuple');
  if (items.length === 4) items = items.slice(1);
  if (items.length !== 3) throw new NumpyError('a numpy array state of unexpected length');
  return build(shapeOf(items[0]), asDType(items[1]), items[2] === true || items[2] === 1, new PyBytes(data));
}

function build(shape: number[], dtype: DType, fortran: boolean, raw: PyValue): NdArray {
  const size = checkedSize(shape);
  if (dtype.kind === 'O') {
    const items = seqItems(raw);
    if (!items || items.length !== size) throw new NumpyError(`an object array of ${size} elements holds ${items?.length ?? 'no'} items`);
    return new NdArray(dtype, shape, fortran, undefined, items);
  }
  const bytes = asRawBytes(raw);
  if (!bytes) throw new NumpyError('a numpy array whose data is not bytes');
  if (bytes.length !== size * dtype.itemsize) {
    throw new NumpyError(`a numpy array of ${size} x ${dtype.itemsize} bytes holds ${bytes.length} bytes`);
  }
  return new NdArray(dtype, shape, fortran, bytes, undefined);
}

/** Decodes `numpy.core.multiarray.scalar(dtype, bytes)` (numpy scalars such as np.int64(5)). */
export function asNumpyScalar(v: PyValue | undefined): PyValue | undefined {
  if (!(v instanceof PyCall) || !isNumpyGlobal(v.callable, 'scalar')) return undefined;
  const args = seqItems(v.args);
  if (!args || args.length < 2) return undefined;
  try {
    const dtype = asDType(args[0]);
    if (dtype.kind === 'O') return args[1];
    const raw = asRawBytes(args[1]);
    if (!raw || raw.length !== dtype.itemsize) return undefined;
    return new NdArray<PyValue>(dtype, [], false, raw, undefined).values()[0];
  } catch {
    return undefined;
  }
}

/** A Python or numpy number as a JS number. */
export function numeric(v: PyValue | undefined): number | undefined {
  const n = asNumber(v);
  if (n !== undefined) return n;
  const s = asNumpyScalar(v);
  return s === undefined ? undefined : typeof s === 'boolean' ? (s ? 1 : 0) : asNumber(s);
}
