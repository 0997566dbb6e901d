/**
 * Data saved as a pickle: a pandas DataFrame or Series, or a 2-D numpy array, alone in the file or
 * beside a model in a dict, list or tuple. `joblib.dump(X_train, "X_train.pkl")` commits the
 * training set itself, which no model file gives away as plainly (rule `saved-data`). Only read,
 * never rebuilt: the size comes from the pickled axes (a pandas Index's data, or a RangeIndex's
 * start, stop and step) or the array's shape; the values are never looked at.
 */
import { asNdArray, isArray } from '../pickle/numpy';
import { asInt, classOf, PyCall, PyDict, PyObject, seqItems, stateDict, type PyValue } from '../pickle/values';
import type { SavedData } from '../types';

/** How deep in dicts, lists and tuples data is looked for (`{"model": m, "data": (X, y)}`). */
const MAX_DEPTH = 3;

export function findSavedData(root: PyValue): SavedData[] {
  const out: SavedData[] = [];
  const visit = (v: PyValue, location: string, depth: number) => {
    const found = describeData(v, location);
    if (found) {
      out.push(found);
      return;
    }
    if (depth >= MAX_DEPTH) return;
    if (v instanceof PyDict) {
      v.keys.forEach((key, i) => visit(v.values[i], `${location}[${typeof key === 'string' ? JSON.stringify(key) : String(key)}]`, depth + 1));
      return;
    }
    // A class instance is a model or a transformer: its own arrays are its parameters, not data.
    if (classOf(v)) return;
    seqItems(v)?.forEach((item, i) => visit(item, `${location}[${i}]`, depth + 1));
  };
  visit(root, 'model', 0);
  return out;
}

function describeData(v: PyValue, location: string): SavedData | undefined {
  const cls = classOf(v);
  if (cls && (cls.module === 'pandas' || cls.module.startsWith('pandas.')) && (cls.name === 'DataFrame' || cls.name === 'Series')) {
    // The manager's axes: a DataFrame's [columns, rows], a Series' [rows]. pandas pickles it as
    // BlockManager(blocks, axes), or with a state (axes, values, items, extra) (SingleBlockManager,
    // and every manager before pandas 1.1, which named it `_data`: sweep 17, size "not read").
    const state = stateDict(v);
    const manager = state?.get('_mgr') ?? state?.get('_data');
    const axes = manager instanceof PyCall && seqItems(manager.args)?.length === 2 ? seqItems(seqItems(manager.args)![1]) : seqItems(seqItems(managerState(manager))?.[0]);
    if (cls.name === 'DataFrame') return { location, kind: 'DataFrame', ...lengths(axisLength(axes?.[1]), axisLength(axes?.[0])) };
    return { location, kind: 'Series', ...lengths(axisLength(axes?.[0]), undefined) };
  }
  // An array pickled by pickle.dump is a call of numpy's _reconstruct, which classOf names as a class.
  if (isArray(v)) {
    const shape = shapeOfArray(v);
    if (!shape) return undefined;
    // A table: rows by columns, more than a handful of rows (a model's own arrays live inside it).
    if (shape.length === 2 && shape[0] >= 10) return { location, kind: 'array', rows: shape[0], columns: shape[1] };
  }
  return undefined;
}

/** The BUILD state of a pickled object (a tuple for pandas' managers). */
function managerState(v: PyValue | undefined): PyValue | undefined {
  return v instanceof PyObject || v instanceof PyCall ? v.state : undefined;
}

function lengths(rows: number | undefined, columns: number | undefined): { rows?: number; columns?: number } {
  return { ...(rows !== undefined ? { rows } : {}), ...(columns !== undefined ? { columns } : {}) };
}

/** The length of a pickled pandas Index: `_new_Index(cls, {'data': array})` or a RangeIndex's start, stop, step. */
function axisLength(v: PyValue | undefined): number | undefined {
  if (!(v instanceof PyCall)) return undefined;
  const d = seqItems(v.args)?.[1];
  if (!(d instanceof PyDict)) return undefined;
  const data = d.get('data');
  if (data !== undefined && isArray(data)) return shapeOfArray(data)?.[0];
  const start = asInt(d.get('start')) ?? 0;
  const stop = asInt(d.get('stop'));
  const step = asInt(d.get('step')) ?? 1;
  if (stop === undefined || step === 0) return undefined;
  return Math.max(0, Math.ceil((stop - start) / step));
}

/** A pickled array's shape (its bytes are not decoded), or undefined when it is not a readable array. */
export function shapeOfArray(v: PyValue): readonly number[] | undefined {
  try {
    return asNdArray(v).shape;
  } catch {
    return undefined;
  }
}
