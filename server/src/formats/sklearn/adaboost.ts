/**
 * AdaBoostClassifier and AdaBoostRegressor of decision trees (scikit-learn 1.2,
 * ensemble/_weight_boosting.py), read by the tree decoders and adjusted for how AdaBoost trains:
 *  - the classifier fits every tree on every row with the boosting weights (normalised to sum 1;
 *    tree 0's are 1/N each), so the stored counts are weights, not rows (`weighted: true`), while
 *    `n_node_samples` still counts rows: N is tree 0's root;
 *  - the regressor fits every tree, unweighted, on a resample of N rows drawn with replacement with
 *    probabilities proportional to the weights (`random_state.choice`), passing the drawn copies as
 *    rows: both counts count draws, so no distinct-row count is kept, and the forest is one draw per
 *    tree (bootstrap) whose draws no stored seed replays (the trees' random_state is not one).
 */
import type { PyGlobal, PyValue } from '../pickle';
import type { Decoded } from './decode-helpers';
import { decodeTreeEnsemble } from './tree-ensembles';

/** The classes this module decodes (the estimator registry, ./estimators.ts, routes them here). */
export const ADABOOST = ['AdaBoostClassifier', 'AdaBoostRegressor'] as const;
/** Decodes a fitted AdaBoost ensemble of trees; throws DecodeError. */
export function decodeAdaBoost(est: PyValue, cls: PyGlobal): Decoded {
  const decoded = decodeTreeEnsemble(est, cls, 'boosts');
  const forest = decoded.forest;
  const notes = decoded.notes.filter((n) => !/root counts differ|weights make the stored counts weighted/.test(n));
  if (cls.name === 'AdaBoostClassifier') {
    const rows = forest.trees[0].distinctRows?.[0];
    forest.trees = forest.trees.map((tree) => ({ ...tree, training: {} }));
    forest.training = { bootstrap: false, weighted: true, ...(rows !== undefined ? { rows } : {}) };
    notes.push('AdaBoost fits every tree on every row with its boosting weights: the stored counts are weights (tree 0: 1/N per row), n_node_samples counts rows');
  } else {
    const draws = forest.trees[0].classWeights[0];
    forest.trees = forest.trees.map(({ distinctRows: _drawn, ...tree }) => ({ ...tree, training: {} }));
    forest.training = { bootstrap: true, weighted: forest.training.weighted, ...(Number.isInteger(draws) ? { rows: draws, bootstrapSize: draws } : {}) };
    notes.push('AdaBoost.R2 fits every tree on N rows resampled with replacement by the boosting weights: counts are draws (no distinct-row count), and no stored seed replays them');
  }
  return { forest, notes };
}
