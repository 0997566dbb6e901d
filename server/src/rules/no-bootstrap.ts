/** `no-bootstrap`: each tree was grown on the whole training set, each row counted once. */
import type { ModelRule } from './types';
import { formatCount, formatNumber, plural } from '../util/wording';
import { heldOutSentence } from '../forest/held-out';
import { lead } from './message';

export const noBootstrap: ModelRule = {
  id: 'no-bootstrap',
  check({ forest }) {
    // Boosted trees also see every row, but they store no counts: first-tree-exposes-counts covers them.
    if (forest.training.bootstrap || forest.boosting) return [];
    const rows = forest.training.rows;
    const trees = forest.trees.length;
    const who = trees === 1 ? 'The tree was' : `All ${formatCount(trees)} trees were`;
    const seen = rows === undefined ? 'all training rows' : `every one of the ${plural(rows, 'training row')}`;
    const consequence =
      trees === 1
        ? forest.task !== 'classification'
          ? ` Its leaves partition the training set: each leaf says how many training rows fall in its box${forest.trees[0].targetMean ? ' and their mean target' : ''}.`
          : ` Its leaves partition the training set: each leaf says how many training rows with each label fall in its box.`
        : ` Models like this usually reveal the whole training set: every leaf count is an exact constraint on the same rows.`;
    const noise = forest.privacy
      ? ` Its leaf counts are noised (epsilon ${formatNumber(forest.privacy.epsilon)}), which limits but does not remove the leak.`
      : consequence;
    const fix = remedy(forest.estimator, rows);
    const summary =
      trees === 1
        ? 'One tree counts every training row in its leaves: train a bagged forest.'
        : forest.privacy
          ? `Trees saw every training row once (noised counts): ${fix.advice}.`
          : `Trees saw every training row once, counts rebuild it: ${fix.advice}.`;
    return [
      {
        message: lead(summary, `${who} trained on ${seen}, each exactly once (${fix.because}).${heldOutSentence(forest)}${noise}`),
        data: { trees, rows: rows ?? null },
      },
    ];
  },
};

/**
 * What to change, by the estimator: `bootstrap=True` exists on forests only. scikit-learn's
 * gradient boosting draws rows per stage with `subsample` (each stage's draw is then not in the
 * file); the histogram models and AdaBoost draw no rows at all, so larger leaves are the lever.
 */
function remedy(estimator: string, rows: number | undefined): { advice: string; because: string } {
  // IsolationForest draws max_samples rows per tree (256 by default), every row when N is smaller.
  if (estimator === 'IsolationForest') return { advice: 'lower max_samples', because: `max_samples covers all ${rows ?? 'N'} rows: every tree drew all of them` };
  if (/^HistGradientBoosting/.test(estimator)) return { advice: 'raise min_samples_leaf', because: 'histogram gradient boosting draws no row samples: larger leaves are the lever' };
  if (/^GradientBoosting/.test(estimator)) return { advice: 'set subsample below 1', because: 'subsample=1.0: every stage grew on all rows' };
  if (/^AdaBoost/.test(estimator)) return { advice: 'raise min_samples_leaf', because: 'AdaBoost reweights rows and draws none: larger leaves, or a bagged forest, are the levers' };
  return { advice: 'train with bootstrap=True', because: 'no bootstrap' };
}
