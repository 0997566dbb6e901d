/**
 * What a training script does with tree models, read statically: which estimators it builds (with
 * their keyword arguments' exact ranges), which variable holds each, where each is saved, and
 * whether the seeds were stripped before a save. One pass over the statements in order, so a
 * variable means what it was last assigned before the line that uses it.
 */
import { evaluatePath, type PathValue } from './paths';
import { callsIn, dottedName, parseStatements, type Arg, type Expr, type Statement } from './syntax';

export type Call = Extract<Expr, { kind: 'call' }>;
export type Library = 'sklearn' | 'diffprivlib' | 'xgboost';

export interface EstimatorSite {
  /** Estimator class (`RandomForestClassifier`), or `xgb.train` for the functional XGBoost API. */
  estimator: string;
  library: Library;
  call: Call;
  /** Variable the estimator was assigned to, if any. */
  variable?: string;
  /** xgb.train: the params dict literal (inline or assigned to a variable before). */
  params?: Extract<Expr, { kind: 'dict' }>;
}

export type SaveMethod = 'joblib.dump' | 'pickle.dump' | 'save_model' | 'dump_model';

export interface SaveSite {
  method: SaveMethod;
  call: Call;
  statement: Statement;
  path: PathValue;
  /** The estimator saved, when the saved object is one the script built. */
  estimator?: EstimatorSite;
  /** The expression naming the saved object (for the seed-stripping snippet). */
  objectName?: string;
  /** Seeds of `objectName` were set to None before this save (our snippet or the same code by hand). */
  seedsStripped: boolean;
}

export interface ScriptModel {
  estimators: EstimatorSite[];
  saves: SaveSite[];
  statements: Statement[];
}

const SKLEARN_TREES = new Set(['RandomForestClassifier', 'ExtraTreesClassifier', 'DecisionTreeClassifier', 'RandomForestRegressor', 'ExtraTreesRegressor', 'DecisionTreeRegressor']);
const XGB_ESTIMATORS = new Set(['XGBClassifier', 'XGBRegressor', 'XGBRFClassifier', 'XGBRFRegressor']);
const PICKLERS = new Set(['pickle', 'cPickle', '_pickle', 'dill', 'cloudpickle']);

/** The estimator a (qualified) callee names, if it is one of ours. */
export function classify(qualified: string, resolved: boolean): { estimator: string; library: Library } | undefined {
  const parts = qualified.split('.');
  const last = parts[parts.length - 1];
  const root = parts[0];
  if (parts.length === 1 && resolved) return undefined; // imported from somewhere else
  if (SKLEARN_TREES.has(last)) {
    if (qualified.includes('diffprivlib')) return { estimator: last, library: 'diffprivlib' };
    if (parts.length === 1 || root === 'sklearn' || root === 'ensemble' || root === 'tree') return { estimator: last, library: 'sklearn' };
    return undefined;
  }
  // `xgb` without an import in sight: a notebook cell or a snippet using the usual alias
  const xgb = root === 'xgboost' || (root === 'xgb' && !resolved);
  if (XGB_ESTIMATORS.has(last) && (parts.length === 1 || xgb)) return { estimator: last, library: 'xgboost' };
  if (xgb && parts.length === 2 && last === 'train') return { estimator: 'xgb.train', library: 'xgboost' };
  return undefined;
}

class Scope {
  readonly aliases = new Map<string, string>();
  readonly paths = new Map<string, PathValue>();
  readonly files = new Map<string, PathValue>();
  readonly estimators = new Map<string, EstimatorSite>();
  readonly dicts = new Map<string, Extract<Expr, { kind: 'dict' }>>();
  /** Variables whose seeds were set to None, with the offset where that became true. */
  readonly stripped = new Map<string, { trees: boolean; forest: boolean }>();

