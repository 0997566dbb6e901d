/**
 * The estimate for counts that are not row counts every tree shares (boxes/estimate.ts, issue 12):
 * forests trained with bootstrap on numeric features, class weights with bootstrap, an arbitrary
 * sample_weight, noised counts over numeric features. None of them is skipped any more; each gets
 * a whole reconstruction labelled as an estimate, and the rows it certifies (the distinct rows of
 * single-class leaves, one tree per class) are checked against the true training rows: every
 * certified box holds a distinct true row with its label.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import type { ReconstructedRow } from '../../server/src/attacks/reconstruction/types';
import { minimumCostMatching } from '../../server/src/evaluate/matching';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { readFileSync } from 'node:fs';
import { parseCsv } from '../../server/src/util/csv';
import { containsRow, readFloat32Rows } from '../support/numeric-truth';
import { EXAMPLES, FIXTURES } from '../support/paths';
import type { TrainingRow } from '../support/reconstruction-truth';

async function forestOf(path: string): Promise<Forest> {
  const report = await lintFile(path, { keepForest: true });
  assert.ok(report.forest, `${path}: ${report.findings.map((f) => f.message).join('; ')}`);
  return report.forest;
}

/** Whether the certified rows can be given distinct true rows inside their boxes, with their labels. */
function certifiedHoldDistinctTrueRows(rows: readonly ReconstructedRow[], truth: readonly TrainingRow[]): boolean {
  const certified = rows.filter((r) => r.certified);
  if (certified.length === 0) return true;
  const cost = certified.map((row) => Float64Array.from(truth, (t) => (containsRow(row, t) ? 0 : 1)));
  return certified.length <= truth.length && minimumCostMatching(cost).totalCost === 0;
}

// The first 200 Pima rows: the training set of the class-weight fixtures (test/fixtures/class-weights/generate.py).
const PIMA_200 = readFloat32Rows(join(FIXTURES, 'class-weights', 'rf_balanced_nobootstrap.train.csv'));

describe('box-estimate: which trees certify does not depend on the clock', () => {
  it('the diabetes example certifies the same rows with the same trees and box widths at 1.5 s and at 6 s', async () => {
    const forest = await forestOf(join(EXAMPLES, 'models', 'diabetes_forest.joblib'));
    const short = await reconstruct(forest, { budgetMs: 1_500 });
    const long = await reconstruct(forest, { budgetMs: 6_000 });
    const claims = (reason: string | undefined) => /leaves of (trees? [^;]*?) hold/.exec(reason ?? '')?.[1];
    assert.ok(claims(short.reason), short.reason);
    // The claim trees, and with them the certified rows and the widths the finding's severity
    // follows, come from the model alone, not from how far the time-bound walks and search got.
    assert.equal(claims(short.reason), claims(long.reason));
    assert.equal(short.certifiedRows, long.certifiedRows);
    assert.equal(short.boxes?.medianWidth, long.boxes?.medianWidth);
  });
});

