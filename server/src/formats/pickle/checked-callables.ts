/**
 * Globals the allowlist lets through only as the VM checks them applied: numpy's old ufunc
 * reconstructor, dill's data helpers (every array `dill.dump` writes) and cloudpickle's function
 * rebuilding (MLflow's scikit-learn models). Each is harmless used in one known way and can import
 * or call anything used another, so the VM counts every time one is put on the stack
 * (`countCheckedPush`) and every time it is applied in the checked way (`countCheckedUse`); at the
 * end of the pickle `settleCheckedCallables` marks any left over as dangerous.
 */
import type { BytecodeFunctions } from '../types';
import { dangerReason } from './dangerous-globals';
import { addUnsafe, type Findings } from './findings';
import { classifyGlobal } from './tiers';
import { PyCall, PyGlobal, PyTuple, type PyValue } from './values';

/** What the checks need from the VM that is applying them. */
export interface CheckedCallHost {
  readonly findings: Findings;
  /** REDUCE as the VM records it (tiers and counts included). */
  reduce(callable: PyValue, args: PyValue): PyValue;
  /** The global `module.name` as named by a checked call: tiered, not counted as a push. */
  nameGlobal(module: string, name: string): PyGlobal;
  /** Records that loading runs `target`. */
  markCalled(target: PyValue): void;
}

/** numpy's pre-1.20 ufunc reconstructor: `__import__(module)` + getattr, so checked by its arguments. */
export const UFUNC_RECONSTRUCT = new Set(['numpy.core._ufunc_reconstruct', 'numpy._core._ufunc_reconstruct']);

/**
 * dill's array reconstructor, which `dill.dump` writes for every numpy array (a plain forest saved
 * with dill names no other dill global): `_create_array(f, args, state, npdict)` is `f(*args)`
 * then `__setstate__(state)`, exactly a standard pickle's REDUCE + BUILD, so it is harmless when f
 * is a global named in the pickle (tiered as such) and npdict is None. `dill._dill` since 0.3.0,
 * `dill.dill` before. Any other use calls an arbitrary f: dangerous, as every other dill name.
 */
const DILL_CREATE_ARRAY = new Set(['dill._dill._create_array', 'dill.dill._create_array']);

/**
 * dill's `_load_type(name)`: the builtin type of that name from a fixed table (`bytearray` for an
 * XGBoost model's raw booster, `slice` for a DataFrame's index). Applied to a literal string that
 * names an allowed builtin data type it is that type, tiered as the global `builtins.<name>`;
 * anything else (`CodeType`, `FunctionType`: dill rebuilding code) stays dangerous.
 */
const DILL_LOAD_TYPE = new Set(['dill._dill._load_type', 'dill.dill._load_type']);

/**
 * Older dill (protocol 3 files of dill 0.2-0.3.0) names a global as
 * `_get_attr(_import_module('numpy.core.multiarray'), '_reconstruct')`: `_import_module('a.b')` is
 * `getattr(__import__('a'), 'b')` and `_get_attr(obj, name)` is `getattr(obj, name)`, falling back
 * to the builtin of that name. Both applied to literal strings, the pair names the global
 * `a.b.name`, tiered as such (numpy's `_reconstruct`: allowed; `os.system`: dangerous); a builtin's
 * name (`eval`) is refused, since the fallback would reach it. `_import_module`'s result used any
 * other way, and any other use of either, are dangerous.
 */
export const DILL_IMPORT_MODULE = new Set(['dill._dill._import_module', 'dill.dill._import_module']);
const DILL_GET_ATTR = new Set(['dill._dill._get_attr', 'dill.dill._get_attr']);
const DOTTED_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** Python's builtin functions (3.x, and 2.x's own): `_get_attr`'s fallback would reach these by name. */
const BUILTIN_FUNCTIONS = new Set(
  ('abs aiter all anext any ascii bin breakpoint callable chr classmethod compile copyright credits delattr dir divmod ' +
    'enumerate eval exec exit filter format getattr globals hasattr hash help hex id input isinstance issubclass iter len ' +
    'license locals map max memoryview min next oct open ord pow print property quit repr reversed round setattr sorted ' +
    'staticmethod sum super type vars zip __import__ __build_class__ __loader__ __spec__ execfile apply reload raw_input file unichr').split(' '),
);

/**
 * cloudpickle's names for rebuilding a function from its bytecode (2.x; 3.x keeps them all in
 * `cloudpickle.cloudpickle`; copies vendored by joblib, spaCy and numba). Dangerous by their module
 * (the loaded function runs whatever its bytecode says when the model is used), but the VM can tell
 * that loading itself only builds such functions: each name used as below, and no rebuilt function
 * called. Then the file is still `unsafe-pickle`, and its models are analysed (UnpickleResult.bytecode).
 */
