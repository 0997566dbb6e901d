/**
 * The inert object graph the pickle VM builds. Nothing here is ever called: a global is a name,
 * a call is a record of what would have been called with what.
 *
 * Python value -> JS value:
 * - None -> null, bool -> boolean, int -> number (or bigint beyond 2^53), float -> PyFloat,
 *   str -> string, bytes -> PyBytes, bytearray -> PyBytes (mutable flag), tuple -> PyTuple,
 *   list -> PyList, dict -> PyDict, set/frozenset -> PySet.
 * - `module.name` global -> PyGlobal; REDUCE -> PyCall; NEWOBJ/NEWOBJ_EX/OBJ/INST -> PyObject.
 * - numpy arrays read by the joblib hook -> NdArray (ndarray.ts, decoded by numpy.ts); plain-pickle arrays stay
 *   PyCall(_reconstruct)+state until `asNdArray` decodes them.
 */
import type { NdArray } from './ndarray';

export type PyValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | PyFloat
  | PyBytes
  | PyTuple
  | PyList
  | PyDict
  | PySet
  | PyGlobal
  | PyCall
  | PyObject
  | PyRefused
  | NdArray<PyValue>;

/** A Python float, kept apart from ints so `max_samples=1.0` and `max_samples=1` differ. */
export class PyFloat {
  constructor(readonly value: number) {}
}

export class PyBytes {
  constructor(
    readonly data: Uint8Array,
    readonly mutable = false,
  ) {}
}

export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

export class PyList {
  constructor(readonly items: PyValue[]) {}
}

export class PySet {
  constructor(
    readonly items: PyValue[],
    readonly frozen: boolean,
  ) {}
}

type PrimitiveKey = string | number | boolean | null | bigint;

function isPrimitiveKey(v: PyValue): v is PrimitiveKey {
  return v === null || typeof v !== 'object';
}

/** Insertion-ordered dict; primitive keys are indexed, other keys compared by identity. */
export class PyDict {
  readonly keys: PyValue[] = [];
  readonly values: PyValue[] = [];
  private readonly index = new Map<PrimitiveKey | object, number>();

  set(key: PyValue, value: PyValue): void {
    const k: PrimitiveKey | object = key instanceof PyFloat ? key.value : isPrimitiveKey(key) ? key : (key as object);
    const at = this.index.get(k);
    if (at !== undefined) {
      this.values[at] = value;
      return;
    }
    this.index.set(k, this.keys.length);
    this.keys.push(key);
    this.values.push(value);
  }

  get(key: PrimitiveKey): PyValue | undefined {
    const at = this.index.get(key);
    return at === undefined ? undefined : this.values[at];
  }

  has(key: PrimitiveKey): boolean {
    return this.index.has(key);
  }

  get size(): number {
    return this.keys.length;
  }
}

/** A global named by GLOBAL / STACK_GLOBAL / INST: never imported. */
export class PyGlobal {
  constructor(
    readonly module: string,
    readonly name: string,
  ) {}
  get qualified(): string {
    return `${this.module}.${this.name}`;
  }
}

/** Shared by everything BUILD / APPEND / SETITEM can act on besides lists, dicts and sets. */
abstract class PyInstanceBase {
  /** Set by BUILD (the last state when built more than once; dict states are merged). */
  state: PyValue | undefined = undefined;
  /** Items APPEND/APPENDS added (list subclasses). */
  listItems: PyValue[] | undefined = undefined;
  /** Items SETITEM/SETITEMS added (dict subclasses such as OrderedDict). */
  dictItems: PyDict | undefined = undefined;
}

/** `callable(*args)` as REDUCE would have done it. */
export class PyCall extends PyInstanceBase {
  constructor(
    readonly callable: PyValue,
    readonly args: PyValue,
  ) {
    super();
  }
}

/** `cls.__new__(cls, *args, **kwargs)` (NEWOBJ, NEWOBJ_EX) or `cls(*args)` (OBJ, INST). */
export class PyObject extends PyInstanceBase {
  constructor(
    readonly cls: PyValue,
    readonly args: PyValue[],
    readonly kwargs?: PyValue,
  ) {
    super();
  }
}

/** Stands for something the VM refuses to resolve (persistent ids, extension codes, out-of-band buffers). */
export class PyRefused {
  constructor(readonly what: string) {}
}

// ---- small accessors used by consumers ----

export function seqItems(v: PyValue | undefined): PyValue[] | undefined {
  if (v instanceof PyTuple || v instanceof PyList) return v.items;
  return undefined;
}

/** A Python int as a JS number (bigints within the safe range too); undefined otherwise. */
export function asInt(v: PyValue | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)) return Number(v);
  return undefined;
}

/** A Python int or float as a JS number. */
export function asNumber(v: PyValue | undefined): number | undefined {
  if (v instanceof PyFloat) return v.value;
  return asInt(v);
}

export function asString(v: PyValue | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The class of an instance, however the pickle spelled its creation. */
export function classOf(v: PyValue | undefined): PyGlobal | undefined {
  if (v instanceof PyObject) return v.cls instanceof PyGlobal ? v.cls : undefined;
  if (v instanceof PyCall) {
    const c = v.callable;
    if (c instanceof PyGlobal) {
      if (c.name === '_reconstructor' && (c.module === 'copyreg' || c.module === 'copy_reg')) {
        const first = seqItems(v.args)?.[0];
        return first instanceof PyGlobal ? first : undefined;
      }
      return c;
    }
  }
  return undefined;
}

/** The instance's `__dict__` as BUILD gave it (a dict state, or the dict half of a (dict, slots) pair). */
export function stateDict(v: PyValue | undefined): PyDict | undefined {
  if (!(v instanceof PyObject || v instanceof PyCall)) return undefined;
  const s = v.state;
  if (s instanceof PyDict) return s;
  const items = seqItems(s);
  if (items && items.length === 2) {
    if (items[0] instanceof PyDict) return items[0];
    if (items[1] instanceof PyDict) return items[1];
  }
  return undefined;
}

/** A short human name for what a value is, for messages. */
export function describe(v: PyValue | undefined): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'None';
  switch (typeof v) {
    case 'boolean':
      return 'a bool';
    case 'number':
    case 'bigint':
      return 'an int';
    case 'string':
      return 'a str';
  }
  if (v instanceof PyFloat) return 'a float';
  if (v instanceof PyBytes) return v.mutable ? 'a bytearray' : 'a bytes object';
  if (v instanceof PyTuple) return 'a tuple';
  if (v instanceof PyList) return 'a list';
  if (v instanceof PyDict) return 'a dict';
  if (v instanceof PySet) return v.frozen ? 'a frozenset' : 'a set';
  if (v instanceof PyGlobal) return `the global ${v.qualified}`;
  if (v instanceof PyRefused) return v.what;
  const cls = classOf(v as PyValue);
  if (cls) return `a ${cls.qualified}`;
  if ('dtype' in (v as object)) return 'a numpy array';
  return 'an object';
}
