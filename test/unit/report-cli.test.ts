/**
 * The CLI's HTML report (`--format html`, `--out FILE.html`, `--report-values`), run as a user
 * runs it: the compiled CLI in a child process, and the bundled dist/cli.js once (it must find
 * Chart.js and media/ from the package root). Expected figures come from the CLI's own JSON report
 * and the reconstruction CSV of the same model, never from numbers written here.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseCsv } from '../../server/src/util/csv';
import type { PrivacyReport, RevealedRows } from '../../server/src/report/model';
import { DIST, EXAMPLES, REPO_ROOT } from '../support/paths';

const COMPILED_CLI = join(REPO_ROOT, 'out', 'server', 'src', 'cli.js');
const COMPAS = join(EXAMPLES, 'models', 'compas_no_bagging.joblib');
const TREE = join(EXAMPLES, 'models', 'diabetes_tree.pkl');
const CHART_JS = readFileSync(join(REPO_ROOT, 'node_modules', 'chart.js', 'dist', 'chart.umd.js'), 'utf8');

function run(args: string[], cli = COMPILED_CLI) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function jsonBlock<T>(html: string, id: string): T | undefined {
  const match = new RegExp(`<script type="application/json" id="${id}" nonce="[^"]+">([\\s\\S]*?)</script>`).exec(html);
  return match ? (JSON.parse(match[1]) as T) : undefined;
}

interface Recoverability {
  status: string;
  method: string;
  rows: number;
  certifiedRows: number;
  reconstructedRows: number;
  determinedFeatures: Record<string, number>;
}

describe('CLI --format html', () => {
  let temp: string;
  let compas: Recoverability;
  before(() => {
    temp = mkdtempSync(join(tmpdir(), 'mpl-html-'));
    const json = run([COMPAS, '--format', 'json', '--fail-on', 'never']);
    assert.equal(json.code, 0, json.stderr);
    compas = JSON.parse(json.stdout).files[0].recoverability;
    assert.ok(compas.certifiedRows > 0);
  });
  after(() => rmSync(temp, { recursive: true, force: true }));

  it('--format html --out x.html: one self-contained page with the headline figures and Chart.js inline; the terminal gets text', () => {
    const out = join(temp, 'x.html');
    const result = run([COMPAS, '--format', 'html', '--out', out, '--fail-on', 'never']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /recoverability: /, 'text report on stdout');
    assert.match(result.stderr, /report written to .*x\.html/);
    const html = readFileSync(out, 'utf8');
    assert.ok(html.startsWith('<!DOCTYPE html>'));
    assert.ok(html.includes(`<span class="big">${compas.certifiedRows}</span><span class="of">of ${compas.rows} training rows certified`));
    assert.ok(html.includes(CHART_JS.slice(0, 300)), 'Chart.js inlined');
    assert.ok(html.includes('acquireVsCodeApi'), 'media/report.js inlined');
    assert.match(html, /<style nonce="[^"]+">[\s\S]*--vscode-foreground/, 'media/report.css inlined');
    assert.ok(!/<script[^>]*\ssrc=/.test(html.replace(/<script nonce="[^"]+" id="chart-js">[\s\S]*?<\/script>/, '')), 'no external script');
    const report = jsonBlock<PrivacyReport>(html, 'report-data')!;
    assert.equal(report.headline.certifiedRows, compas.certifiedRows);
    assert.equal(report.headline.claim, 'certified');
    for (const f of report.features) assert.equal(f.determinedRows, compas.determinedFeatures[f.name], f.name);
    assert.equal(report.rows.length, compas.reconstructedRows);
    // The timeline was recorded from the engine's progress and ends with its answer.
    const last = report.timeline[report.timeline.length - 1];
    assert.ok(report.timeline.length >= 3);
    assert.equal(last.certifiedRows, compas.certifiedRows);
    assert.equal(jsonBlock(html, 'revealed-data'), undefined, 'no values without --report-values');
  });

  it('--report-values embeds exactly the reconstructed rows the CSV holds', () => {
    const out = join(temp, 'values.html');
    const csv = join(temp, 'values.csv');
    const result = run([COMPAS, '--out', out, '--report-values', '--emit-reconstruction', csv, '--fail-on', 'never']);
    assert.equal(result.code, 0, result.stderr);
    const revealed = jsonBlock<RevealedRows>(readFileSync(out, 'utf8'), 'revealed-data')!;
    const [header, ...rows] = parseCsv(readFileSync(csv, 'utf8'));
    assert.deepEqual(revealed.features, header.slice(0, -2));
    assert.equal(revealed.rows.length, rows.length);
    revealed.rows.forEach((row, i) => {
      assert.deepEqual(
        row.values.map((v) => (v === null ? '' : String(v))),
        rows[i].slice(0, -2),
      );
      assert.equal(String(row.label), rows[i][rows[i].length - 2]);
      assert.equal(String(row.certified), rows[i][rows[i].length - 1]);
    });
  });

  it('several models: one FILE.<model>.html each; --format html without --out refuses them', () => {
    const out = join(temp, 'many', 'r.html');
    mkdirSync(join(temp, 'many'));
    const result = run([COMPAS, TREE, '--out', out, '--fail-on', 'never']);
    assert.equal(result.code, 0, result.stderr);
    for (const [model, name] of [
      [COMPAS, 'compas_no_bagging.joblib'],
      [TREE, 'diabetes_tree.pkl'],
    ]) {
      const page = readFileSync(join(temp, 'many', `r.${name}.html`), 'utf8');
      assert.ok(page.includes(`<h1>${name}</h1>`));
      assert.equal(jsonBlock<PrivacyReport>(page, 'report-data')!.file.path, model);
    }
    const refused = run([COMPAS, TREE, '--format', 'html', '--fail-on', 'never']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--out FILE\.html/);
  });

  it('--format html alone prints the page; --report-values without an HTML report is a usage error', () => {
    const printed = run([TREE, '--format', 'html', '--fail-on', 'never']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.ok(printed.stdout.startsWith('<!DOCTYPE html>'));
    assert.ok(printed.stdout.trimEnd().endsWith('</html>'));
    const misuse = run([TREE, '--format', 'json', '--report-values']);
    assert.equal(misuse.code, 2);
    assert.match(misuse.stderr, /--report-values only applies to the HTML report/);
  });

  it('the bundled dist/cli.js finds Chart.js (media/vendor) and media/ from the package root', () => {
    const bundled = join(DIST, 'cli.js');
    assert.ok(existsSync(bundled) && existsSync(join(REPO_ROOT, 'media', 'vendor', 'chart.umd.js')), 'run `node scripts/bundle.mjs` (or `npm run build`) first');
    const out = join(temp, 'bundled.html');
    const result = run([TREE, '--out', out, '--fail-on', 'never'], bundled);
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /not found in the package/);
    const html = readFileSync(out, 'utf8');
    assert.ok(html.includes(CHART_JS.slice(0, 300)));
    assert.ok(html.includes('acquireVsCodeApi'));
  });
});
