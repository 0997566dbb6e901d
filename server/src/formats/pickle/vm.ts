/**
 * A pickle interpreter that never executes anything. It reads the opcodes of protocols 0 to 5
 * (every opcode CPython's pickle.py defines) and builds the inert graph of values.ts:
 * GLOBAL names a PyGlobal, REDUCE records a PyCall, NEWOBJ/OBJ/INST record a PyObject, BUILD
 * attaches state. Every global is sorted into a tier (./tiers): dangerous ones are collected in
 * `unsafe`, unknown ones in `unknown` with whether the pickle calls them; the VM keeps going after
 * a dangerous one so the caller learns every offending name in the file. The few allowed globals
 * that are harmless only applied one way (dill's, cloudpickle's) are checked by ./checked-callables.
 *
 * joblib: with `joblib: true`, a BUILD that completes a `NumpyArrayWrapper` reads the raw array
 * bytes that follow it in the stream (or the nested pickle, for object arrays), as
 * joblib's NumpyUnpickler.load_build does, and replaces the wrapper on the stack with the array.
 */
import type { BytecodeFunctions, UnknownGlobal } from '../types';

export type { BytecodeFunctions };
import { bytecodeCall, callsRebuiltFunction, checkPartial, checkPartialState, PARTIAL_CALLS, countCheckedPush, countCheckedUse, dillCall, resolveUfuncReconstruct, settleCheckedCallables, TORCH_LOAD_FROM_BYTES, type CheckedCallHost } from './checked-callables';
import { addUnsafe, newFindings, type Findings } from './findings';
import { classifyGlobal } from './tiers';
import { DType, NdArray, NumpyError, asDType, shapeOf } from './numpy';
import {
  PyBytes,
  PyCall,
  PyDict,
  PyFloat,
  PyGlobal,
  PyList,
  PyObject,
  PyRefused,
  PySet,
  PyTuple,
  PyValue,
  asString,
  classOf,
  stateDict,
} from './values';

export type PickleErrorKind = 'truncated' | 'corrupt' | 'too-large';

export class PickleError extends Error {
  constructor(
    readonly kind: PickleErrorKind,
    message: string,
    readonly offset?: number,
  ) {
    super(message);
  }
}

export interface PickleLimits {
  /** Memo entries (PUT/MEMOIZE) allowed. */
  maxMemo: number;
  /** Values on the VM stack at once. */
  maxStack: number;
  /** Items in one list, dict, set or tuple. */
  maxContainer: number;
  /** Nested pickles (joblib object arrays) inside one another. */
  maxNesting: number;
}

export const DEFAULT_LIMITS: PickleLimits = {
  maxMemo: 5_000_000,
  maxStack: 5_000_000,
  maxContainer: 50_000_000,
  maxNesting: 2,
};

export interface UnpickleOptions {
  /** Read joblib's raw arrays after NumpyArrayWrapper records. */
  joblib?: boolean;
  /** Where to start in the buffer (default 0). */
  offset?: number;
  limits?: Partial<PickleLimits>;
}

export interface UnpickleResult {
  /** The unpickled value; undefined when `error` stopped the VM first. */
  value: PyValue | undefined;
  /** The protocol named by the first PROTO opcode (0 when absent: protocol 0 or 1). */
  protocol: number;
  /** Every dangerous global named, `module.name`, in order of first appearance. */
  unsafe: string[];
  /**
   * Every global neither allowed nor dangerous, in order of first appearance, with whether the
   * pickle calls it (or builds an object of it) when loaded or only holds it as a value.
   */
  unknown: UnknownGlobal[];
  /** Every distinct global named, allowed or not, in order of first appearance. */
  globals: string[];
  /** Globals loading calls in any way, building an object of a class included (Findings.called). */
  called: string[];
  /** Those of `called` applied as functions or to arguments (Findings.applied), not only built as a bare object. */
  applied: string[];
  /** What the VM refused to resolve (persistent ids, extension codes, out-of-band buffers). */
  refused: string[];
  /** joblib arrays read after NumpyArrayWrapper records. */
  joblibArrays: number;
  /**
   * Functions cloudpickle rebuilt from their bytecode (a lambda or a notebook's function in a
   * FunctionTransformer, as MLflow saves scikit-learn models), when every cloudpickle name was used
   * only to rebuild them and none was called while loading: `names` are those (dangerous) names.
   * Absent when the pickle names none, or uses one any other way (then they are plain dangerous).
   */
  bytecode?: BytecodeFunctions;
  /** Offset just past STOP (or where the VM stopped). */
  end: number;
  /** Why the VM stopped before STOP, if it did. */
  error?: PickleError;
}

