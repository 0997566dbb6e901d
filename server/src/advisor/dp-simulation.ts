/**
 * Remedy "differential privacy at epsilon": the DRAFT-DP mechanism (Jagannathan et al., as the
 * DRAFT-DP paper attacks it and test/fixtures/dp/generate.py reproduces it) applied to THIS
 * model's counts: every per-leaf per-class count, zeros included, is released as
 * `count + int(Y)`, Y ~ Laplace(1 / eps_leaf), eps_leaf = epsilon / trees (the budget split evenly
 * over the trees, each filled with the full training set; a tree's leaves partition the rows, so
 * within a tree the budget composes in parallel), `int` truncating toward zero. Internal nodes
 * hold the sums of their children's released counts, as in the fixtures; the distinct-row counts
 * are dropped (the mechanism releases nothing else).
 *
 * What differs from the real mechanism: it grows RANDOM trees of fixed depth, chosen without
 * looking at the data; here the noise goes on this model's own, data-chosen leaves, which a DP
 * forest would not have. The simulation measures what the noise on the counts protects, not what
 * the data-dependent splits reveal on their own.
 */
import type { Forest, Tree } from '../forest/schema';
import { leavesOf, sumIntoInternalNodes } from './tree-sums';
import { standardLaplace, type Random } from './sampling';

/** Standard Laplace draws for every (leaf, class) count of every tree, in node then class order. */
export type NoiseDraws = Float64Array[];

export function drawNoise(forest: Forest, random: Random): NoiseDraws {
  const classes = forest.classes.length || 1;
  return forest.trees.map((tree) => Float64Array.from({ length: leavesOf(tree.left).length * classes }, () => standardLaplace(random)));
}

/** Per-count noise scale b = 1 / eps_leaf = trees / epsilon. */
export function noiseScale(epsilon: number, trees: number): number {
  return trees / epsilon;
}

/**
 * The model as the mechanism would release it at `epsilon`. The same `draws` at several epsilons
 * give noise that grows as epsilon shrinks (common random numbers, see sampling.ts).
 */
export function privatize(forest: Forest, epsilon: number, draws: NoiseDraws): Forest {
  const classes = forest.classes.length || 1;
  const scale = noiseScale(epsilon, forest.trees.length);
  const trees: Tree[] = forest.trees.map((tree, t) => {
    const released = Array.from(tree.classWeights);
    leavesOf(tree.left).forEach((leaf, l) => {
      for (let c = 0; c < classes; c++) {
        released[leaf * classes + c] = Math.round(tree.classWeights[leaf * classes + c]) + Math.trunc(scale * draws[t][l * classes + c]);
      }
    });
    sumIntoInternalNodes(tree.left, tree.right, released, classes);
    const out: Tree = { ...tree, classWeights: released, training: {} };
    delete out.distinctRows;
    return out;
  });
  return {
    ...forest,
    hyperParameters: { ...forest.hyperParameters, epsilon },
    // The mechanism fills every tree with all rows (no bootstrap) and states N.
    training: { ...forest.training, bootstrap: false, withoutReplacement: false },
    privacy: { mechanism: 'laplace-leaf-counts', epsilon, split: 'per-tree', rounding: 'truncate' },
    trees,
  };
}
