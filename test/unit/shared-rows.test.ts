/**
 * Rows that stand at their group's box share its arrays (sweep 10: a public XGBRegressor of 94,392
 * rows x 1,650 features, its subsampled trees read by the bootstrap estimate, ran out of 1 GB, then
 * of 4 GB: a copy of the box per row, a width per row and feature, a proven-values array and a
 * prediction walk per row). What is computed on such rows is computed once per shared box:
 *  - a target (`withTargets`), and the proven-values array of a box whose target is not proven;
 *  - box widths, weighted by the rows a box stands for, equal the widths of the rows listed one by one.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { withTargets } from '../../server/src/attacks/reconstruction/regression-box-labels';
import { boxTightness } from '../../server/src/attacks/reconstruction/boxes/tightness';
import type { ReconstructedRow, ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import type { FeatureAxes } from '../../server/src/attacks/reconstruction/feature-axes';

function result(rows: ReconstructedRow[]): ReconstructionResult {
  return { status: 'bounded', method: 'box-estimate', rows: rows.length, certifiedRows: rows.length, reconstructedRows: rows.length, seconds: 0, reconstruction: rows } as ReconstructionResult;
}

describe('rows that share their box', () => {
  it('get one target walk and one proven-values array per box', () => {
    const boxes = [0, 1, 2].map((k) => ({ values: [k, null, 2 * k], intervals: [[k - 1, k] as [number, number], null, [0, 9] as [number, number]] }));
    const rows: ReconstructedRow[] = [];
    for (let i = 0; i < 3000; i++) rows.push({ ...boxes[i % 3], label: 0, certified: true });
    let walks = 0;
    const out = withTargets(result(rows), (row) => (walks++, { estimate: (row.values[0] as number) * 10 }), () => 'estimated');
    assert.equal(walks, 3, 'one walk per shared box');
    assert.equal(out.certifiedWithoutLabel, 3000);
    out.reconstruction.forEach((row, i) => {
      assert.equal(row.label, (i % 3) * 10);
      assert.deepEqual(row.certifiedValues, [true, false, true]);
      assert.equal(row.certifiedValues, out.reconstruction[i % 3].certifiedValues, 'the same array for the same box');
    });
    // Rows with arrays of their own are each walked, as before.
    let own = 0;
    withTargets(result(rows.map((row) => ({ ...row, values: row.values.slice() }))), () => (own++, { estimate: 1 }), () => '');
    assert.equal(own, 3000);
  });

  it('a certified and an uncertified row of one box are answered each for itself', () => {
    const shared = { values: [1], intervals: [[0, 2] as [number, number]] };
    const asked: boolean[] = [];
    withTargets(result([{ ...shared, label: 0, certified: true }, { ...shared, label: 0, certified: false }, { ...shared, label: 0, certified: true }]), (row) => (asked.push(row.certified), row.certified ? { target: 5 } : { estimate: 4 }), () => '');
    assert.deepEqual(asked, [true, false]);
  });

  it('weighted box widths are the widths of the rows listed one by one', () => {
    const axes = { binary: new Uint8Array(2), intervals: Int32Array.from([5, 3]), thresholds: [Float64Array.from([1, 2, 3, 4]), Float64Array.from([10, 20])] } as unknown as FeatureAxes;
    const boxes = [
      { low: Int32Array.from([0, 0]), high: Int32Array.from([4, 2]) },
      { low: Int32Array.from([1, 1]), high: Int32Array.from([1, 1]) },
      { low: Int32Array.from([2, 0]), high: Int32Array.from([3, 1]) },
    ];
    const weights = [2, 9, 3];
    const listed = boxes.flatMap((box, b) => new Array(weights[b]).fill(box));
    const weighted = boxTightness(axes, boxes, 0, weights);
    const oneByOne = boxTightness(axes, listed, 0);
    assert.equal(weighted.rows, 14);
    assert.equal(weighted.medianWidth, oneByOne.medianWidth);
    assert.deepEqual(weighted.featureWidths, oneByOne.featureWidths);
    assert.notDeepEqual(boxTightness(axes, boxes, 0).featureWidths, oneByOne.featureWidths, 'the weights matter here');
  });
});
