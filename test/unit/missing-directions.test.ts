/**
 * scikit-learn 1.3+'s missing_go_to_left: a split of a feature without missing values in training
 * sends them to the child with more samples (ties: right). Debian's scikit-learn 1.2.1 writes no
 * such field, so these trees are written by hand, with the counts a 1.5 file had (a public
 * GradientBoostingRegressor whose 669 splits all follow the rule; its reconstruction was skipped
 * as "trained with missing values").
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { withoutLargerChildDirections } from '../../server/src/formats/sklearn/missing-directions';
import type { Decoded } from '../../server/src/formats/sklearn/decode-helpers';
import { missingDirectionsOfForest, unsetMissingDirections, type RawTree } from '../../server/src/formats/sklearn/tree-arrays';

/** Root 10 rows: left child 6 (a split of its own: 2 and 4), right child 4. */
function decoded(defaultLeft: boolean[]): Decoded {
  const tree = {
    left: [1, 3, -1, -1, -1],
    right: [2, 4, -1, -1, -1],
    feature: [0, 1, -2, -2, -2],
    threshold: [0.5, 1.5, -2, -2, -2],
    distinctRows: [10, 6, 4, 2, 4],
    classWeights: [10, 6, 4, 2, 4],
    defaultLeft,
  };
  return { forest: { trees: [tree] } as unknown as Decoded['forest'], notes: [] };
}

test('directions that all follow the larger child (ties right) are dropped, with a note', () => {
  // Root: 6 > 4, left. Node 1: 2 < 4, right. Leaves carry anything.
  const out = withoutLargerChildDirections(decoded([true, false, false, true, false]));
  assert.equal(out.forest.trees[0].defaultLeft, undefined);
  assert.ok(out.notes.some((n) => /larger child/.test(n)));
});

test("a split against the rule keeps its feature's directions: that feature had missing values", () => {
  // Node 1 (feature x1): 2 < 4 but sends missing left, to its smaller child.
  const out = withoutLargerChildDirections(decoded([true, true, false, false, false]));
  assert.deepEqual(out.forest.trees[0].defaultLeft, [true, true, false, false, false]);
  assert.ok(out.notes.some((n) => /missing values in training: x1\b/.test(n)), out.notes.join(' | '));
});

test("the other features' directions, which follow the larger child, read as left (stop 32)", () => {
  // A tree whose root (x0) sends missing values right, to its larger child: by the rule, so x0 shows
  // no missing values and its direction is read as left once x1 shows some.
  const tree = {
    left: [1, 3, -1, -1, -1],
    right: [2, 4, -1, -1, -1],
    feature: [0, 1, -2, -2, -2],
    threshold: [0.5, 1.5, -2, -2, -2],
    distinctRows: [10, 4, 6, 1, 3],
    classWeights: [10, 4, 6, 1, 3],
    // x0: 4 < 6, right by the rule (follows it); x1: 1 < 3, but left: against it.
    defaultLeft: [false, true, false, false, false],
  };
  const out = withoutLargerChildDirections({ forest: { trees: [tree] } as unknown as Decoded['forest'], notes: [] });
  assert.deepEqual(out.forest.trees[0].defaultLeft, [true, true, false, false, false], 'x0 read as left, x1 as stated');
  // Both features against the rule: every direction as stated, no note.
  const both = withoutLargerChildDirections({ forest: { trees: [{ ...tree, defaultLeft: [true, true, false, false, false] }] } as unknown as Decoded['forest'], notes: [] });
  assert.deepEqual(both.forest.trees[0].defaultLeft, [true, true, false, false, false]);
  assert.equal(both.notes.length, 0);
});

test('a forest of 300,000 nodes is read (sweep 8: a public 272,224-node forest overflowed the call stack)', () => {
  // 100 trees of 3,001 nodes: each internal node's left child a leaf, its right child the next split.
  const nodes = 3001;
  const tree = () => {
    const left: number[] = [];
    const right: number[] = [];
    const feature: number[] = [];
    const rows: number[] = [];
    for (let n = 0; n < nodes; n++) {
      const internal = n % 2 === 0 && n + 2 < nodes;
      left.push(internal ? n + 1 : -1);
      right.push(internal ? n + 2 : -1);
      feature.push(internal ? (n / 2) % 7 : -2);
      rows.push(Math.max(1, nodes - n));
    }
    return { left, right, feature, threshold: feature.map((f) => f + 0.5), distinctRows: rows, classWeights: rows, defaultLeft: left.map(() => true) };
  };
  const forest = { trees: Array.from({ length: 100 }, tree) } as unknown as Decoded['forest'];
  const out = withoutLargerChildDirections({ forest, notes: [] });
  assert.equal(out.forest.trees.length, 100);
});

