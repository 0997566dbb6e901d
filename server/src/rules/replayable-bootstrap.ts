/** `replayable-bootstrap`: bagging is on, but the stored per-tree seeds replay every sample. */
import type { ModelRule } from './types';
import { plural } from '../util/wording';
import { lead } from './message';

export const replayableBootstrap: ModelRule = {
  id: 'replayable-bootstrap',
  check({ forest, replay }) {
    if (!forest.training.bootstrap) return [];
    const trees = forest.trees.length;
    const seeded = forest.trees.filter((t) => t.training.seed !== undefined).length;
    const samplerSeeds = forest.training.samplerSeeds;
    if (seeded === 0 && samplerSeeds !== undefined) {
      // BaggingClassifier: its _seeds regenerate every tree's sample in scikit-learn itself.
      return [
        {
          message: lead(
            "Stored seeds regenerate each tree's sample: strip _seeds before saving.",
            `The ensemble stores ${plural(samplerSeeds, 'seed')} (_seeds) from which scikit-learn regenerates the rows each of the ${plural(trees, 'tree')} was fitted on: ` +
              'whoever loads the file reads them from estimators_samples_, so the sampling gives no protection. This tool does not replay them itself, so its reconstruction does not use them yet.',
          ),
          data: { trees, samplerSeeds, verified: false },
        },
      ];
    }
    if (seeded === 0) return [];
    switch (replay.status) {
      case 'replayed': {
        const rows =
          replay.rowsAtMost === undefined
            ? plural(replay.rows, 'training row')
            : `training rows (N is not stored; ${replay.candidates} values between ${replay.rows} and ${replay.rowsAtMost} fit every tree, and an attacker can try each)`;
        return [
          {
            message: lead(
              "Stored seeds replay each tree's bootstrap sample: strip them before saving.",
              `Bootstrap is on, but each of the ${plural(trees, 'tree')} stores the seed that replays its sample: ` +
                `how many times each of the ${rows} was drawn into each tree is known ` +
                `(verified on ${plural(replay.treesChecked, 'tree')}), so bagging gives no protection.`,
            ),
            data: { trees, rows: replay.rows, rowsAtMost: replay.rowsAtMost ?? replay.rows, drawnPerTree: replay.drawn, verifiedTrees: replay.treesChecked },
          },
        ];
      }
      case 'mismatch':
        return [
          {
            message: lead(
              'Trees store bootstrap seeds (replay not confirmed): strip them before saving.',
              `Bootstrap is on and ${plural(seeded, 'tree')} store a seed, but replaying tree ${replay.tree} gave ` +
                `${replay.replayed} distinct rows where the file says ${replay.expected}; the samples may come from ` +
                `another random generator. Treat the seeds as a risk all the same.`,
            ),
            at: { tree: replay.tree, node: 0 },
            data: { trees, seededTrees: seeded, verified: false },
          },
        ];
      default:
        return [
          {
            message: lead(
              'Trees store bootstrap seeds (replay not confirmed): strip them before saving.',
              `Bootstrap is on and ${plural(seeded, 'tree')} store the seed of their sample; the number of ` +
                `training rows could not be found to confirm the replay. Treat the seeds as a risk all the same.`,
            ),
            data: { trees, seededTrees: seeded, verified: false },
          },
        ];
    }
  },
};
