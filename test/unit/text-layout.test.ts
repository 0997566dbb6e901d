/**
 * The text report's columns: a JSON model's first finding has a position (its first tree's line),
 * the others none; the severity and rule columns still line up (sweep 9: "1:1" pushed one row
 * right of the rest).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { it } from 'node:test';
import { lintFile } from '../../server/src/linter/linter';
import { reconstructReport } from '../../server/src/cli/reconstruction';
import { DEFAULT_THRESHOLDS } from '../../server/src/rules/reconstructable-training-set';
import { writeText } from '../../server/src/report/text';
import { FIXTURES } from '../support/paths';

it("findings with and without a position start their severity in one column", async () => {
  const report = await lintFile(path.join(FIXTURES, 'xgboost', 'bin_pima.json'), { keepForest: true });
  await reconstructReport(report, { budgetMs: 2_000, flagGroups: [], thresholds: DEFAULT_THRESHOLDS, severities: {}, log: () => {} });
  assert.ok(report.findings.some((f) => f.location.range) && report.findings.some((f) => !f.location.range), report.findings.map((f) => f.rule).join());
  const heads = writeText([report])
    .split('\n')
    .filter((line) => /^ {2}(\d+:\d+ +)?(error|warning|information|hint) /.test(line) || /^ {2} +(error|warning|information|hint) /.test(line));
  assert.ok(heads.length >= 2, heads.join('\n'));
  const columns = new Set(heads.map((line) => line.search(/(error|warning|information|hint) /)));
  assert.equal(columns.size, 1, heads.join('\n'));
});
