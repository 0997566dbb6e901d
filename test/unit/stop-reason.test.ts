/**
 * Why a method stopped, in words (RunContext.stopReason): part of the budget kept for the targets
 * after a box method is not the whole budget running out (sweep 9: "the time budget of 15.0 s ran
 * out" after 8.6 s), and an outlier detector, which has no targets, keeps the whole budget.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { RunContext } from '../../server/src/attacks/reconstruction/context';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

function at<T>(now: number, run: () => T): T {
  const real = Date.now;
  Date.now = () => now;
  try {
    return run();
  } finally {
    Date.now = real;
  }
}

describe('why a method stopped', () => {
  it('its share of the budget, when part of it was kept for the targets; the budget, when all of it is spent', () => {
    const start = 1_000_000;
    const ctx = at(start, () => new RunContext({ budgetMs: 10_000 }));
    at(start, () => ctx.reserve(4_000));
    assert.equal(
      at(start + 6_500, () => ctx.stopReason()),
      'its share of the time budget of 10.0 s ran out (6.0 s; the rest was kept for the targets)',
    );
    assert.equal(at(start + 10_500, () => ctx.stopReason()), 'the time budget of 10.0 s ran out');
    const whole = at(start, () => new RunContext({ budgetMs: 10_000 }));
    assert.equal(at(start + 10_500, () => whole.stopReason()), 'the time budget of 10.0 s ran out');
  });

  it('reserves add up (at most half of what is left) and the reason names what each is kept for', () => {
    const start = 1_000_000;
    const ctx = at(start, () => new RunContext({ budgetMs: 10_000 }));
    at(start, () => ctx.reserve(2_000));
    at(start, () => ctx.reserve(1_000, "the rows' points"));
    assert.equal(ctx.deadline, start + 7_000);
    assert.equal(at(start + 7_500, () => ctx.stopReason()), "its share of the time budget of 10.0 s ran out (7.0 s; the rest was kept for the targets and the rows' points)");
    at(start, () => ctx.reserve(9_000, "the rows' points"));
    assert.equal(ctx.deadline, start + 5_000, 'half of the budget left at most');
  });

  it('an outlier detector keeps the whole budget: nothing is reserved for targets it does not have', async () => {
    const reserve = RunContext.prototype.reserve;
    const reserved: string[] = [];
    RunContext.prototype.reserve = function (this: RunContext, ms: number, purpose?: string) {
      reserved.push(purpose ?? 'the targets');
      return reserve.call(this, ms, purpose);
    };
    try {
      for (const file of ['iso_forest.joblib', 'iso_forest_all.joblib']) {
        const report = await lintFile(join(FIXTURES, 'estimators', file), { keepForest: true });
        await reconstruct(report.forest!, { budgetMs: 5_000 });
      }
      // Time for its rows' points after the walks, none for targets.
      assert.ok(!reserved.includes('the targets'), reserved.join(', '));
      // A regression forest does keep some for its targets.
      const regression = await lintFile(join(FIXTURES, 'estimators', 'rf_reg.joblib'), { keepForest: true });
      await reconstruct(regression.forest!, { budgetMs: 5_000 });
      assert.ok(reserved.includes('the targets'));
    } finally {
      RunContext.prototype.reserve = reserve;
    }
  });
});
