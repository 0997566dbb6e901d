/**
 * Random small training sets of binary rows and forests grown on them without bootstrap, for
 * property tests of the reconstruction engine against brute force. The trees are not fitted by
 * any criterion (splits are random), but every node stores the exact per-class counts of the rows
 * that reach it, which is all the engine relies on. Deterministic for a seed.
 */
import type { Forest, Tree } from '../../server/src/forest/schema';
import type { CategoricalGroup } from '../../server/src/attacks/reconstruction/types';
import type { TrainingRow } from './reconstruction-truth';
import { seededRandom } from '../../server/src/evaluate/seeded-random';

export { seededRandom };

export interface RandomSetup {
  features: number;
  rows: number;
  classes: number;
  trees: number;
  maxDepth: number;
  groups: CategoricalGroup[];
}

/** Rows respecting the groups; values skewed so that some rows repeat, as in real data. */
export function randomRows(setup: RandomSetup, random: () => number): TrainingRow[] {
  const grouped = new Set(setup.groups.flatMap((g) => g.features));
  return Array.from({ length: setup.rows }, () => {
    const values = Array.from({ length: setup.features }, (_, f) => (grouped.has(f) ? 0 : random() < 0.3 ? 1 : 0));
    for (const group of setup.groups) {
      const choices = group.features.length + (group.kind === 'at-most-one' ? 1 : 0);
      const pick = Math.floor(random() * choices);
      if (pick < group.features.length) values[group.features[pick]] = 1;
    }
    return { values, label: Math.floor(random() * setup.classes) };
  });
}

/**
 * A tree grown down to `setup.maxDepth` by a split drawn uniformly from `candidates(subset)` at each
 * node (feature, threshold; rows with `value <= threshold` go left), with exact class counts.
 */
export function growRandomTree(
  rows: readonly TrainingRow[],
  setup: { classes: number; maxDepth: number },
  random: () => number,
  candidates: (subset: readonly TrainingRow[]) => [number, number][],
): Tree {
  const left: number[] = [];
  const right: number[] = [];
  const feature: number[] = [];
  const threshold: number[] = [];
  const classWeights: number[] = [];
  const grow = (subset: readonly TrainingRow[], depth: number): number => {
    const id = left.length;
    left.push(-1);
    right.push(-1);
    feature.push(-2);
    threshold.push(-2);
    for (let c = 0; c < setup.classes; c++) classWeights.push(subset.filter((r) => r.label === c).length);
    if (depth >= setup.maxDepth || subset.length < 2) return id;
    const splits = candidates(subset);
    if (splits.length === 0) return id;
    const [f, t] = splits[Math.floor(random() * splits.length)];
    feature[id] = f;
    threshold[id] = t;
    left[id] = grow(subset.filter((r) => r.values[f] <= t), depth + 1);
    right[id] = grow(subset.filter((r) => r.values[f] > t), depth + 1);
    return id;
  };
  grow(rows, 0);
  return { left, right, feature, threshold, classWeights, training: {} };
}

/** A tree with random splits on binary features that separate the node's rows, down to `maxDepth`. */
export function randomTree(rows: readonly TrainingRow[], setup: RandomSetup, random: () => number): Tree {
  return growRandomTree(rows, setup, random, (subset) =>
    Array.from({ length: setup.features }, (_, f) => f)
      .filter((f) => {
        const ones = subset.filter((r) => r.values[f] === 1).length;
        return ones > 0 && ones < subset.length;
      })
      .map((f): [number, number] => [f, 0.5]),
  );
}

/** A classification forest of `trees` over `setup.features` unnamed features and `setup.classes` classes, no bootstrap. */
export function syntheticForest(setup: { rows: number; features: number; classes: number }, trees: Tree[]): Forest {
  return {
    format: 'model-privacy-lint/forest',
    formatVersion: 1,
    library: { name: 'test' },
    estimator: 'RandomForestClassifier',
    task: 'classification',
    classes: Array.from({ length: setup.classes }, (_, c) => c),
    features: Array.from({ length: setup.features }, (_, f) => ({ name: `x${f}`, kind: 'unknown' as const })),
    splitRule: 'less-or-equal',
    hyperParameters: {},
    training: { rows: setup.rows, bootstrap: false, weighted: false },
    trees,
  };
}

export function randomForest(setup: RandomSetup, seed: number): { forest: Forest; rows: TrainingRow[] } {
  const random = seededRandom(seed);
  const rows = randomRows(setup, random);
  const trees = Array.from({ length: setup.trees }, () => randomTree(rows, setup, random));
  const forest = syntheticForest(setup, trees);
  return { forest, rows };
}
