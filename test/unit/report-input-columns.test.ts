/**
 * The report's figures per Pipeline input column (report/input-columns.ts), on the Stroke Pipeline
 * fixture (test/fixtures/pipeline-inputs, scikit-learn 1.2.1: imputer and scaler on the numbers,
 * OneHotEncoder and OrdinalEncoder on the strings, `id` dropped): the columns are the raw ones,
 * each figure agrees with a recount of `--emit-reconstruction`'s input CSV (itself matched to the
 * training rows in pipeline-input.test.ts), rows proven missing are no more than the training rows
 * with a missing BMI, and the HTML report shows the table only for a Pipeline.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import type { ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile, type FileReport } from '../../server/src/linter/linter';
import { declaredGroupsFor } from '../../server/src/recoverability/declared-groups';
import { buildReport, featureUse } from '../../server/src/report/build';
import { renderReportHtml } from '../../server/src/report/html';
import { inputColumnRecovery } from '../../server/src/report/input-columns';
import { inputReconstructionCsv } from '../../server/src/report/reconstruction-input-csv';
import { summarizeReconstruction } from '../../server/src/recoverability/summary';
import { parseCsv } from '../../server/src/util/csv';
import { FIXTURES } from '../support/paths';
import { TEST_WEBVIEW } from '../support/webview-render-options';

const DIR = join(FIXTURES, 'pipeline-inputs');

async function analysed(file: string): Promise<{ report: FileReport; forest: Forest; result: ReconstructionResult }> {
  const report = await lintFile(file, { keepForest: true });
  const forest = report.forest!;
  const declared = await declaredGroupsFor(file, forest);
  const result = await reconstruct(forest, { budgetMs: 5_000, groups: declared.groups });
  return { report, forest, result };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

describe("the report's figures per Pipeline input column", () => {
  it('Stroke Pipeline: the raw columns, each figure as the input CSV of the certified rows recounts it', async () => {
    const { forest, result } = await analysed(join(DIR, 'stroke_pipeline.joblib'));
    const columns = inputColumnRecovery(forest, result);
    assert.ok(columns, 'a Pipeline with certified boxes has figures per input column');
    assert.deepEqual(
      columns.map((c) => c.name),
      forest.pipelineInput!.columns,
    );
    const kind = (name: string) => columns.find((c) => c.name === name)?.kind;
    assert.equal(kind('id'), 'unread');
    assert.equal(kind('age'), 'numeric');
    assert.equal(kind('gender'), 'encoded');
    assert.equal(kind('smoking_status'), 'encoded');

    const [header, ...lines] = parseCsv(inputReconstructionCsv(result.reconstruction, { splitRule: forest.splitRule, pipelineInput: forest.pipelineInput! }, 'stroke'));
    const certified = lines.filter((cells) => cells[header.indexOf('certified')] === 'true');
    assert.equal(certified.length, result.certifiedRows);
    for (const column of columns) {
      const at = (suffix: string) => header.indexOf(`${column.name}${suffix}`);
      if (column.kind === 'unread') {
        assert.equal(column.narrowedRows, 0, column.name);
        continue;
      }
      if (column.kind === 'encoded') {
        // F.categories: the categories the box allows, empty where it allows them all.
        const allowed = certified.map((cells) => cells[at('.categories')]).filter((v) => v !== '');
        assert.equal(column.narrowedRows, allowed.length, `${column.name}: rows narrowed`);
        assert.equal(column.provenRows, allowed.filter((v) => !v.includes('|')).length, `${column.name}: rows with one category`);
        continue;
      }
      // Numeric: with an imputer's indicator, proven missing where the point and both bounds are
      // empty (without one, those are a 0/1 value the box leaves open); bounded where both ends are written.
      const c = forest.pipelineInput!.columns.indexOf(column.name);
      const indicated = forest.pipelineInput!.features.some((f) => f.input === c && f.ops.some((op) => op.op === 'is-missing'));
      const missing = indicated ? certified.filter((cells) => cells[at('')] === '' && cells[at('.low')] === '' && cells[at('.high')] === '').length : 0;
      const bounded = certified.filter((cells) => cells[at('.low')] !== '' && cells[at('.high')] !== '');
      assert.equal(column.missingRows ?? 0, missing, `${column.name}: rows proven missing`);
      assert.equal(column.provenRows, bounded.length + missing, `${column.name}: rows bounded or missing`);
      assert.ok(column.narrowedRows >= column.provenRows, column.name);
      if (bounded.length > 0) {
        // The CSV's bounds are widened by the float32 slack and rounded outward to 7 digits.
        const width = median(bounded.map((cells) => Number(cells[at('.high')]) - Number(cells[at('.low')])));
        assert.ok(Math.abs(width - column.medianWidth!) <= 1e-3 * Math.max(1, width), `${column.name}: median width ${column.medianWidth} against the CSV's ${width}`);
      }
    }

    // Certified rows are distinct training rows: no more of them are proven missing than the training data has gaps.
    const [trainHeader, ...train] = parseCsv(readFileSync(join(DIR, 'stroke_pipeline.train.csv'), 'utf8'));
    const gaps = train.filter((cells) => cells[trainHeader.indexOf('bmi')] === 'N/A' || cells[trainHeader.indexOf('bmi')] === '').length;
    const bmi = columns.find((c) => c.name === 'bmi')!;
    assert.ok((bmi.missingRows ?? 0) > 0, 'the imputer\'s indicator proves some rows missing');
    assert.ok(bmi.missingRows! <= gaps, `${bmi.missingRows} rows proven missing, the training data has ${gaps}`);
  });

  it('the HTML report shows the input columns for a Pipeline, and not for a model fitted on its columns directly', async () => {
    const html = async (file: string) => {
      const { report, forest, result } = await analysed(file);
      const inputColumns = inputColumnRecovery(forest, result);
      const recoverability = summarizeReconstruction(forest, result, { declared: 0, sources: [], problems: [] });
      const built = buildReport({ file: { ...report, recoverability }, features: featureUse(forest), reconstruction: result, ...(inputColumns ? { inputColumns } : {}) });
      return { built, page: renderReportHtml(built, TEST_WEBVIEW) };
    };
    const pipeline = await html(join(DIR, 'stroke_pipeline.joblib'));
    assert.ok(pipeline.built.inputColumns?.length, pipeline.built.headline.claim);
    assert.match(pipeline.page, /In the Pipeline's input columns/);
    assert.match(pipeline.page, /<code>smoking_status<\/code>/);
    assert.match(pipeline.page, /median interval [\d.]+ wide/);
    const direct = await html(join(FIXTURES, 'numeric', 'pima_t10_d5.joblib'));
    assert.equal(direct.built.inputColumns, undefined);
    assert.doesNotMatch(direct.page, /In the Pipeline's input columns/);
  });
});
