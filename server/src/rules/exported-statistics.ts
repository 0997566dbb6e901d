/**
 * `exported-statistics`: an XGBoost dump written with `with_stats=True` carries every node's cover
 * (hessian sum) and gain. Predictions need neither; the cover is what first-tree probing turns
 * into row and label counts.
 */
import type { ModelRule } from './types';
import { plural } from './format';
import { lead } from './message';

export const exportedStatistics: ModelRule = {
  id: 'exported-statistics',
  check({ forest }) {
    if (forest.boosting?.source !== 'dump') return [];
    const withCover = forest.trees.filter((t) => t.boosting?.cover).length;
    const withGain = forest.trees.filter((t) => t.boosting?.gain).length;
    if (withCover === 0 && withGain === 0) return [];
    const nodes = forest.trees.reduce((sum, t) => sum + (t.boosting?.cover || t.boosting?.gain ? t.left.length : 0), 0);
    const what = [withCover > 0 ? 'cover (the sum of the training rows\' hessians)' : '', withGain > 0 ? 'gain' : ''].filter(Boolean).join(' and ');
    return [
      {
        message: lead(
          withCover > 0
            ? 'The dump carries cover, which counts training rows: dump without with_stats.'
            : 'The dump carries training statistics (gain): dump without with_stats.',
          `This dump carries ${what} for ${plural(nodes, 'node')} in ${plural(Math.max(withCover, withGain), 'tree')}. ` +
            `Predictions need neither. The cover of the first tree counts the training rows in each node` +
            `${withCover > 0 ? ' (see first-tree-exposes-counts)' : ''}; dump without with_stats=True to publish the trees alone.`,
        ),
        at: { tree: 0, node: 0 },
        data: { nodes, treesWithCover: withCover, treesWithGain: withGain },
      },
    ];
  },
};
