/**
 * CalibratedClassifierCV (scikit-learn's default `cv=None`, `ensemble=True`) keeps one copy of its
 * estimator per cross-validation fold, each fitted on the rows outside that fold: a file of 5
 * XGBClassifiers each grown on 168 of the 210 rows given to fit. Each fold model counts only its
 * own rows, so "168 of 168 training rows" needs saying which rows those are. When the splitter
 * partitions the rows (KFold-like: every row in exactly one test fold), every row is in all folds'
 * models but its own, and the rows given to fit are the fold models' rows summed over folds - 1.
 */
import { PyValue, asString, classOf, numeric, stateDict } from '../pickle';

export interface CalibrationFolds {
  /** The location prefix of its fold models: `${location}.calibrated_classifiers_`. */
  prefix: string;
  folds: number;
  /** Whether the splitter puts every row in exactly one test fold (int or None cv, KFold-like splitters). */
  partition: boolean;
}

/** Splitters whose test folds partition the rows. */
const PARTITIONS = new Set(['KFold', 'StratifiedKFold', 'GroupKFold', 'StratifiedGroupKFold']);

/** The fold models a CalibratedClassifierCV at `location` holds, or undefined for anything else (prefit, ensemble=False). */
export function calibrationFolds(v: PyValue, location: string, folds: number): CalibrationFolds | undefined {
  const cls = classOf(v);
  const state = stateDict(v);
  if (!cls || !state || cls.name !== 'CalibratedClassifierCV' || !cls.module.startsWith('sklearn.') || folds < 2) return undefined;
  if (state.get('ensemble') === false) return undefined;
  const cv = state.get('cv');
  if (asString(cv) === 'prefit') return undefined;
  const partition = cv === null || cv === undefined || Number.isInteger(numeric(cv)) || PARTITIONS.has(classOf(cv)?.name ?? '');
  return { prefix: `${location}.calibrated_classifiers_`, folds, partition };
}

/** Which fold model a location names (`<prefix>[i].estimator`, or `.base_estimator` before scikit-learn 1.2). */
export function foldOf(location: string, groups: readonly CalibrationFolds[]): CalibrationFolds | undefined {
  return groups.find((g) => location.startsWith(`${g.prefix}[`) && /^\[\d+\]\.(estimator|base_estimator)$/.test(location.slice(g.prefix.length)));
}
