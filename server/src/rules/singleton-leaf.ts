/**
 * `singleton-leaf`: leaves reached by exactly one distinct training row. Such a leaf states that one
 * person with these feature values, and this label, is in the training set.
 */
import type { Forest } from '../forest/schema';
import { hasNoLabels } from '../forest/task';
import type { ModelRule } from './types';
import { classCount, forEachLeaf, nodeClassWeights, nodeWeight, pathBox, type FeatureInterval } from '../forest/structure';
import { formatCount, percent, plural } from '../util/wording';
import { formatClass, nodeName } from './format';
import { conditionsText } from './conditions';
import { lead } from './message';

interface Singleton {
  tree: number;
  leaf: number;
  box: FeatureInterval[];
  classIndex: number;
}

export const singletonLeaf: ModelRule = {
  id: 'singleton-leaf',
  check({ forest, categories }) {
    // Noised counts (differential privacy) do not say that a leaf holds one row.
    if (forest.privacy) return [];
    // Boosted models store no counts (their classWeights are zeros); first-tree-exposes-counts reports their singletons.
    if (forest.boosting) return [];
    const k = classCount(forest);
    let leaves = 0;
    let singletons = 0;
    let worst: Singleton | undefined;
    forest.trees.forEach((tree, t) => {
      forEachLeaf(tree, (leaf, path) => {
        leaves++;
        const weight = nodeWeight(tree, leaf, k);
        // Distinct rows when stored; otherwise only a weight of exactly one proves a single row.
        const distinct = tree.distinctRows?.[leaf] ?? (Math.abs(weight - 1) < 1e-9 ? 1 : undefined);
        if (distinct !== 1) return;
        singletons++;
        // The most revealing singleton is the one whose path pins down the most features.
        const box = pathBox(path);
        if (!worst || box.length > worst.box.length) {
          const counts = nodeClassWeights(tree, leaf, k);
          worst = { tree: t, leaf, box, classIndex: counts.indexOf(Math.max(...counts)) };
        }
      });
    });
    if (!worst) return [];
    const conditions = conditionsText(forest, worst.box, categories);
    const label = forest.task === 'classification' ? ` of class ${formatClass(forest, worst.classIndex)}` : '';
    const fix = remedy(forest);
    const summary =
      singletons === 1
        ? `A leaf describes a single training row: ${fix.advice}.`
        : `${formatCount(singletons)} leaves describe a single training row each: ${fix.advice}.`;
    return [
      {
        message: lead(
          summary,
          `${formatCount(singletons)} of ${plural(leaves, 'leaf', 'leaves')} (${percent(singletons, leaves)}) ` +
            `${singletons === 1 ? 'holds' : 'hold'} exactly one training row. The most specific, ${nodeName(forest, worst.tree, worst.leaf)}, pins one row${label} ` +
            `to: ${conditions || 'the whole feature space'}.${fix.because}`,
        ),
        at: { tree: worst.tree, node: worst.leaf },
        data: {
          singletonLeaves: singletons,
          leaves,
          worst: { tree: worst.tree, node: worst.leaf, conditions: worst.box.length },
        },
      },
    ];
  },
};

/**
 * What to change. Supervised trees stop splitting at `min_samples_leaf`; isolation trees have no
 * such parameter (they split until a row stands alone, which is how they score outliers, and their
 * scores read every leaf's count), so the file itself is the thing to protect.
 */
function remedy(forest: Forest): { advice: string; because: string } {
  if (hasNoLabels(forest)) {
    return {
      advice: 'keep this model private',
      because:
        ' Isolation trees split until a row stands alone, so these rows are often the outliers themselves; the scores read every leaf\'s count, so the counts cannot be removed from a working model.',
    };
  }
  return { advice: 'raise min_samples_leaf', because: '' };
}
