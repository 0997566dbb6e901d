/** Small hand-built forests in the IR, for rule tests that must not depend on a reader. */
import type { ForestInput, Tree } from '../../server/src/forest/schema';

/**
 * A stump on feature 0 at `threshold`, with per-class counts for its two leaves.
 * Node 0 is the root, 1 the left leaf, 2 the right leaf.
 */
export function stump(threshold: number, leftCounts: number[], rightCounts: number[], extra: Partial<Tree> = {}): Tree {
  const root = leftCounts.map((c, i) => c + rightCounts[i]);
  return {
    left: [1, -1, -1],
    right: [2, -1, -1],
    feature: [0, -2, -2],
    threshold: [threshold, -2, -2],
    classWeights: [...root, ...leftCounts, ...rightCounts],
    training: {},
    ...extra,
  };
}

/** A depth-2 tree: root on feature 0, its left child on feature 1; leaves 2, 3 and 4. */
export function twoLevel(counts: [number[], number[], number[]]): Tree {
  const [a, b, c] = counts;
  const left = a.map((v, i) => v + b[i]);
  const root = left.map((v, i) => v + c[i]);
  return {
    left: [1, 2, -1, -1, -1],
    right: [4, 3, -1, -1, -1],
    feature: [0, 1, -2, -2, -2],
    threshold: [30.5, 2.5, -2, -2, -2],
    classWeights: [...root, ...left, ...a, ...b, ...c],
    training: {},
  };
}

export function forest(trees: Tree[], overrides: Partial<ForestInput> = {}): ForestInput {
  return {
    library: { name: 'test' },
    estimator: 'RandomForestClassifier',
    classes: [0, 1],
    features: [{ name: 'age' }, { name: 'priors_count' }],
    training: { bootstrap: false, rows: 10 },
    trees,
    ...overrides,
  };
}
