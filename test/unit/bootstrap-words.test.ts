/**
 * What a regression estimate says it read (sweep 10): a RandomForestRegressor whose stored seeds
 * replay every tree's draws was told "bagging gives no protection" by replayable-bootstrap while
 * its reconstruction certified 65% and did not say the seeds were not used; an AdaBoostRegressor
 * was a "regression forest trained with bootstrap".
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

async function forestOf(name: string): Promise<Forest> {
  const report = await lintFile(join(FIXTURES, 'estimators', name), { keepForest: true });
  assert.ok(report.forest);
  return report.forest;
}

describe('the regression estimate says what it read', () => {
  it('a forest whose seeds replay says the estimate does not use them; without seeds it does not', async () => {
    const forest = await forestOf('rf_reg.joblib');
    assert.ok(forest.training.bootstrap && forest.trees.every((t) => t.training?.seed !== undefined));
    const seeded = await reconstruct(forest, { budgetMs: 3_000 });
    assert.match(seeded.reason ?? '', /regression forest trained with bootstrap; its stored seeds replay every tree's draws, which this estimate does not use/);
    const unseeded: Forest = { ...forest, trees: forest.trees.map((t) => ({ ...t, training: { ...t.training, seed: undefined } })) };
    const plain = await reconstruct(unseeded, { budgetMs: 3_000 });
    assert.match(plain.reason ?? '', /regression forest trained with bootstrap/);
    assert.doesNotMatch(plain.reason ?? '', /stored seeds/);
  });

  it('AdaBoost.R2 is named for what it is', async () => {
    const result = await reconstruct(await forestOf('ada_reg.joblib'), { budgetMs: 3_000 });
    assert.match(result.reason ?? '', /AdaBoost\.R2's trees, each grown on a weighted resample of the rows/);
    assert.doesNotMatch(result.reason ?? '', /forest trained with bootstrap/);
  });
});
