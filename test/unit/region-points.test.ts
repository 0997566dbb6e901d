/**
 * A point inside a leaf's region (region-points.ts), for rows that a leaf proves to lie there:
 * the midpoint, or toward an open side the finite end, as feature-axes.ts's representative. Before
 * stop 40 an open lower end gave the upper end less 1, whatever the feature's scale (soundness
 * sweep 15: an iris petal width of -0.2).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { intoRegion } from '../../server/src/attacks/reconstruction/region-points';

describe('a point inside a region', () => {
  it('XGBoost, [lo, hi): the finite end, the float32 just below an excluded upper end', () => {
    const [below, above, both] = intoRegion([null, null, null], [[-Infinity, 0.75], [0.3, Infinity], [0.1, 0.5]], true);
    assert.ok(below! < 0.75 && below! > 0.7499, `${below}`);
    assert.equal(above, Math.fround(0.3));
    assert.ok(Math.abs(both! - 0.3) < 1e-6);
  });

  it('scikit-learn, (lo, hi]: the upper end itself, the float32 just above an excluded lower end', () => {
    const [below, above] = intoRegion([null, null], [[-Infinity, 0.75], [0.3, Infinity]], false);
    assert.equal(below, 0.75);
    assert.ok(above! > 0.3 && above! < 0.3001, `${above}`);
  });

  it('a value already inside stays; an unbounded feature keeps its value', () => {
    assert.deepEqual(intoRegion([0.2, 7], [[0.1, 0.5], null], false), [0.2, 7]);
    assert.deepEqual(intoRegion([null], [[-Infinity, Infinity]], true), [null]);
  });
});