  /** Resolves the first component through import aliases. */
  qualify(name: string): string {
    const [head, ...rest] = name.split('.');
    const full = this.aliases.get(head);
    return full ? [full, ...rest].join('.') : name;
  }
  resolved(name: string): boolean {
    return this.aliases.has(name.split('.')[0]);
  }
  pathScope() {
    return { variable: (n: string) => this.paths.get(n), qualify: (n: string) => this.qualify(n) };
  }
}

function estimatorOf(expr: Expr | undefined, scope: Scope, found: Map<Call, EstimatorSite>): EstimatorSite | undefined {
  if (!expr) return undefined;
  if (expr.kind === 'name') return scope.estimators.get(expr.id);
  if (expr.kind === 'call') {
    const direct = found.get(expr);
    if (direct) return direct;
    // Ctor(...).fit(X, y) returns the estimator; so does est.fit(...)
    if (expr.func.kind === 'attr' && ['fit', 'set_params'].includes(expr.func.name)) return estimatorOf(expr.func.object, scope, found);
    // make_pipeline(..., Ctor()), Pipeline([...]), GridSearchCV(Ctor(), ...): the tree model inside
    for (const call of callsIn(expr).slice(1)) {
      const site = found.get(call);
      if (site) return site;
    }
  }
  if (expr.kind === 'other') for (const c of expr.children) {
    const site = estimatorOf(c, scope, found);
    if (site) return site;
  }
  return undefined;
}

function positional(call: Call, index: number): Expr | undefined {
  return call.args.filter((a) => !a.keyword && !a.star)[index]?.value;
}
function argument(call: Call, index: number, keyword: string): Expr | undefined {
  return call.args.find((a: Arg) => a.keyword === keyword)?.value ?? positional(call, index);
}

/** Whether `open(...)`'s mode writes bytes (`'wb'`, `mode="wb"`). */
function isBinaryWriteOpen(call: Call, scope: Scope): boolean {
  const name = dottedName(call.func);
  if (!name || !['open', 'io.open', 'builtins.open'].includes(scope.qualify(name))) return false;
  const mode = argument(call, 1, 'mode');
  return mode?.kind === 'str' && /[wax]/.test(mode.value);
}

