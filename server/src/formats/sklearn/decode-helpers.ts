/**
 * What every scikit-learn estimator decoder shares: the error it throws, what it returns, and
 * small readers of pickled values (labels, hyper-parameters, arrays, versions).
 */
import {
  NdArray,
  PyBytes,
  PyDict,
  PyFloat,
  PyGlobal,
  PyList,
  PyTuple,
  PyValue,
  asNdArray,
  asNumpyScalar,
  classOf,
  describe,
  isArray,
  numeric,
  seqItems,
  asString,
} from '../pickle';
import type { ForestInput } from '../../forest/schema';
import type { UnreadableReason } from '../types';

export class DecodeError extends Error {
  constructor(
    readonly reason: UnreadableReason,
    message: string,
  ) {
    super(message);
  }
}

/** One tree model decoded into the IR, with facts about it worth telling the user. */
export interface Decoded {
  forest: ForestInput;
  notes: string[];
}

/** Whether `cls` is one of `names`, defined by scikit-learn. */
export function isSklearnClass(cls: PyGlobal | undefined, names: Set<string>): boolean {
  return !!cls && names.has(cls.name) && (cls.module === 'sklearn' || cls.module.startsWith('sklearn.'));
}

/** What a value is, for "the file holds ..." messages. */
export function found(v: PyValue | undefined): string {
  const cls = classOf(v);
  if (cls) return `a ${cls.qualified}`;
  if (isArray(v)) return 'a numpy array';
  return describe(v);
}

export function corrupt(msg: string): DecodeError {
  return new DecodeError('corrupt', msg);
}

/** A hyper-parameter value as the IR keeps it. */
export function hyperValue(v: PyValue | undefined): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  const n = numeric(v);
  if (n !== undefined) return n;
  if (typeof v === 'bigint') return v.toString();
  return repr(v, 0);
}

/** A short Python-like rendering, for dict-valued hyper-parameters such as class_weight. */
export function repr(v: PyValue | undefined, depth: number): string {
  if (depth > 4) return '...';
  if (v === undefined) return '?';
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v instanceof PyFloat) return Number.isInteger(v.value) ? v.value.toFixed(1) : String(v.value);
  if (v instanceof PyDict) return `{${v.keys.slice(0, 50).map((k, i) => `${repr(k, depth + 1)}: ${repr(v.values[i], depth + 1)}`).join(', ')}}`;
  if (v instanceof PyList) return `[${v.items.slice(0, 50).map((x) => repr(x, depth + 1)).join(', ')}]`;
  if (v instanceof PyTuple) return `(${v.items.slice(0, 50).map((x) => repr(x, depth + 1)).join(', ')})`;
  const scalar = asNumpyScalar(v);
  if (scalar !== undefined) return repr(scalar, depth + 1);
  const cls = classOf(v);
  if (cls) return `${cls.name}(...)`;
  return describe(v);
}

export function labelOf(v: PyValue): string | number | boolean {
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return v.toString();
  const n = numeric(v);
  if (n !== undefined) return n;
  const s = asNumpyScalar(v);
  if (typeof s === 'string' || typeof s === 'boolean') return s;
  if (v instanceof PyBytes) return Buffer.from(v.data).toString('latin1');
  return repr(v, 0);
}

export function arrayOrThrow(v: PyValue | undefined, what: string): NdArray {
  try {
    return asNdArray(v);
  } catch (e) {
    throw corrupt(`${what} is not a readable numpy array (${(e as Error).message}).`);
  }
}

export function versionAtLeast(version: string | undefined, major: number, minor: number): boolean | undefined {
  if (!version) return undefined;
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = Number(m[2]);
  return a > major || (a === major && b >= minor);
}

/**
 * `[(name, estimator, ...), ...]` (Pipeline steps, FeatureUnion and ColumnTransformer parts) as
 * [name, estimator, rest...] item lists, or undefined when any entry is not a named tuple.
 */
export function namedEntries(list: PyValue | undefined): PyValue[][] | undefined {
  const entries = seqItems(list);
  if (!entries) return undefined;
  const out: PyValue[][] = [];
  for (const entry of entries) {
    const parts = seqItems(entry);
    if (!parts || parts.length < 2 || asString(parts[0]) === undefined) return undefined;
    out.push(parts);
  }
  return out;
}

/** Python's repr of a float: the shortest digits, '.0' on whole numbers, exponent form below 1e-4 and from 1e16. */
export function pythonFloat(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  const magnitude = Math.abs(v);
  if (v !== 0 && (magnitude < 1e-4 || magnitude >= 1e16)) {
    const [mantissa, exponent] = v.toExponential().split('e');
    const e = Number(exponent);
    return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const s = String(v);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

/**
 * A dict key as Python's repr writes it, for places (`model["rf"]`, `model[0.15]`, `model[("a", 1)]`):
 * a string quoted, a float as repr, a tuple of such keys; anything else an ellipsis. A dict of
 * GradientBoostingRegressors keyed by floats read `model[…]` four times (sweep 12).
 */
export function pythonKey(key: PyValue, depth = 0): string {
  if (typeof key === 'string') return JSON.stringify(key);
  if (typeof key === 'boolean') return key ? 'True' : 'False';
  if (key === null) return 'None';
  if (typeof key === 'number' || typeof key === 'bigint') return String(key);
  if (key instanceof PyFloat) return pythonFloat(key.value);
  if (key instanceof PyTuple && depth < 3) {
    const items = key.items.map((item) => pythonKey(item, depth + 1));
    return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
  }
  const scalar = asNumpyScalar(key);
  if (typeof scalar === 'string' || typeof scalar === 'number') return pythonKey(scalar, depth + 1);
  return '…';
}
