/**
 * scikit-learn 1.3+ stores, per split, where a missing value goes (`missing_go_to_left`), and so
 * does HistGradientBoosting. For a feature that had no missing values in the node it sends them to
 * the child with more samples (ties to the right: its tests'
 * `test_missing_values_on_equal_nodes_no_missing`). A feature shows that it had missing values in
 * training when one of its splits sends them to the smaller child, or splits on missing values
 * alone (HistGradientBoosting's threshold +inf, ../../forest/missing-split.ts).
 *
 * When no feature shows it, the directions are left out of the IR. When some do, only theirs are
 * kept: the others' directions, which follow the larger child and so change sides from node to
 * node, are read as one direction (left), so that they do not read as "trained with missing values
 * of that feature" and skip the reconstruction (a public GradientBoostingRegressor, scikit-learn
 * 1.5, fitted on a data set without a missing value; a HistGradientBoosting model whose data missed
 * one feature's values had every other feature read that way before stop 32; a public
 * AdaBoostRegressor, whose trees keep no distinct-row count, until stop 35).
 */
import { splitsOnMissingOnly } from '../../forest/missing-split';
import type { Decoded } from './decode-helpers';
import { maxOf } from '../../util/numbers';

export function withoutLargerChildDirections(decoded: Decoded): Decoded {
  const trees = decoded.forest.trees;
  if (!trees.some((tree) => tree.defaultLeft)) return decoded;
  // HistGradientBoosting takes missing values natively, and with values missing at random it often
  // sends them to the larger child at every split by its gain alone: a fixture with 30% of a
  // feature missing showed no split to the smaller child, and certified 18 boxes no true row lay in.
  // So its directions are kept as stated; where they differ from split to split, the reconstruction
  // reads one tree's leaves as boxes open to a missing value (first-tree-regions.ts).
  if (/^HistGradientBoosting/.test(decoded.forest.estimator)) return decoded;
  // XGBoost learns each split's default direction from the data (a model pickled with
  // scikit-learn's wrapper passes through here too): no larger-child rule to read it by.
  if (decoded.forest.library?.name === 'xgboost') return decoded;
  // Features by index: the model's, else as many as the splits use.
  let featureCount = decoded.forest.features?.length ?? 0;
  for (const tree of trees) featureCount = Math.max(featureCount, maxOf(tree.feature, -1) + 1);
  const featureName = (f: number) => decoded.forest.features?.[f]?.name ?? `x${f}`;
  const hadMissing = new Uint8Array(featureCount);
  const split = new Uint8Array(featureCount);
  // Trees without distinct rows (AdaBoost.R2's resampled trees) are compared by their nodes' weight,
  // which is their sample count when the tree was fitted without weights; with weights it may pick
  // another child, so then only a full match is read (as no missing values), never a mismatch.
  let byWeight = false;
  const classes = Math.max(1, decoded.forest.classes?.length ?? 0);
  for (const tree of trees) {
    const { left, right, feature, threshold, defaultLeft, distinctRows } = tree;
    if (!defaultLeft) continue;
    if (!distinctRows) byWeight = true;
    const size = (node: number) => {
      if (distinctRows) return distinctRows[node];
      let w = 0;
      for (let c = 0; c < classes; c++) w += tree.classWeights[node * classes + c] ?? 0;
      return w;
    };
    for (let n = 0; n < left.length; n++) {
      if (left[n] === -1) continue;
      split[feature[n]] = 1;
      // Children without a weight say nothing about which is larger: the directions stay as stated.
      if (!distinctRows && !(size(left[n]) + size(right[n]) > 0)) return decoded;
      const larger = size(left[n]) > size(right[n]);
      if (splitsOnMissingOnly(threshold[n]) || defaultLeft[n] !== larger) hadMissing[feature[n]] = 1;
    }
  }
  const missing = Array.from(hadMissing, (had, f) => (had ? [featureName(f)] : [])).flat();
  if (byWeight && missing.length > 0) return decoded;
  if (missing.length === 0) {
    return {
      forest: { ...decoded.forest, trees: trees.map(({ defaultLeft, ...tree }) => (void defaultLeft, tree)) },
      notes: [...decoded.notes, 'every split sends missing values to its larger child, as scikit-learn does for features without missing values in training: read as a training set without missing values (the directions are left out of the IR)'],
    };
  }
  // Every feature the trees split on shows missing values: every direction stays as stated.
  if (split.every((used, f) => !used || hadMissing[f])) return decoded;
  return {
    forest: {
      ...decoded.forest,
      trees: trees.map((tree) => (tree.defaultLeft ? { ...tree, defaultLeft: Array.from(tree.defaultLeft, (d, n) => (tree.left[n] === -1 || hadMissing[tree.feature[n]] ? d : true)) } : tree)),
    },
    notes: [
      ...decoded.notes,
      `missing values in training: ${missing.join(', ')} (a split sends them to its smaller child, or splits on them alone); the other features' splits send missing values to their larger child, as scikit-learn does without missing values, and are read as sending them left`,
    ],
  };
}