export function analyzeScript(source: string): ScriptModel {
  const statements = parseStatements(source);
  const scope = new Scope();
  const estimators: EstimatorSite[] = [];
  const saves: SaveSite[] = [];
  // Loops `for t in X.estimators_:` still open (by indentation), to see `t.random_state = None`.
  let loop: { variable: string; object: string; indent: string } | undefined;

  for (const st of statements) {
    if (loop && st.indent.length <= loop.indent.length) loop = undefined;
    if (st.kind === 'import') {
      for (const { local, qualified } of st.imports ?? []) scope.aliases.set(local, qualified);
      continue;
    }
    // estimator constructions anywhere in the statement
    const found = new Map<Call, EstimatorSite>();
    for (const expr of st.exprs) {
      for (const call of callsIn(expr)) {
        const callee = dottedName(call.func);
        if (!callee) continue;
        const kind = classify(scope.qualify(callee), scope.resolved(callee));
        if (!kind) continue;
        const site: EstimatorSite = { ...kind, call };
        if (kind.estimator === 'xgb.train') {
          const params = argument(call, 0, 'params');
          site.params = params?.kind === 'dict' ? params : params?.kind === 'name' ? scope.dicts.get(params.id) : undefined;
        }
        found.set(call, site);
        estimators.push(site);
      }
    }
    // saves
    for (const expr of st.exprs) {
      for (const call of callsIn(expr)) {
        const save = saveOf(call, st, scope, found);
        if (save) saves.push(save);
      }
    }
    if (st.kind === 'for' && st.targets[0]?.kind === 'name' && st.value?.kind === 'attr' && st.value.name === 'estimators_') {
      const object = dottedName(st.value.object);
      if (object) loop = { variable: st.targets[0].id, object, indent: st.indent };
    }
    if (st.kind === 'with') {
      for (const item of st.items ?? []) {
        if (item.value.kind === 'call' && item.target?.kind === 'name' && isBinaryWriteOpen(item.value, scope)) {
          scope.files.set(item.target.id, evaluatePath(argument(item.value, 0, 'file'), scope.pathScope()));
        }
      }
    }
    if (st.kind === 'assign' && st.value) {
      for (const target of st.targets) {
        // `X.random_state = None`: seeds stripped by hand or by our snippet
        if (target.kind === 'attr' && target.name === 'random_state' && st.value.kind === 'const' && st.value.value === null) {
          const object = dottedName(target.object);
          if (loop && object === loop.variable) markStripped(scope, loop.object, 'trees');
          else if (object) markStripped(scope, object, 'forest');
        }
        if (target.kind !== 'name') continue;
        const name = target.id;
        const site = estimatorOf(st.value, scope, found);
        if (site && !site.variable) site.variable = name;
        if (site) scope.estimators.set(name, site);
        else scope.estimators.delete(name);
        scope.stripped.delete(name);
        const path = evaluatePath(st.value, scope.pathScope());
        if (path.kind !== 'unknown') scope.paths.set(name, path);
        else scope.paths.delete(name);
        if (st.value.kind === 'dict') scope.dicts.set(name, st.value);
        if (st.value.kind === 'call' && isBinaryWriteOpen(st.value, scope)) scope.files.set(name, evaluatePath(argument(st.value, 0, 'file'), scope.pathScope()));
      }
    }
  }
  return { estimators, saves, statements };

  function saveOf(call: Call, st: Statement, s: Scope, found: Map<Call, EstimatorSite>): SaveSite | undefined {
    const callee = dottedName(call.func);
    const qualified = callee ? s.qualify(callee) : undefined;
    let method: SaveMethod | undefined;
    let objectExpr: Expr | undefined;
    let pathExpr: Expr | undefined;
    if (qualified && /(^|\.)joblib\.dump$|^sklearn\.externals\.joblib\.dump$/.test(qualified)) {
      method = 'joblib.dump';
      objectExpr = argument(call, 0, 'value');
      pathExpr = argument(call, 1, 'filename');
    } else if (qualified && PICKLERS.has(qualified.split('.')[0]) && qualified.endsWith('.dump')) {
      method = 'pickle.dump';
      objectExpr = argument(call, 0, 'obj');
      pathExpr = argument(call, 1, 'file');
    } else if (call.func.kind === 'attr' && (call.func.name === 'save_model' || call.func.name === 'dump_model')) {
      method = call.func.name;
      objectExpr = call.func.object;
      // model.get_booster().save_model(...)
      if (objectExpr.kind === 'call' && objectExpr.func.kind === 'attr' && objectExpr.func.name === 'get_booster') objectExpr = objectExpr.func.object;
      pathExpr = argument(call, 0, 'fname');
    }
    if (!method) return undefined;
    const estimator = estimatorOf(objectExpr, s, found);
    // save_model / dump_model exist on many libraries' objects: only ours count, or any dump_model with stats
    if ((method === 'save_model' || method === 'dump_model') && !estimator && !(method === 'dump_model' && call.args.some((a) => a.keyword === 'with_stats'))) return undefined;
    let path: PathValue;
    if (pathExpr?.kind === 'name' && s.files.has(pathExpr.id)) path = s.files.get(pathExpr.id)!;
    else if (pathExpr?.kind === 'call' && isBinaryWriteOpen(pathExpr, s)) path = evaluatePath(argument(pathExpr, 0, 'file'), s.pathScope());
    else path = evaluatePath(pathExpr, s.pathScope());
    const objectName = objectExpr ? dottedName(objectExpr) : undefined;
    const stripped = objectName ? s.stripped.get(objectName) : undefined;
    return { method, call, statement: st, path, estimator, objectName, seedsStripped: Boolean(stripped?.trees && stripped.forest) };
  }
}

function markStripped(scope: Scope, object: string, what: 'trees' | 'forest'): void {
  const current = scope.stripped.get(object) ?? { trees: false, forest: false };
  current[what] = true;
  scope.stripped.set(object, current);
}