const NL = 0x0a;

/** The part of CPython's _compat_pickle IMPORT_MAPPING / NAME_MAPPING that model pickles can meet. */
const PY2_MODULES = new Map<string, string>([
  ['__builtin__', 'builtins'],
  ['copy_reg', 'copyreg'],
  ['exceptions', 'builtins'],
  ['cPickle', 'pickle'],
  ['commands', 'subprocess'],
  ['cStringIO', 'io'],
  ['StringIO', 'io'],
  ['UserDict', 'collections'],
  ['UserList', 'collections'],
  ['urllib2', 'urllib.request'],
  ['httplib', 'http.client'],
  ['Queue', 'queue'],
  ['thread', '_thread'],
  ['repr', 'reprlib'],
]);
const PY2_NAMES = new Map<string, [string, string]>([
  ['__builtin__.xrange', ['builtins', 'range']],
  ['__builtin__.unicode', ['builtins', 'str']],
  ['__builtin__.long', ['builtins', 'int']],
  ['__builtin__.basestring', ['builtins', 'str']],
  ['__builtin__.raw_input', ['builtins', 'input']],
  ['__builtin__.reduce', ['functools', 'reduce']],
  ['__builtin__.intern', ['sys', 'intern']],
  ['__builtin__.execfile', ['builtins', 'exec']],
  ['itertools.izip', ['builtins', 'zip']],
  ['itertools.imap', ['builtins', 'map']],
  ['UserDict.UserDict', ['collections', 'UserDict']],
]);

const utf8 = new TextDecoder('utf-8');

/** ISO-8859-1 (TextDecoder's 'latin1' is windows-1252, which differs in 0x80-0x9f). */
export function latin1Decode(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}
const latin1 = { decode: latin1Decode };

/** copyreg's helpers call `cls.__new__` on their first argument: that class is built, not just named. */
const RECONSTRUCTORS = new Set(['copyreg._reconstructor', 'copyreg.__newobj__', 'copyreg.__newobj_ex__', 'copy_reg._reconstructor', 'copy_reg.__newobj__']);

/**
 * A reconstructor that only builds an object of its class: `_reconstructor(cls, object, None)` is
 * `object.__new__(cls)`, `__newobj__(cls)` is `cls.__new__(cls)`; anything else passes arguments.
 */
function reconstructsBare(q: string, items: PyValue[]): boolean {
  if (q.endsWith('._reconstructor')) return items.length === 3 && items[1] instanceof PyGlobal && items[1].qualified === 'builtins.object' && items[2] === null;
  if (q.endsWith('.__newobj__')) return items.length === 1;
  return items.length === 3 && items[1] instanceof PyTuple && items[1].items.length === 0 && items[2] instanceof PyDict && items[2].keys.length === 0;
}

/** Interprets one pickle starting at `options.offset`. Never throws: failures come back in `error`. */
export function unpickle(data: Uint8Array, options: UnpickleOptions = {}): UnpickleResult {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const findings = newFindings();
  const vm = new Machine(data, options.offset ?? 0, limits, findings, options.joblib ?? false, 0);
  let value: PyValue | undefined;
  let error: PickleError | undefined;
  try {
    value = vm.run();
  } catch (e) {
    error = toPickleError(e, vm.pos);
  }
  const bytecode = settleCheckedCallables(findings);
  return {
    value,
    protocol: vm.protocol,
    unsafe: findings.unsafe,
    unknown: findings.unknown.map((name) => ({ name, called: findings.called.has(name) })),
    globals: [...findings.globals.keys()],
    called: [...findings.called],
    applied: [...findings.applied],
    refused: findings.refused,
    joblibArrays: findings.joblibArrays,
    ...(bytecode ? { bytecode } : {}),
    end: vm.pos,
    error,
  };
}

function toPickleError(e: unknown, pos: number): PickleError {
  if (e instanceof PickleError) return e;
  if (e instanceof NumpyError) return new PickleError('corrupt', e.message, pos);
  if (e instanceof RangeError) {
    // DataView reads past the end, or an allocation too large for the engine
    if (/offset|bounds/i.test(e.message)) return new PickleError('truncated', 'the pickle ends in the middle of a value', pos);
    return new PickleError('too-large', `the pickle asks for more memory than allowed (${e.message})`, pos);
  }
  return new PickleError('corrupt', e instanceof Error ? e.message : String(e), pos);
}

