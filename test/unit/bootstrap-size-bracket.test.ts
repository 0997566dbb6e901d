/**
 * Bootstrap draws of a few rows (max_samples=50 of 442): several training-set sizes replay every
 * tree's stored seed, because numpy's bounded integers draw the same indices for neighbouring N.
 * The estimate of N from the distinct in-bag counts must stay among them (it said "about 474"
 * where the seeds allow 436 to 446 only). Fixture: estimators/et_reg_boot_ms50, made by scikit-learn.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { checkReplay } from '../../server/src/attacks/bootstrap-replay';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

it('an estimated N stays among the sizes the stored seeds replay', async () => {
  const report = await lintFile(join(FIXTURES, 'estimators', 'et_reg_boot_ms50.joblib'), { keepForest: true });
  const forest = report.forest!;
  const replay = checkReplay(forest, Date.now() + 30_000);
  assert.equal(replay.status, 'replayed');
  if (replay.status !== 'replayed') return;
  assert.ok(replay.candidates! > 1 && replay.rowsAtMost !== undefined, JSON.stringify(replay));
  // The true 442 rows are among them.
  assert.ok(replay.rows <= 442 && 442 <= replay.rowsAtMost!);
  const result = await reconstruct(forest, { budgetMs: 5_000 });
  assert.equal(result.rowsKind, 'estimate');
  assert.ok(result.rows! >= replay.rows && result.rows! <= replay.rowsAtMost!, `N ${result.rows}, seeds allow ${replay.rows}-${replay.rowsAtMost}`);
  assert.match(result.reason ?? '', new RegExp(`among the ${replay.candidates} sizes from ${replay.rows} to ${replay.rowsAtMost}`));
});
