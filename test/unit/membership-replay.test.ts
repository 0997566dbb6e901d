/**
 * The replayed-bootstrap fit (membership/replay.ts) on the real scikit-learn bootstrap fixtures
 * (test/fixtures/membership, generate.py): the leaf's distinct rows and total draws exclude
 * candidates the label counts alone let through, never a member, and the exclusions raise the AUC
 * over the label-count fit, computed here from both fits on the same candidates; the engine's
 * score (the assignment's mass, assignment.ts, with the best share) ranks members above
 * non-members better than the share alone, by a margin, with every member in the file and with half
 * of them left out; candidates the model cannot tell apart tie. Plus the bound's arithmetic on a
 * leaf checked by hand.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { replayDraws } from '../../server/src/attacks/reconstruction/bootstrap/draws';
import { assessMembership } from '../../server/src/membership/engine';
import { leavesOf } from '../../server/src/membership/leaves';
import { auc } from '../../server/src/membership/metrics';
import { assignmentMass } from '../../server/src/membership/assignment';
import { bestFit, drawTable, leafCounts, type DrawTable } from '../../server/src/membership/replay';
import type { Forest } from '../../server/src/forest/schema';
import type { Candidate } from '../../server/src/membership/types';
import { assertSameScoreInSameCell, loadMembershipFixture, membershipFixtures, type MembershipFixture } from '../support/membership-fixtures';

// A calibration fold's forest (partOfFit) proves nothing: membership.test.ts checks it.
const bootstrapped = membershipFixtures.filter((e) => e.bootstrap && !e.partOfFit);

async function load(entry: MembershipFixture): Promise<{ forest: Forest; candidates: Candidate[]; member: boolean[]; table: DrawTable }> {
  const fixture = await loadMembershipFixture(entry);
  const replay = replayDraws(fixture.forest, Number.POSITIVE_INFINITY);
  assert.ok(replay.ok);
  return { ...fixture, table: drawTable(replay.draws) };
}

/** The score without the assignment: 0 when no index fits, else 0.5 + half the best share. */
function shareScores(forest: Forest, table: DrawTable, candidates: readonly Candidate[]): number[] {
  const classes = forest.classes.length;
  return candidates.map((candidate) => {
    const y = forest.classes.findIndex((c) => c === candidate.label);
    const leaves = leavesOf(forest, candidate.values);
    const label = Float64Array.from(forest.trees, (tree, t) => tree.classWeights[leaves[t] * classes + y]);
    const fit = bestFit(table, leafCounts(forest, leaves, label));
    return fit.fits === 0 ? 0 : 0.5 + fit.score / 2;
  });
}

