/**
 * The webview page while a reconstruction runs, in a real browser (Debian's Chromium, headless,
 * through playwright-core; no code-server): a page rendered from a real running report
 * (test/support/running-report.ts) gets the extension's `{type: 'timeline'}` message for a later
 * report of the same run, and must redraw in place: the same page (not reloaded), the reader's
 * scroll position and open phase table kept, the table's rows and summary those of the later
 * report, the progress and phase charts drawn again, no console error. And a page rendered again
 * (the run ended) scrolls back to where the reader was, from the webview's saved state.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { renderReportHtml, timelineMessage } from '../../server/src/report/html';
import { newNonce } from '../../server/src/report/html-assets';
import type { PrivacyReport } from '../../server/src/report/model';
import { runningReports, type RunningReports } from '../support/running-report';
import { CHROMIUM_ARGS, CHROMIUM_PATH, REPO_ROOT } from './code-server';

function webviewFile(dir: string, name: string, report: PrivacyReport): string {
  const media = pathToFileURL(join(REPO_ROOT, 'media')).href;
  const chart = existsSync(join(REPO_ROOT, 'media', 'vendor', 'chart.umd.js')) ? `${media}/vendor/chart.umd.js` : pathToFileURL(join(REPO_ROOT, 'node_modules', 'chart.js', 'dist', 'chart.umd.js')).href;
  const file = join(dir, name);
  writeFileSync(file, renderReportHtml(report, { nonce: newNonce(), mode: 'webview', cspSource: 'file:', scripts: { chart, report: `${media}/report.js` }, styles: { report: `${media}/report.css` } }));
  return pathToFileURL(file).href;
}

/** A page with `acquireVsCodeApi` stubbed as VS Code gives it: `state` is what getState returns. */
async function open(browser: Browser, url: string, state: unknown): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 500 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.addInitScript((initial) => {
    const w = window as unknown as { saved: unknown; acquireVsCodeApi: () => unknown };
    w.saved = initial;
    w.acquireVsCodeApi = () => ({ postMessage() {}, getState: () => w.saved, setState: (s: unknown) => (w.saved = s) });
  }, state);
  await page.goto(url);
  await page.waitForFunction(() => document.body.getAttribute('data-charts') !== null, undefined, { timeout: 15_000 });
  await page.waitForTimeout(600); // the first draw's animation
  return { page, problems };
}

function painted(page: Page, id: string): Promise<number> {
  return page.evaluate((canvasId) => {
    const canvas = document.getElementById(canvasId) as HTMLCanvasElement | null;
    if (!canvas || canvas.width === 0 || canvas.height === 0) return 0;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
    return n;
  }, id);
}

const phaseTable = (page: Page) =>
  page.evaluate(() => ({
    summary: document.getElementById('phases-summary')?.textContent,
    rows: Array.from(document.querySelectorAll('#phases-body tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent)),
    open: (document.getElementById('phases-summary')?.parentElement as HTMLDetailsElement | null)?.open,
  }));

describe('the report page while a reconstruction runs, in Chromium', () => {
  let browser: Browser;
  let temp: string;
  let run: RunningReports;

  before(async () => {
    assert.ok(existsSync(CHROMIUM_PATH), `Chromium not found at ${CHROMIUM_PATH}. Run: bash scripts/setup-code-server.sh (installs Debian's chromium)`);
    run = await runningReports(2000);
    temp = mkdtempSync(join(tmpdir(), 'mpl-live-page-'));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('a timeline message redraws the charts and the phase table in place, keeping the scroll and open table', async () => {
    const shown = run.running.find((r) => r.timeline.length > 1)!;
    const next = run.running.at(-1)!;
    const message = timelineMessage(shown, next);
    assert.ok(message && message.phases.length > 1, 'a later report of the same run, with more phases');
    const { page, problems } = await open(browser, webviewFile(temp, 'running.html', shown), undefined);
    try {
      assert.deepEqual(problems, []);
      const charts = await page.getAttribute('body', 'data-charts');
      assert.equal(charts, '2', 'progress and phases (no features or advisor while running)');
      await page.click('#phases-summary');
      await page.evaluate(() => {
        (window as unknown as { marker: number }).marker = 1;
        document.getElementById('progress')!.scrollIntoView();
      });
      const scrollY = await page.evaluate(() => window.scrollY);
      assert.ok(scrollY > 0, 'the page is scrolled');
      const before = await phaseTable(page);
      assert.ok(before.rows.length < message.phases.length);

      await page.evaluate((m) => window.postMessage(m, '*'), message);
      await page.waitForFunction((n) => document.querySelectorAll('#phases-body tr').length === n, message.phases.length, { timeout: 5000 });
      const after = await phaseTable(page);
      assert.deepEqual(after.rows, message.phases, 'the later report\'s phases');
      assert.equal(after.summary, message.summary);
      assert.equal(after.open, true, 'the phase table stays open');
      assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 1, 'the same page, not reloaded');
      assert.equal(await page.evaluate(() => window.scrollY), scrollY, 'the reader\'s place is kept');
      assert.equal(await page.getAttribute('body', 'data-charts'), charts, 'the charts were replaced, not added');
      for (const id of ['chart-progress', 'chart-phases']) assert.ok((await painted(page, id)) > 100, `${id} drawn`);
      // Saved for a later rendering (debounced).
      await page.waitForFunction((y) => (window as unknown as { saved?: { scrollY?: number } }).saved?.scrollY === y, scrollY, { timeout: 2000 });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  it('a page rendered again scrolls back to the saved place', async () => {
    const { page, problems } = await open(browser, webviewFile(temp, 'final.html', run.final), { scrollY: 400 });
    try {
      assert.equal(await page.evaluate(() => window.scrollY), 400);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
