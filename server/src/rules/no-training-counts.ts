/**
 * `no-training-counts`: the trees store no per-node training statistics at all (an XGBoost text
 * dump written without `with_stats`), so no analysis here has anything to measure. Without this
 * note such a file ended with "no findings" and "0 error(s), 0 warning(s)", which reads as a clean
 * model in CI and the editor although nothing was measured (sweep 16: a public 100-tree dump).
 */
import type { Tree } from '../forest/schema';
import type { ModelRule } from './types';
import { lead } from './message';
import { plural } from '../util/wording';

export const noTrainingCounts: ModelRule = {
  id: 'no-training-counts',
  check({ forest }) {
    if (forest.privacy || forest.trees.length === 0 || forest.trees.some(storesStatistics)) return [];
    const dump = forest.boosting?.source === 'dump';
    const trees = plural(forest.trees.length, 'tree');
    const what = dump
      ? `The file is an XGBoost text dump written without with_stats=True: its ${trees} have their splits and leaf values but no node's cover or gain`
      : `The file's ${trees} have their splits and leaf values but no node's row counts, weights or hessian sums`;
    return [
      {
        message: lead(
          'Trees store no training counts: nothing was measured (not a clean bill).',
          `${what}, so no reconstruction or membership test applies. Each threshold still lies between ` +
            'training values of its feature, so the thresholds outline where the training data lies. Sharing the trees this way is the safer ' +
            "choice: a dump with statistics or the model's own file stores every node's cover, from which the training rows follow (first-tree-exposes-counts, script-dump-with-stats).",
        ),
        data: { trees: forest.trees.length, dump },
      },
    ];
  },
};

/** Whether the tree records anything about the rows that reached its nodes. */
function storesStatistics(tree: Tree): boolean {
  return (
    tree.classWeights.some((w) => w !== 0) ||
    tree.distinctRows !== undefined ||
    tree.boosting?.cover !== undefined ||
    tree.targetMean !== undefined
  );
}
