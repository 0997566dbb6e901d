/**
 * What the wrappers that fit plain decision trees (Bagging, AdaBoost) share: their members must be
 * trees of the matching task, and the tree decoders read the wrapper itself as a forest (it keeps
 * `estimators_`, `classes_`, `n_features_in_` as a forest does); each wrapper then corrects what
 * its way of training changes.
 */
import { PyGlobal, PyValue, classOf, seqItems, stateDict } from '../pickle';
import { DecodeError, corrupt, found, type Decoded } from './decode-helpers';
import { decodeTreeClassifier } from './tree-classifier';
import { decodeTreeRegressor } from './tree-regressor';

const CLASSIFIER_TREES = ['DecisionTreeClassifier', 'ExtraTreeClassifier'];
const REGRESSOR_TREES = ['DecisionTreeRegressor', 'ExtraTreeRegressor'];

/**
 * Decodes a wrapper of decision trees as a forest, or throws DecodeError: never fitted, or its
 * members are not trees (`verb` says what the wrapper does with them: "bags", "boosts").
 */
export function decodeTreeEnsemble(est: PyValue, cls: PyGlobal, verb: string): Decoded {
  const st = stateDict(est);
  if (!st) throw corrupt(`the ${cls.name} has no state.`);
  const estimators = seqItems(st.get('estimators_'));
  if (!estimators) throw new DecodeError('unsupported-estimator', `the ${cls.name} was never fitted (it has no estimators_).`);
  const classifier = cls.name.endsWith('Classifier');
  const first = classOf(estimators[0]);
  if (!first || !(classifier ? CLASSIFIER_TREES : REGRESSOR_TREES).includes(first.name)) {
    throw new DecodeError('unsupported-estimator', `the ${cls.name} ${verb} ${found(estimators[0])}, not decision trees; only decision trees are read.`);
  }
  return classifier ? decodeTreeClassifier(est, cls) : decodeTreeRegressor(est, cls);
}
