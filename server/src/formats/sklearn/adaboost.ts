/**
 * AdaBoostClassifier and AdaBoostRegressor of decision trees (scikit-learn 1.2,
 * ensemble/_weight_boosting.py), read by the tree decoders and adjusted for how AdaBoost trains:
 *  - the classifier fits every tree on every row with the boosting weights (normalised to sum 1;
 *    tree 0's are 1/N each), so the stored counts are weights, not rows, while `n_node_samples`
 *    counts rows (every weight is positive, so every row reaches every tree): N is tree 0's root.
 *    Tree 0's class weights times N are its nodes' rows of each class, so the model is read as row
 *    counts with those classes (`countedClasses`, as gradient boosting); when they are not whole (a
 *    `sample_weight` given to fit) or a tree's root holds fewer rows (a weight that underflowed), as
 *    weighted counts (`weighted: true`);
 *  - the regressor fits every tree, unweighted, on a resample of N rows drawn with replacement with
 *    probabilities proportional to the weights (`random_state.choice`), passing the drawn copies as
 *    rows: both counts count draws, so no distinct-row count is kept, and the forest is one draw per
 *    tree (bootstrap) whose draws no stored seed replays (the trees' random_state is not one).
 */
import type { ForestInput, Tree } from '../../forest/schema';
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
    const counted = rows !== undefined ? asRowCounts(forest, rows) : undefined;
    if (counted) {
      notes.push('AdaBoost fits every tree on every row with its boosting weights; tree 0 weighs every row 1/N, so its class weights times N are each node\'s rows of each class exactly (the rows\' classes), and n_node_samples counts every tree\'s rows: every tree read as row counts');
      return { forest: counted, notes };
    }
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

/**
 * The classifier as row counts (every tree's n_node_samples) with tree 0's rows of each class, or
 * undefined when tree 0's weights times N are not whole rows or the trees do not all hold N rows.
 */
function asRowCounts(forest: ForestInput, rows: number): ForestInput | undefined {
  const K = forest.classes.length;
  const first = forest.trees[0];
  if (K < 2 || forest.trees.some((tree) => tree.distinctRows?.[0] !== rows)) return undefined;
  // Tree 0's weights sum to 1 at the root (1/N a row); when the tree decoder already divided them
  // out as class weights (a single tree's 1/N reads as class weights), they are counts summing to N.
  const root = first.classWeights.slice(0, K).reduce((a, b) => a + b, 0);
  const scale = Math.abs(root - 1) < 1e-9 ? rows : Math.abs(root - rows) < 1e-9 ? 1 : undefined;
  if (scale === undefined) return undefined;
  const perClass: number[][] = Array.from({ length: K }, () => new Array<number>(first.left.length));
  for (let node = 0; node < first.left.length; node++) {
    for (let k = 0; k < K; k++) {
      const count = first.classWeights[node * K + k] * scale;
      const whole = Math.round(count) || 0;
      if (Math.abs(count - whole) > 1e-6 * Math.max(1, rows)) return undefined;
      perClass[k][node] = whole;
    }
    if (perClass.reduce((sum, c) => sum + c[node], 0) !== first.distinctRows![node]) return undefined;
  }
  const trees: Tree[] = forest.trees.map((tree) => ({ ...tree, classWeights: Array.from(tree.distinctRows!), training: {} }) as Tree);
  return {
    ...forest,
    task: 'regression',
    classes: [],
    training: { bootstrap: false, weighted: false, rows },
    trees,
    countedClasses: { classes: forest.classes, trees: perClass.map((r) => ({ tree: 0, rows: r })) },
  };
}
