/**
 * The point standing for a numeric value the model proves only as an interval (point-choice.ts):
 * the centre of the densest window of thresholds inside the interval, one TimberStrike tolerance
 * (0.319 of the thresholds' standard deviation) either side.
 *  - on hand-made axes: the cluster of thresholds wins over the midpoint and over the finite end of
 *    a half-open interval; no threshold inside, or one alone, gives `representative`'s point; the
 *    whole axis gives null; integer-valued features get an integer; every point lies inside its
 *    interval after scikit-learn's float32 cast (and XGBoost's `<` rule);
 *  - on the real scikit-learn forests of test/fixtures/row-boxes and test/fixtures/numeric, each
 *    true row's own cell (the intersection of its leaves) stood for by this point is scored with
 *    TimberStrike's RA against the true row, next to the earlier rule (`representative`): the
 *    point must never lose more than a row's worth on any model, and must gain over all of them.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { featureAxes, representative, type FeatureAxes } from '../../server/src/attacks/reconstruction/feature-axes';
import { likeliestPoint } from '../../server/src/attacks/reconstruction/point-choice';
import { widthOnAxis } from '../../server/src/attacks/reconstruction/boxes/tightness';
import { NEGATIVE_INFINITY_THRESHOLD, MISSING_ONLY_THRESHOLD, splitsOnMissingOnly } from '../../server/src/forest/missing-split';
import { intervalFeatures, reconstructionCsv } from '../../server/src/report/reconstruction-csv';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { completeForest } from '../../server/src/forest/complete';
import { readModel } from '../../server/src/formats';
import { TOLERANCE_STD } from '../../server/src/evaluate/numeric-metrics';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { cellBox } from '../../server/src/membership/cell';
import { readFloat32Rows, type NumericFixtureEntry } from '../support/numeric-truth';
import { FIXTURES } from '../support/paths';

function axesOf(thresholds: number[][], options: { integral?: number[]; splitRule?: 'less-or-equal' | 'less' } = {}): FeatureAxes {
  return {
    binary: new Uint8Array(thresholds.length),
    intervals: Int32Array.from(thresholds, (t) => t.length + 1),
    thresholds: thresholds.map((t) => Float64Array.from([...t].sort((a, b) => a - b))),
    integral: Uint8Array.from(thresholds, (_, f) => (options.integral?.includes(f) ? 1 : 0)),
    splitRule: options.splitRule ?? 'less-or-equal',
  };
}

// A cluster at 50-52 among thresholds spread over 1-150: std about 45, window +-14.
const spread = [1, 2, 3, 50, 50.5, 51, 51.5, 52, 100, 150];

describe('likeliestPoint on hand-made axes', () => {
  it('takes the densest window of thresholds inside a closed interval, not its midpoint', () => {
    const axes = axesOf([spread]);
    const point = likeliestPoint(axes, 0, 0, 200)!;
    assert.ok(point > 49 && point < 53, `point ${point}`);
    assert.equal(representative(0, 200, false), 100);
  });

  it('looks past the finite end of a half-open interval', () => {
    const axes = axesOf([spread]);
    const above = likeliestPoint(axes, 0, 40, Infinity)!;
    assert.ok(above > 49 && above < 53, `point ${above}`);
    const below = likeliestPoint(axes, 0, -Infinity, 120)!;
    assert.ok(below > 49 && below < 53, `point ${below}`);
  });

  it("falls back to representative's point where no threshold, or a single one, lies inside", () => {
    const axes = axesOf([spread]);
    assert.equal(likeliestPoint(axes, 0, 52, 100), representative(52, 100, false));
    assert.equal(likeliestPoint(axes, 0, 150, Infinity), representative(150, Infinity, false));
    const lone = axesOf([[0.25]]);
    assert.equal(likeliestPoint(lone, 0, -Infinity, 0.25), representative(-Infinity, 0.25, false));
  });

  it('gives a value no interval bounds the densest window of all its thresholds, and nothing when no tree splits it', () => {
    const point = likeliestPoint(axesOf([spread]), 0, -Infinity, Infinity)!;
    assert.ok(point > 49 && point < 53, `point ${point}`);
    assert.equal(likeliestPoint(axesOf([[]]), 0, -Infinity, Infinity), null);
    // One threshold: no spread to make a window of; training values lie on both sides of it.
    assert.equal(likeliestPoint(axesOf([[0.25]]), 0, -Infinity, Infinity), 0.25);
  });

  it('gives an integer-valued feature an integer inside its interval', () => {
    const axes = axesOf([[0.5, 1.5, 20.5, 21.5, 22.5, 23.5, 60.5, 90.5]], { integral: [0] });
    const point = likeliestPoint(axes, 0, 1.5, 90.5)!;
    assert.ok(Number.isInteger(point), `point ${point}`);
    assert.ok(point >= 21 && point <= 23, `point ${point}`);
  });

  it("keeps every point inside its interval after the model's float32 comparison, under both rules", () => {
    const cuts = [0.1, 0.1000001, 0.1000002, 0.1000003, 0.3, 0.7];
    for (const splitRule of ['less-or-equal', 'less'] as const) {
      const axes = axesOf([cuts], { splitRule });
      for (const [lower, upper] of [[0.1, 0.3], [-Infinity, 0.1000003], [0.1000001, Infinity], [0.1, 0.1000003]] as const) {
        const point = likeliestPoint(axes, 0, lower, upper)!;
        const cast = Math.fround(point);
        const inside = splitRule === 'less' ? cast >= Math.fround(lower) && cast < Math.fround(upper) : cast > lower && cast <= upper;
        assert.ok(inside, `${splitRule}: ${point} (float32 ${cast}) outside (${lower}, ${upper})`);
      }
    }
  });
});

/** The rule as first written: a scan of every window inside the interval (the reference for the table). */
function scanned(axes: FeatureAxes, f: number, lower: number, upper: number): number | null {
  // Null on the whole axis; then only the thresholds give a point.
  const fallback = representative(lower, upper, axes.integral[f] === 1, axes.splitRule);
  const cuts = axes.thresholds[f];
  const mean = cuts.reduce((a, b) => a + b, 0) / cuts.length;
  const width = 2 * TOLERANCE_STD * Math.sqrt(cuts.reduce((a, b) => a + (b - mean) ** 2, 0) / cuts.length);
  const inside = [...cuts].filter((c) => c > lower && c < upper);
  if (inside.length === 0 || !(width > 0)) return fallback ?? (inside.length > 0 ? inside[(inside.length - 1) >> 1] : null);
  let count = 0;
  let centre: number | null = fallback;
  for (let i = 0; i < inside.length; i++) {
    let j = i;
    while (j < inside.length && inside[j] <= inside[i] + width) j++;
    if (j - i > count) {
      count = j - i;
      centre = (inside[i] + inside[j - 1]) / 2;
    }
  }
  if (centre === null) return null;
  return Math.fround(centre) > lower && Math.fround(centre) <= upper ? Math.fround(centre) : centre;
}

