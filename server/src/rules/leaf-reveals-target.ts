/**
 * `leaf-reveals-target`: regression leaves reached by exactly one distinct training row. A
 * regression tree predicts the mean target of a leaf's rows, so such a leaf states that row's
 * target exactly (with bootstrap too: the mean of copies of one row is that row's target), next to
 * the conditions on its path: one person's feature ranges and their exact outcome.
 */
import type { ModelRule } from './types';
import { forEachLeaf, pathBox, type FeatureInterval } from '../forest/structure';
import { formatCount, formatNumber, percent, plural } from '../util/wording';
import { nodeName } from './format';
import { conditionsText } from './conditions';
import { lead } from './message';

interface Revealing {
  tree: number;
  leaf: number;
  box: FeatureInterval[];
  target: number;
}

export const leafRevealsTarget: ModelRule = {
  id: 'leaf-reveals-target',
  check({ forest, categories }) {
    // Noised models state no exact row; only trees whose leaves store mean targets say anything.
    if (forest.privacy || forest.task !== 'regression') return [];
    let leaves = 0;
    let revealing = 0;
    let worst: Revealing | undefined;
    forest.trees.forEach((tree, t) => {
      // A leaf of one row: its mean, or median (criterion='absolute_error'), is that row's target.
      const means = tree.targetMean ?? tree.targetMedian;
      if (!means) return;
      forEachLeaf(tree, (leaf, path) => {
        leaves++;
        // Distinct rows when stored; otherwise only an unweighted count of exactly one proves one row.
        const distinct = tree.distinctRows?.[leaf] ?? (!forest.training.weighted && Math.abs(tree.classWeights[leaf] - 1) < 1e-9 ? 1 : undefined);
        if (distinct !== 1) return;
        revealing++;
        // The example shown is the one whose path pins down the most features.
        const box = pathBox(path);
        if (!worst || box.length > worst.box.length) worst = { tree: t, leaf, box, target: means[leaf] };
      });
    });
    if (!worst) return [];
    const conditions = conditionsText(forest, worst.box, categories);
    return [
      {
        message: lead(
          revealing === 1
            ? "A leaf states one training row's exact target: raise min_samples_leaf."
            : `${formatCount(revealing)} leaves state one training row's exact target: raise min_samples_leaf.`,
          `${formatCount(revealing)} of ${plural(leaves, 'leaf', 'leaves')} (${percent(revealing, leaves)}) ` +
            `${revealing === 1 ? 'holds one training row and states' : 'hold one training row each and state'} its target exactly: ` +
            `e.g. ${nodeName(forest, worst.tree, worst.leaf)}: target ${formatNumber(worst.target)}${forest.targetTransform ? ` (as transformed by ${forest.targetTransform} before fitting, which the TransformedTargetRegressor inverts)` : ''} for the row with ${conditions || 'any feature values'}.` +
            (forest.outputs !== undefined && forest.outputs > 1 ? ` Each such leaf states all ${forest.outputs} of the row's targets; the first is shown.` : ''),
        ),
        at: { tree: worst.tree, node: worst.leaf },
        data: {
          revealingLeaves: revealing,
          leaves,
          worst: { tree: worst.tree, node: worst.leaf, target: worst.target, conditions: worst.box.length },
        },
      },
    ];
  },
};
