/**
 * The HTML report in a real browser (Debian's Chromium, headless, through playwright-core): the
 * page built from a hostile model file (feature names and labels that are markup) must load
 * under its own strict CSP without a single console error or CSP violation, run no injected
 * script (no dialog), draw its charts and row map, and show the values only after the click —
 * with the names as text. Both modes: standalone (inline, values embedded) and webview (script
 * URLs, `acquireVsCodeApi` stubbed to answer the reveal request as the extension does).
 * Needs no code-server: only the browser.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { renderReportHtml } from '../../server/src/report/html';
import { loadReportAssets, newNonce } from '../../server/src/report/html-assets';
import type { PrivacyReport, RevealedRows } from '../../server/src/report/model';
import { HOSTILE_FEATURES, hostileReport } from '../support/hostile-report';
import { lintFile } from '../../server/src/linter/linter';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import { buildReport } from '../../server/src/report/build';
import { hasProgressChart } from '../../server/src/report/html/sections';
import { runningReports } from '../support/running-report';
import { CHROMIUM_ARGS, CHROMIUM_PATH, REPO_ROOT } from './code-server';

interface PageRun {
  page: Page;
  problems: string[];
  dialogs: string[];
}

async function open(browser: Browser, url: string, colorScheme: 'light' | 'dark', init?: { revealed: RevealedRows }): Promise<PageRun> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, colorScheme });
  const problems: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  if (init) {
    // What the extension does on `{type:'reveal'}`: answer with the rows (see report/html/index.ts).
    await page.addInitScript((revealed) => {
      const w = window as unknown as { posted: unknown[]; acquireVsCodeApi: () => unknown };
      w.posted = [];
      w.acquireVsCodeApi = () => ({
        postMessage(message: { type: string }) {
          w.posted.push(message);
          if (message.type === 'reveal') setTimeout(() => window.postMessage({ type: 'rows', rows: revealed }, '*'), 10);
        },
        getState: () => undefined,
        setState: () => undefined,
      });
    }, init.revealed);
  }
  // A CSP violation is reported on the console too; this catches any the console would not.
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)));
  await page.goto(url);
  await page.waitForFunction(() => document.body.getAttribute('data-charts') !== null, undefined, { timeout: 15_000 });
  await page.waitForTimeout(600); // Chart.js animates its first draw
  return { page, problems, dialogs };
}

/** Canvases with at least one painted pixel, by id. */
function paintedCanvases(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => {
    const out: Record<string, number> = {};
    for (const canvas of Array.from(document.querySelectorAll('canvas'))) {
      if (canvas.width === 0 || canvas.height === 0) continue;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
      out[canvas.id] = painted;
    }
    return out;
  });
}

async function revealedTable(page: Page): Promise<{ headers: string[]; rows: number }> {
  await page.waitForSelector('#revealed-rows table', { timeout: 10_000 });
  return page.evaluate(() => ({
    headers: Array.from(document.querySelectorAll('#revealed-rows thead th')).map((th) => th.textContent ?? ''),
    rows: document.querySelectorAll('#revealed-rows tbody tr').length,
  }));
}