describe('box-estimate: counts that are not shared row counts', () => {
  const cases: { name: string; path: string; truth: () => TrainingRow[]; why: RegExp; someCertified: boolean }[] = [
    { name: 'bootstrap on numeric features (the diabetes example, seeds stored)', path: join(EXAMPLES, 'models', 'diabetes_forest.joblib'), truth: () => readFloat32Rows(join(EXAMPLES, 'data', 'diabetes.csv')), why: /bootstrap/, someCertified: true },
    { name: 'class_weight="balanced" with bootstrap', path: join(FIXTURES, 'class-weights', 'rf_balanced_bootstrap.joblib'), truth: () => PIMA_200, why: /.+/, someCertified: true },
    { name: 'an arbitrary sample_weight, no bootstrap', path: join(FIXTURES, 'class-weights', 'rf_sample_weight.joblib'), truth: () => PIMA_200, why: /weight|whole number/, someCertified: true },
  ];
  for (const c of cases) {
    it(`${c.name}: an estimate with its reason, never skipped; every certified box holds a distinct true row`, async () => {
      const forest = await forestOf(c.path);
      const truth = c.truth();
      const result = await reconstruct(forest, { budgetMs: 10_000 });
      assert.equal(result.method, 'box-estimate', `${result.status}: ${result.reason}`);
      assert.equal(result.status, 'bounded', result.reason);
      assert.match(result.reason ?? '', c.why);
      assert.match(result.reason ?? '', /estimate/);
      assert.equal(result.rows, truth.length, 'N');
      assert.equal(result.reconstructedRows, truth.length);
      if (c.someCertified) assert.ok(result.certifiedRows > 0, 'single-class leaves certify rows');
      assert.ok(result.certifiedRows < truth.length, 'not every row: the rest is an estimate');
      assert.equal(result.reconstruction.filter((r) => r.certified).length, result.certifiedRows);
      assert.ok(certifiedHoldDistinctTrueRows(result.reconstruction, truth), 'a certified box holds no distinct true row');
      assert.ok(result.boxes && result.boxes.medianWidth >= 0 && result.boxes.medianWidth <= 1);
    });
  }

  it('each class certified by the tree whose leaves prove the most of its rows: more than any one tree proves, every box holding a distinct true row', async () => {
    // 10 trees on 384 Pima rows (test/fixtures/membership: the training rows are the candidates marked member).
    const forest = await forestOf(join(FIXTURES, 'membership', 'pima_boot_t10.joblib'));
    const [header, ...lines] = parseCsv(readFileSync(join(FIXTURES, 'membership', 'pima_boot_t10.candidates.csv'), 'utf8'));
    const truth = lines
      .filter((cells) => cells[header.indexOf('member')] === '1')
      .map((cells) => ({ values: cells.slice(0, header.indexOf('label')).map((v) => Math.fround(Number(v))), label: Number(cells[header.indexOf('label')]) }));
    const classes = forest.classes.length;
    // What one tree's single-class leaves prove: their distinct rows.
    const provenBy = (tree: Forest['trees'][number]) => {
      let rows = 0;
      for (let n = 0; n < tree.left.length; n++) {
        if (tree.left[n] !== -1) continue;
        const present = tree.classWeights.slice(n * classes, (n + 1) * classes).filter((w) => w > 0).length;
        if (present === 1) rows += tree.distinctRows![n];
      }
      return rows;
    };
    const oneTree = Math.max(...forest.trees.map(provenBy));
    // Per class, the most any one tree's single-class leaves prove of it: the certified rows, from the model alone.
    const provenOfClass = (tree: Forest['trees'][number], c: number) => {
      let rows = 0;
      for (let n = 0; n < tree.left.length; n++) {
        if (tree.left[n] !== -1) continue;
        const weights = tree.classWeights.slice(n * classes, (n + 1) * classes);
        if (weights[c] > 0 && weights.filter((w) => w > 0).length === 1) rows += tree.distinctRows![n];
      }
      return rows;
    };
    let perClassBest = 0;
    for (let c = 0; c < classes; c++) perClassBest += Math.max(...forest.trees.map((tree) => provenOfClass(tree, c)));
    const result = await reconstruct(forest, { budgetMs: 10_000 });
    assert.match(result.reason ?? '', /one per class/);
    assert.ok(perClassBest > oneTree, `the fixture has classes best proven by different trees (${perClassBest} against ${oneTree})`);
    assert.equal(result.certifiedRows, perClassBest, 'every row the best tree of each class proves is certified');
    assert.ok(certifiedHoldDistinctTrueRows(result.reconstruction, truth), 'a certified box holds no distinct true row');
  });

  it('noised counts over numeric features: an estimate, nothing certified', async () => {
    const forest = await forestOf(join(FIXTURES, 'numeric', 'pima_t10_d5.joblib'));
    // The released counts of a differentially private forest: whole numbers near the true ones, no distinct counts.
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const noised: Forest = {
      ...forest,
      privacy: { mechanism: 'laplace-leaf-counts', epsilon: 1, split: 'per-tree', rounding: 'truncate' },
      trees: forest.trees.map((tree) => ({ ...tree, distinctRows: undefined, classWeights: tree.classWeights.map((w) => Math.trunc(w + (random() - 0.5) * 6)) })),
    };
    const result = await reconstruct(noised, { budgetMs: 5_000 });
    assert.equal(result.method, 'box-estimate', `${result.status}: ${result.reason}`);
    assert.equal(result.status, 'bounded');
    assert.equal(result.certifiedRows, 0);
    assert.match(result.reason ?? '', /differentially private/);
    assert.match(result.reason ?? '', /nothing certified/);
    assert.equal(result.reconstructedRows, 100);
  });
});

