/**
 * What one unpickling learns about the globals a pickle names, shared across a top-level pickle and
 * the pickles nested in it (joblib object arrays): the VM (./vm) fills it, the checked callables
 * (./checked-callables) read and settle it.
 */
import type { PyCall, PyGlobal } from './values';

export interface Findings {
  unsafe: string[];
  unsafeSet: Set<string>;
  globals: Map<string, PyGlobal>;
  /** Unknown-tier names, in order of first appearance. */
  unknown: string[];
  /** Names the pickle calls when loaded (REDUCE, NEWOBJ, NEWOBJ_EX, OBJ, INST, reconstructors). */
  called: Set<string>;
  /**
   * Names the pickle applies as functions when loaded: REDUCE, OBJ and INST (which call a
   * non-class), and class constructions given arguments. What is left in `called` only builds an
   * object of a class without arguments (NEWOBJ, or copyreg's reconstructors, on a bare class):
   * `cls.__new__(cls)`, then the state set as data.
   */
  applied: Set<string>;
  /** `_ufunc_reconstruct(m, n)` calls with literal names: the global they resolve to. */
  resolved: WeakMap<PyCall, PyGlobal>;
  /** `functools.partial(f)` objects built around a named global f: f (checked-callables.ts, PARTIAL). */
  partials: WeakMap<PyCall, PyGlobal>;
  /**
   * Per checked callable (CHECKED_CALLABLES), how often it was put on the stack and how often it
   * was applied in the one way known to be harmless: any push left over is a dangerous use.
   */
  checkedPushes: Map<string, number>;
  checkedUses: Map<string, number>;
  refused: string[];
  joblibArrays: number;
  /** Functions `_make_function` returned. */
  rebuilt: WeakSet<PyCall>;
  rebuiltCount: number;
  /** Set when loading would call a rebuilt function, or cloudpickle imports a dangerous module. */
  runsBytecode: boolean;
  /** dill's `_import_module(path)` results, and those a `_get_attr` resolved (DILL_IMPORT_MODULE). */
  dillModules: WeakMap<PyCall, string>;
  dillModulesResolved: WeakSet<PyCall>;
  dillModulesOpen: number;
}

export function newFindings(): Findings {
  return {
    unsafe: [],
    unsafeSet: new Set(),
    globals: new Map(),
    unknown: [],
    called: new Set(),
    applied: new Set(),
    resolved: new WeakMap(),
    partials: new WeakMap(),
    checkedPushes: new Map(),
    checkedUses: new Map(),
    refused: [],
    joblibArrays: 0,
    rebuilt: new WeakSet(),
    rebuiltCount: 0,
    runsBytecode: false,
    dillModules: new WeakMap(),
    dillModulesResolved: new WeakSet(),
    dillModulesOpen: 0,
  };
}

/** Records a dangerous global once, in order of first appearance. */
export function addUnsafe(findings: Findings, q: string): void {
  if (findings.unsafeSet.has(q)) return;
  findings.unsafeSet.add(q);
  findings.unsafe.push(q);
}
