/**
 * What a wrapper makes of the tree model it holds, when that changes what the model's numbers mean:
 *  - OneVsRestClassifier fits one binary model per class ("this class or not"): a member's classes
 *    0 and 1 are "not c" and c, not the user's classes 0 and 1 (sweep 7: "one row of class 0" meant
 *    "not setosa");
 *  - TransformedTargetRegressor fits its regressor on func(y) or a transformer's output: its leaves'
 *    targets are in that scale ("target 5.50939" was log1p of about 246);
 *  - CalibratedClassifierCV keeps one fold model per cross-validation fold, each fitted on the rows
 *    outside its fold (./calibration-folds.ts).
 * find-models.ts records them by the members' locations; decode.ts puts them on the members' IR.
 */
import { PyGlobal, asNdArray, classOf, isArray, seqItems, stateDict, type PyValue } from '../pickle';
import { calibrationFolds, type CalibrationFold } from './calibration-folds';
import { labelOf } from './decode-helpers';

export interface MemberRole {
  oneVsRest?: { positive: string | number | boolean };
  targetTransform?: string;
  crossValidationFold?: CalibrationFold;
  /**
   * A StackingClassifier's or StackingRegressor's final estimator: fitted on the stack's estimators'
   * (out-of-fold) predictions, one column per name listed, then the raw columns with passthrough.
   * `columns` is undefined where the count per estimator is not stated (scikit-learn before 1.0).
   */
  stackingFinal?: { estimators: string[]; columns?: string[] };
  /**
   * A OneVsOneClassifier's or OutputCodeClassifier's member: fitted on recoded labels, and (one
   * vs one) on the rows of two classes only. `classes`: what its own classes stand for, in its
   * order (one vs one: the pair's two classes; output codes: the classes whose code is that value).
   */
  recoded?: { by: 'OneVsOneClassifier' | 'OutputCodeClassifier'; classes: (string | number | boolean)[] };
  /** A MultiOutputClassifier's or MultiOutputRegressor's member: the model of output `output`. */
  multiOutput?: { output: number; outputs: number };
  /**
   * A ClassifierChain's link: fitted on the chain's input columns (`inputs` of them) and then the
   * true labels of the outputs before it in the chain, named here `y[j]` by output.
   */
  chainLink?: { inputs: number; labels: string[] };
}

