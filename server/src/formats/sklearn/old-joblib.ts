/**
 * joblib before 0.10 (2016) wrote each numpy array of a model to a file of its own beside the
 * pickle (`clf.pkl_01.npy`, `clf.pkl_02.npy`, ...), leaving in the pickle an
 * `NDArrayWrapper(filename=..., subclass=numpy.ndarray)` in its place. With `compress`, the pickle
 * itself is a z-file (pickle/compression.ts `zfileBody`) and arrays of 100 MB or more (joblib's
 * `cache_size`) go to z-files of their raw bytes (`clf.pkl_01.npy.z`) with a
 * `ZNDArrayWrapper(filename, init_args, state)` in their place, the array's reconstruct state
 * without its data. Public repositories of 2014-2017 hold such models with their side files
 * (sweep 9: a DecisionTreeRegressor read as "corrupt").
 *
 * The wrappers are replaced in the object graph by the arrays their files hold (npy.ts), read
 * through `sideFile`, which the caller limits to files beside the model named after it. Nothing in
 * the pickle chooses a path: a name that is not `<model file>_NN.npy` is never asked for.
 */
import { NdArray, PyBytes, PyCall, PyDict, PyList, PyObject, PySet, PyTuple, classOf, stateDict, type PyValue } from '../pickle';
import { arrayFromStateAndData, decompress, DEFAULT_MAX_DECOMPRESSED_BYTES, zfileBody } from '../pickle';
import { parseNpy } from '../pickle/npy';

export interface SideArrays {
  /** Wrappers replaced by their arrays. */
  read: number;
  /** Side files the wrappers name that could not be read, and why. */
  missing: { file: string; why: string }[];
}

const WRAPPERS = new Set(['joblib.numpy_pickle.NDArrayWrapper', 'sklearn.externals.joblib.numpy_pickle.NDArrayWrapper']);
const COMPRESSED = new Set(['joblib.numpy_pickle.ZNDArrayWrapper', 'sklearn.externals.joblib.numpy_pickle.ZNDArrayWrapper']);

/** Which old joblib wrapper `v` is, if it is one. */
export function wrapperName(v: PyValue | undefined): 'plain' | 'compressed' | undefined {
  const cls = classOf(v);
  if (!cls) return undefined;
  return WRAPPERS.has(cls.qualified) ? 'plain' : COMPRESSED.has(cls.qualified) ? 'compressed' : undefined;
}

/**
 * Replaces, in place, every wrapper reachable from `root` by the array of its side file.
 * `sideFile(name)` returns the file's bytes or why it cannot.
 */
export function resolveSideArrays(root: PyValue, sideFile: (name: string) => Uint8Array | string, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): SideArrays {
  const out: SideArrays = { read: 0, missing: [] };
  const arrays = new Map<object, PyValue>();
  const arrayOf = (wrapper: PyObject | PyCall): PyValue => {
    const known = arrays.get(wrapper);
    if (known !== undefined) return known;
    const state = stateDict(wrapper);
    const raw = state?.get('filename');
    const file = typeof raw === 'string' ? raw : raw instanceof PyBytes ? String.fromCharCode(...raw.data) : undefined;
    let value: PyValue = wrapper;
    if (file === undefined) out.missing.push({ file: '(no file name)', why: 'the wrapper names no file' });
    else {
      const bytes = sideFile(file);
      if (typeof bytes === 'string') out.missing.push({ file, why: bytes });
      else {
        try {
          value = wrapperName(wrapper) === 'compressed' ? zfileArray(state, bytes, maxBytes) : parseNpy(bytes);
          out.read++;
        } catch (e) {
          out.missing.push({ file, why: (e as Error).message });
        }
      }
    }
    arrays.set(wrapper, value);
    return value;
  };
  const replaced = (v: PyValue): PyValue => ((v instanceof PyObject || v instanceof PyCall) && wrapperName(v) ? arrayOf(v) : v);
  const seen = new Set<object>();
  const stack: PyValue[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || seen.has(v) || v instanceof NdArray) continue;
    seen.add(v);
    const visitAll = (items: PyValue[]) => {
      for (let i = 0; i < items.length; i++) {
        items[i] = replaced(items[i]);
        stack.push(items[i]);
      }
    };
    if (v instanceof PyTuple || v instanceof PyList || v instanceof PySet) visitAll(v.items);
    else if (v instanceof PyDict) visitAll(v.values as PyValue[]);
    else if (v instanceof PyObject || v instanceof PyCall) {
      if (wrapperName(v)) continue;
      if (v.state !== undefined) {
        v.state = replaced(v.state);
        stack.push(v.state);
      }
      if (v instanceof PyCall) stack.push(v.args);
      else visitAll(v.args);
      if (v.listItems) visitAll(v.listItems);
      if (v.dictItems) visitAll(v.dictItems.values as PyValue[]);
    }
  }
  return out;
}

/**
 * A ZNDArrayWrapper's array: its z-file holds the raw bytes (zlib, under the reader's limit), and
 * the wrapper the array's reconstruct state without them (`ndarray.__reduce__`'s, data dropped).
 */
function zfileArray(wrapper: PyDict | undefined, bytes: Uint8Array, maxBytes: number): PyValue {
  if (!zfileBody(bytes)) throw new Error('not a joblib z-file (it should start with ZF and its length)');
  return arrayFromStateAndData(wrapper?.get('state'), decompress(bytes, 'zlib', maxBytes));
}
