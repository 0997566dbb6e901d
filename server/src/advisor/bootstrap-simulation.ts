/**
 * Remedy "bootstrap, seeds stripped": what the model would store had each tree been grown on a
 * bootstrap sample whose draws nobody can replay, simulated on THIS model's trees.
 *
 * A tree without bootstrap holds every training row once, each in exactly one (leaf, class) cell,
 * `count` rows per cell, N in all. A bootstrap sample draws N row indices uniformly with
 * replacement, so each draw lands in a cell with probability count / N independently of the
 * others: the draws per cell are Multinomial(N, count / N). We draw the N indices themselves
 * (rows numbered cell by cell), which gives that multinomial and, in the same pass, the distinct
 * rows per leaf scikit-learn also stores (`n_node_samples`, ~63% of N in all).
 *
 * A simulation: a model retrained with bootstrap would also choose other splits on its samples;
 * the trees here keep this model's structure. The seeds are left out, so the engine has to use
 * the bootstrap-likelihood estimate (a model that already bootstraps just loses its seeds).
 */
import type { Forest, Tree } from '../forest/schema';
import { uniformIndex, type Random } from './sampling';
import { leavesOf, sumIntoInternalNodes } from './tree-sums';

export type Simulation = { ok: true; forest: Forest; description: string } | { ok: false; reason: string };

export function simulateBootstrapWithoutSeeds(forest: Forest, random: Random): Simulation {
  if (forest.training.bootstrap) {
    const seeded = forest.trees.some((tree) => tree.training.seed !== undefined);
    return {
      ok: true,
      forest: { ...forest, trees: forest.trees.map(withoutSeed) },
      description: seeded
        ? 'this model\'s bootstrap counts with the stored seeds removed (what random_state=None or dropping the seeds would store)'
        : 'the model already bootstraps and stores no seeds that replay its draws: this is the model as it is',
    };
  }
  if (forest.training.weighted) return { ok: false, reason: 'the counts are sample-weighted, so they cannot be resampled as rows' };
  const classes = forest.classes.length || 1;
  const trees: Tree[] = [];
  let rows: number | undefined = forest.training.rows;
  for (const tree of forest.trees) {
    const leaves = leavesOf(tree.left);
    const counts = leaves.flatMap((leaf) => tree.classWeights.slice(leaf * classes, leaf * classes + classes));
    if (counts.some((count) => !Number.isInteger(count) || count < 0)) return { ok: false, reason: 'the leaf counts are not whole numbers of rows' };
    const n = counts.reduce((a, b) => a + b, 0);
    rows ??= n;
    if (n !== rows) return { ok: false, reason: `a tree holds ${n} rows, not the N = ${rows} of the others (the model does not hold every row once per tree)` };
    trees.push(resampleTree(tree, leaves, counts, classes, n, random));
  }
  return {
    ok: true,
    forest: {
      ...forest,
      hyperParameters: { ...forest.hyperParameters, bootstrap: true },
      training: { ...forest.training, bootstrap: true, withoutReplacement: false, ...(rows !== undefined ? { rows, bootstrapSize: rows } : {}) },
      trees,
    },
    description: 'simulation: each tree\'s leaf counts replaced by a bootstrap sample of its rows (N draws with replacement: per (leaf, class) a multinomial with p = count / N), no seeds stored; the trees keep this model\'s splits',
  };
}

function withoutSeed(tree: Tree): Tree {
  const training = { ...tree.training };
  delete training.seed;
  return { ...tree, training };
}

/** One bootstrap sample of a tree's N rows: draws and distinct rows per leaf and class. */
function resampleTree(tree: Tree, leaves: readonly number[], counts: readonly number[], classes: number, n: number, random: Random): Tree {
  // Row index -> cell (leaf position * classes + class), rows numbered cell by cell.
  const cellOfRow = new Int32Array(n);
  let next = 0;
  counts.forEach((count, cell) => {
    cellOfRow.fill(cell, next, next + count);
    next += count;
  });
  const draws = new Int32Array(counts.length);
  const distinct = new Int32Array(leaves.length);
  const seen = new Uint8Array(n);
  for (let d = 0; d < n; d++) {
    const row = uniformIndex(random, n);
    draws[cellOfRow[row]]++;
    if (!seen[row]) {
      seen[row] = 1;
      distinct[Math.floor(cellOfRow[row] / classes)]++;
    }
  }
  const classWeights = new Array<number>(tree.left.length * classes).fill(0);
  const distinctRows = new Array<number>(tree.left.length).fill(0);
  leaves.forEach((leaf, l) => {
    for (let c = 0; c < classes; c++) classWeights[leaf * classes + c] = draws[l * classes + c];
    distinctRows[leaf] = distinct[l];
  });
  sumIntoInternalNodes(tree.left, tree.right, classWeights, classes);
  sumIntoInternalNodes(tree.left, tree.right, distinctRows, 1);
  return { ...withoutSeed(tree), classWeights, distinctRows };
}
