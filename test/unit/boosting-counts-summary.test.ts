/**
 * How a regression reconstruction (boosting-counts on XGBoost 1.7.4 reg:squarederror) is counted in
 * every summary. A row whose cell the certificate proves but whose label the gradient sums do not
 * pin is proven to be in the training data, with its feature intervals, yet not with the label
 * shown: it is counted as "certified without its label" (`certifiedWithoutLabel`), apart from the
 * certified rows (which always include the label) and from the estimated rows. Checked against the
 * fixtures' true rows (test/fixtures/xgboost-counts/*.train.csv), through the result, the
 * `recoverability` block, the CLI's text line and JSON, the report headline and the rule's finding.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct, type ReconstructedRow, type ReconstructionResult } from '../../server/src/attacks/reconstruction';
import type { Forest } from '../../server/src/forest/schema';
import { summarizeReconstruction } from '../../server/src/recoverability/summary';
import { buildReport } from '../../server/src/report/build';
import { recoverabilityLine } from '../../server/src/report/text';
import { DEFAULT_THRESHOLDS, reconstructionDraft } from '../../server/src/rules/reconstructable-training-set';
import type { FileReport } from '../../server/src/linter/linter';
import { FIXTURES, REPO_ROOT } from '../support/paths';
import { readFixtureForest } from '../support/model-files';

const DIR = path.join(FIXTURES, 'xgboost-counts');
const forestOf = (file: string): Forest => readFixtureForest(DIR, file);
function truthOf(name: string): { x: number[]; y: number }[] {
  return fs.readFileSync(path.join(DIR, `${name}.train.csv`), 'utf8').trim().split('\n').slice(1).map((line) => {
    const cells = line.split(',').map(Number);
    return { x: cells.slice(0, -1), y: cells[cells.length - 1] };
  });
}
/** XGBoost intervals: lower <= x < upper (float32). */
const inside = (row: ReconstructedRow, x: number[]) =>
  (row.intervals ?? []).every((interval, f) => !interval || (Math.fround(x[f]) >= (interval[0] ?? -Infinity) && Math.fround(x[f]) < (interval[1] ?? Infinity)));

/** The rows certified without their label: the count the result states, and each box holds that many true rows. */
function checkWithoutLabel(result: ReconstructionResult, truth: { x: number[]; y: number }[]): ReconstructedRow[] {
  const rows = result.reconstruction.filter((r) => !r.certified && r.certifiedValues !== undefined);
  assert.equal(result.certifiedWithoutLabel ?? 0, rows.length);
  const perBox = new Map<string, { row: ReconstructedRow; n: number }>();
  for (const r of result.reconstruction.filter((r) => r.certified || r.certifiedValues !== undefined)) {
    const key = JSON.stringify(r.intervals);
    perBox.set(key, { row: r, n: (perBox.get(key)?.n ?? 0) + 1 });
  }
  for (const { row, n } of perBox.values()) {
    const real = truth.filter((t) => inside(row, t.x)).length;
    assert.ok(real >= n, `${n} rows proven in ${JSON.stringify(row.intervals)}, ${real} true rows there`);
  }
  return rows;
}

const fileReport = (result: ReconstructionResult, forest: Forest): FileReport => ({
  path: '/m.json',
  format: 'xgboost-json',
  contentHash: 'x',
  model: null,
  findings: [],
  notes: [],
  recoverability: summarizeReconstruction(forest, result, { declared: 0, sources: [], problems: [] }),
});