describe('membership: replayed-bootstrap fit', () => {
  it('the fixtures include bootstrap forests with seeds', () => assert.ok(bootstrapped.length >= 2));

  for (const entry of bootstrapped) {
    it(`${entry.name}: distinct rows and draws exclude more non-members than the label counts, never a member`, async () => {
      const { forest, candidates, member, table } = await load(entry);
      const classes = forest.classes.length;
      const labelOnly: number[] = [];
      const full: number[] = [];
      let excludedBefore = 0;
      let excludedNow = 0;
      candidates.forEach((candidate, i) => {
        const y = forest.classes.findIndex((c) => c === candidate.label);
        const leaves = leavesOf(forest, candidate.values);
        const label = Float64Array.from(forest.trees, (tree, t) => tree.classWeights[leaves[t] * classes + y]);
        const before = bestFit(table, { label });
        const now = bestFit(table, leafCounts(forest, leaves, label));
        if (before.fits === 0) assert.equal(now.fits, 0, `candidate ${i + 1}: excluded by the label counts, not by the full bound`);
        if (member[i]) assert.ok(now.fits > 0, `candidate ${i + 1}: a member excluded`);
        // The bound only excludes: where it leaves an index, the ranking score is the label-count one.
        if (now.fits > 0) assert.equal(now.score, before.score);
        excludedBefore += before.fits === 0 ? 1 : 0;
        excludedNow += now.fits === 0 ? 1 : 0;
        labelOnly.push(before.fits === 0 ? 0 : 0.5 + before.score / 2);
        full.push(now.fits === 0 ? 0 : 0.5 + now.score / 2);
      });
      assert.ok(excludedNow > excludedBefore, `${excludedNow} excluded, ${excludedBefore} by the label counts alone`);
      const gain = auc(full, member)! - auc(labelOnly, member)!;
      assert.ok(gain > 0, `AUC gain ${gain}`);
      // The engine proves exactly these (no reconstruction given) and scores them 0.
      const result = assessMembership(forest, candidates);
      assert.equal(result.basis, 'replayed-bootstrap');
      assert.equal(result.candidates.filter((c) => c.verdict === 'non-member').length, excludedNow);
    });
  }

  for (const entry of bootstrapped) {
    it(`${entry.name}: the assignment's mass ranks members better than the share alone, with or without every member in the file`, async () => {
      const { forest, candidates, member, table } = await load(entry);
      // Every member a candidate, then every other member left out (the file need not hold them all).
      const keep = member.map((m, i) => !m || i % 2 === 0);
      for (const rows of [candidates.map((_, i) => i), candidates.map((_, i) => i).filter((i) => keep[i])]) {
        const subset = rows.map((i) => candidates[i]);
        const truth = rows.map((i) => member[i]);
        const result = assessMembership(forest, subset);
        const shares = shareScores(forest, table, subset);
        const gain = auc(result.candidates.map((c) => c.score), truth)! - auc(shares, truth)!;
        // Measured when written: +0.21 and +0.12 (Pima), +0.24 and +0.20 (COMPAS).
        assert.ok(gain >= 0.05, `${subset.length} candidates: AUC gain ${gain.toFixed(3)} over the share alone`);
        result.candidates.forEach((c, i) => {
          // Proven verdicts keep their scores; the others stay at or above 0.5 (not excluded), at most
          // what a mass of 1 would give with their share (shares[i] is 0.5 + share / 2).
          if (c.verdict === 'non-member') assert.equal(c.score, 0);
          else if (c.verdict !== 'member') assert.ok(c.score >= 0.5 && c.score <= 0.5 + (1 + 2 * (shares[i] - 0.5)) / 4 + 1e-12, `candidate ${i + 1}: ${c.score} against ${shares[i]}`);
        });
        // Candidates with the same label and leaves are one group: the same score.
        assertSameScoreInSameCell(forest, subset, result.candidates);
      }
    });
  }

  it('a leaf of one distinct row takes only the index drawn exactly as often as the leaf holds draws', () => {
    // One tree; index 0 drawn 3 times, index 1 once, index 2 twice.
    const table: DrawTable = { rows: 3, trees: 1, counts: Uint16Array.from([3, 1, 2]), maxDraws: Uint16Array.from([3]) };
    const leaf = (label: number, all: number, distinct: number) => ({ label: Float64Array.of(label), all: Float64Array.of(all), distinct: Float64Array.of(distinct) });
    // 3 draws, 1 distinct row: only index 0 (the label counts alone would also let 1 and 2 in).
    assert.equal(bestFit(table, leaf(3, 3, 1)).fits, 1);
    assert.equal(bestFit(table, { label: Float64Array.of(3) }).fits, 3);
    // 4 draws of the label, 2 distinct rows: the other row takes 4 - c draws, between 1 and 3: all fit.
    assert.equal(bestFit(table, leaf(4, 4, 2)).fits, 3);
    // 7 draws, 2 distinct rows: the other row would take 7 - c >= 4 draws, above the tree's most (3): none fits.
    assert.equal(bestFit(table, leaf(7, 7, 2)).fits, 0);
    // 6 draws, 3 distinct: the other two take 6 - c in [2, 6]: indices 0 (3), 1 (5), 2 (4) fit.
    assert.equal(bestFit(table, leaf(6, 6, 3)).fits, 3);
    // Trees that store no distinct count fall back to the label counts.
    assert.equal(bestFit(table, leaf(3, 3, Number.NaN)).fits, 3);
  });

  it('the assignment shares a leaf\'s draws among the candidates in it, and gives up past its work budget', () => {
    // One tree, indices 0 and 1 drawn once each; leaf 0 holds 1 draw, leaf 1 holds 1 draw. Candidate
    // A is alone in leaf 0, candidates B and C (one group of 2) in leaf 1; all fit both indices.
    // The counts say: A is a row (mass 1), and one of B and C is (mass 1/2 each).
    const table: DrawTable = { rows: 2, trees: 1, counts: Uint16Array.from([1, 1]), maxDraws: Uint16Array.from([1]) };
    const groups = [
      { size: 1, keys: Int32Array.of(0), indices: Int32Array.of(0, 1) },
      { size: 2, keys: Int32Array.of(1), indices: Int32Array.of(0, 1) },
    ];
    const mass = assignmentMass(table, Float64Array.of(1, 1), groups)!;
    assert.ok(mass[0] > 0.95 && Math.abs(mass[1] - 0.5) < 0.05, `mass ${Array.from(mass)}`);
    assert.equal(assignmentMass(table, Float64Array.of(1, 1), groups, { workBudget: 1 }), null);
  });
});