describe('likeliestPoint against a scan of every window', () => {
  it('picks the same point on 3,000 random threshold sets and intervals', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let trial = 0; trial < 3000; trial++) {
      const n = 1 + Math.floor(random() * (trial % 3 === 0 ? 400 : 40));
      // Values on a coarse grid, spread evenly (equal windows: ties) or in two clusters.
      const clustered = trial % 2 === 0;
      const cuts = [...new Set(Array.from({ length: n }, () => Math.round((clustered ? (random() < 0.5 ? random() * 10 : 40 + random() * 3) : random() * 100) * 2) / 2 + 0.25))];
      const axes = axesOf([cuts]);
      const ends = [-Infinity, Infinity, ...cuts, random() * 50, random() * 50].filter(() => random() < 0.3);
      const lower = ends.length ? Math.min(...ends.slice(0, 1)) : -Infinity;
      const upper = ends.length > 1 ? Math.max(lower, ends[1]) : Infinity;
      if (lower >= upper) continue;
      const expected = scanned(axes, 0, lower, upper);
      const actual = likeliestPoint(axes, 0, lower, upper);
      if (expected === null || actual === null) assert.equal(actual, expected);
      else assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected)), `trial ${trial}: (${lower}, ${upper}] over ${cuts.length} thresholds: ${actual} vs ${expected}`);
    }
  });
});

/** RA of every true row's own cell, each feature stood for by `point`, against the row itself. */
function cellAccuracy(forest: Forest, rows: { values: number[] }[], std: number[], point: (f: number, lower: number, upper: number) => number | null): number {
  const features = forest.features.length;
  let within = 0;
  for (const row of rows) {
    const { lower, upper } = cellBox(forest, row.values);
    for (let f = 0; f < features; f++) {
      const v = point(f, lower[f], upper[f]);
      if (v !== null && Math.abs(v - row.values[f]) <= TOLERANCE_STD * std[f]) within++;
    }
  }
  return within / (rows.length * features);
}

