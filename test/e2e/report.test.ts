// Editor-level test of the privacy report: the packaged extension (model-privacy-lint.vsix) in a
// real VS Code workbench (cached code-server + Debian Chromium). Opening a binary model
// (examples/models/compas_no_bagging.joblib, with its sidecar) shows the report's custom editor,
// whose headline states the rows the engine certifies in this process; "reveal" asks for a modal
// confirmation and then shows exactly the engine's rows; screenshots in a light and a dark theme
// (test-results/e2e/report-light.png, report-dark.png, report-high-contrast.png).
//
// Prerequisites (missing ones FAIL the test, they never skip it):
//   bash scripts/setup-code-server.sh   (cached code-server, chromium; or CODE_SERVER_CACHE=...)
//   npm run package                     (model-privacy-lint.vsix)
// Run: node --test out/test/e2e/report.test.js
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  REPO_ROOT,
  log,
  pollUntil,
  quickOpen,
  reportFrame,
  screenshot,
  selectColorTheme,
  EditorSession,
} from './code-server';
import { lintFile } from '../../server/src/linter/linter';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import type { ReconstructionResult } from '../../server/src/attacks/reconstruction/types';

const VSIX = path.resolve(process.env.E2E_VSIX ?? path.join(REPO_ROOT, 'model-privacy-lint.vsix'));
const MODELS = path.join(REPO_ROOT, 'examples', 'models');
const MODEL = 'compas_no_bagging.joblib';
const BUDGET_SECONDS = 60;
const SETTINGS = { 'modelPrivacyLint.timeBudgetSeconds': BUDGET_SECONDS };
const REVEAL_WARNING = 'The reconstructed values are personal data of the people in the training set. Show them?';

let workspace: string | undefined;
let session: EditorSession | undefined;
let page: Page | undefined;
let engine: ReconstructionResult;
let failed = false;


before(async () => {
  // What the engine proves from the same file and sidecar, in this process.
  const modelPath = path.join(MODELS, MODEL);
  engine = (await assessRecoverability(modelPath, (await lintFile(modelPath, { keepForest: true })).forest!, { budgetMs: BUDGET_SECONDS * 1000 })).result;
  assert.equal(engine.status, 'exact', `the engine: ${engine.status} ${engine.reason ?? ''}`);

  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'mpl-e2e-report-'));
  for (const name of [MODEL, 'compas_no_bagging.privacy.json']) fs.copyFileSync(path.join(MODELS, name), path.join(workspace, name));
  session = new EditorSession('report', workspace);
  page = await session.open(VSIX, { ...SETTINGS, 'workbench.colorTheme': 'Default Light Modern' });
}, { timeout: 240_000 });

after(async () => {
  if (!session) return;
  session.failed = failed;
  await session.close();
}, { timeout: 30_000 });