describe('box-estimate past its memory cap (memory.ts WALK_CELL_CAP)', () => {
  it('lists the certified rows alone, the same boxes as the full estimate, and says why the rest is not estimated', async () => {
    const forest = await forestOf(join(EXAMPLES, 'models', 'diabetes_forest.joblib'));
    const full = await reconstruct(forest, { budgetMs: 6_000 });
    const capped = await reconstruct(forest, { budgetMs: 6_000, walkCellCap: 1 });
    assert.equal(capped.method, 'box-estimate');
    assert.equal(capped.rows, full.rows);
    assert.equal(capped.certifiedRows, full.certifiedRows);
    assert.ok(capped.certifiedRows > 0);
    assert.equal(capped.reconstruction.length, capped.certifiedRows);
    assert.ok(capped.reconstruction.every((row) => row.certified));
    assert.match(capped.reason ?? '', /the other rows are not estimated: .* past the 1 cells/);
    const key = (row: ReconstructedRow) => `${String(row.label)}|${JSON.stringify(row.intervals)}`;
    const sorted = (rows: readonly ReconstructedRow[]) => rows.filter((r) => r.certified).map(key).sort();
    assert.deepEqual(sorted(capped.reconstruction), sorted(full.reconstruction));
    assert.equal(capped.boxes?.medianWidth, full.boxes?.medianWidth);
  });
  it('past the listing cap too, builds only the rows it lists: the counts and widths of every certified row, the reason says how many are listed', async () => {
    // Sweep 16: a public forest over 72,514 columns built all 4,731 certified rows (590 MB of
    // values) to list 165, and ran the worker out of its 1 GB.
    const forest = await forestOf(join(EXAMPLES, 'models', 'diabetes_forest.joblib'));
    const all = await reconstruct(forest, { budgetMs: 6_000, walkCellCap: 1 });
    const features = forest.features.length;
    const listed = await reconstruct(forest, { budgetMs: 6_000, walkCellCap: 1, listedCellCap: 10 * features });
    assert.ok(all.certifiedRows > 10);
    assert.equal(listed.certifiedRows, all.certifiedRows);
    assert.equal(listed.reconstructedRows, all.certifiedRows);
    assert.equal(listed.listedRows, 10);
    assert.equal(listed.reconstruction.length, 10);
    assert.deepEqual(listed.boxes, all.boxes);
    assert.match(listed.reason ?? '', new RegExp(`10 of the ${all.certifiedRows} rows are listed`));
    const key = (row: ReconstructedRow) => `${String(row.label)}|${JSON.stringify(row.intervals)}`;
    assert.deepEqual(listed.reconstruction.map(key), all.reconstruction.slice(0, 10).map(key));
  });
  it("a regressor past the listing cap counts its unlisted proven rows as boxes without a target (sweep 17: 1,795 'proven' of 37,786)", async () => {
    const forest = await forestOf(join(FIXTURES, 'soundness', 'rf_reg_diabetes_sex.joblib'));
    assert.equal(forest.task, 'regression');
    const all = await reconstruct(forest, { budgetMs: 6_000, walkCellCap: 1 });
    const listed = await reconstruct(forest, { budgetMs: 6_000, walkCellCap: 1, listedCellCap: 20 * forest.features.length });
    const proven = (r: typeof all) => r.certifiedRows + (r.certifiedWithoutLabel ?? 0);
    assert.equal(listed.listedRows, 20);
    assert.ok(proven(all) > 20, `${proven(all)}`);
    assert.equal(proven(listed), proven(all), 'every proven box is counted, listed or not');
    assert.equal(proven(listed), listed.boxes?.rows);
    assert.ok(listed.certifiedRows <= all.certifiedRows);
  });
});