class Machine {
  pos: number;
  protocol = 0;
  private readonly dv: DataView;
  private readonly end: number;
  private stack: PyValue[] = [];
  private marks: number[] = [];
  private memo = new Map<number, PyValue>();
  private shortFrame: string | undefined;
  /** What the checked callables (./checked-callables) use of this VM. */
  private readonly host: CheckedCallHost;

  constructor(
    private readonly data: Uint8Array,
    start: number,
    private readonly limits: PickleLimits,
    private readonly findings: Findings,
    private readonly joblib: boolean,
    private readonly depth: number,
  ) {
    this.pos = start;
    this.end = data.length;
    this.dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    this.host = {
      findings,
      reduce: (callable, args) => this.reduce(callable, args),
      nameGlobal: (module, name) => this.global(module, name, false, false),
      markCalled: (target) => this.markCalled(target),
    };
  }

  // ---- input ----

  private need(n: number): void {
    if (n < 0 || this.pos + n > this.end) {
      throw new PickleError('truncated', `the pickle ends early: ${n} more bytes needed at offset ${this.pos}, ${this.end - this.pos} left`, this.pos);
    }
  }

  private u8(): number {
    this.need(1);
    return this.data[this.pos++];
  }

  private u16(): number {
    this.need(2);
    const v = this.dv.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }

  private i32(): number {
    this.need(4);
    const v = this.dv.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }

