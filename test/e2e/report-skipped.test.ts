// Editor-level test of the report of a model whose reconstruction was skipped
// (test/fixtures/xgboost-objectives/xgbrf_full_pima.ubj: XGBoost's random-forest mode without
// subsample, ten trees grown side by side in one round, which the engine does not reconstruct yet,
// with a first-tree-exposes-counts warning), in the packaged extension in code-server:
// nothing reads "safe" when nothing was measured. The headline says "Not measured" once, is
// warning-coloured (never the green of a model that gives nothing away), names the warnings that
// still stand, and the page announces no advisor section that will not come.
// Screenshot: test-results/e2e/report-skipped.png.
//
// Prerequisites (missing ones FAIL the test, they never skip it):
//   bash scripts/setup-code-server.sh   (cached code-server, chromium; or CODE_SERVER_CACHE=...)
//   npm run package                     (model-privacy-lint.vsix)
// Run: node --test out/test/e2e/report-skipped.test.js
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { REPO_ROOT, log, pollUntil, quickOpen, reportFrame, screenshot, EditorSession } from './code-server';

const VSIX = path.resolve(process.env.E2E_VSIX ?? path.join(REPO_ROOT, 'model-privacy-lint.vsix'));
const MODEL = 'xgbrf_full_pima.ubj';

let session: EditorSession | undefined;
let page: Page | undefined;
let failed = false;


before(async () => {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'mpl-e2e-skipped-'));
  fs.copyFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'xgboost-objectives', MODEL), path.join(workspace, MODEL));
  session = new EditorSession('report-skipped', workspace);
  // The advisor off, as a user may set it: its section must then not be announced at all.
  page = await session.open(VSIX, { 'workbench.colorTheme': 'Default Light Modern', 'modelPrivacyLint.advisor.enabled': false });
}, { timeout: 240_000 });

after(async () => {
  if (!session) return;
  session.failed = failed;
  await session.close();
}, { timeout: 30_000 });

test('a skipped reconstruction reads "Not measured", warning-coloured, with the warnings that still stand', { timeout: 300_000 }, async () => {
  try {
    const p = page!;
    await quickOpen(p, MODEL);

    const frame = reportFrame(p);
    let data: { headline: { status: string; verdict?: string; look?: string; reason?: string } } | undefined;
    await pollUntil(
      'the report of the skipped reconstruction',
      async () => {
        const text = await frame.locator('#report-data').textContent({ timeout: 2000 }).catch(() => null);
        data = text ? JSON.parse(text) : undefined;
        return data?.headline.status === 'skipped' ? undefined : `headline: ${JSON.stringify(data?.headline) ?? '(no report yet)'}`;
      },
      150_000,
    );
    assert.equal(data!.headline.verdict, 'not-measured');
    assert.equal(data!.headline.look, 'warning', 'warnings stand, so the headline is warning-coloured');

    const card = frame.locator('#headline');
    const classes = (await card.getAttribute('class')) ?? '';
    assert.match(classes, /\blook-warning\b/);
    assert.doesNotMatch(classes, /\blook-safe\b/);
    const text = (await card.innerText()).replace(/\s+/g, ' ');
    log(`headline: ${text}`);
    assert.equal(text.match(/Not measured/g)?.length, 1, 'says "Not measured" once');
    assert.match(text, /first-tree-exposes-counts/, 'names the warnings that still stand');
    assert.doesNotMatch(text, /Nothing reconstructed/i);
    // The reason once: in the "Why" line, not repeated in the summary.
    const reason = data!.headline.reason ?? '';
    assert.ok(reason.length > 0);
    assert.equal(text.split(reason.slice(0, 40)).length - 1, 1, 'the reason appears once');

    // No green anywhere in the headline: its border is the theme's warning colour.
    const [border, badge] = await card.evaluate((el) => {
      const b = el.querySelector('.claim-badge');
      return [getComputedStyle(el).borderLeftColor || getComputedStyle(el).borderColor, b ? getComputedStyle(b).color : ''];
    });
    log(`headline border ${border}, badge ${badge}`);
    for (const colour of [border, badge]) {
      const rgb = /rgba?\((\d+), (\d+), (\d+)/.exec(colour);
      if (!rgb) continue;
      const [r, g, b] = rgb.slice(1).map(Number);
      assert.ok(!(g > r + 40 && g > b + 40), `a green in the headline: ${colour}`);
    }

    // The advisor is off: no section and no link announce it.
    const body = (await frame.locator('body').innerText()).replace(/\s+/g, ' ');
    assert.doesNotMatch(body, /Advisor not run/);
    assert.equal(await frame.locator('section#advisor').count(), 0);
    assert.equal(await frame.locator('a[href="#advisor"]').count(), 0);
    await card.scrollIntoViewIfNeeded();
    await screenshot(p, 'report-skipped');
  } catch (e) {
    failed = true;
    throw e;
  }
});
