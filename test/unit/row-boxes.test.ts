/**
 * The row-boxes reconstruction (server/src/attacks/reconstruction/boxes/) on real scikit-learn
 * models without bootstrap whose cells are too many to enumerate (test/fixtures/row-boxes, written
 * by generate.py), checked against the rows they were trained on. What it certifies: a group of
 * `size` rows of class c means `size` distinct training rows inside its box with label c, in every
 * training set that fits the counts, so in the true one. Checked:
 *  - soundness through `reconstruct()`: every certified row's box can be given a distinct true row
 *    inside it with its label (a maximum bipartite matching covering every row);
 *  - the groups themselves (boxForest, anchorGroups, propagateGroups): each holds at least `size`
 *    true rows of its class in its box, and in every tree it is placed in, `size` of them reach
 *    that leaf; all groups at once can be given distinct true rows meeting all of that;
 *  - the completion: the reported leaf-count error is what routing the rows' values gives, and
 *    every value lies inside its row's proven interval;
 *  - `boxes` (tightness): pinned rows are the rows of groups placed in every tree, widths in
 *    [0, 1], the medians what the rows' intervals give;
 *  - one deep decision tree: the groups are its leaves, each box holds exactly its leaf's rows,
 *    every row pinned, status exact.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { reconstructByBoxes } from '../../server/src/attacks/reconstruction/boxes';
import type { RowGroup } from '../../server/src/attacks/reconstruction/boxes/row-groups';
import { RunContext } from '../../server/src/attacks/reconstruction/context';
import { intervalBounds, type FeatureAxes } from '../../server/src/attacks/reconstruction/feature-axes';
import { buildLeafTable } from '../../server/src/attacks/reconstruction/leaves';
import type { ReconstructedRow, ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { firstUnmatched, maximumMatching } from '../support/bipartite-matching';
import { propagatedGroups } from '../support/row-boxes-groups';
import { containsRow, randomIntegerForest, readFloat32Rows, routedLeafCountError, type NumericFixtureEntry } from '../support/numeric-truth';
import { FIXTURES } from '../support/paths';
import { leafOf, type TrainingRow } from '../support/reconstruction-truth';

const DIR = join(FIXTURES, 'row-boxes');
const manifest: NumericFixtureEntry[] = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));
const entry = (name: string) => manifest.find((e) => e.name === name)!;
const FORESTS = ['pima_rf25', 'pima_rf20_msl5', 'wine_et20'];
const BUDGET_MS = 8_000;

async function readForest(e: NumericFixtureEntry): Promise<Forest> {
  const report = await lintFile(join(DIR, e.model), { keepForest: true });
  assert.ok(report.forest, `${e.model}: ${report.findings.map((f) => f.message).join('; ')}`);
  return report.forest;
}

/** Reads each fixture, and reconstructs it, once for all the tests below. */
const cache = new Map<string, Promise<{ forest: Forest; truth: TrainingRow[]; result: ReconstructionResult }>>();
function fixture(name: string) {
  if (!cache.has(name)) {
    cache.set(
      name,
      (async () => {
        const e = entry(name);
        const forest = await readForest(e);
        const truth = readFloat32Rows(join(DIR, e.truth));
        assert.equal(truth.length, e.rows, `${name}: truth rows`);
        const result = await reconstruct(forest, { budgetMs: BUDGET_MS });
        return { forest, truth, result };
      })(),
    );
  }
  return cache.get(name)!;
}

/** Whether a true row's values lie in a box of interval indices (bounds as the engine reads them). */
function inBox(axes: FeatureAxes, low: ArrayLike<number>, high: ArrayLike<number>, values: readonly number[]): boolean {
  for (let f = 0; f < values.length; f++) {
    const [lower, upper] = intervalBounds(axes, f, low[f], high[f]);
    if (!(values[f] > lower && values[f] <= upper)) return false;
  }
  return true;
}

