/**
 * A classifier read as row counts (gradient boosting): its class trees' leaves certify rows of
 * their class without any walked row (counted-class-labels.ts). When the budget ran out after the
 * integer solve the reconstruction held no row, and those claims were lost: a public
 * GradientBoostingClassifier read 0 of 160 certified (exit 0) in one run and 160 of 160 (an error)
 * in the next (sweep 15). With no row given, every leaf's rows of its class are rows of their own.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { labelCountedClasses } from '../../server/src/attacks/reconstruction/counted-class-labels';
import { checkCertifiedRows } from '../../server/src/evaluate/certified-check';
import { lintFile } from '../../server/src/linter/linter';
import { readTrainingRows } from '../support/reconstruction-truth';
import { FIXTURES } from '../support/paths';

describe("a counted classifier's leaf claims need no walked row", () => {
  for (const name of ['gb_clf', 'gb_clf_multi']) {
    it(`${name} (scikit-learn): an empty reconstruction gets every leaf's rows, each held by a distinct true row`, async () => {
      const report = await lintFile(join(FIXTURES, 'estimators', `${name}.joblib`), { keepForest: true });
      const forest = report.forest!;
      assert.ok(forest.countedClasses);
      const truth = readTrainingRows(join(FIXTURES, 'estimators', `${name}.train.csv`)).rows;
      const N = forest.training.rows!;
      assert.equal(N, truth.length);
      // As the aggregated method answers when its time ran out after the solve: no row at all.
      const ran = await reconstruct(forest, { budgetMs: 5_000 });
      const empty = { ...ran, status: 'timeout' as const, certifiedRows: 0, reconstruction: [], reconstructedRows: 0 };
      const labelled = labelCountedClasses(forest, forest.countedClasses, empty, (row) => row.certified);
      // Every class tree counts its class's rows in every leaf: all N rows, each its leaf's region.
      assert.equal(labelled.certifiedRows, N);
      assert.equal(labelled.reconstruction.length, N);
      assert.equal(labelled.reconstructedRows, N);
      assert.ok(labelled.reconstruction.every((row) => row.certified && row.intervals));
      const check = checkCertifiedRows(forest, labelled.reconstruction, truth.map((row) => ({ values: row.values, label: row.label })));
      assert.equal(check?.held, N, JSON.stringify(check));
      // Given rows already, it adds none past N.
      const again = labelCountedClasses(forest, forest.countedClasses, labelled, (row) => row.certified);
      assert.equal(again.reconstruction.length, N);
    });
  }
});