test("trees without distinct rows (AdaBoost.R2's) are compared by their nodes' weight: a full match reads as no missing values, a mismatch keeps every direction (sweep 9)", () => {
  const withoutRows = (defaultLeft: boolean[]) => {
    const { distinctRows: _, ...tree } = decoded(defaultLeft).forest.trees[0] as unknown as Record<string, unknown>;
    return { forest: { trees: [tree], classes: [] } as unknown as Decoded['forest'], notes: [] };
  };
  // Root: 6 > 4, left; node 1: 2 < 4, right: the rule, by weight.
  const rule = withoutLargerChildDirections(withoutRows([true, false, false, true, false]));
  assert.equal(rule.forest.trees[0].defaultLeft, undefined);
  // Node 1 against the rule by weight: the weights may not be the sample counts, so nothing is inferred.
  const against = withoutLargerChildDirections(withoutRows([true, true, false, false, false]));
  assert.deepEqual(against.forest.trees[0].defaultLeft, [true, true, false, false, false]);
  assert.equal(against.notes.length, 0);
});

test("XGBoost's own directions (a model pickled with scikit-learn's wrapper) are never read by scikit-learn's rule (sweep 9 re-run)", () => {
  const { distinctRows: _, ...tree } = decoded([false, false, false, false, false]).forest.trees[0] as unknown as Record<string, unknown>;
  // XGBoost keeps no counts in classWeights (its covers are hessians): every child weighs 0.
  const xgb = { ...tree, classWeights: [0, 0, 0, 0, 0], boosting: {} };
  const out = withoutLargerChildDirections({ forest: { trees: [xgb], classes: [], library: { name: 'xgboost' }, boosting: {} } as unknown as Decoded['forest'], notes: [] });
  assert.deepEqual(out.forest.trees[0].defaultLeft, [false, false, false, false, false]);
  assert.equal(out.notes.length, 0);
  // Weightless children say nothing either, whatever the library.
  const weightless = withoutLargerChildDirections({ forest: { trees: [xgb], classes: [] } as unknown as Decoded['forest'], notes: [] });
  assert.deepEqual(weightless.forest.trees[0].defaultLeft, [false, false, false, false, false]);
});

/** A RawTree as tree-arrays.ts reads it (3 nodes: a root split and two leaves). */
function raw(missingLeft: number[]): RawTree {
  const f = (values: number[]) => Float64Array.from(values);
  return { left: f([1, -1, -1]), right: f([2, -1, -1]), feature: f([0, -2, -2]), threshold: f([0.5, -2, -2]), nodeSamples: f([10, 6, 4]), weighted: f([10, 6, 4]), missingLeft: f(missingLeft), values: f([10, 6, 4]), nodeCount: 3 };
}

test('uninitialised missing_go_to_left bytes (sweep 10: a 1.5.2 ExtraTreesClassifier stored 0, 16, 32, 176-224) are not read as directions', () => {
  assert.match(unsetMissingDirections(raw([208, 0, 0]), 'DecisionTreeClassifier', '1.5.2') ?? '', /missing_go_to_left holds 208 at node 0, not a direction/);
  // A leaf's byte is never read: only splits carry a direction.
  assert.equal(unsetMissingDirections(raw([1, 176, 32]), 'DecisionTreeClassifier', '1.5.2'), undefined);
  assert.equal(unsetMissingDirections(raw([0, 0, 0]), 'DecisionTreeRegressor', '1.4.0'), undefined);
  // ExtraTrees set the field only from 1.6 (their random splitter took missing values then).
  assert.match(unsetMissingDirections(raw([0, 0, 0]), 'ExtraTreeClassifier', '1.5.2') ?? '', /scikit-learn 1\.5\.2's ExtraTrees do not set missing_go_to_left/);
  assert.equal(unsetMissingDirections(raw([1, 0, 0]), 'ExtraTreeRegressor', '1.6.1'), undefined);
  // A forest reads every tree's directions or none.
  const trees = [raw([1, 0, 0]), { ...raw([64, 0, 0]), missingLeftIgnored: 'missing_go_to_left holds 64 at node 0, not a direction' }];
  assert.match(missingDirectionsOfForest(trees) ?? '', /^missing-value directions not read: missing_go_to_left holds 64/);
  assert.ok(trees.every((t) => t.missingLeft === undefined));
  const clean = [raw([1, 0, 0])];
  assert.equal(missingDirectionsOfForest(clean), undefined);
  assert.ok(clean[0].missingLeft);
});