  private u32(): number {
    this.need(4);
    const v = this.dv.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  private u64(): number {
    this.need(8);
    const lo = this.dv.getUint32(this.pos, true);
    const hi = this.dv.getUint32(this.pos + 4, true);
    this.pos += 8;
    if (hi >= 0x200000) {
      throw new PickleError('truncated', `the pickle names a ${hi * 4294967296 + lo}-byte value, longer than the file`, this.pos);
    }
    return hi * 4294967296 + lo;
  }

  private bytes(n: number): Uint8Array {
    this.need(n);
    const b = this.data.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  /** A protocol 0 argument line, without its newline. */
  private line(): string {
    const i = this.data.indexOf(NL, this.pos);
    if (i < 0) throw new PickleError('truncated', 'the pickle ends inside a text argument', this.pos);
    let stop = i;
    if (stop > this.pos && this.data[stop - 1] === 0x0d) stop--;
    const s = latin1.decode(this.data.subarray(this.pos, stop));
    this.pos = i + 1;
    return s;
  }

  // ---- stack ----

  private push(v: PyValue): void {
    this.stack.push(v);
  }

  private pop(): PyValue {
    const floor = this.marks.length ? this.marks[this.marks.length - 1] : 0;
    if (this.stack.length <= floor) throw this.corrupt('stack underflow');
    return this.stack.pop() as PyValue;
  }

  private top(): PyValue {
    const floor = this.marks.length ? this.marks[this.marks.length - 1] : 0;
    if (this.stack.length <= floor) throw this.corrupt('stack underflow');
    return this.stack[this.stack.length - 1];
  }

  private popMark(): PyValue[] {
    const m = this.marks.pop();
    if (m === undefined) throw this.corrupt('no MARK to pop to');
    const items = this.stack.splice(m);
    if (items.length > this.limits.maxContainer) throw this.tooLarge(`a container of ${items.length} items`);
    return items;
  }

  private corrupt(msg: string): PickleError {
    return new PickleError('corrupt', `${msg} (offset ${this.pos})`, this.pos);
  }

  private tooLarge(what: string): PickleError {
    return new PickleError('too-large', `${what} exceeds the reader's limits`, this.pos);
  }

  // ---- memo ----

  private put(i: number): void {
    if (i < 0) throw this.corrupt('negative memo index');
    if (!this.memo.has(i) && this.memo.size >= this.limits.maxMemo) throw this.tooLarge(`more than ${this.limits.maxMemo} memo entries`);
    this.memo.set(i, this.top());
  }

  private get(i: number): void {
    const v = this.memo.get(i);
    if (v === undefined) throw this.corrupt(`memo entry ${i} was never stored`);
    countCheckedPush(this.findings, v);
    this.push(v);
  }

  // ---- globals ----

  private global(module: string, name: string, fixImports = true, pushed = true): PyGlobal {
    // As CPython's Unpickler(fix_imports=True) does for protocols < 3, so names read as Python would resolve them.
    if (fixImports && this.protocol < 3) {
      const mapped = PY2_NAMES.get(`${module}.${name}`);
      if (mapped) [module, name] = mapped;
      else module = PY2_MODULES.get(module) ?? module;
    }
    const q = `${module}.${name}`;
    let g = this.findings.globals.get(q);
    if (!g) {
      g = new PyGlobal(module, name);
      this.findings.globals.set(q, g);
      const tier = classifyGlobal(module, name).tier;
      if (tier === 'dangerous') addUnsafe(this.findings, q);
      else if (tier === 'unknown') this.findings.unknown.push(q);
    }
    if (pushed) countCheckedPush(this.findings, g);
    return g;
  }

  /**
   * Records that loading runs `target` (a global, or what a checked _ufunc_reconstruct names):
   * `applied` when as a function or with arguments, else only to build an object of a class.
   */
  private markCalled(target: PyValue, applied = true): void {
    // A function rebuilt from bytecode, or anything it returned, called while loading: its code runs now.
    if (callsRebuiltFunction(this.findings, target)) this.findings.runsBytecode = true;
    // A partial object called while loading calls the global it was built around, with arguments
    // bound beforehand: it is the way a pickle passes keyword arguments to a callable, so the
    // partial is dangerous as well, unless it is pandas' own (PARTIAL_CALLS: a pandas 2 DataFrame
    // pickles each block as partial(new_block, ndim=2)(values, placement); sweep 17 found a public
    // DataFrame called unsafe).
    const bound = target instanceof PyCall ? this.findings.partials.get(target) : undefined;
    if (bound && target instanceof PyCall && target.callable instanceof PyGlobal && !PARTIAL_CALLS.has(bound.qualified)) addUnsafe(this.findings, target.callable.qualified);
    const g = target instanceof PyCall ? (this.findings.resolved.get(target) ?? bound) : target;
    if (!(g instanceof PyGlobal)) return;
    this.findings.called.add(g.qualified);
    if (applied) this.findings.applied.add(g.qualified);
  }

  /** REDUCE: callable(*args), with what it tells about the globals involved. */
  private reduce(callable: PyValue, args: PyValue): PyValue {
    const dill = callable instanceof PyGlobal && args instanceof PyTuple ? dillCall(this.host, callable, args) : undefined;
    if (dill !== undefined) return dill;
    const call = new PyCall(callable, args);
    if (callable instanceof PyGlobal && args instanceof PyTuple) bytecodeCall(this.findings, callable, args, call);
    this.markCalled(callable);
    if (callable instanceof PyGlobal && args instanceof PyTuple) {
      const q = callable.qualified;
      if (RECONSTRUCTORS.has(q) && args.items.length > 0) this.markCalled(args.items[0], !reconstructsBare(q, args.items));
      resolveUfuncReconstruct(this.host, callable, args, call);
      checkPartial(this.findings, callable, args, call);
      if (TORCH_LOAD_FROM_BYTES.has(q) && this.readTorchBytes(args)) countCheckedUse(this.findings, q);
    }
    return call;
  }

  /**
   * `torch.storage._load_from_bytes(b)`: reads the pickles b holds as the file's own (their globals
   * tiered into the same findings); true when all of b was read. b is what `torch.save` writes in
   * its legacy format, which `__reduce__` of a storage always uses: five pickles (magic number,
   * protocol, system info, the storage with persistent ids, its keys), then raw data. A zip archive
   * (the newer format) or bytes that do not read as pickles stay unchecked: dangerous.
   */
  private readTorchBytes(args: PyTuple): boolean {
    const [bytes] = args.items;
    if (args.items.length !== 1 || !(bytes instanceof PyBytes) || this.depth + 1 > this.limits.maxNesting) return false;
    const data = bytes.data;
    if (data.length >= 2 && data[0] === 0x50 && data[1] === 0x4b) return false;
    let pos = 0;
    // Its persistent ids are the storages torch.load rebuilds from the raw data after the pickles
    // (no code): not data outside the file, so they are not kept among the refused.
    const refused = this.findings.refused.length;
    try {
      for (let k = 0; k < 5 && pos < data.length; k++) {
        const nested = new Machine(data, pos, this.limits, this.findings, false, this.depth + 1);
        nested.run();
        pos = nested.pos;
      }
    } catch (error) {
      if (error instanceof PickleError) return false;
      throw error;
    } finally {
      this.findings.refused.length = refused;
    }
    return true;
  }

  private refuse(what: string): PyRefused {
    this.findings.refused.push(what);
    return new PyRefused(what);
  }

  // ---- values ----

  private long(n: number): number | bigint {
    if (n === 0) return 0;
    const b = this.bytes(n);
    if (n <= 6) {
      let v = 0;
      for (let i = n - 1; i >= 0; i--) v = v * 256 + b[i];
      if (b[n - 1] & 0x80) v -= 2 ** (8 * n);
      return v;
    }
    let hex = '';
    for (let i = n - 1; i >= 0; i--) hex += b[i].toString(16).padStart(2, '0');
    let v = BigInt('0x' + hex);
    if (b[n - 1] & 0x80) v -= 1n << BigInt(8 * n);
    return narrow(v);
  }

  private container(items: PyValue[], adding: number): void {
    if (items.length + adding > this.limits.maxContainer) throw this.tooLarge(`a container of ${items.length + adding} items`);
  }

  private appendTo(target: PyValue, items: PyValue[]): void {
    if (target instanceof PyList) {
      this.container(target.items, items.length);
      for (const x of items) target.items.push(x);
    } else if (target instanceof PyObject || target instanceof PyCall) {
      const l = (target.listItems ??= []);
      this.container(l, items.length);
      for (const x of items) l.push(x);
    } else {
      throw this.corrupt('APPEND to something that is not a list');
    }
  }

  private setItems(target: PyValue, items: PyValue[]): void {
    if (items.length % 2) throw this.corrupt('SETITEMS with an odd number of items');
    let d: PyDict;
    if (target instanceof PyDict) d = target;
    else if (target instanceof PyObject || target instanceof PyCall) d = target.dictItems ??= new PyDict();
    else throw this.corrupt('SETITEM on something that is not a dict');
    if (d.size + items.length / 2 > this.limits.maxContainer) throw this.tooLarge(`a dict of ${d.size + items.length / 2} items`);
    for (let i = 0; i < items.length; i += 2) d.set(items[i], items[i + 1]);
  }

  private build(): void {
    const state = this.pop();
    const inst = this.top();
    if (!(inst instanceof PyObject || inst instanceof PyCall)) {
      throw this.corrupt('BUILD on something that is not an object');
    }
    if (inst instanceof PyCall) checkPartialState(this.findings, inst, state);
    if (inst.state instanceof PyDict && state instanceof PyDict) {
      for (let i = 0; i < state.keys.length; i++) inst.state.set(state.keys[i], state.values[i]);
    } else {
      inst.state = state;
    }
    if (this.joblib) {
      const cls = classOf(inst);
      if (cls && cls.name === 'NumpyArrayWrapper' && cls.module.endsWith('numpy_pickle')) {
        this.stack[this.stack.length - 1] = this.readJoblibArray(inst);
      }
    }
  }

  /** joblib NumpyArrayWrapper.read_array, without numpy. */
  private readJoblibArray(wrapper: PyObject | PyCall): PyValue {
    const st = stateDict(wrapper);
    if (!st) throw this.corrupt('a joblib array record without its state');
    let dtype: DType;
    let shape: number[];
    try {
      dtype = asDType(st.get('dtype'));
      shape = shapeOf(st.get('shape'));
    } catch (e) {
      throw this.corrupt(`a joblib array record with a bad dtype or shape: ${(e as Error).message}`);
    }
    this.findings.joblibArrays++;
    if (dtype.kind === 'O') {
      if (this.depth + 1 > this.limits.maxNesting) throw this.tooLarge('pickles nested too deep');
      const nested = new Machine(this.data, this.pos, this.limits, this.findings, false, this.depth + 1);
      try {
        return nested.run();
      } finally {
        this.pos = nested.pos;
      }
    }
    const align = st.get('numpy_array_alignment_bytes');
    if (align !== undefined && align !== null) {
      const pad = this.u8();
      this.bytes(pad);
    }
    let count = 1;
    for (const d of shape) count *= d;
    const n = count * dtype.itemsize;
    if (!Number.isSafeInteger(n)) throw this.corrupt('a joblib array larger than any file');
    const raw = this.bytes(n);
    const order = asString(st.get('order'));
    return new NdArray(dtype, shape, order === 'F', raw, undefined);
  }

  // ---- the loop ----

  run(): PyValue {
    const data = this.data;
    const stack = this.stack;
    const maxStack = this.limits.maxStack;
    for (;;) {
      if (stack.length > maxStack) throw this.tooLarge(`a stack of more than ${maxStack} values`);
      if (this.pos >= this.end) throw new PickleError('truncated', 'the pickle ends before its STOP opcode', this.pos);
      const op = data[this.pos++];
      switch (op) {
        case 0x80: {
          // PROTO
          const p = this.u8();
          if (p > 5) throw this.corrupt(`unknown pickle protocol ${p}`);
          if (this.protocol === 0) this.protocol = p;
          break;
        }
        case 0x95: {
          // FRAME: a length hint only; the data is read as it comes. A frame longer than the file
          // is an error, but only at STOP: Python's own unpickler runs what the short frame holds
          // first, so the globals in it must still be seen.
          const n = this.u64();
          if (this.pos + n > this.end) this.shortFrame ??= `a ${n}-byte frame runs past the end of the file`;
          break;
        }
        case 0x2e: // STOP '.'
          if (this.shortFrame) throw new PickleError('truncated', this.shortFrame, this.pos);
          return this.pop();
        case 0x28: // MARK '('
          this.marks.push(stack.length);
          break;
        case 0x30: // POP '0'
          if (stack.length > (this.marks.length ? this.marks[this.marks.length - 1] : 0)) stack.pop();
          else this.popMark();
          break;
        case 0x31: // POP_MARK '1'
          this.popMark();
          break;
        case 0x32: // DUP '2'
          countCheckedPush(this.findings, this.top());
          this.push(this.top());
          break;

        // ---- numbers ----
        case 0x4e: // NONE 'N'
          stack.push(null);
          break;
        case 0x88: // NEWTRUE
          stack.push(true);
          break;
        case 0x89: // NEWFALSE
          stack.push(false);
          break;
        case 0x4a: // BININT 'J'
          stack.push(this.i32());
          break;
        case 0x4b: // BININT1 'K'
          stack.push(this.u8());
          break;
        case 0x4d: // BININT2 'M'
          stack.push(this.u16());
          break;
        case 0x49: {
          // INT 'I'
          const s = this.line();
          if (s === '01') stack.push(true);
          else if (s === '00') stack.push(false);
          else stack.push(parseIntText(s, this));
          break;
        }
        case 0x4c: {
          // LONG 'L'
          let s = this.line();
          if (s.endsWith('L')) s = s.slice(0, -1);
          stack.push(parseIntText(s, this));
          break;
        }
        case 0x8a: // LONG1
          stack.push(this.long(this.u8()));
          break;
        case 0x8b: {
          // LONG4
          const n = this.i32();
          if (n < 0) throw this.corrupt('LONG4 with a negative length');
          stack.push(this.long(n));
          break;
        }
        case 0x46: {
          // FLOAT 'F'
          const s = this.line().trim();
          stack.push(new PyFloat(parseFloatText(s, this)));
          break;
        }
        case 0x47: {
          // BINFLOAT 'G'
          this.need(8);
          const v = this.dv.getFloat64(this.pos, false);
          this.pos += 8;
          stack.push(new PyFloat(v));
          break;
        }

        // ---- strings and bytes ----
        case 0x53: // STRING 'S'
          stack.push(unquote(this.line(), this));
          break;
        case 0x54: {
          // BINSTRING 'T'
          const n = this.i32();
          if (n < 0) throw this.corrupt('BINSTRING with a negative length');
          stack.push(latin1.decode(this.bytes(n)));
          break;
        }
        case 0x55: // SHORT_BINSTRING 'U'
          stack.push(latin1.decode(this.bytes(this.u8())));
          break;
        case 0x42: // BINBYTES 'B'
          stack.push(new PyBytes(this.bytes(this.u32())));
          break;
        case 0x43: // SHORT_BINBYTES 'C'
          stack.push(new PyBytes(this.bytes(this.u8())));
          break;
        case 0x8e: // BINBYTES8
          stack.push(new PyBytes(this.bytes(this.u64())));
          break;
        case 0x96: // BYTEARRAY8
          stack.push(new PyBytes(this.bytes(this.u64()), true));
          break;
        case 0x56: // UNICODE 'V'
          stack.push(rawUnicodeEscape(this.line()));
          break;
        case 0x58: // BINUNICODE 'X'
          stack.push(utf8.decode(this.bytes(this.u32())));
          break;
        case 0x8c: // SHORT_BINUNICODE
          stack.push(utf8.decode(this.bytes(this.u8())));
          break;
        case 0x8d: // BINUNICODE8
          stack.push(utf8.decode(this.bytes(this.u64())));
          break;

        // ---- containers ----
        case 0x29: // EMPTY_TUPLE ')'
          stack.push(new PyTuple([]));
          break;
        case 0x74: // TUPLE 't'
          stack.push(new PyTuple(this.popMark()));
          break;
        case 0x85: {
          // TUPLE1
          const a = this.pop();
          stack.push(new PyTuple([a]));
          break;
        }
        case 0x86: {
          // TUPLE2
          const b = this.pop();
          const a = this.pop();
          stack.push(new PyTuple([a, b]));
          break;
        }
        case 0x87: {
          // TUPLE3
          const c = this.pop();
          const b = this.pop();
          const a = this.pop();
          stack.push(new PyTuple([a, b, c]));
          break;
        }
        case 0x5d: // EMPTY_LIST ']'
          stack.push(new PyList([]));
          break;
        case 0x6c: // LIST 'l'
          stack.push(new PyList(this.popMark()));
          break;
        case 0x61: {
          // APPEND 'a'
          const v = this.pop();
          this.appendTo(this.top(), [v]);
          break;
        }
        case 0x65: {
          // APPENDS 'e'
          const items = this.popMark();
          this.appendTo(this.top(), items);
          break;
        }
        case 0x7d: // EMPTY_DICT '}'
          stack.push(new PyDict());
          break;
        case 0x64: {
          // DICT 'd'
          const items = this.popMark();
          const d = new PyDict();
          this.setItems(d, items);
          stack.push(d);
          break;
        }
        case 0x73: {
          // SETITEM 's'
          const v = this.pop();
          const k = this.pop();
          this.setItems(this.top(), [k, v]);
          break;
        }
        case 0x75: {
          // SETITEMS 'u'
          const items = this.popMark();
          this.setItems(this.top(), items);
          break;
        }
        case 0x8f: // EMPTY_SET
          stack.push(new PySet([], false));
          break;
        case 0x90: {
          // ADDITEMS
          const items = this.popMark();
          const s = this.top();
          if (!(s instanceof PySet)) throw this.corrupt('ADDITEMS on something that is not a set');
          this.container(s.items, items.length);
          for (const x of items) s.items.push(x);
          break;
        }
        case 0x91: // FROZENSET
          stack.push(new PySet(this.popMark(), true));
          break;

        // ---- memo ----
        case 0x67: // GET 'g'
          this.get(parseMemoIndex(this.line(), this));
          break;
        case 0x68: // BINGET 'h'
          this.get(this.u8());
          break;
        case 0x6a: // LONG_BINGET 'j'
          this.get(this.u32());
          break;
        case 0x70: // PUT 'p'
          this.put(parseMemoIndex(this.line(), this));
          break;
        case 0x71: // BINPUT 'q'
          this.put(this.u8());
          break;
        case 0x72: // LONG_BINPUT 'r'
          this.put(this.u32());
          break;
        case 0x94: // MEMOIZE
          this.put(this.memo.size);
          break;

        // ---- globals and objects (nothing is called) ----
        case 0x63: {
          // GLOBAL 'c'
          const module = this.line();
          const name = this.line();
          stack.push(this.global(module, name));
          break;
        }
        case 0x93: {
          // STACK_GLOBAL
          const name = this.pop();
          const module = this.pop();
          if (typeof module !== 'string' || typeof name !== 'string') throw this.corrupt('STACK_GLOBAL needs two strings');
          stack.push(this.global(module, name));
          break;
        }
        case 0x52: {
          // REDUCE 'R'
          const args = this.pop();
          const callable = this.pop();
          stack.push(this.reduce(callable, args));
          break;
        }
        case 0x81: {
          // NEWOBJ
          const args = this.pop();
          const cls = this.pop();
          this.markCalled(cls, !(args instanceof PyTuple && args.items.length === 0));
          stack.push(new PyObject(cls, args instanceof PyTuple ? args.items : [args]));
          break;
        }
        case 0x92: {
          // NEWOBJ_EX
          const kwargs = this.pop();
          const args = this.pop();
          const cls = this.pop();
          this.markCalled(cls, !(args instanceof PyTuple && args.items.length === 0 && kwargs instanceof PyDict && kwargs.keys.length === 0));
          stack.push(new PyObject(cls, args instanceof PyTuple ? args.items : [args], kwargs));
          break;
        }
        case 0x6f: {
          // OBJ 'o'
          const items = this.popMark();
          if (items.length === 0) throw this.corrupt('OBJ without a class');
          this.markCalled(items[0]);
          stack.push(new PyObject(items[0], items.slice(1)));
          break;
        }
        case 0x69: {
          // INST 'i'
          const module = this.line();
          const name = this.line();
          const cls = this.global(module, name);
          this.markCalled(cls);
          stack.push(new PyObject(cls, this.popMark()));
          break;
        }
        case 0x62: // BUILD 'b'
          this.build();
          break;

        // ---- refused ----
        case 0x50: // PERSID 'P'
          stack.push(this.refuse(`a persistent id (${this.line().slice(0, 40)})`));
          break;
        case 0x51: // BINPERSID 'Q'
          this.pop();
          stack.push(this.refuse('a persistent id'));
          break;
        case 0x82: // EXT1
          stack.push(this.refuse(`extension code ${this.u8()}`));
          break;
        case 0x83: // EXT2
          stack.push(this.refuse(`extension code ${this.u16()}`));
          break;
        case 0x84: // EXT4
          stack.push(this.refuse(`extension code ${this.i32()}`));
          break;
        case 0x97: // NEXT_BUFFER
          stack.push(this.refuse('an out-of-band buffer'));
          break;
        case 0x98: // READONLY_BUFFER
          this.top();
          break;

        default:
          this.pos--;
          throw this.corrupt(`unknown pickle opcode 0x${op.toString(16).padStart(2, '0')}`);
      }
    }
  }

  /** For the text parsers below. */
  fail(msg: string): PickleError {
    return this.corrupt(msg);
  }
}

function narrow(v: bigint): number | bigint {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v;
}

function parseIntText(s: string, m: Machine): number | bigint {
  const t = s.trim();
  if (!/^[+-]?\d+$/.test(t)) throw m.fail(`'${t.slice(0, 40)}' is not an integer`);
  if (t.length > 10_000) throw m.fail('an integer literal too long');
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : narrow(BigInt(t));
}

function parseMemoIndex(s: string, m: Machine): number {
  const t = s.trim();
  if (!/^\d{1,15}$/.test(t)) throw m.fail(`'${t.slice(0, 40)}' is not a memo index`);
  return Number(t);
}

function parseFloatText(s: string, m: Machine): number {
  const l = s.toLowerCase();
  if (l === 'inf' || l === '+inf' || l === 'infinity') return Infinity;
  if (l === '-inf' || l === '-infinity') return -Infinity;
  if (l === 'nan' || l === '-nan' || l === '+nan') return NaN;
  const v = Number(s);
  if (s === '' || Number.isNaN(v)) throw m.fail(`'${s.slice(0, 40)}' is not a float`);
  return v;
}

/** Protocol 0 STRING: a Python repr of a (byte) string, quotes included. */
function unquote(s: string, m: Machine): string {
  const q = s[0];
  if (s.length < 2 || (q !== "'" && q !== '"') || s[s.length - 1] !== q) throw m.fail('STRING argument is not quoted');
  const body = s.slice(1, -1);
  if (!body.includes('\\')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const d = body[++i];
    switch (d) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\x07'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\\': out += '\\'; break;
      case "'": out += "'"; break;
      case '"': out += '"'; break;
      case '\n': break;
      case 'x': {
        const h = body.slice(i + 1, i + 3);
        if (!/^[0-9a-fA-F]{2}$/.test(h)) throw m.fail('bad \\x escape in STRING');
        out += String.fromCharCode(parseInt(h, 16));
        i += 2;
        break;
      }
      default:
        if (d !== undefined && d >= '0' && d <= '7') {
          let j = i;
          while (j < i + 3 && body[j] >= '0' && body[j] <= '7') j++;
          out += String.fromCharCode(parseInt(body.slice(i, j), 8) & 0xff);
          i = j - 1;
        } else {
          out += '\\' + (d ?? '');
        }
    }
  }
  return out;
}

/** Protocol 0 UNICODE: raw-unicode-escape (\uXXXX and \UXXXXXXXX escapes, other bytes latin-1). */
function rawUnicodeEscape(s: string): string {
  if (!s.includes('\\')) return s;
  return s.replace(/\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g, (_m, a: string | undefined, b: string | undefined) =>
    String.fromCodePoint(parseInt((a ?? b) as string, 16)),
  );
}