function describeBox(axes: FeatureAxes, group: RowGroup): string {
  const parts: string[] = [];
  for (let f = 0; f < group.low.length; f++) {
    if (group.low[f] === 0 && group.high[f] === axes.intervals[f] - 1) continue;
    const [lower, upper] = intervalBounds(axes, f, group.low[f], group.high[f]);
    parts.push(`x${f} in (${lower}, ${upper}]`);
  }
  return parts.join(', ') || 'the whole space';
}

/** Whether every row can be given a distinct true row inside its intervals with its label; the first that cannot. */
function matchRowsToTruth(rows: readonly ReconstructedRow[], truth: readonly TrainingRow[]): { matched: number; unmatched: number } {
  const adjacency = rows.map((row) => truth.flatMap((t, i) => (containsRow(row, t) ? [i] : [])));
  const matching = maximumMatching(adjacency, truth.length);
  return { matched: matching.size, unmatched: firstUnmatched(matching) };
}

/**
 * The claim on the true rows: each group holds `size` true rows of its class in its box that reach
 * every leaf it is placed in, and all groups at once can be given distinct ones (a matching covering
 * every member). Fails naming the group, its box and the true rows it holds.
 */
function checkGroups(name: string, forest: Forest, truth: readonly TrainingRow[], axes: FeatureAxes, groups: readonly RowGroup[]): void {
  // Per group, the true rows that may stand for its members: its class, in its box, in its leaves.
  const candidates = groups.map((group, g) => {
    const label = forest.classes[group.classIndex];
    const inside = truth.flatMap((row, i) => (row.label === label && inBox(axes, group.low, group.high, row.values) ? [i] : []));
    assert.ok(group.size > 0, `${name}: group ${g} is empty`);
    assert.ok(
      inside.length >= group.size,
      `${name}: group ${g} (${group.size} rows of class ${label}) has only ${inside.length} true rows of its class in its box ${describeBox(axes, group)}: [${inside.map((i) => truth[i].values.join(' ')).join('; ')}]`,
    );
    let fitting = inside;
    group.leaf.forEach((leaf, t) => {
      if (leaf === -1) return;
      const reaching = inside.filter((i) => leafOf(forest.trees[t], truth[i].values) === leaf);
      assert.ok(
        reaching.length >= group.size,
        `${name}: group ${g} (${group.size} rows of class ${label}, box ${describeBox(axes, group)}) is placed in leaf ${leaf} of tree ${t}, which only ${reaching.length} of its ${inside.length} true rows reach`,
      );
      fitting = fitting.filter((i) => leafOf(forest.trees[t], truth[i].values) === leaf);
    });
    assert.ok(fitting.length >= group.size, `${name}: group ${g} (${group.size} rows of class ${label}): only ${fitting.length} true rows reach all its ${forest.trees.length - group.unplaced} leaves`);
    return fitting;
  });
  // All at once: one slot per member, each given its own true row.
  const slots = groups.flatMap((group, g) => Array.from({ length: group.size }, () => g));
  const matching = maximumMatching(slots.map((g) => candidates[g]), truth.length);
  const stuck = slots[firstUnmatched(matching)];
  assert.equal(matching.size, slots.length, `${name}: the groups cannot all be given distinct true rows (${matching.size} of ${slots.length}); e.g. group ${stuck}, box ${stuck === undefined ? '' : describeBox(axes, groups[stuck])}`);
}