describe('likeliestPoint on real scikit-learn forests, against their true rows', () => {
  it('scores each true row\'s own cell at least as well as the midpoint/finite-end rule, and better overall', async () => {
    let gained = 0;
    let models = 0;
    for (const dir of ['row-boxes', 'numeric']) {
      const manifest: NumericFixtureEntry[] = JSON.parse(readFileSync(join(FIXTURES, dir, 'manifest.json'), 'utf8'));
      for (const entry of manifest) {
        const report = await lintFile(join(FIXTURES, dir, entry.model), { keepForest: true });
        const forest = report.forest;
        assert.ok(forest, `${entry.name}: read`);
        const built = featureAxes(forest);
        assert.ok(built.ok, `${entry.name}: axes`);
        const axes = built.axes;
        if ((forest.splitRule ?? 'less-or-equal') !== 'less-or-equal') continue;
        const rows = readFloat32Rows(join(FIXTURES, dir, entry.truth));
        const std = entry.population.std;
        const now = cellAccuracy(forest, rows, std, (f, lo, hi) => likeliestPoint(axes, f, lo, hi));
        const before = cellAccuracy(forest, rows, std, (f, lo, hi) => representative(lo, hi, axes.integral[f] === 1, axes.splitRule));
        // Never worse by more than one row's worth of features on a model.
        assert.ok(now >= before - 1 / rows.length, `${entry.name}: ${now} against ${before}`);
        gained += now - before;
        if (process.env.MPL_VERBOSE) console.log(entry.name, before.toFixed(3), now.toFixed(3));
        models++;
      }
    }
    assert.ok(models >= 8, `${models} models`);
    assert.ok(gained > 0.01, `summed gain ${gained}`);
  });
});

describe('a split on missing values alone (histogram boosting, at the largest float32)', () => {
  // Such a split is stored at +inf and read at MISSING_ONLY_THRESHOLD: no value is cut there.
  const withMissing = [...spread, MISSING_ONLY_THRESHOLD];

  it('is left out of the windows: the same points as without it, and a value up to it is open above', () => {
    const plain = axesOf([spread]);
    const axes = axesOf([withMissing]);
    assert.equal(likeliestPoint(axes, 0, 0, 200), likeliestPoint(plain, 0, 0, 200));
    assert.equal(likeliestPoint(axes, 0, -Infinity, Infinity), likeliestPoint(plain, 0, -Infinity, Infinity));
    assert.equal(likeliestPoint(axes, 0, 40, MISSING_ONLY_THRESHOLD), likeliestPoint(plain, 0, 40, Infinity));
    // Split on missingness alone: no value is bounded, no point (it was 3.4e38).
    const alone = axesOf([[MISSING_ONLY_THRESHOLD]]);
    assert.equal(likeliestPoint(alone, 0, -Infinity, MISSING_ONLY_THRESHOLD), null);
    assert.equal(likeliestPoint(alone, 0, -Infinity, Infinity), null);
  });

  it('is left out of the axis box widths are measured on; a box of missing values is 0 wide', () => {
    assert.equal(widthOnAxis(withMissing, 40, 60), widthOnAxis(spread, 40, 60));
    assert.ok(widthOnAxis(withMissing, 40, 60) > 0.05, 'a real share of the axis, not 1e-38');
    assert.ok(Math.abs(widthOnAxis(withMissing, -Infinity, MISSING_ONLY_THRESHOLD) - 1) < 1e-12, 'the whole axis');
    assert.equal(widthOnAxis(withMissing, MISSING_ONLY_THRESHOLD, Infinity), 0);
    assert.equal(widthOnAxis([MISSING_ONLY_THRESHOLD], -Infinity, MISSING_ONLY_THRESHOLD), 1);
  });

  it('a split at -inf (scikit-learn: between -inf and a value) is left out at the low end, as the missing one at the top', () => {
    const withLow = [NEGATIVE_INFINITY_THRESHOLD, ...spread];
    assert.equal(widthOnAxis(withLow, 40, 60), widthOnAxis(spread, 40, 60));
    assert.ok(widthOnAxis(withLow, 40, 60) > 0.05, 'a real share of the axis, not 1e-38');
    const plain = axesOf([spread]);
    const axes = axesOf([withLow]);
    assert.equal(likeliestPoint(axes, 0, 0, 200), likeliestPoint(plain, 0, 0, 200));
    assert.equal(likeliestPoint(axes, 0, -Infinity, Infinity), likeliestPoint(plain, 0, -Infinity, Infinity));
  });

  it('hgb_clf_missing (scikit-learn): the CSV writes no 3.4e38 and no Infinity, a missing value empty', async () => {
    const read = readModel(new Uint8Array(readFileSync(join(FIXTURES, 'estimators', 'hgb_clf_missing.joblib'))), 'hgb_clf_missing.joblib');
    assert.ok(read.kind === 'model');
    const completed = completeForest(read.forest);
    assert.ok(completed.ok);
    const forest = completed.forest;
    const rec = await reconstruct(forest, { budgetMs: 5000 });
    assert.ok(rec.reconstruction.length > 0, 'rows reconstructed');
    const csv = reconstructionCsv(rec.reconstruction, { features: forest.features.map((f) => f.name), label: 'y', numeric: intervalFeatures(forest) });
    assert.doesNotMatch(csv, /e\+38|Infinity/);
    // Rows the model proves missing x1 (past the split) and rows it proves have it: both written empty there.
    const missing = rec.reconstruction.filter((row) => row.intervals?.[1] && splitsOnMissingOnly(row.intervals[1][0]));
    assert.ok(missing.length > 0 && missing.length < rec.reconstruction.length, `${missing.length} rows missing x1`);
  });
});
