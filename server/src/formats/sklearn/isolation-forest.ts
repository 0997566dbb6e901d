/**
 * IsolationForest (scikit-learn's anomaly detector) into the forest IR. It is a bagging ensemble
 * (ensemble/_iforest.py subclasses BaseBagging) of ExtraTreeRegressor(max_features=1), so the
 * bagging decoder reads it (./bagging.ts: feature subsets, `_n_samples`, `_max_samples`,
 * `_seeds`), and this module corrects what isolation does differently (scikit-learn 1.2):
 *  - every tree is grown on `max_samples_` rows (256, or N when N is smaller) drawn without
 *    replacement, to depth ceil(log2(max_samples_)), until rows stand alone: its leaves count the
 *    rows of that draw, and a leaf holding one row isolates one training row in its box;
 *  - the trees were fitted to `y = rnd.uniform(size=N)`, random numbers, so a node's value says
 *    nothing about the data: no target is read, and the task is `outlier-detection` (no label);
 *  - predicting needs every leaf's `n_node_samples` (the path-length correction of
 *    `score_samples`), so the counts cannot be stripped from a working model.
 */
import type { PyGlobal, PyValue } from '../pickle';
import { stateDict } from '../pickle';
import type { Decoded } from './decode-helpers';
import { decodeBagging } from './bagging';
import { hyperParametersOf } from './tree-arrays';

/** The classes this module decodes (the estimator registry, ./estimators.ts, routes them here). */
export const ISOLATION_FOREST = ['IsolationForest'] as const;

/** Hyper-parameters shown in reports (the bagging decoder's tree parameters do not apply). */
const HYPER_PARAMETERS = ['n_estimators', 'max_samples', 'max_features', 'contamination', 'bootstrap', 'random_state'] as const;

/** Decodes a fitted IsolationForest; throws DecodeError. */
export function decodeIsolationForest(est: PyValue, cls: PyGlobal): Decoded {
  const { forest, notes } = decodeBagging(est, cls);
  const st = stateDict(est)!;
  forest.task = 'outlier-detection';
  forest.classes = [];
  // The node values are means of random targets: dropping them keeps every target-reading
  // analysis (leaf-reveals-target, regression labels, membership by target) away.
  forest.trees = forest.trees.map(({ targetMean: _mean, targetVariance: _variance, ...tree }) => tree);
  const hyperParameters = hyperParametersOf(st, [...HYPER_PARAMETERS, 'max_samples_']);
  forest.hyperParameters = hyperParameters;
  const kept = notes.filter((n) => !/criterion=|node values are not mean/.test(n));
  kept.push('an isolation forest: its trees were fitted to random targets, so node values are not read; leaves count the rows each tree drew');
  return { forest, notes: kept };
}
