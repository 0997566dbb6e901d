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
  if (cls.name === 'TransformedTargetRegressor') {
    const func = state.get('func');
    const transformer = classOf(state.get('transformer_'));
    // numpy's ufuncs pickle by their C module (numpy.core._multiarray_umath.log1p): named as numpy's.
    const named = func instanceof PyGlobal ? (func.module.startsWith('numpy.') ? `numpy.${func.name}` : func.qualified) : undefined;
    const how = named ?? (transformer && transformer.name !== 'FunctionTransformer' ? transformer.name : undefined);
    if (how) roles.set(`${location}.regressor_`, { targetTransform: how });
  }
  for (const [at, crossValidationFold] of calibrationFolds(v, location)) roles.set(at, { crossValidationFold });
  return roles;
}
