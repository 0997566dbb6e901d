/**
 * The cell enumeration against brute force: on random forests over few binary features, every
 * assignment of all features (that the declared groups allow) is routed down every tree; the
 * enumeration (after merging identical leaf signatures) must find exactly the signatures that
 * brute force finds with at least one class no tree rules out, with exactly those classes, and
 * must call a feature determined exactly when every assignment with that signature agrees on it.
 * Plus hand-built cases for pruning by class, undetermined features and group forcing.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createCellEnumerator } from '../../server/src/attacks/reconstruction/cells';
import { UNSET } from '../../server/src/attacks/reconstruction/groups';
import { buildLeafTable, type LeafTable } from '../../server/src/attacks/reconstruction/leaves';
import { mergeBySignature, type MergedCell } from '../../server/src/attacks/reconstruction/merge';
import type { CategoricalGroup } from '../../server/src/attacks/reconstruction/types';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest, Tree } from '../../server/src/forest/schema';
import { randomForest, type RandomSetup } from '../support/random-forests';
import { leafOf } from '../support/reconstruction-truth';

function cellsOf(forest: Forest, groups: CategoricalGroup[] = []): { table: LeafTable; cells: MergedCell[]; searchNodes: number } {
  const prepared = buildLeafTable(forest);
  assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
  const created = createCellEnumerator(prepared.table, groups);
  assert.ok(created.ok);
  while (!created.enumerator.step(1000));
  return { table: prepared.table, cells: mergeBySignature(created.enumerator.cells), searchNodes: created.enumerator.searchNodes };
}

function satisfiesGroups(values: number[], groups: CategoricalGroup[]): boolean {
  return groups.every((g) => {
    const ones = g.features.filter((f) => values[f] === 1).length;
    return g.kind === 'one-hot' ? ones === 1 : ones <= 1;
  });
}

interface BruteCell {
  classes: number[];
  /** Per feature: the set of values seen among assignments with this signature. */
  seen: Set<number>[];
}

/** Every full assignment, by signature (leaf node ids joined), keeping signatures with a possible class. */
function bruteForce(forest: Forest, groups: CategoricalGroup[]): Map<string, BruteCell> {
  const m = forest.features.length;
  const classes = forest.classes.length;
  const found = new Map<string, BruteCell>();
  for (let code = 0; code < 1 << m; code++) {
    const values = Array.from({ length: m }, (_, f) => (code >> f) & 1);
    if (!satisfiesGroups(values, groups)) continue;
    const leaves = forest.trees.map((tree) => leafOf(tree, values));
    const possible = Array.from({ length: classes }, (_, c) => c).filter((c) =>
      leaves.every((leaf, t) => forest.trees[t].classWeights[leaf * classes + c] > 0),
    );
    if (possible.length === 0) continue;
    const key = leaves.join(',');
    const cell = found.get(key) ?? { classes: possible, seen: Array.from({ length: m }, () => new Set<number>()) };
    values.forEach((v, f) => cell.seen[f].add(v));
    found.set(key, cell);
  }
  return found;
}

function assertMatchesBruteForce(forest: Forest, groups: CategoricalGroup[], label: string): void {
  const { table, cells } = cellsOf(forest, groups);
  const brute = bruteForce(forest, groups);
  const enumerated = new Map(cells.map((cell) => [Array.from(cell.leaves, (l, t) => table.trees[t].nodes[l]).join(','), cell]));
  assert.deepEqual([...enumerated.keys()].sort(), [...brute.keys()].sort(), `${label}: signatures`);
  for (const [key, expected] of brute) {
    const cell = enumerated.get(key)!;
    const classes = Array.from(cell.classes.keys()).filter((c) => cell.classes[c]);
    assert.deepEqual(classes, expected.classes, `${label}: classes of ${key}`);
    expected.seen.forEach((values, f) => {
      const determined = values.size === 1 ? [...values][0] : UNSET;
      assert.equal(cell.values[f], determined, `${label}: feature ${f} of ${key} (brute force saw ${[...values]})`);
    });
  }
}

