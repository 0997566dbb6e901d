/**
 * Membership against scikit-learn regression forests (membership/regression.ts), on the fixtures of
 * test/fixtures/estimators (120 diabetes patients trained on) and the next 120 patients, never
 * trained on (diabetes_holdout.csv): members are scored above non-members, a proven non-member is
 * never a training row, and bootstrap proves nothing.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assessMembership } from '../../server/src/membership/engine';
import { auc } from '../../server/src/membership/metrics';
import type { Candidate } from '../../server/src/membership/types';
import { FIXTURES } from '../support/paths';
import { readFixtureForest } from '../support/model-files';
import { readTrainingRows } from '../support/reconstruction-truth';

const DIR = join(FIXTURES, 'estimators');
const asCandidates = (file: string): Candidate[] => readTrainingRows(join(DIR, file)).rows.map((r) => ({ values: r.values, label: r.label }));
const holdout = asCandidates('diabetes_holdout.csv');

function assess(model: string, train: string) {
  const forest = readFixtureForest(DIR, `${model}.joblib`);
  const members = asCandidates(train);
  const result = assessMembership(forest, [...members, ...holdout]);
  const truth = [...members.map(() => true), ...holdout.map(() => false)];
  return { result, truth, members: members.length };
}

describe('membership: regression forests', () => {
  it('et_reg_full (no bootstrap): pure leaves of another target prove non-members, never a training row; AUC near 1', () => {
    const { result, truth, members } = assess('et_reg_full', 'et_reg_full.train.csv');
    assert.equal(result.basis, 'regression-targets');
    result.candidates.forEach((c, i) => {
      if (c.verdict === 'non-member') assert.equal(truth[i], false, `candidate ${i}: a training row proven a non-member`);
    });
    const proven = result.candidates.filter((c) => c.verdict === 'non-member').length;
    assert.ok(proven >= 100, `${proven} of 120 non-members proven`);
    // Fully grown trees: a member sits in a leaf of its own target in every tree.
    assert.ok(result.candidates.slice(0, members).every((c) => c.score === 1 && c.verdict === 'likely-member'));
    assert.ok(auc(result.candidates.map((c) => c.score), truth)! > 0.99);
  });

  it('rf_reg_full (bootstrap): no proven verdict (a tree may not have drawn the candidate), members still ranked above non-members', () => {
    const { result, truth } = assess('rf_reg_full', 'rf_reg_full.train.csv');
    assert.equal(result.basis, 'regression-targets');
    assert.match(result.reason ?? '', /bootstrap/);
    assert.ok(result.candidates.every((c) => c.verdict !== 'member' && c.verdict !== 'non-member'));
    assert.ok(auc(result.candidates.map((c) => c.score), truth)! > 0.95);
  });

  it('rf_reg_weighted (sample weights): likelihoods only', () => {
    const { result, truth } = assess('rf_reg_weighted', 'rf_reg_weighted.train.csv');
    assert.match(result.reason ?? '', /sample weights/);
    assert.ok(result.candidates.every((c) => c.verdict !== 'non-member'));
    assert.ok(auc(result.candidates.map((c) => c.score), truth)! > 0.9);
  });

  it('a candidate with a target that is not a number is unknown', () => {
    const forest = readFixtureForest(DIR, 'et_reg_full.joblib');
    const result = assessMembership(forest, [{ values: holdout[0].values, label: 'high' }]);
    assert.equal(result.candidates[0].verdict, 'unknown');
  });
});