describe('regression rows certified without their label', () => {
  it('reg_pima_exact: 1 row certified with its label, the other 19 proven without it; every summary says so', async () => {
    const forest = forestOf('reg_pima_exact.json');
    const truth = truthOf('reg_pima_exact');
    const result = await reconstruct(forest, { budgetMs: 20_000 });
    assert.equal(result.method, 'boosting-counts');
    const rows = checkWithoutLabel(result, truth);
    assert.equal(result.certifiedRows, 1);
    assert.equal(rows.length, 19);
    assert.equal(result.certifiedRows + result.certifiedWithoutLabel!, truth.length, 'every row proven, as the covers admit one set of cells');

    const summary = summarizeReconstruction(forest, result, { declared: 0, sources: [], problems: [] });
    assert.equal(summary.certifiedWithoutLabel, 19);
    const line = recoverabilityLine(summary);
    assert.match(line, /1 of 20 training rows certified \(5%\), 19 more without their label \(feature intervals proven, label estimated\);/);
    assert.doesNotMatch(line, /as an estimate/);

    const report = buildReport({ file: fileReport(result, forest), reconstruction: result });
    assert.equal(report.headline.claim, 'certified');
    assert.equal(report.headline.certifiedRows, 1);
    assert.equal(report.headline.certifiedWithoutLabel, 19);
    // Numeric features: the certified row is a box, and its width is stated (since stop 32).
    assert.match(report.headline.summary, /^1 of 20 training rows is proven to be in the training data as boxes, with their label: per numeric feature an interval the value lies in, (under 1|\d+)% of the feature's threshold range wide \(median\)\. 19 more rows are proven to be in the training data with their feature intervals, their labels only estimated\.$/);

    const finding = reconstructionDraft(forest, summary, DEFAULT_THRESHOLDS)!;
    assert.equal(finding.severity, 'error', 'all 20 rows proven to be in the training data: above the 10% share');
    assert.match(finding.draft.message, /19 more rows are proven to be in the training data with their feature intervals, their labels only estimated/);
    assert.equal(finding.draft.data!.certifiedWithoutLabel, 19);
  });

  it('reg_compas: no label pinned, yet the rows whose intervals are proven are not called an estimate', async () => {
    const forest = forestOf('reg_compas.json');
    const truth = truthOf('reg_compas');
    const result = await reconstruct(forest, { budgetMs: 20_000 });
    const rows = checkWithoutLabel(result, truth);
    assert.equal(result.certifiedRows, 0);
    assert.ok(rows.length > 0 && rows.length < truth.length, `${rows.length}`);
    const k = rows.length;
    const summary = summarizeReconstruction(forest, result, { declared: 0, sources: [], problems: [] });
    assert.match(recoverabilityLine(summary), new RegExp(`${k} of 50 training rows certified without their label \\(feature intervals proven, label estimated\\), ${50 - k} more reconstructed as an estimate`));
    const report = buildReport({ file: fileReport(result, forest), reconstruction: result });
    assert.equal(report.headline.claim, 'certified');
    assert.match(report.headline.summary, new RegExp(`^${k} of 50 training rows are proven to be in the training data with their feature intervals, their labels only estimated\\.$`));
    const finding = reconstructionDraft(forest, summary, DEFAULT_THRESHOLDS)!;
    assert.doesNotMatch(finding.draft.message, /no row is proven/);
    assert.match(finding.draft.message, new RegExp(`At least ${k} training rows of 50 .* are proven, from the model alone, to be in the training data with their feature intervals`));
  });

  it('the CLI states the count in its JSON and its text line', () => {
    const cli = path.join(REPO_ROOT, 'out', 'server', 'src', 'cli.js');
    const model = path.join(DIR, 'reg_pima_exact.json');
    const json = spawnSync(process.execPath, [cli, model, '--format', 'json', '--fail-on', 'never', '--budget', '20'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(json.status, 0, json.stderr);
    const recoverability = JSON.parse(json.stdout).files[0].recoverability;
    assert.equal(recoverability.certifiedRows, 1);
    assert.equal(recoverability.certifiedWithoutLabel, 19);
    const text = spawnSync(process.execPath, [cli, model, '--fail-on', 'never', '--budget', '20'], { encoding: 'utf8', timeout: 120_000 });
    assert.match(text.stdout, /recoverability: bounded, 1 of 20 training rows certified \(5%\), 19 more without their label/);
  });
});