/** The roles a wrapper at `location` gives the members it holds, by their locations. */
export function memberRoles(v: PyValue, location: string): Map<string, MemberRole> {
  const roles = new Map<string, MemberRole>();
  const cls = classOf(v);
  const state = stateDict(v);
  if (!cls || !state || !cls.module.startsWith('sklearn.')) return roles;
  if (cls.name === 'OneVsRestClassifier') {
    const stored = state.get('classes_');
    const classes = isArray(stored) ? asNdArray(stored).values().map(labelOf) : [];
    const members = seqItems(state.get('estimators_')) ?? [];
    // Two classes: one model, of the second class against the first.
    const positives = classes.length === 2 && members.length === 1 ? [classes[1]] : members.length === classes.length ? classes : [];
    positives.forEach((positive, k) => roles.set(`${location}.estimators_[${k}]`, { oneVsRest: { positive } }));
  }
  if (cls.name === 'OneVsOneClassifier' || cls.name === 'OutputCodeClassifier') {
    const stored = state.get('classes_');
    const classes = isArray(stored) ? asNdArray(stored).values().map(labelOf) : [];
    const members = seqItems(state.get('estimators_')) ?? [];
    if (cls.name === 'OneVsOneClassifier') {
      // scikit-learn fits pair (i, j), i < j, in that order; class i is 0 and class j is 1.
      let k = 0;
      for (let i = 0; i < classes.length; i++) for (let j = i + 1; j < classes.length; j++) {
        if (k < members.length) roles.set(`${location}.estimators_[${k}]`, { recoded: { by: cls.name, classes: [classes[i], classes[j]] } });
        k++;
      }
    } else {
      // Member k was fitted on column k of the code book: each value stands for the classes coded so.
      const book = state.get('code_book_');
      const codes = isArray(book) ? asNdArray(book) : undefined;
      members.forEach((_, k) => {
        if (!codes || codes.shape.length !== 2 || codes.shape[0] !== classes.length || k >= codes.shape[1]) {
          roles.set(`${location}.estimators_[${k}]`, { recoded: { by: cls.name as 'OutputCodeClassifier', classes: [] } });
          return;
        }
        const values = codes.numbers();
        const column = classes.map((_, c) => values[c * codes.shape[1] + k]);
        const distinct = [...new Set(column)].sort((a, b) => a - b);
        roles.set(`${location}.estimators_[${k}]`, { recoded: { by: cls.name as 'OutputCodeClassifier', classes: distinct.map((v) => classes.filter((_, c) => column[c] === v).map(String).join(' or ')) } });
      });
    }
  }
  if (cls.name === 'MultiOutputClassifier' || cls.name === 'MultiOutputRegressor') {
    const members = seqItems(state.get('estimators_')) ?? [];
    members.forEach((_, output) => roles.set(`${location}.estimators_[${output}]`, { multiOutput: { output, outputs: members.length } }));
  }
  if (cls.name === 'TransformedTargetRegressor') {
    const func = state.get('func');
    const transformer = classOf(state.get('transformer_'));
    // numpy's ufuncs pickle by their C module (numpy.core._multiarray_umath.log1p): named as numpy's.
    const named = func instanceof PyGlobal ? (func.module.startsWith('numpy.') ? `numpy.${func.name}` : func.qualified) : undefined;
    const how = named ?? (transformer && transformer.name !== 'FunctionTransformer' ? transformer.name : undefined);
    if (how) roles.set(`${location}.regressor_`, { targetTransform: how });
  }
  if (cls.name === 'ClassifierChain' || cls.name === 'RegressorChain') {
    // Link k sees X and then Y[:, order_[0..k-1]] (scikit-learn fits every link on the true labels).
    // order_: an array, or the list the user gave as `order`.
    const stored = state.get('order_');
    const order = isArray(stored) ? Array.from(asNdArray(stored).numbers()) : seqItems(stored)?.map((j) => Number(j));
    const links = seqItems(state.get('estimators_')) ?? [];
    const inputs = Number(state.get('n_features_in_'));
    if (order && order.every(Number.isInteger) && Number.isInteger(inputs) && inputs > 0) {
      links.forEach((_, k) => {
        if (k > 0) roles.set(`${location}.estimators_[${k}]`, { chainLink: { inputs, labels: order.slice(0, k).map((j) => `y[${j}]`) } });
      });
    }
  }
  if (cls.name === 'StackingClassifier' || cls.name === 'StackingRegressor') {
    const stackingFinal = stackedColumns(state);
    if (stackingFinal) roles.set(`${location}.final_estimator_`, { stackingFinal });
  }
  for (const [at, crossValidationFold] of calibrationFolds(v, location)) roles.set(at, { crossValidationFold });
  return roles;
}

/**
 * The columns a stack's final estimator was fitted on: per kept estimator (`estimators`, 'drop'
 * left out) its prediction, one column (`gb`) or one per class (`gb[setosa]`, scikit-learn's
 * `_n_feature_outs` says how many), then the stack's input columns when `passthrough` is set.
 */
function stackedColumns(state: NonNullable<ReturnType<typeof stateDict>>): MemberRole['stackingFinal'] {
  const pairs = seqItems(state.get('estimators')) ?? [];
  const names: string[] = [];
  for (const pair of pairs) {
    const [name, estimator] = seqItems(pair) ?? [];
    if (typeof name === 'string' && estimator !== 'drop') names.push(name);
  }
  if (names.length === 0) return undefined;
  const outs = seqItems(state.get('_n_feature_outs'));
  if (!outs || outs.length !== names.length || !outs.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 1)) return { estimators: names };
  const stored = state.get('classes_');
  const classes = isArray(stored) ? asNdArray(stored).values().map(labelOf) : [];
  const columns = names.flatMap((name, i) => {
    const n = outs[i] as number;
    if (n === 1) return [name];
    return Array.from({ length: n }, (_, k) => `${name}[${classes.length === n ? String(classes[k]) : k}]`);
  });
  if (state.get('passthrough') === true) {
    const inputs = state.get('feature_names_in_');
    const raw = isArray(inputs) ? asNdArray(inputs).values().map((x) => String(labelOf(x))) : undefined;
    if (!raw) return { estimators: names };
    columns.push(...raw);
  }
  return { estimators: names, columns };
}
