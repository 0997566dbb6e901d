/** `exact-counts`: the file stores per-node class counts, the raw material of reconstruction. */
import { probeFirstTrees, type FirstTreeProbe } from '../attacks/first-tree-probe';
import type { Forest } from '../forest/schema';
import type { FindingDraft, ModelRule } from './types';
import { formatCount, plural } from '../util/wording';
import { lead } from './message';
import { hasNoLabels } from '../forest/task';

export const exactCounts: ModelRule = {
  id: 'exact-counts',
  check({ forest, probe: computed }) {
    if (forest.privacy) return [];
    // Boosted models store hessian sums, not class counts: first-tree-exposes-counts reads them
    // when it can; when it cannot (sample weights, an objective whose hessian depends on the
    // label), the sums are still training statistics, and the file is not "clean".
    if (forest.boosting) return boostedSums(forest, computed ?? probeFirstTrees(forest));
    const nodes = forest.trees.reduce((sum, tree) => sum + tree.left.length, 0);
    const distinct = forest.trees.every((tree) => tree.distinctRows !== undefined);
    // Regressors, and boosted classifiers read as row counts (one "class"), count rows, not classes.
    const regression = forest.task !== 'classification' || forest.classes.length < 2;
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
          `Leaves store exact training ${regression ? 'row counts' : 'counts per class'}: ${hasNoLabels(forest) ? 'keep this model private' : 'publish predictions, not counts'}.`,
          `The file stores exact ${what} for ${plural(nodes, 'node')} in ${plural(forest.trees.length, 'tree')}: ` +
            `each leaf says ${perLeaf}, the starting point of every ` +
            `reconstruction.${weighted}${hasNoLabels(forest) ? " An isolation forest's scores read these counts, so they cannot be stripped from a working model." : ''}`,
        ),
        data: { nodes, trees: forest.trees.length, distinctRowCounts: distinct, weighted: forest.training.weighted },
      },
    ];
  },
};

/** A boosted model whose hessian sums the first-tree probe could not read as rows: what is stored, and why it is not counted. */
function boostedSums(forest: Forest, probe: FirstTreeProbe): FindingDraft[] {
  if (probe.status !== 'not-applicable') return [];
  const withCover = forest.trees.filter((tree) => tree.boosting?.cover);
  if (withCover.length === 0) return [];
  const nodes = withCover.reduce((sum, tree) => sum + tree.left.length, 0);
  const root = withCover[0].boosting!.cover![0];
  return [
    {
      message: lead(
        "Nodes store the training rows' hessian sums: publish predictions, not the model.",
        `The file stores the hessian sum (cover) of the training rows that reached each of ${plural(nodes, 'node')} in ${plural(withCover.length, 'tree')} ` +
          `(the first tree's root: ${root >= 1000 ? formatCount(root) : Number(root.toPrecision(6))}). This tool could not read them as row counts (${probe.reason ?? 'no probe applies'}), ` +
          'so nothing was measured from them; they are training statistics all the same, and other settings make them exact row counts (first-tree-exposes-counts).',
      ),
      data: { nodes, trees: withCover.length, distinctRowCounts: false, weighted: forest.training.weighted, boostedSums: true },
    },
  ];
}
