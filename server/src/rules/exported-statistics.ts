/**
 * `exported-statistics`: an XGBoost dump written with `with_stats=True` carries every node's cover
 * (hessian sum) and gain. Predictions need neither; the cover is what first-tree probing turns
 * into row and label counts.
 */
import { probeFirstTrees } from '../attacks/first-tree-probe';
import { probeCountsRows } from './first-tree-exposes-counts';
import type { ModelRule } from './types';
import { plural } from '../util/wording';
import { lead } from './message';

export const exportedStatistics: ModelRule = {
  id: 'exported-statistics',
  check({ forest, probe }) {
    if (forest.boosting?.source !== 'dump') return [];
    const withCover = forest.trees.filter((t) => t.boosting?.cover).length;
    const withGain = forest.trees.filter((t) => t.boosting?.gain).length;
    if (withCover === 0 && withGain === 0) return [];
    const nodes = forest.trees.reduce((sum, t) => sum + (t.boosting?.cover || t.boosting?.gain ? t.left.length : 0), 0);
    const what = [withCover > 0 ? 'cover (the sum of the training rows\' hessians)' : '', withGain > 0 ? 'gain' : ''].filter(Boolean).join(' and ');
    const counted = withCover > 0 && probeCountsRows(probe ?? probeFirstTrees(forest));
    return [
      {
        message: lead(
          withCover === 0
            ? 'The dump carries training statistics (gain): dump without with_stats.'
            : counted
              ? 'The dump carries cover, which counts training rows: dump without with_stats.'
              : "The dump carries cover, its rows' hessian sums: dump without with_stats.",
          `This dump carries ${what} for ${plural(nodes, 'node')} in ${plural(Math.max(withCover, withGain), 'tree')}. ` +
            `Predictions need neither. ${statisticWords(withCover > 0, counted)}; dump without with_stats=True to publish the trees alone.`,
        ),
        at: { tree: 0, node: 0 },
        data: { nodes, treesWithCover: withCover, treesWithGain: withGain },
      },
    ];
  },
};

/**
 * What the statistics give away: the first tree's row counts where the probe read them (its
 * finding says so), else the hessian sums, which the model file's objective would turn into counts
 * (a public dump read 'see first-tree-exposes-counts' beside no such finding); gain alone is the
 * loss each split saved on the training rows.
 */
function statisticWords(cover: boolean, counted: boolean): string {
  if (!cover) return 'Gain is the loss each split saved on the training rows';
  return counted
    ? 'The cover of the first tree counts the training rows in each node (see first-tree-exposes-counts)'
    : "The cover sums the training rows' hessians in each node: with the objective the model file states, the first tree's are row counts";
}
