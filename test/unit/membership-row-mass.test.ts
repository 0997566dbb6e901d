/**
 * The mass fit without bootstrap (membership/row-count-mass.ts) on the real scikit-learn fixtures
 * without bootstrap (test/fixtures/membership, generate.py), each scored with and without it:
 *  - the AUC against the truth's members rises by a margin on the fixtures overall (each measured
 *    from both scorers, never hard-coded), and drops on none beyond rounding;
 *  - proven verdicts are the same with and without it (a proven non-member scores 0), and every
 *    other score stays in [0.5, 1];
 *  - candidates with the same label and leaves tie;
 *  - on hand-checked leaves: two candidates share a leaf that holds one row; the one whose other
 *    leaf is crowded with candidates gets less mass.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { assessMembership } from '../../server/src/membership/engine';
import { auc } from '../../server/src/membership/metrics';
import { rowCountMass } from '../../server/src/membership/row-count-mass';
import { assertSameScoreInSameCell, loadMembershipFixture, membershipFixtures } from '../support/membership-fixtures';

// Forests without bootstrap (boosted models have bases of their own: class-trees, boosted-hessians;
// a warm-started forest is scored without proofs, forest/warm-start.ts).
const rowCounted = membershipFixtures.filter((e) => !e.bootstrap && !e.warmStart && !e.partOfFit && !/GradientBoosting|XGB/.test(e.estimator));
const load = loadMembershipFixture;

describe('membership without bootstrap: the mass fit across candidates', () => {
  it('the fixtures include forests without bootstrap', () => assert.ok(rowCounted.length >= 2));

  it('ranks members better overall, and worse on no fixture', async () => {
    let gain = 0;
    for (const entry of rowCounted) {
      const { forest, candidates, member } = await load(entry);
      const alone = assessMembership(forest, candidates, { acrossCandidates: false });
      const fitted = assessMembership(forest, candidates);
      assert.equal(fitted.basis, 'row-counts');
      const before = auc(alone.candidates.map((c) => c.score), member)!;
      const after = auc(fitted.candidates.map((c) => c.score), member)!;
      if (process.env.MPL_VERBOSE) console.log(entry.name, before.toFixed(3), after.toFixed(3));
      assert.ok(after >= before - 0.005, `${entry.name}: ${after} against ${before}`);
      gain += after - before;
      fitted.candidates.forEach((c, i) => {
        const was = alone.candidates[i];
        if (was.verdict === 'non-member') assert.deepEqual(c, was, `${entry.name} candidate ${i}: a proven non-member is kept, at 0`);
        else {
          // A proven member keeps its verdict; its score, as every other's, is its mass's.
          if (was.verdict === 'member') assert.equal(c.verdict, 'member', `${entry.name} candidate ${i}`);
          else assert.notEqual(c.verdict, 'member');
          assert.ok(c.score >= 0.5 && c.score <= 1, `${entry.name} candidate ${i}: ${c.score}`);
        }
      });
      // Same label and leaves: the same score.
      assertSameScoreInSameCell(forest, candidates, fitted.candidates);
    }
    assert.ok(gain > 0.1, `summed AUC gain ${gain}`);
  });

  it('a leaf holding one row, shared with candidates whose other leaves are crowded, leaves less mass to them', () => {
    // Two trees. Tree 0: key 0 holds one row (candidates A and B), key 3 two rows (C and D).
    // Tree 1: key 1 holds one row (A alone), key 2 one row (B, C and D).
    const targets = Float64Array.from([1, 1, 1, 2]);
    const [a, b, cd] = rowCountMass(targets, [
      { size: 1, keys: Int32Array.from([0, 1]) },
      { size: 1, keys: Int32Array.from([0, 2]) },
      { size: 2, keys: Int32Array.from([3, 2]) },
    ]);
    assert.ok(a > b + 0.2, `A ${a}, B ${b}`);
    assert.ok(a <= 1 && b >= 0 && cd >= 0);
  });
});