describe('row-boxes on scikit-learn forests too large to enumerate', () => {
  for (const name of FORESTS) {
    it(`${name}: every certified box holds a distinct true row with its label`, async () => {
      const { forest, truth, result } = await fixture(name);
      assert.equal(result.method, 'row-boxes', `${name} was not reconstructed by row-boxes (${result.method}, ${result.status}: ${result.reason}); the fixture no longer exercises it`);
      assert.ok(result.status === 'bounded' || result.status === 'exact', `${name}: ${result.status}: ${result.reason}`);
      assert.equal(result.reconstructedRows, truth.length, `${name}: rows reconstructed`);
      assert.equal(result.certifiedRows, truth.length, `${name}: row-boxes certifies every row as a box`);
      assert.ok(result.seconds < BUDGET_MS / 1000 + 2, `${name}: took ${result.seconds} s on a ${BUDGET_MS / 1000} s budget`);
      const certified = result.reconstruction.filter((r) => r.certified);
      assert.equal(certified.length, result.certifiedRows);
      for (const row of certified) assert.ok(forest.classes.includes(row.label), `${name}: label ${row.label} is not a class`);
      const { matched, unmatched } = matchRowsToTruth(certified, truth);
      assert.equal(
        matched,
        certified.length,
        `${name}: only ${matched} of ${certified.length} certified boxes can be given distinct true rows; e.g. row ${unmatched} (label ${certified[unmatched]?.label}, intervals ${JSON.stringify(certified[unmatched]?.intervals)})`,
      );
    });

    it(`${name}: every group holds its size in true rows of its class, reaching the leaves it is placed in, all groups at once`, async () => {
      const { forest, truth } = await fixture(name);
      const { table, groups, propagation } = await propagatedGroups(forest, BUDGET_MS);
      assert.ok(propagation.ok, `${name}: the propagation found a contradiction in a real model's counts: ${propagation.contradiction}`);
      assert.ok(propagation.complete, `${name}: the propagation did not reach a fixpoint within ${BUDGET_MS} ms (${propagation.rounds} rounds)`);
      assert.equal(groups.reduce((n, g) => n + g.size, 0), truth.length, `${name}: the groups' sizes add up to N`);
      checkGroups(name, forest, truth, table.axes, groups);
      // The groups are narrower than the anchor's leaves or split: the propagation did something on these models.
      const placements = groups.reduce((n, g) => n + (forest.trees.length - g.unplaced), 0);
      assert.ok(placements > groups.length, `${name}: no group is placed beyond its anchor leaf (${groups.length} groups)`);
    });

    it(`${name}: capped at a few groups (memory.ts GROUP_BYTES_CAP), the propagation stops with fewer proofs, every one still true`, async (t) => {
      const { forest, truth } = await fixture(name);
      const full = await propagatedGroups(forest, BUDGET_MS);
      // A forest whose propagation places groups whole and splits none has nothing to cap.
      if ((await propagatedGroups(forest, BUDGET_MS, 0)).propagation.capped === undefined) return t.skip(`${name}: no group is split`);
      // One group short of the uncapped propagation's: some split is left out.
      const cap = full.groups.length - 1;
      const { table, groups, propagation } = await propagatedGroups(forest, BUDGET_MS, cap);
      assert.ok(propagation.ok, `${name}: ${propagation.contradiction}`);
      assert.equal(propagation.capped, cap, `${name}: the cap of ${cap} groups (of ${full.groups.length} uncapped) was not reached`);
      assert.equal(propagation.complete, false);
      assert.ok(groups.length <= cap, `${name}: ${groups.length} groups past the cap of ${cap}`);
      assert.equal(groups.reduce((n, g) => n + g.size, 0), truth.length, `${name}: the groups' sizes add up to N`);
      checkGroups(name, forest, truth, table.axes, groups);
    });

    it(`${name}: the completion's rows lie in their proven intervals and its leaf-count error is what routing them gives`, async () => {
      const { forest, result } = await fixture(name);
      assert.equal(result.method, 'row-boxes');
      for (const [r, row] of result.reconstruction.entries()) {
        assert.ok(row.intervals, `${name}: row ${r} has no intervals`);
        row.intervals.forEach((interval, f) => {
          const v = row.values[f];
          // Unconstrained by the proof (null), the point may still be one the completion's walk chose.
          if (interval !== null) assert.ok(v !== null && v > interval[0] && v <= interval[1], `${name}: row ${r} feature ${f}: value ${v} outside its proven (${interval[0]}, ${interval[1]}]`);
        });
      }
      const routed = routedLeafCountError(forest, result.reconstruction);
      assert.equal(result.stats.leafCountError, routed, `${name}: reported leaf-count error ${result.stats.leafCountError}, routing the rows gives ${routed}`);
    });

    it(`${name}: box tightness (pinned rows, widths) is what the groups and the rows' intervals give`, async () => {
      const { forest, result } = await fixture(name);
      assert.ok(result.boxes, `${name}: no box tightness reported`);
      assert.notEqual(result.status, 'timeout', `${name}: the propagation did not finish within the budget; pinned rows are then not comparable`);
      const { table, groups } = await propagatedGroups(forest, BUDGET_MS);
      const pinned = groups.reduce((n, g) => n + (g.unplaced === 0 ? g.size : 0), 0);
      assert.equal(result.boxes.pinnedRows, pinned, `${name}: pinned rows reported ${result.boxes.pinnedRows}, groups placed in every tree hold ${pinned}`);
      assert.equal(result.status === 'exact', pinned === result.reconstructedRows, `${name}: status ${result.status} with ${pinned} of ${result.reconstructedRows} rows pinned`);
      const { medianWidth, featureWidths } = result.boxes;
      assert.ok(medianWidth >= 0 && medianWidth <= 1, `${name}: median width ${medianWidth}`);
      // Recomputed from the rows' intervals: per numeric feature, the width inside the thresholds' range.
      const axes = table.axes;
      const numeric = Array.from(axes.binary.keys()).filter((f) => !axes.binary[f] && axes.thresholds[f].length > 0);
      assert.deepEqual(featureWidths.map((w) => w.feature), numeric, `${name}: features with widths`);
      const all: number[] = [];
      for (const [i, f] of numeric.entries()) {
        // The axis: the thresholds' span, widened at each end by their mean gap (1 each side of a single threshold).
        const cuts = axes.thresholds[f];
        const [first, last] = [cuts[0], cuts[cuts.length - 1]];
        const gap = cuts.length > 1 ? (last - first) / (cuts.length - 1) : 1;
        const widths = result.reconstruction.map((row) => {
          const [lower, upper] = row.intervals![f] ?? [-Infinity, Infinity];
          return Math.max(0, Math.min(upper, last + gap) - Math.max(lower, first - gap)) / (last - first + 2 * gap);
        });
        all.push(...widths);
        assert.ok(featureWidths[i].medianWidth >= 0 && featureWidths[i].medianWidth <= 1, `${name}: feature ${f} median width ${featureWidths[i].medianWidth}`);
        assert.ok(Math.abs(featureWidths[i].medianWidth - median(widths)) < 1e-12, `${name}: feature ${f} median width ${featureWidths[i].medianWidth}, the rows' intervals give ${median(widths)}`);
      }
      assert.ok(Math.abs(medianWidth - median(all)) < 1e-12, `${name}: median width ${medianWidth}, the rows' intervals give ${median(all)}`);
      assert.ok(medianWidth < 1, `${name}: the boxes are no narrower than the whole range`);
    });
  }
});