test('opening a binary model shows its privacy report; reveal after confirmation shows the engine\'s rows; light and dark themes', { timeout: 300_000 }, async () => {
  try {
    const p = page!;
    // Quick Open: the file opens in its default editor, which for *.joblib is the report.
    await quickOpen(p, MODEL);

    const frame = reportFrame(p);
    // The page renders the report it embeds (#report-data): wait for the reconstruction's.
    let data: { headline: { status: string; certifiedRows: number; rows: number | null; claim: string } } | undefined;
    await pollUntil(
      'the report of the finished reconstruction',
      async () => {
        const text = await frame.locator('#report-data').textContent({ timeout: 2000 }).catch(() => null);
        data = text ? JSON.parse(text) : undefined;
        return data?.headline.status === 'exact' ? undefined : `headline: ${JSON.stringify(data?.headline) ?? '(no report yet)'}`;
      },
      150_000,
    );
    assert.equal(engine.certifiedRows, 100, 'the engine certifies all 100 rows');
    assert.equal(data!.headline.certifiedRows, engine.certifiedRows, 'the report\'s certified rows are the engine\'s');
    assert.equal(data!.headline.rows, 100);
    assert.equal(data!.headline.claim, 'certified');
    const headline = (await frame.locator('#headline').innerText()).replace(/\s+/g, ' ');
    log(`headline: ${headline}`);
    assert.match(headline, /\b100\b/, 'the headline shows the 100 certified rows');
    assert.match(headline, /certified|proven/i);
    assert.match(await p.locator('.tab.active').innerText(), new RegExp(MODEL.replace('.', '\\.')), 'the report is the active editor of the model file');
    assert.equal(await p.locator('.editor-group-container.active .monaco-editor').count(), 0, 'no text editor: the custom editor shows the model');
    assert.match((await frame.locator('body').getAttribute('class')) ?? '', /vscode-light/);
    // The reconstruction's progress ended with it (none left behind in the status bar).
    await pollUntil('no reconstruction progress left in the status bar', async () => {
      const bar = await p.locator('.part.statusbar').innerText();
      return /Reconstructing training rows/.test(bar) ? bar : undefined;
    }, 20_000);
    await screenshot(p, 'report-light');

    // Reveal: a modal confirmation first, then the values.
    assert.equal(await frame.locator('#revealed-rows tbody tr').count(), 0, 'no values before the reveal');
    await frame.locator('#reveal-button').click();
    const dialog = p.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 10_000 });
    assert.ok((await dialog.innerText()).includes(REVEAL_WARNING), 'the modal warns that the values are personal data');
    await dialog.locator('.monaco-button', { hasText: 'Show values' }).click();
    const shown = frame.locator('#revealed-rows tbody tr');
    await pollUntil('the revealed rows', async () => ((await shown.count()) > 0 ? undefined : 'no rows yet'), 20_000);

    // Every row shown is one of the engine's rows (values and label), as many as fit the table.
    const features = engine.reconstruction[0].values.length;
    const table = await shown.evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll('td')).map((td) => td.textContent ?? '')));
    const expected = new Map<string, number>();
    const key = (values: string[], label: string) => JSON.stringify([values, label]);
    for (const row of engine.reconstruction) {
      const k = key(row.values.map((v) => (v === null ? '?' : String(v))), String(row.label));
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
    assert.equal(table.length, Math.min(engine.reconstruction.length, table.length));
    assert.ok(table.length >= Math.min(50, engine.reconstruction.length), `${table.length} rows shown`);
    for (const cells of table) {
      const k = key(cells.slice(-features - 1, -1), cells.at(-1)!);
      const left = expected.get(k) ?? 0;
      assert.ok(left > 0, `a shown row is not one of the engine's: ${cells.join(' ')}`);
      expected.set(k, left - 1);
    }

    // Dark theme, chosen as a user would (it writes `workbench.colorTheme` to the user settings):
    // the report follows without reopening.
    await selectColorTheme(p, 'Default Dark Modern');
    await pollUntil('the dark theme in the report', async () => (/vscode-dark/.test((await frame.locator('body').getAttribute('class')) ?? '') ? undefined : 'still light'), 30_000);
    await shown.first().waitFor({ state: 'visible', timeout: 5000 });
    await frame.locator('#headline').scrollIntoViewIfNeeded();
    await screenshot(p, 'report-dark');

    // High contrast: the page's own high-contrast rules (borders instead of mixed colours) apply.
    await selectColorTheme(p, 'Dark High Contrast');
    await pollUntil('the high-contrast theme in the report', async () => (/vscode-high-contrast/.test((await frame.locator('body').getAttribute('class')) ?? '') ? undefined : 'not high contrast yet'), 30_000);
    // Cards are not set off by a mixed colour there: their background is the page's, borders carry the structure.
    const [card, body] = await frame.locator('#headline').evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(document.body).backgroundColor]);
    assert.equal(card, body, 'the headline card takes the page background in high contrast');
    await frame.locator('#headline').scrollIntoViewIfNeeded();
    await screenshot(p, 'report-high-contrast');
  } catch (e) {
    failed = true;
    throw e;
  }
});
