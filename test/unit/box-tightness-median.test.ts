/**
 * The medians of box widths (boxes/tightness.ts) kept sparse: only the widths below 1 are stored
 * and the whole-axis ones counted (a wide model's dense array of every box and feature ran the
 * worker out of memory, sweep 16). Checked against the dense weighted median of every width, on
 * random boxes with ties, weights 0 and boxes that leave every feature whole.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { weightedMedian, widthSummary } from '../../server/src/attacks/reconstruction/boxes/tightness';
import { seededRandom } from '../../server/src/evaluate/seeded-random';
import type { FeatureAxes } from '../../server/src/attacks/reconstruction/feature-axes';

/** The weighted median of the expanded list (the mean of its two middle values when even); 1 when empty. */
function denseMedian(values: number[], weights: number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  if (values.length === 0 || total <= 0) return 1;
  const order = values.map((_, i) => i).sort((a, b) => values[a] - values[b]);
  const at = (position: number): number => {
    let seen = 0;
    for (const i of order) {
      seen += weights[i];
      if (seen > position) return values[i];
    }
    return values[order[order.length - 1]];
  };
  return (at(Math.floor((total - 1) / 2)) + at(Math.floor(total / 2))) / 2;
}

describe('box width medians', () => {
  it('equal the dense weighted medians over every box and feature, overall and per feature', () => {
    const random = seededRandom(16);
    for (let trial = 0; trial < 500; trial++) {
      const features = 1 + Math.floor(random() * 5);
      const count = Math.floor(random() * 12);
      const axes = { binary: new Uint8Array(features), thresholds: Array.from({ length: features }, () => [0.5]) } as unknown as FeatureAxes;
      const widths = Array.from({ length: count }, () => Array.from({ length: features }, () => (random() < 0.4 ? 1 : Math.floor(random() * 5) / 5)));
      const unit = random() < 0.5;
      const weights = Array.from({ length: count }, () => (unit ? 1 : Math.floor(random() * 4)));
      const summary = widthSummary(axes, count, (b, f) => widths[b][f], 0, unit ? undefined : (b) => weights[b]);
      const all: number[] = [];
      const allWeights: number[] = [];
      for (let f = 0; f < features; f++) {
        for (let b = 0; b < count; b++) {
          all.push(widths[b][f]);
          allWeights.push(weights[b]);
        }
        assert.equal(summary.featureWidths[f].medianWidth, denseMedian(widths.map((w) => w[f]), weights), `trial ${trial}, feature ${f}`);
      }
      assert.equal(summary.medianWidth, denseMedian(all, allWeights), `trial ${trial}`);
      assert.equal(summary.rows, weights.reduce((a, b) => a + b, 0));
    }
  });
  it('the unweighted median by selection equals the sorted one', () => {
    const random = seededRandom(17);
    for (let trial = 0; trial < 500; trial++) {
      const n = 1 + Math.floor(random() * 60);
      const values = Float64Array.from({ length: n }, () => Math.floor(random() * 7) / 6);
      const ones = new Float64Array(n).fill(1);
      assert.equal(weightedMedian(values, ones), denseMedian([...values], [...ones]), `trial ${trial}`);
    }
  });
});