describe('row-boxes on small random forests over integers', () => {
  // Deep enough that groups split and get placed; small enough for many seeds.
  const setups = [
    { features: 3, levels: 8, rows: 40, classes: 2, trees: 5, maxDepth: 5 },
    { features: 4, levels: 5, rows: 30, classes: 3, trees: 8, maxDepth: 4 },
    { features: 2, levels: 12, rows: 50, classes: 2, trees: 4, maxDepth: 6 },
  ];
  for (const setup of setups) {
    it(`every group holds distinct true rows in its box and leaves; every certified row too (${setup.features} features, ${setup.trees} trees, 40 seeds)`, async () => {
      let groupCount = 0;
      let pinned = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const label = `seed ${seed * 977 + setup.levels}`;
        const { forest, rows } = randomIntegerForest(setup, seed * 977 + setup.levels);
        const { table, groups, propagation } = await propagatedGroups(forest, BUDGET_MS);
        assert.ok(propagation.ok, `${label}: contradiction in consistent counts: ${propagation.contradiction}`);
        assert.ok(propagation.complete, `${label}: no fixpoint`);
        checkGroups(label, forest, rows, table.axes, groups);
        groupCount += groups.length;
        pinned += groups.reduce((n, g) => n + (g.unplaced === 0 ? g.size : 0), 0);
        // The method end to end: the same groups as certified rows, and the completion's error as routed.
        const result = await reconstructByBoxes(forest, table, new RunContext({ budgetMs: 2_000 }));
        assert.equal(result.certifiedRows, setup.rows, `${label}: ${result.reason}`);
        assert.equal(result.boxes?.pinnedRows, groups.reduce((n, g) => n + (g.unplaced === 0 ? g.size : 0), 0), `${label}: pinned rows`);
        const { matched, unmatched } = matchRowsToTruth(result.reconstruction, rows);
        assert.equal(matched, setup.rows, `${label}: certified row ${unmatched} (${JSON.stringify(result.reconstruction[unmatched]?.intervals)}, label ${result.reconstruction[unmatched]?.label}) holds no distinct true row`);
        assert.equal(result.stats.leafCountError, routedLeafCountError(forest, result.reconstruction), `${label}: reported leaf-count error`);
      }
      // Not vacuous: the propagation pinned rows to a leaf in every tree.
      assert.ok(pinned > 0, `no row pinned over 40 seeds (${groupCount} groups)`);
    });
  }
});