const CLOUDPICKLE_MODULES = ['cloudpickle', 'joblib.externals.cloudpickle', 'srsly.cloudpickle', 'numba.cloudpickle'].flatMap((m) => [`${m}.cloudpickle`, `${m}.cloudpickle_fast`]);
type BytecodeRole = 'make-function' | 'builtin-type' | 'function-setstate' | 'empty-cell' | 'make-cell' | 'subimport';
export const BYTECODE_ROLES = new Map<string, BytecodeRole>(
  CLOUDPICKLE_MODULES.flatMap((m) => [
    [`${m}._make_function`, 'make-function'],
    [`${m}._builtin_type`, 'builtin-type'],
    [`${m}._function_setstate`, 'function-setstate'],
    [`${m}._make_empty_cell`, 'empty-cell'],
    [`${m}._make_cell`, 'make-cell'],
    [`${m}.subimport`, 'subimport'],
  ]),
);
/** The types `_builtin_type` may name while only building code: calling them makes a code object or a cell. */
const CODE_TYPES = new Set(['CodeType', 'CellType']);

/**
 * `functools.partial(f)` as pickled (`REDUCE(partial, (f,))`, then `BUILD((f, args, kwargs, dict))`,
 * partial's __setstate__, which may name another f): harmless when every f is a named global,
 * tiered as such. Built around anything else (a computed value), with state of another shape, or
 * called while loading (the way a pickle passes keyword arguments to a callable; the VM then also
 * records f as called), it is dangerous.
 */
export const PARTIAL = new Set(['functools.partial', '_functools.partial']);
/**
 * Globals a partial may be built around and then called while loading: pandas 2's Block.__reduce__
 * returns `(partial(new_block, ndim=...), (values, placement))`, which only makes a block of the
 * given array. Any other called partial is dangerous (vm.ts markCalled).
 */
export const PARTIAL_CALLS = new Set(['pandas.core.internals.blocks.new_block']);

/** `partial(f)` with f a named global: the partial object, with f recorded (vm.ts, build() checks the state). */
export function checkPartial(findings: Findings, callable: PyGlobal, args: PyTuple, call: PyCall): void {
  if (!PARTIAL.has(callable.qualified)) return;
  const [f] = args.items;
  if (args.items.length !== 1 || !(f instanceof PyGlobal)) return;
  countCheckedUse(findings, callable.qualified);
  findings.partials.set(call, f);
}

/**
 * BUILD on a partial object: its state `(f, args, kwargs, dict)` sets its callable, which must be
 * a named global as well; anything else makes `functools.partial` dangerous.
 */
export function checkPartialState(findings: Findings, partial: PyCall, state: PyValue): void {
  const built = partial.callable instanceof PyGlobal && PARTIAL.has(partial.callable.qualified) ? partial.callable.qualified : undefined;
  if (!built) return;
  const f = state instanceof PyTuple ? state.items[0] : undefined;
  if (state instanceof PyTuple && state.items.length === 4 && f instanceof PyGlobal && findings.partials.has(partial)) findings.partials.set(partial, f);
  else addUnsafe(findings, built);
}

/**
 * PyTorch's storage reconstructor: `_load_from_bytes(b)` is `torch.load(io.BytesIO(b),
 * weights_only=False)`, an unrestricted unpickle of b (TabNet's scikit-learn-style models pickle
 * every weight this way). Harmless exactly when the pickles in b are: the VM reads them (vm.ts).
 * Sweep 19 found it tiered "unknown" (information) with `posix.system` inside the bytes.
 */
export const TORCH_LOAD_FROM_BYTES = new Set(['torch.storage._load_from_bytes']);

/** Allowed globals that are harmless only as the VM checks them applied (every other use is dangerous). */
const CHECKED_CALLABLES = new Set([...PARTIAL, ...UFUNC_RECONSTRUCT, ...DILL_CREATE_ARRAY, ...DILL_LOAD_TYPE, ...DILL_IMPORT_MODULE, ...DILL_GET_ATTR, ...BYTECODE_ROLES.keys(), ...TORCH_LOAD_FROM_BYTES]);

export function countCheckedPush(findings: Findings, v: PyValue): void {
  if (v instanceof PyGlobal && CHECKED_CALLABLES.has(v.qualified)) {
    findings.checkedPushes.set(v.qualified, (findings.checkedPushes.get(v.qualified) ?? 0) + 1);
  }
}

export function countCheckedUse(findings: Findings, q: string): void {
  findings.checkedUses.set(q, (findings.checkedUses.get(q) ?? 0) + 1);
}

/** `_ufunc_reconstruct(m, n)` with literal names: __import__(m, fromlist=[n]).n, no Python 2 renaming, so the global it names, tiered as such. */
export function resolveUfuncReconstruct(host: CheckedCallHost, callable: PyGlobal, args: PyTuple, call: PyCall): void {
  const q = callable.qualified;
  if (!UFUNC_RECONSTRUCT.has(q)) return;
  const [m, n] = args.items;
  if (args.items.length !== 2 || typeof m !== 'string' || typeof n !== 'string') return;
  const named = host.nameGlobal(m, n);
  countCheckedUse(host.findings, q);
  host.findings.resolved.set(call, named);
}

