/**
 * The text report's positions: a JSON model's first finding sits at its first tree's line. In a
 * pretty-printed file that position is shown, in a column of its own, so that the severity and rule
 * columns still line up (sweep 9: "1:1" pushed one row right of the rest). In a file `save_model`
 * wrote on one line the finding sits at the file's start, which says nothing: no position is shown
 * (sweeps 9-11: a lone "1:1" before the first finding of every such file).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { it } from 'node:test';
import { lintFile } from '../../server/src/linter/linter';
import { reconstructReport } from '../../server/src/cli/reconstruction';
import { DEFAULT_THRESHOLDS } from '../../server/src/rules/reconstructable-training-set';
import { writeText } from '../../server/src/report/text';
import { FIXTURES } from '../support/paths';

const ONE_LINE = path.join(FIXTURES, 'xgboost', 'bin_pima.json');

async function textOf(file: string): Promise<{ heads: string[]; ranged: number }> {
  const report = await lintFile(file, { keepForest: true });
  await reconstructReport(report, { budgetMs: 2_000, flagGroups: [], thresholds: DEFAULT_THRESHOLDS, severities: {}, log: () => {} });
  const heads = writeText([report])
    .split('\n')
    .filter((line) => /^ {2}(\d+:\d+ +)?(error|warning|information|hint) /.test(line) || /^ {2} +(error|warning|information|hint) /.test(line));
  return { heads, ranged: report.findings.filter((f) => f.location.range).length };
}

it('a model written on one line: its first tree is at the file start, and no position is printed', async () => {
  assert.equal(fs.readFileSync(ONE_LINE, 'utf8').trim().split('\n').length, 1);
  const { heads, ranged } = await textOf(ONE_LINE);
  // The finding still has its range (the editor and SARIF place it); the text leaves out "1:1".
  assert.ok(ranged > 0);
  assert.ok(heads.length >= 2, heads.join('\n'));
  assert.ok(heads.every((line) => /^ {2}(error|warning|information|hint) /.test(line)), heads.join('\n'));
});

it('a pretty-printed model: the first finding shows its tree line, and severities start in one column', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'text-layout-'));
  const pretty = path.join(dir, 'bin_pima.json');
  fs.writeFileSync(pretty, JSON.stringify(JSON.parse(fs.readFileSync(ONE_LINE, 'utf8')), null, 2));
  try {
    const { heads } = await textOf(pretty);
    assert.ok(heads.some((line) => /^ {2}\d+:\d+ +(error|warning|information|hint) /.test(line) && !line.startsWith('  1:1 ')), heads.join('\n'));
    assert.ok(heads.some((line) => /^ {2} +(error|warning|information|hint) /.test(line)), heads.join('\n'));
    const columns = new Set(heads.map((line) => line.search(/(error|warning|information|hint) /)));
    assert.equal(columns.size, 1, heads.join('\n'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
