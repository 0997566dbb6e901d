/**
 * Multi-class boosted models past the cell limit (boosting-counts.ts -> row-boxes on the first
 * round's trees read as row counts) and the classes their single-class leaves prove
 * (multiclass-box-labels.ts), against the true training rows of an XGBoost 1.7.4 model
 * (test/fixtures/xgboost-counts/generate.py: multi_digits_deep, multi:softprob with 10 classes,
 * 2 rounds of depth 5 on 300 digits rows).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { predictedClass } from '../../server/src/attacks/reconstruction/multiclass-box-labels';
import { leafOf } from '../../server/src/forest/structure';
import { checkCertifiedRows } from '../../server/src/evaluate/certified-check';
import { countsForest, countsTruth, insideXgb } from '../support/xgboost-counts';

const forestOf = countsForest;
const truth = countsTruth('multi_digits_deep');

const inside = insideXgb;
/** A box as a map key (JSON would write both infinities as null). */
const boxKey = (intervals: readonly ([number, number] | null)[]) => intervals.map((b) => (b ? `${b[0]}..${b[1]}` : '*')).join('|');

describe('multi-class boosting past the cell limit: row-boxes, classes from single-class leaves', () => {
  it('predictedClass: the largest margin over all rounds fits the training rows', () => {
    const forest = forestOf('multi_digits_deep.json');
    const right = truth.filter((t) => predictedClass(forest, t.x) === t.y).length;
    assert.ok(right >= 0.8 * truth.length, `${right} of ${truth.length} training rows predicted right`);
    // A wrong class for every tree's group would be far from it.
    const shifted = truth.filter((t) => (predictedClass(forest, t.x) + 1) % 10 === t.y).length;
    assert.ok(shifted < 0.2 * truth.length);
  });

  it('multi_digits_deep: every row reconstructed, certified classes exactly the rows of the first round\'s single-class leaves, every claim holding true rows', async () => {
    const forest = forestOf('multi_digits_deep.json');
    assert.equal(forest.boosting!.outputGroups, 10);
    const result = await reconstruct(forest, { budgetMs: 20_000 });
    assert.equal(result.method, 'boosting-counts');
    assert.match(result.reason ?? '', /more than 20,000 cells, so the rows are proven one by one as boxes instead/);
    assert.notEqual(result.status, 'skipped');
    assert.equal(result.reconstructedRows, truth.length);
    // Proven boxes without a class that meet a fully claimed leaf keep no proof (they may hold one of its rows).
    assert.ok(result.certifiedRows + (result.certifiedWithoutLabel ?? 0) < truth.length);
    assert.match(result.reason ?? "", /[\d,]+ of the [\d,]+ boxes above hold no proven row: each meets a leaf whose rows the classes above all claimed/);
    // The boxes before their classes are not called certified (sweep 13: "1,669 rows certified as
    // boxes" beside "1,034 of them are estimates now"), nor rows proven (sweep 19: "1,669 rows proven
    // as boxes" beside a headline of 635 proven).
    assert.match(result.reason ?? '', /boxes from the row counts, one per row \(which of them hold proven rows, and their labels, below\)/);
    assert.doesNotMatch(result.reason ?? '', /rows proven as boxes/);
    assert.doesNotMatch(result.reason ?? '', /rows certified as boxes/);
    // From the true rows: per tree of the first round (class k = the tree's index), the leaves all
    // of whose true rows are of class k.
    let expected = 0;
    for (let t = 0; t < 10; t++) {
      const byLeaf = new Map<number, number[]>();
      for (const row of truth) {
        const leaf = leafOf(forest.trees[t], row.x, forest.splitRule);
        byLeaf.set(leaf, [...(byLeaf.get(leaf) ?? []), row.y]);
      }
      for (const labels of byLeaf.values()) if (labels.every((y) => y === forest.trees[t].boosting!.group)) expected += labels.length;
    }
    assert.ok(expected >= 20, `${expected} rows in single-class leaves`);
    assert.equal(result.certifiedRows, expected);
    // Per distinct (region, class) claim, the true rows of that class inside are at least the claims.
    const claims = new Map<string, number>();
    for (const row of result.reconstruction.filter((r) => r.certified)) {
      assert.ok(inside(row.intervals!, row.values.map((v) => v ?? 0)), 'a certified row\'s point lies in its region');
      const key = `${boxKey(row.intervals!)} ${row.label}`;
      claims.set(key, (claims.get(key) ?? 0) + 1);
    }
    for (const row of result.reconstruction.filter((r) => r.certified)) {
      const key = `${boxKey(row.intervals!)} ${row.label}`;
      const there = truth.filter((t) => t.y === row.label && inside(row.intervals!, t.x)).length;
      assert.ok(there >= claims.get(key)!, `${claims.get(key)} rows of class ${row.label} claimed in a region holding ${there}`);
    }
    // The proven boxes of the others hold true rows too.
    const boxes = new Map<string, { intervals: ([number, number] | null)[]; n: number }>();
    for (const row of result.reconstruction.filter((r) => r.certifiedValues)) {
      const key = boxKey(row.intervals!);
      boxes.set(key, { intervals: row.intervals!, n: (boxes.get(key)?.n ?? 0) + 1 });
    }
    for (const { intervals, n } of boxes.values()) assert.ok(truth.filter((t) => inside(intervals, t.x)).length >= n);
    // And all of them together: each proof a distinct true row (16 of 300 were not before stop 35).
    const asRows = truth.map((t) => ({ values: t.x, label: forest.classes[t.y] ?? t.y }));
    const check = checkCertifiedRows(forest, result.reconstruction, asRows)!;
    assert.equal(check.held, check.proven);
  });
});
