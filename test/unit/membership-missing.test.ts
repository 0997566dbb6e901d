/**
 * Candidates with missing values (issue 14: membership for every model the engine reads, models
 * trained with missing values among them):
 *  - a missing value follows each split's direction for it: our leaf of every training row of
 *    XGBoost models trained with 30% of Glucose missing equals XGBoost's own `pred_leaf`
 *    (test/fixtures/xgboost/missing_leaves.py wrote it with python3-xgboost 1.7.4);
 *  - without a stated direction it takes the child with more rows (scikit-learn 1.3+), ties right;
 *  - a candidate file with empty cells is scored, not refused, and no candidate missing a value of
 *    a feature the model splits on gets a proven verdict, while the others keep theirs;
 *  - a value a Pipeline leaves missing reaches the model as one.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Forest, Tree } from '../../server/src/forest/schema';
import { leafOf, missingGoesLeft } from '../../server/src/forest/structure';
import { lintFile } from '../../server/src/linter/linter';
import { alignCandidates, readCandidates } from '../../server/src/membership/candidates';
import { assessMembership } from '../../server/src/membership/engine';
import type { Candidate } from '../../server/src/membership/types';
import { FIXTURES } from '../support/paths';

async function readForest(path: string): Promise<Forest> {
  const report = await lintFile(path, { keepForest: true });
  assert.ok(report.forest, `${path}: ${report.findings.map((f) => f.message).join('; ')}`);
  return report.forest;
}

/** The file's candidates, lined up with the model (a `cell_member` truth column set aside). */
async function candidatesOf(forest: Forest, csv: string, label: string, members?: string): Promise<Candidate[]> {
  const file = await readCandidates(csv, label, members);
  const cell = file.data.header.indexOf('cell_member');
  const drop = (row: string[]) => row.filter((_, i) => i !== cell);
  const aligned = alignCandidates({ ...file, data: { ...file.data, header: drop(file.data.header), rows: file.data.rows.map(drop) } }, forest);
  assert.ok(aligned.ok, aligned.ok ? '' : aligned.problem);
  return aligned.candidates;
}

