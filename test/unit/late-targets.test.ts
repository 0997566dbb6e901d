/**
 * Regression targets after a box method walk every tree for every row: past the budget they stop,
 * and the rows left carry a stated stand-in (sweep 8: a public 950-tree XGBoost regressor on
 * 168,864 rows spent 40 s on targets after a 5 s budget, and its report said 4.82 s).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { labelRegressionBoxes, withTargets } from '../../server/src/attacks/reconstruction/regression-box-labels';
import type { ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import { completeForest } from '../../server/src/forest/complete';
import { readModel } from '../../server/src/formats';
import { FIXTURES } from '../support/paths';

function forestOf(file: string) {
  const read = readModel(fs.readFileSync(file), file);
  if (read.kind !== 'model') throw new Error(read.kind);
  const done = completeForest(read.forest);
  if (!done.ok) throw new Error(done.problem);
  return done.forest;
}

describe('targets past the budget', () => {
  it('stop at the first check past it: the rows left carry the stand-in, the status is timeout, the reason says so', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ values: [i], label: '', certified: i % 2 === 0, intervals: [[i - 1, i] as [number, number]] }));
    const result = { status: 'bounded', certifiedRows: 500, reconstructedRows: 1000, reconstruction: rows } as unknown as ReconstructionResult;
    let walked = 0;
    let checks = 0;
    const labelled = withTargets(
      result,
      () => {
        walked++;
        return { estimate: 7 };
      },
      () => 'targets estimated',
      { stop: () => ++checks > 1, standIn: () => ({ value: -1, words: 'the stand-in' }) },
    );
    // Checked every 256 rows: the first block is walked, the rest is not.
    assert.equal(walked, 256);
    assert.equal(labelled.status, 'timeout');
    assert.deepEqual(
      labelled.reconstruction.map((r) => r.label),
      rows.map((_, i) => (i < 256 ? 7 : -1)),
    );
    assert.match(labelled.reason ?? '', /the time budget ran out before the targets of 744 rows were computed: they carry the stand-in/);
    // A certified box keeps its proof without a target, walked or not.
    assert.equal(labelled.certifiedRows, 0);
    assert.equal(labelled.certifiedWithoutLabel, 500);
  });

  it('asks for the stand-in only once the budget has run out (a probe of a large booster is not free)', () => {
    const rows = Array.from({ length: 600 }, (_, i) => ({ values: [i], label: '', certified: false }));
    const result = { status: 'bounded', certifiedRows: 0, reconstructedRows: 600, reconstruction: rows } as unknown as ReconstructionResult;
    let asked = 0;
    const standIn = () => {
      asked++;
      return { value: -1, words: 'the stand-in' };
    };
    const inTime = withTargets(result, () => ({ estimate: 7 }), () => '', { stop: () => false, standIn });
    assert.equal(asked, 0);
    assert.equal(inTime.status, 'bounded');
    let checks = 0;
    withTargets(result, () => ({ estimate: 7 }), () => '', { stop: () => ++checks > 1, standIn });
    // Once for the 344 late rows, not once per row.
    assert.equal(asked, 1);
  });

  it("a regression forest's rows carry the root's value when the budget is already gone", async () => {
    const forest = forestOf(path.join(FIXTURES, 'estimators', 'et_reg.joblib'));
    const result = await reconstruct(forest, { budgetMs: 20_000 });
    assert.ok(result.reconstruction.length > 0);
    const root = forest.trees[0].targetMean![0];
    const late = labelRegressionBoxes(forest, { ...result, stats: { ...result.stats, anchorTree: result.stats.anchorTree ?? 0 } }, () => true);
    assert.equal(late.status, 'timeout');
    assert.ok(late.reconstruction.every((r) => r.label === root));
    const onTime = labelRegressionBoxes(forest, { ...result, stats: { ...result.stats, anchorTree: result.stats.anchorTree ?? 0 } }, () => false);
    assert.ok(onTime.reconstruction.some((r) => r.label !== root), 'on time, the targets are the forest\'s predictions');
  });
});
