/**
 * The cell cap of the aggregated method (aggregated.ts) holds however the enumeration's slices fall:
 * an enumeration that crosses the cap and finishes within one slice is past the cap all the same, so
 * the caller answers with its fallback method instead of sending too big a system to the solver (a
 * public 7-class XGBoost model timed out with 0 certified in one run in thirteen).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { reconstructAggregated } from '../../server/src/attacks/reconstruction/aggregated';
import { RunContext } from '../../server/src/attacks/reconstruction/context';
import { buildLeafTable } from '../../server/src/attacks/reconstruction/leaves';
import { FIXTURES } from '../support/paths';
import { readFixtureForest } from '../support/model-files';

describe('aggregated: the cell cap', () => {
  it('a single tree, whose whole enumeration fits in one slice, is still past a cap below its cells', async () => {
    // A DecisionTreeClassifier on 200 Pima rows (its leaves are its cells).
    const forest = readFixtureForest(path.join(FIXTURES, 'class-weights'), 'dt_int_sample_weight.joblib');
    const built = buildLeafTable(forest);
    assert.ok(built.ok);
    const far = Date.now() + 60_000;
    const uncapped = await reconstructAggregated(forest, built.table, new RunContext({ budgetMs: 60_000 }), () => undefined, { cells: 1e9, deadline: far });
    assert.ok(!('tooManyCells' in uncapped), 'the whole enumeration runs under a cap it does not reach');
    const capped = await reconstructAggregated(forest, built.table, new RunContext({ budgetMs: 60_000 }), () => undefined, { cells: 3, deadline: far });
    assert.ok('tooManyCells' in capped, `past a cap of 3 cells, answered: ${'status' in capped ? capped.status : ''}`);
    assert.match(capped.tooManyCells, /more than 3 cells/);
  });
});
