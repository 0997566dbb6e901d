/**
 * Classes of a classifier read as row counts (counted-class-labels.ts), in words: binary gradient
 * boosting and AdaBoost have one tree a round, which counts every class, so the reason names that
 * tree; multi-class boosting names each class's tree (sweep 9: a binary model's reason spoke of
 * "every other class's tree"); a part that counts no row is not said (sweep 10).
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

async function reasonOf(file: string): Promise<string> {
  const report = await lintFile(join(FIXTURES, 'estimators', file), { keepForest: true });
  return (await reconstruct(report.forest!, { budgetMs: 5_000 })).reason ?? '';
}

describe("a counted classifier's classes in words", () => {
  it('one tree a round (binary gradient boosting): that tree, never "every other class\'s tree"', async () => {
    const reason = await reasonOf('gb_clf.joblib');
    assert.match(reason, /a leaf of tree 0 \(which counts every class\) (holding rows of that class only|as its box)/);
    assert.doesNotMatch(reason, /class's tree/);
    // A part counting no row is left out (sweep 10: "0 rows certified with their class ... 241 more with their class").
    assert.doesNotMatch(reason, /(^|; )0 rows certified|(^|; )0 rows' classes are estimates/);
  });

  it("one tree per class (multi-class gradient boosting): each class's tree", async () => {
    const reason = await reasonOf('gb_clf_multi.joblib');
    assert.match(reason, /every other class's tree holding none of theirs \(trees 0, 1, 2\)/);
  });
});
