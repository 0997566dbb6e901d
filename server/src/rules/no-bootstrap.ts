/** `no-bootstrap`: each tree was grown on the whole training set, each row counted once. */
import type { ModelRule } from './types';
import { formatNumber, plural } from './format';
import { lead } from './message';

export const noBootstrap: ModelRule = {
  id: 'no-bootstrap',
  check({ forest }) {
    // Boosted trees also see every row, but they store no counts: first-tree-exposes-counts covers them.
    if (forest.training.bootstrap || forest.boosting) return [];
    const rows = forest.training.rows;
    const trees = forest.trees.length;
    const who = trees === 1 ? 'The tree was' : `All ${trees} trees were`;
    const seen = rows === undefined ? 'all training rows' : `every one of the ${plural(rows, 'training row')}`;
    const consequence =
      trees === 1
        ? forest.task === 'regression'
          ? ` Its leaves partition the training set: each leaf says how many people fall in its box${forest.trees[0].targetMean ? ' and their mean target' : ''}.`
          : ` Its leaves partition the training set: each leaf says how many people with each label fall in its box.`
        : ` Models like this usually reveal the whole training set: every leaf count is an exact constraint on the same rows.`;
    const noise = forest.privacy
      ? ` Its leaf counts are noised (epsilon ${formatNumber(forest.privacy.epsilon)}), which limits but does not remove the leak.`
      : consequence;
    const summary =
      trees === 1
        ? 'One tree counts every training row in its leaves: train a bagged forest.'
        : forest.privacy
          ? 'Trees saw every training row once (noised counts): train with bootstrap=True.'
          : 'Trees saw every training row once, counts rebuild it: train with bootstrap=True.';
    return [
      {
        message: lead(summary, `${who} trained on ${seen}, each exactly once (no bootstrap).${noise}`),
        data: { trees, rows: rows ?? null },
      },
    ];
  },
};