describe('the HTML report in Chromium', () => {
  let browser: Browser;
  let temp: string;
  let report: PrivacyReport;
  let revealed: RevealedRows;

  before(async () => {
    assert.ok(existsSync(CHROMIUM_PATH), `Chromium not found at ${CHROMIUM_PATH}. Run: bash scripts/setup-code-server.sh (installs Debian's chromium)`);
    ({ report, revealed } = await hostileReport());
    temp = mkdtempSync(join(tmpdir(), 'mpl-report-page-'));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`standalone (${scheme}): no console error or CSP violation, charts drawn, no injected script, values after the click only`, async () => {
      const assets = loadReportAssets();
      assert.deepEqual(assets.missing, []);
      const file = join(temp, `standalone-${scheme}.html`);
      writeFileSync(file, renderReportHtml(report, { nonce: newNonce(), mode: 'standalone', scripts: { chart: assets.chart, report: assets.report }, styles: { report: assets.style }, revealed }));
      const { page, problems, dialogs } = await open(browser, pathToFileURL(file).href, scheme);
      try {
        assert.deepEqual(problems, []);
        // The hostile run usually takes under a second: then no progress chart (sections.ts, hasProgressChart).
        const long = hasProgressChart(report);
        assert.equal(await page.getAttribute('body', 'data-charts'), long ? '3' : '1', long ? 'features, progress and phases' : 'the features chart only');
        const painted = await paintedCanvases(page);
        for (const id of ['chart-features', 'row-heatmap', ...(long ? ['chart-progress', 'chart-phases'] : [])]) assert.ok((painted[id] ?? 0) > 100, `${id} drawn (${painted[id]} pixels)`);
        if (!long) assert.equal(await page.$('#chart-progress'), null);
        // The page follows the colour scheme (standalone fallbacks).
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        assert.equal(background, scheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
        assert.equal(await page.isVisible('#revealed-rows'), false, 'values hidden before the click');
        await page.click('#reveal-button');
        const table = await revealedTable(page);
        assert.deepEqual(table.headers, ['Row', 'Certified', ...HOSTILE_FEATURES, 'Label']);
        assert.equal(table.rows, revealed.rows.length);
        await page.waitForTimeout(200);
        assert.deepEqual(dialogs, [], 'no script from a feature name ran');
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  }

  for (const scheme of ['light', 'dark'] as const) {
    it(`a skipped reconstruction (XGBoost random-forest mode without subsample, ${scheme}): the headline is warning-coloured, never green`, async () => {
      const path = join(REPO_ROOT, 'test', 'fixtures', 'xgboost-objectives', 'xgbrf_full_pima.json');
      const lint = await lintFile(path, { keepForest: true });
      const forest = lint.forest!;
      delete lint.forest;
      const { recoverability } = await assessRecoverability(path, forest, { budgetMs: 5000 });
      assert.equal(recoverability.status, 'skipped');
      const assets = loadReportAssets();
      const file = join(temp, `skipped-${scheme}.html`);
      writeFileSync(file, renderReportHtml(buildReport({ file: { ...lint, recoverability } }), { nonce: newNonce(), mode: 'standalone', scripts: { chart: assets.chart, report: assets.report }, styles: { report: assets.style } }));
      const { page, problems } = await open(browser, pathToFileURL(file).href, scheme);
      try {
        assert.deepEqual(problems, []);
        const colours = await page.evaluate(() => {
          const headline = document.getElementById('headline')!;
          const probe = (name: string) => {
            const span = document.createElement('span');
            span.style.color = `var(${name})`;
            headline.appendChild(span);
            const colour = getComputedStyle(span).color;
            span.remove();
            return colour;
          };
          return { border: getComputedStyle(headline).borderLeftColor, badge: getComputedStyle(headline.querySelector('.claim-badge')!).color, warning: probe('--mpl-warning'), safe: probe('--mpl-safe') };
        });
        assert.notEqual(colours.warning, colours.safe);
        assert.equal(colours.border, colours.warning);
        assert.equal(colours.badge, colours.warning);
        assert.equal(await page.textContent('.big-words'), 'Not measured');
        assert.equal(await page.getAttribute('body', 'data-charts'), '0', 'no chart without a reconstruction');
      } finally {
        await page.close();
      }
    });
  }

  it('a run of seconds gets its progress chart', async () => {
    const { final } = await runningReports(2000, 'diabetes_xgb.json');
    const assets = loadReportAssets();
    const file = join(temp, 'long-run.html');
    writeFileSync(file, renderReportHtml(final, { nonce: newNonce(), mode: 'standalone', scripts: { chart: assets.chart, report: assets.report }, styles: { report: assets.style } }));
    const { page, problems } = await open(browser, pathToFileURL(file).href, 'light');
    try {
      assert.deepEqual(problems, []);
      assert.equal(await page.getAttribute('body', 'data-charts'), '2', 'progress and phases (an estimate: no proven feature)');
      const painted = await paintedCanvases(page);
      for (const id of ['chart-progress', 'chart-phases']) assert.ok((painted[id] ?? 0) > 100, `${id} drawn (${painted[id]} pixels)`);
    } finally {
      await page.close();
    }
  });

  it('webview mode: scripts by URL under the nonce, the reveal asks the extension and shows its answer', async () => {
    const media = pathToFileURL(join(REPO_ROOT, 'media')).href;
    const chart = existsSync(join(REPO_ROOT, 'media', 'vendor', 'chart.umd.js')) ? `${media}/vendor/chart.umd.js` : pathToFileURL(join(REPO_ROOT, 'node_modules', 'chart.js', 'dist', 'chart.umd.js')).href;
    const file = join(temp, 'webview.html');
    writeFileSync(file, renderReportHtml(report, { nonce: newNonce(), mode: 'webview', cspSource: 'file:', scripts: { chart, report: `${media}/report.js` }, styles: { report: `${media}/report.css` } }));
    const { page, problems, dialogs } = await open(browser, pathToFileURL(file).href, 'dark', { revealed });
    try {
      assert.deepEqual(problems, []);
      assert.equal(await page.getAttribute('body', 'data-charts'), hasProgressChart(report) ? '3' : '1');
      await page.click('#reveal-button');
      const table = await revealedTable(page);
      assert.deepEqual(table.headers, ['Row', 'Certified', ...HOSTILE_FEATURES, 'Label']);
      assert.equal(table.rows, revealed.rows.length);
      // A rule link posts `{type:'open'}` instead of navigating away from the webview.
      await page.click('#findings a[data-open]');
      const posted = await page.evaluate(() => (window as unknown as { posted: unknown[] }).posted);
      assert.deepEqual(posted[0], { type: 'reveal' });
      assert.deepEqual(posted[1], { type: 'open', url: report.findings[0].docsUrl });
      assert.equal(page.url(), pathToFileURL(file).href);
      assert.deepEqual(dialogs, []);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