describe('membership: missing values', () => {
  for (const name of ['bin_missing', 'bin_missing_right']) {
    it(`${name}: every training row reaches XGBoost's own leaf in every tree, missing Glucose included`, async () => {
      const dir = join(FIXTURES, 'xgboost');
      const forest = await readForest(join(dir, `${name}.json`));
      const candidates = await candidatesOf(forest, join(dir, `${name}.train.csv`), 'label');
      const truth: number[][] = JSON.parse(readFileSync(join(dir, `${name}.leaves.json`), 'utf8')).leaves;
      assert.equal(candidates.length, truth.length);
      const glucose = forest.features.findIndex((f) => f.name === 'Glucose');
      let missingAtSplit = 0;
      candidates.forEach((candidate, r) => {
        forest.trees.forEach((tree, t) => {
          assert.equal(leafOf(tree, candidate.values, forest.splitRule), truth[r][t], `row ${r + 1}, tree ${t}`);
        });
        if (Number.isNaN(candidate.values[glucose])) missingAtSplit++;
      });
      // The rows missing Glucose are walked (30% of them), so the check covers the default directions.
      assert.ok(missingAtSplit >= 20, `${missingAtSplit} rows miss Glucose`);
    });
  }

  it('bin_missing: a default direction to the left is followed (a missing value is not simply "not <= threshold")', async () => {
    const forest = await readForest(join(FIXTURES, 'xgboost', 'bin_missing.json'));
    const glucose = forest.features.findIndex((f) => f.name === 'Glucose');
    const lefts = forest.trees.flatMap((tree) => Array.from(tree.left, (l, n) => (l !== -1 && tree.feature[n] === glucose && tree.defaultLeft?.[n] ? n : -1)).filter((n) => n >= 0));
    assert.ok(lefts.length > 0, 'some Glucose split sends missing values left');
  });

  it('without a stated direction a missing value takes the child with more rows, ties to the right', () => {
    // Node 0 splits x0 at 5: left leaf 1 (3 rows), right leaf 2 (7 rows); classWeights one class.
    const tree = (leftRows: number, rightRows: number, distinct?: number[]): Tree => ({
      left: [1, -1, -1],
      right: [2, -1, -1],
      feature: [0, -2, -2],
      threshold: [5, -2, -2],
      classWeights: [leftRows + rightRows, leftRows, rightRows],
      ...(distinct ? { distinctRows: distinct } : {}),
    }) as unknown as Tree;
    assert.equal(missingGoesLeft(tree(3, 7), 0), false);
    assert.equal(leafOf(tree(3, 7), [NaN], 'less-or-equal'), 2);
    assert.equal(leafOf(tree(7, 3), [NaN], 'less-or-equal'), 1);
    assert.equal(leafOf(tree(5, 5), [NaN], 'less-or-equal'), 2, 'a tie goes right');
    // Distinct rows (n_node_samples) decide over the weights when the tree keeps them.
    assert.equal(leafOf(tree(7, 3, [10, 2, 8]), [NaN], 'less-or-equal'), 2);
    // A value is compared as always.
    assert.equal(leafOf(tree(3, 7), [4], 'less-or-equal'), 1);
  });

  it('HistGradientBoosting trained with missing values: its training file is scored, and its rows missing a split feature are never proven', async () => {
    const dir = join(FIXTURES, 'estimators');
    const forest = await readForest(join(dir, 'hgb_clf_missing_mixed.joblib'));
    const header = readFileSync(join(dir, 'hgb_clf_missing_mixed.train.csv'), 'utf8').split('\n')[0].split(',');
    const candidates = await candidatesOf(forest, join(dir, 'hgb_clf_missing_mixed.train.csv'), header[header.length - 1]);
    const missing = candidates.filter((c) => c.values.some(Number.isNaN)).length;
    assert.ok(missing > 0);
    const result = assessMembership(forest, candidates);
    assert.equal(result.candidates.length, candidates.length);
    assert.equal(result.missingValues, missing);
    result.candidates.forEach((v, i) => {
      assert.ok(v.score >= 0 && v.score <= 1, `candidate ${i + 1}: score ${v.score}`);
      if (candidates[i].values.some(Number.isNaN)) assert.ok(v.verdict !== 'member' && v.verdict !== 'non-member', `candidate ${i + 1} is missing a value but was proven ${v.verdict}`);
    });
  });

  it('a forest with row counts: a candidate missing a split feature loses its proof, the others keep theirs', async () => {
    const dir = join(FIXTURES, 'membership');
    const forest = await readForest(join(dir, 'pima_rows_t10.joblib'));
    const all = await candidatesOf(forest, join(dir, 'pima_rows_t10.candidates.csv'), 'label', 'member');
    const before = assessMembership(forest, all);
    const proven = before.candidates.flatMap((v, i) => (v.verdict === 'non-member' ? [i] : []));
    assert.ok(proven.length >= 10, `${proven.length} proven non-members`);
    const split = forest.trees[0].feature[0];
    const blanked = new Set(proven.slice(0, 5));
    const edited = all.map((c, i) => (blanked.has(i) ? { ...c, values: c.values.map((v, f) => (f === split ? NaN : v)) } : c));
    const after = assessMembership(forest, edited);
    assert.equal(after.missingValues, blanked.size);
    after.candidates.forEach((v, i) => {
      if (blanked.has(i)) assert.ok(v.verdict === 'likely-member' || v.verdict === 'likely-non-member', `candidate ${i + 1}: ${v.verdict}`);
      else if (before.candidates[i].verdict === 'non-member') assert.equal(v.verdict, 'non-member', `candidate ${i + 1} kept its proof`);
    });
  });
});
