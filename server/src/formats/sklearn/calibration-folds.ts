/**
 * CalibratedClassifierCV (scikit-learn's default `cv=None`, `ensemble=True`) keeps one copy of its
 * estimator per cross-validation fold, each fitted on the rows outside that fold: a file of 5
 * XGBClassifiers each grown on 168 of the 210 rows given to fit. Each fold model counts only its
 * own rows, so "168 of 168 training rows" needs saying which rows those are. When the splitter
 * partitions the rows (KFold-like: every row in exactly one test fold), every row is in all folds'
 * models but its own, and the rows given to fit are the fold models' rows summed over folds - 1.
 */
import { PyValue, asString, classOf, numeric, seqItems, stateDict } from '../pickle';

/** What a fold model states about its rows (the IR's `training.crossValidationFold`). */
export interface CalibrationFold {
  /** Its siblings' shared location prefix: `${location}.calibrated_classifiers_`. */
  group: string;
  folds: number;
  /** Whether the splitter puts every row in exactly one test fold (int or None cv, KFold-like splitters). */
  partition: boolean;
}

/** Splitters whose test folds partition the rows. */
const PARTITIONS = new Set(['KFold', 'StratifiedKFold', 'GroupKFold', 'StratifiedGroupKFold']);

/**
 * The fold models a CalibratedClassifierCV at `location` holds, by their locations
 * (`<prefix>[i].estimator`, or `.base_estimator` before scikit-learn 1.2); none for anything else
 * (prefit, ensemble=False, a single fold).
 */
export function calibrationFolds(v: PyValue, location: string): Map<string, CalibrationFold> {
  const found = new Map<string, CalibrationFold>();
  const cls = classOf(v);
  const state = stateDict(v);
  const members = seqItems(state?.get('calibrated_classifiers_')) ?? [];
  if (!cls || !state || cls.name !== 'CalibratedClassifierCV' || !cls.module.startsWith('sklearn.') || members.length < 2) return found;
  if (state.get('ensemble') === false) return found;
  const cv = state.get('cv');
  if (asString(cv) === 'prefit') return found;
  const partition = cv === null || cv === undefined || Number.isInteger(numeric(cv)) || PARTITIONS.has(classOf(cv)?.name ?? '');
  const group = `${location}.calibrated_classifiers_`;
  members.forEach((member, i) => {
    const attribute = stateDict(member)?.has('estimator') ? 'estimator' : 'base_estimator';
    found.set(`${group}[${i}].${attribute}`, { group, folds: members.length, partition });
  });
  return found;
}