describe('row-boxes on one deep decision tree'
, () => {
  it('cancer_tree: the groups are its leaves, each box holds exactly its leaf rows, every row pinned', async () => {
    const e = entry('cancer_tree');
    const forest = await readForest(e);
    const truth = readFloat32Rows(join(DIR, e.truth));
    assert.equal(forest.trees.length, 1);
    const { table, groups, propagation } = await propagatedGroups(forest, BUDGET_MS);
    assert.ok(propagation.ok && propagation.complete, propagation.contradiction);
    const tree = forest.trees[0];
    const leaves = Array.from(tree.left.keys()).filter((n) => tree.left[n] === -1);
    assert.ok(leaves.length >= 10, `a deep tree: ${leaves.length} leaves`);
    // One group per leaf and class with rows there, placed in that leaf, with the leaf's box.
    const stored = leaves.flatMap((n) => forest.classes.flatMap((_, c) => (Math.round(tree.classWeights[n * forest.classes.length + c]) > 0 ? [`${n}:${c}`] : [])));
    assert.deepEqual(groups.map((g) => `${g.leaf[0]}:${g.classIndex}`).sort(), stored.sort(), 'groups are the leaves and classes holding rows');
    for (const [g, group] of groups.entries()) {
      assert.equal(group.unplaced, 0, `group ${g} is placed in the only tree`);
      const inside = truth.flatMap((row, i) => (inBox(table.axes, group.low, group.high, row.values) ? [i] : []));
      const reaching = truth.flatMap((row, i) => (leafOf(tree, row.values) === group.leaf[0] ? [i] : []));
      assert.deepEqual(inside, reaching, `group ${g}: the true rows in its box ${describeBox(table.axes, group)} are not the rows reaching leaf ${group.leaf[0]}`);
      const label = forest.classes[group.classIndex];
      assert.equal(inside.filter((i) => truth[i].label === label).length, group.size, `group ${g}: true rows of class ${label} in its leaf`);
    }
    // Through the method itself: exact, every row pinned and certified, every box holding its own true row.
    const prepared = buildLeafTable(forest);
    assert.ok(prepared.ok);
    const result = await reconstructByBoxes(forest, prepared.table, new RunContext({ budgetMs: BUDGET_MS }));
    assert.equal(result.method, 'row-boxes');
    assert.equal(result.status, 'exact', result.reason);
    assert.equal(result.boxes?.pinnedRows, e.rows);
    assert.equal(result.certifiedRows, e.rows);
    assert.equal(result.stats.leafCountError, 0);
    assert.equal(routedLeafCountError(forest, result.reconstruction), 0, 'the rows fit the leaf counts');
    const { matched } = matchRowsToTruth(result.reconstruction, truth);
    assert.equal(matched, e.rows, 'every box holds its own true row');
  });
});

function median(values: number[]): number {
  if (values.length === 0) return 1;
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