describe('cell enumeration', () => {
  const setups: (RandomSetup & { name: string })[] = [
    { name: 'no groups, deep', features: 8, rows: 25, classes: 2, trees: 4, maxDepth: 5, groups: [] },
    { name: 'no groups, shallow, 3 classes', features: 8, rows: 30, classes: 3, trees: 6, maxDepth: 2, groups: [] },
    {
      name: 'one-hot and at-most-one groups',
      features: 9,
      rows: 25,
      classes: 2,
      trees: 5,
      maxDepth: 4,
      groups: [
        { kind: 'one-hot', features: [0, 1, 2] },
        { kind: 'at-most-one', features: [5, 6, 7] },
      ],
    },
    { name: 'one tree', features: 7, rows: 15, classes: 2, trees: 1, maxDepth: 3, groups: [{ kind: 'one-hot', features: [1, 2, 3, 4] }] },
  ];
  for (const setup of setups) {
    it(`finds exactly the cells brute force finds (${setup.name}, 12 seeds)`, () => {
      for (let seed = 1; seed <= 12; seed++) {
        const { forest } = randomForest(setup, seed * 7919 + setup.features);
        assertMatchesBruteForce(forest, setup.groups, `${setup.name} seed ${seed}`);
      }
    });
  }

  it('prunes a class when one tree holds no row of it where the cell goes, and leaves untested features undetermined', () => {
    // Tree 0 on x0: left [2 of class 0, 0 of class 1], right [1, 3]; tree 1 on x1: left [3, 0], right [0, 3].
    const trees: Tree[] = [stump(0, [2, 0], [1, 3]), stump(1, [3, 0], [0, 3])];
    const { cells } = cellsOf(forestOf(trees, 3));
    const described = cells.map((c) => `${Array.from(c.values).join(' ')} | ${Array.from(c.classes).join('')}`).sort();
    // x0=0,x1=0: class 0 only; x0=0,x1=1: tree 0 has no class 1 left and tree 1 no class 0 right -> pruned;
    // x0=1,x1=0: class 0; x0=1,x1=1: class 1. x2 is tested nowhere: undetermined (-1).
    assert.deepEqual(described, ['0 0 -1 | 10', '1 0 -1 | 10', '1 1 -1 | 01']);
  });

  it('applies one-hot groups: a 1 forces the others to 0, and all-zero cells are dropped', () => {
    // One tree on x0 and one on x1, all leaves hold class 0; group {x0, x1, x2} is one-hot.
    const trees: Tree[] = [stump(0, [2, 0], [2, 0]), stump(1, [2, 0], [2, 0])];
    const withGroup = cellsOf(forestOf(trees, 3), [{ kind: 'one-hot', features: [0, 1, 2] }]).cells;
    const described = withGroup.map((c) => Array.from(c.values).join(' ')).sort();
    // x0=1 -> x1=x2=0; x0=0,x1=1 -> x2=0; x0=0,x1=0 -> x2 forced to 1.
    assert.deepEqual(described, ['0 0 1', '0 1 0', '1 0 0']);
    const without = cellsOf(forestOf(trees, 3)).cells.map((c) => Array.from(c.values).join(' ')).sort();
    assert.deepEqual(without, ['0 0 -1', '0 1 -1', '1 0 -1', '1 1 -1']);
  });
});

function stump(feature: number, left: number[], right: number[]): Tree {
  return {
    left: [1, -1, -1],
    right: [2, -1, -1],
    feature: [feature, -2, -2],
    threshold: [0.5, -2, -2],
    classWeights: [...left.map((v, i) => v + right[i]), ...left, ...right],
    training: {},
  };
}

function forestOf(trees: Tree[], features: number): Forest {
  const completed = completeForest({
    library: { name: 'test' },
    estimator: 'RandomForestClassifier',
    classes: [0, 1],
    features: Array.from({ length: features }, (_, f) => ({ name: `x${f}` })),
    training: { bootstrap: false },
    trees,
  });
  assert.ok(completed.ok);
  return completed.forest;
}
