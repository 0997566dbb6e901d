/**
 * Where a save call writes, from its path expression alone (nothing is run). A script that builds
 * its paths from its own folder (`os.path.dirname(__file__)`, `Path(__file__).parent`) names one
 * file; a relative literal or a path under an unknown folder names a suffix that the model file's
 * path must end with (scripts are run from different working directories).
 */
import { isAbsolute, normalize, resolve, sep } from 'node:path';
import { dottedName, type Expr } from './syntax';

export type PathValue =
  /** The script's own folder. */
  | { kind: 'script-dir' }
  /** `parts` joined under the script's folder, under `/` (absolute), or under an unknown folder. */
  | { kind: 'path'; base: 'script' | 'absolute' | 'unknown'; parts: string[] }
  | { kind: 'unknown' };

const UNKNOWN: PathValue = { kind: 'unknown' };

/** Calls that return their (first) argument's path unchanged for our purpose. */
const IDENTITY = new Set(['os.path.abspath', 'os.path.realpath', 'os.path.normpath', 'os.fspath', 'str', 'Path', 'pathlib.Path', 'PurePath', 'pathlib.PurePath']);
const DIRNAME = new Set(['os.path.dirname']);
const JOIN = new Set(['os.path.join']);

export interface PathScope {
  /** Value of a variable assigned before this point. */
  variable(name: string): PathValue | undefined;
  /** Qualified name of a dotted callee after import aliases (`osp.join` -> `os.path.join`). */
  qualify(name: string): string;
}

function splitParts(s: string): string[] {
  return s.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
}

function join(values: PathValue[]): PathValue {
  let acc: PathValue | undefined;
  for (const v of values) {
    if (v.kind === 'unknown') {
      acc = { kind: 'path', base: 'unknown', parts: [] }; // what came before is lost; later parts still count
      continue;
    }
    if (v.kind === 'script-dir') { acc = { kind: 'path', base: 'script', parts: [] }; continue; }
    if (v.base !== 'unknown' || acc === undefined) { acc = { ...v, parts: [...v.parts] }; continue; }
    acc = { kind: 'path', base: acc.kind === 'path' ? acc.base : 'unknown', parts: [...(acc.kind === 'path' ? acc.parts : []), ...v.parts] };
  }
  return acc ?? UNKNOWN;
}

function literal(value: string): PathValue {
  if (isAbsolute(value)) return { kind: 'path', base: 'absolute', parts: splitParts(value) };
  return { kind: 'path', base: 'unknown', parts: splitParts(value) };
}

export function evaluatePath(expr: Expr | undefined, scope: PathScope): PathValue {
  if (!expr) return UNKNOWN;
  switch (expr.kind) {
    case 'str': {
      if (!expr.placeholders) return literal(expr.value);
      // f"{out}/model.joblib": the text after the last placeholder is still a known suffix
      const tail = expr.value.slice(expr.value.lastIndexOf('}') + 1);
      return tail.startsWith('/') || tail.startsWith('\\') ? { kind: 'path', base: 'unknown', parts: splitParts(tail) } : UNKNOWN;
    }
    case 'name':
      if (expr.id === '__file__') return { kind: 'path', base: 'script', parts: ['__file__'] };
      return scope.variable(expr.id) ?? UNKNOWN;
    case 'binop':
      if (expr.op === '/') return join([evaluatePath(expr.left, scope), evaluatePath(expr.right, scope)]);
      if (expr.op === '+') {
        // "models/" + "x.joblib" or HERE + "/x.joblib"
        const l = evaluatePath(expr.left, scope);
        const r = evaluatePath(expr.right, scope);
        if (expr.right.kind === 'str' && !expr.right.placeholders && l.kind !== 'unknown') {
          const text = expr.right.value;
          if (l.kind === 'path' && !/^[\\/]/.test(text) && l.parts.length > 0) {
            const parts = [...l.parts];
            parts[parts.length - 1] += splitParts(text)[0] ?? '';
            return { ...l, parts: [...parts, ...splitParts(text).slice(1)] };
          }
          return join([l, r]);
        }
        return r.kind === 'path' && r.base === 'unknown' ? r : UNKNOWN;
      }
      return UNKNOWN;
    case 'attr': {
      // Path(__file__).parent, .resolve().parent
      if (expr.name === 'parent') return dirname(evaluatePath(expr.object, scope));
      return UNKNOWN;
    }
    case 'call': {
      const callee = expr.func.kind === 'attr' && !dottedName(expr.func) ? undefined : dottedName(expr.func);
      const name = callee ? scope.qualify(callee) : undefined;
      const positional = expr.args.filter((a) => !a.keyword && !a.star).map((a) => a.value);
      if (name && JOIN.has(name)) return join(positional.map((a) => evaluatePath(a, scope)));
      if (name && DIRNAME.has(name)) return dirname(evaluatePath(positional[0], scope));
      if (name && IDENTITY.has(name)) {
        if (positional.length === 0) return UNKNOWN;
        return join(positional.map((a) => evaluatePath(a, scope)));
      }
      if (expr.func.kind === 'attr') {
        const method = expr.func.name;
        const object = evaluatePath(expr.func.object, scope);
        if (['resolve', 'absolute', 'expanduser'].includes(method)) return object;
        if (method === 'joinpath') return join([object, ...positional.map((a) => evaluatePath(a, scope))]);
        if (method === 'with_suffix' && object.kind === 'path' && positional[0]?.kind === 'str' && object.parts.length) {
          const parts = [...object.parts];
          parts[parts.length - 1] = parts[parts.length - 1].replace(/\.[^.]*$/, '') + positional[0].value;
          return { ...object, parts };
        }
      }
      return UNKNOWN;
    }
    default:
      return UNKNOWN;
  }
}

function dirname(value: PathValue): PathValue {
  if (value.kind !== 'path') return UNKNOWN;
  if (value.base === 'script' && value.parts.length === 1 && value.parts[0] === '__file__') return { kind: 'script-dir' };
  if (value.parts.length === 0) return value.base === 'unknown' ? UNKNOWN : { ...value, parts: ['..'] };
  return { ...value, parts: value.parts.slice(0, -1) };
}

/** Whether the path a script writes can be `modelPath` (absolute), for a script in `scriptDir`. */
export function pathMatches(value: PathValue, modelPath: string, scriptDir: string): boolean {
  if (value.kind !== 'path' || value.parts.length === 0 || value.parts.includes('__file__')) return false;
  const target = normalize(modelPath);
  if (value.base === 'absolute') return normalize(`${sep}${value.parts.join(sep)}`) === target;
  if (value.base === 'script') return resolve(scriptDir, ...value.parts) === target;
  // unknown folder: the known components must be the end of the model's path
  const suffix = normalize(value.parts.join(sep)).split(sep).filter((p) => p !== '..' && p !== '.');
  const components = target.split(sep);
  if (suffix.length === 0 || suffix.length > components.length) return false;
  return suffix.every((part, i) => components[components.length - suffix.length + i] === part);
}

/** The path for display: `<script dir>/models/x.joblib`, `…/models/x.joblib`. */
export function describePath(value: PathValue): string {
  if (value.kind === 'script-dir') return '<script folder>';
  if (value.kind === 'unknown') return '<unknown path>';
  const joined = value.parts.join('/');
  return value.base === 'absolute' ? `/${joined}` : value.base === 'script' ? `<script folder>/${joined}` : `…/${joined}`;
}