/** dill's data helpers applied as checked (DILL_CREATE_ARRAY, DILL_LOAD_TYPE, DILL_IMPORT_MODULE, DILL_GET_ATTR): what they make; else undefined. */
export function dillCall(host: CheckedCallHost, callable: PyGlobal, args: PyTuple): PyValue | undefined {
  const q = callable.qualified;
  if (DILL_CREATE_ARRAY.has(q)) {
    const [f, fArgs, state, npdict] = args.items;
    if (!(args.items.length === 3 || (args.items.length === 4 && npdict === null))) return undefined;
    if (!(f instanceof PyGlobal && fArgs instanceof PyTuple)) return undefined;
    // f(*fArgs) then __setstate__(state): the REDUCE + BUILD a standard pickle would hold.
    const made = host.reduce(f, fArgs);
    if (!(made instanceof PyCall)) return undefined;
    made.state = state;
    countCheckedUse(host.findings, q);
    host.markCalled(callable);
    return made;
  }
  if (DILL_IMPORT_MODULE.has(q)) {
    const [path] = args.items;
    if (args.items.length !== 1 || typeof path !== 'string' || !DOTTED_PATH.test(path)) return undefined;
    countCheckedUse(host.findings, q);
    host.markCalled(callable);
    const module = new PyCall(callable, args);
    host.findings.dillModules.set(module, path);
    host.findings.dillModulesOpen++;
    return module;
  }
  if (DILL_GET_ATTR.has(q)) {
    const [module, name] = args.items;
    const path = module instanceof PyCall ? host.findings.dillModules.get(module) : undefined;
    if (args.items.length !== 2 || path === undefined || typeof name !== 'string' || !DOTTED_PATH.test(name) || name.includes('.')) return undefined;
    // getattr(module, name) or the builtin of that name: a builtin's name is not taken as the module's.
    if (BUILTIN_FUNCTIONS.has(name)) return undefined;
    if (!host.findings.dillModulesResolved.has(module as PyCall)) {
      host.findings.dillModulesResolved.add(module as PyCall);
      host.findings.dillModulesOpen--;
    }
    countCheckedUse(host.findings, q);
    host.markCalled(callable);
    return host.nameGlobal(path, name);
  }
  if (DILL_LOAD_TYPE.has(q)) {
    const [name] = args.items;
    if (args.items.length !== 1 || typeof name !== 'string' || classifyGlobal('builtins', name).tier !== 'allowed') return undefined;
    countCheckedUse(host.findings, q);
    host.markCalled(callable);
    return host.nameGlobal('builtins', name);
  }
  return undefined;
}

/** cloudpickle's names applied as it applies them to rebuild a function (BYTECODE_ROLES): counted as checked. */
export function bytecodeCall(findings: Findings, callable: PyGlobal, args: PyTuple, call: PyCall): void {
  const q = callable.qualified;
  const role = BYTECODE_ROLES.get(q);
  if (!role) return;
  const [first] = args.items;
  let checked = false;
  if (role === 'make-function') {
    findings.rebuilt.add(call);
    findings.rebuiltCount++;
    checked = true;
  } else if (role === 'builtin-type') {
    checked = args.items.length === 1 && typeof first === 'string' && CODE_TYPES.has(first);
  } else if (role === 'function-setstate') {
    checked = args.items.length === 2 && first instanceof PyCall && findings.rebuilt.has(first);
  } else if (role === 'empty-cell') {
    checked = args.items.length === 0;
  } else if (role === 'make-cell') {
    checked = args.items.length <= 1;
  } else if (role === 'subimport') {
    // __import__(name): harmless for a module no dangerous name lives in (numpy, not os).
    checked = args.items.length === 1 && typeof first === 'string' && dangerReason(first, '_') === undefined;
    if (!checked) findings.runsBytecode = true;
  }
  if (checked) countCheckedUse(findings, q);
}

/** Whether calling `target` while loading runs a function cloudpickle rebuilt (or what one returned). */
export function callsRebuiltFunction(findings: Findings, target: PyValue): boolean {
  return target instanceof PyCall && (findings.rebuilt.has(target) || (target.callable instanceof PyCall && findings.rebuilt.has(target.callable)));
}

/**
 * At the end of a pickle: a checked callable put on the stack for anything but a checked call (a
 * value, a computed argument, INST) could import and return any attribute of any module
 * (_ufunc_reconstruct) or call anything (dill's _create_array), so it is dangerous; and a module dill
 * imported that no `_get_attr` turned into a named global was held, or used, as a value. Returns the
 * functions cloudpickle rebuilt when every one of its names was used only to rebuild them.
 */
export function settleCheckedCallables(findings: Findings): BytecodeFunctions | undefined {
  if (findings.dillModulesOpen > 0) for (const q of DILL_IMPORT_MODULE) if (findings.globals.has(q)) addUnsafe(findings, q);
  let bytecodeChecked = !findings.runsBytecode;
  for (const [q, pushes] of findings.checkedPushes) {
    if (pushes <= (findings.checkedUses.get(q) ?? 0)) continue;
    addUnsafe(findings, q);
    if (BYTECODE_ROLES.has(q)) bytecodeChecked = false;
  }
  const bytecodeNames = [...findings.globals.keys()].filter((q) => BYTECODE_ROLES.has(q));
  return bytecodeNames.length > 0 && bytecodeChecked ? { functions: findings.rebuiltCount, names: bytecodeNames } : undefined;
}
