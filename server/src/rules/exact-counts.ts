/** `exact-counts`: the file stores per-node class counts, the raw material of reconstruction. */
import type { ModelRule } from './types';
import { plural } from './format';
import { lead } from './message';

export const exactCounts: ModelRule = {
  id: 'exact-counts',
  check({ forest }) {
    // Boosted models store hessian sums, not class counts (first-tree-exposes-counts).
    if (forest.privacy || forest.boosting) return [];
    const nodes = forest.trees.reduce((sum, tree) => sum + tree.left.length, 0);
    const distinct = forest.trees.every((tree) => tree.distinctRows !== undefined);
    // Regressors, and boosted classifiers read as row counts (one "class"), count rows, not classes.
    const regression = forest.task === 'regression' || forest.classes.length < 2;
    const counts = regression ? 'row counts' : 'per-class counts';
    const what = distinct ? `${counts} and distinct-row counts` : counts;
    const means = regression && forest.trees.every((tree) => tree.targetMean);
    const perLeaf = regression ? `how many training rows fall in its region${means ? ' (and their mean target)' : ''}` : 'how many training rows of each class fall in its region';
    const weighted = forest.training.weighted
      ? ' The counts are sample-weighted, which makes them harder, not impossible, to invert.'
      : '';
    return [
      {
        message: lead(
          `Leaves store exact training ${regression ? 'row counts' : 'counts per class'}: publish predictions, not counts.`,
          `The file stores exact ${what} for ${plural(nodes, 'node')} in ${plural(forest.trees.length, 'tree')}: ` +
            `each leaf says ${perLeaf}, the starting point of every ` +
            `reconstruction.${weighted}`,
        ),
        data: { nodes, trees: forest.trees.length, distinctRowCounts: distinct, weighted: forest.training.weighted },
      },
    ];
  },
};