describe('the walks past their leaf-choice cap (memory.ts WALKED_LEAF_CAP)', () => {
  it('box-estimate walks every row once, keeps the same certified boxes, and says why it neither repaired nor searched', async () => {
    const forest = await forestOf(join(EXAMPLES, 'models', 'diabetes_forest.joblib'));
    const full = await reconstruct(forest, { budgetMs: 6_000 });
    const capped = await reconstruct(forest, { budgetMs: 6_000, walkedLeafCap: 1 });
    assert.equal(capped.method, 'box-estimate');
    assert.equal(capped.status, 'bounded');
    assert.equal(capped.reconstruction.length, full.reconstruction.length);
    assert.equal(capped.certifiedRows, full.certifiedRows);
    assert.match(capped.reason ?? '', /the walks were neither repaired nor searched: [\d,]+ walked rows x \d+ trees are past the 1 leaf choices/);
    assert.doesNotMatch(full.reason ?? '', /neither repaired/);
    // Unrepaired walks miss the stored counts by more (the repairs and search are what lowers it).
    assert.ok(capped.stats.leafCountError! > full.stats.leafCountError!, `${capped.stats.leafCountError} vs ${full.stats.leafCountError}`);
  });

  it('row-boxes (no bootstrap) keeps every proven box and still holds each true row', async () => {
    const forest = await forestOf(join(FIXTURES, 'numeric', 'pima_t10_d5.joblib'));
    const truth = readFloat32Rows(join(FIXTURES, 'numeric', 'pima_t10_d5.train.csv'));
    const capped = await reconstruct(forest, { budgetMs: 6_000, walkedLeafCap: 1 });
    assert.equal(capped.method, 'row-boxes', capped.reason);
    assert.match(capped.reason ?? '', /neither repaired nor searched/);
    assert.equal(capped.certifiedRows, truth.length);
    assert.ok(certifiedHoldDistinctTrueRows(capped.reconstruction, truth), 'a certified box holds no distinct true row');
  });
});

describe('row-boxes past the walks\' cell cap (memory.ts WALK_CELL_CAP)', () => {
  it('every row stands at its proven box, the boxes and their widths those of the walked run, each a distinct true row', async () => {
    const forest = await forestOf(join(FIXTURES, 'numeric', 'pima_t10_d5.joblib'));
    const truth = readFloat32Rows(join(FIXTURES, 'numeric', 'pima_t10_d5.train.csv'));
    const walked = await reconstruct(forest, { budgetMs: 6_000 });
    const capped = await reconstruct(forest, { budgetMs: 6_000, walkCellCap: 1 });
    assert.equal(capped.method, 'row-boxes', capped.reason);
    assert.match(capped.reason ?? '', /the rows are not walked to points: [\d,]+ rows x 8 features are past the 1 cells/);
    assert.equal(capped.certifiedRows, walked.certifiedRows);
    assert.deepEqual(capped.boxes, walked.boxes);
    const key = (row: ReconstructedRow) => `${String(row.label)}|${JSON.stringify(row.intervals)}`;
    assert.deepEqual(capped.reconstruction.map(key).sort(), walked.reconstruction.map(key).sort());
    assert.ok(certifiedHoldDistinctTrueRows(capped.reconstruction, truth));
    // Rows of one group share one copy of their box.
    assert.ok(new Set(capped.reconstruction.map((r) => r.intervals)).size < capped.reconstruction.length);
  });
});
