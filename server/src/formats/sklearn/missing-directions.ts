/**
 * scikit-learn 1.3+ stores, per split, where a missing value goes (`missing_go_to_left`). For a
 * feature that had no missing values in the node it sends them to the child with more samples
 * (ties to the right: its tests' `test_missing_values_on_equal_nodes_no_missing`). When every split
 * of every tree follows that rule, the file shows no sign of missing values in training, and the
 * directions are left out of the IR, as for HistGradientBoosting (hist-gradient-boosting.ts).
 * Kept, they read as "trained with missing values" wherever the larger child changes sides between
 * nodes, and the reconstruction was skipped for that (a public GradientBoostingRegressor, scikit-learn
 * 1.5, fitted on a data set without a missing value).
 */
import type { Decoded } from './decode-helpers';

export function withoutLargerChildDirections(decoded: Decoded): Decoded {
  const trees = decoded.forest.trees;
  if (!trees.some((tree) => tree.defaultLeft)) return decoded;
  const followsRule = trees.every((tree) => {
    const { left, right, defaultLeft, distinctRows } = tree;
    if (!defaultLeft) return true;
    if (!distinctRows) return false;
    for (let n = 0; n < left.length; n++) {
      if (left[n] === -1) continue;
      if (defaultLeft[n] !== distinctRows[left[n]] > distinctRows[right[n]]) return false;
    }
    return true;
  });
  if (!followsRule) return decoded;
  return {
    forest: { ...decoded.forest, trees: trees.map(({ defaultLeft, ...tree }) => (void defaultLeft, tree)) },
    notes: [...decoded.notes, 'every split sends missing values to its larger child, as scikit-learn does for features without missing values in training: read as a training set without missing values (the directions are left out of the IR)'],
  };
}
