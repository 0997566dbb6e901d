// Editor-level test: the packaged extension (model-privacy-lint.vsix) in a real VS Code
// workbench (cached code-server + Debian Chromium) lists in the Problems panel every
// finding that the project's CLI reports for the same workspace.
//
// Prerequisites (missing ones FAIL the test, they never skip it):
//   bash scripts/setup-code-server.sh   (cached code-server, chromium)
//   npm run package                     (model-privacy-lint.vsix, dist/cli.js)
// Run: node --test out/test/e2e/problems-panel.test.js
// Env overrides: E2E_VSIX, E2E_CLI, E2E_EXAMPLES, E2E_SETTINGS (JSON of extra user
// settings), E2E_DIAGNOSTICS_TIMEOUT_MS (default 90000), CODE_SERVER_CACHE, CHROMIUM_PATH.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  REPO_ROOT,
  RESULTS_DIR,
  assertCodeServerReady,
  copyToTempWorkspace,
  log,
  openProblemsPanel,
  pollUntil,
  readProblemRows,
  revealProblemRow,
  screenshot,
  type ProblemRow,
  EditorSession,
} from './code-server';

const SOURCE = 'model-privacy-lint';
const VSIX = path.resolve(process.env.E2E_VSIX ?? path.join(REPO_ROOT, 'model-privacy-lint.vsix'));
const CLI = path.resolve(process.env.E2E_CLI ?? path.join(REPO_ROOT, 'dist', 'cli.js'));
const EXAMPLES = path.resolve(process.env.E2E_EXAMPLES ?? path.join(REPO_ROOT, 'examples'));
const DIAGNOSTICS_TIMEOUT_MS = Number(process.env.E2E_DIAGNOSTICS_TIMEOUT_MS ?? 90_000);
/**
 * The reconstruction's time budget, the same for the CLI and the editor: the numeric examples
 * use the bounded search, which runs until its budget ends, one file after the other.
 */
const BUDGET_SECONDS = 5;
const EXTRA_SETTINGS: Record<string, unknown> = {
  'modelPrivacyLint.timeBudgetSeconds': BUDGET_SECONDS,
  ...(process.env.E2E_SETTINGS ? JSON.parse(process.env.E2E_SETTINGS) : {}),
};

interface CliFinding {
  rule: string;
  severity: string;
  message: string;
  location?: unknown;
}
interface CliReport {
  version: number;
  files: { path: string; format?: string; findings: CliFinding[] }[];
}
interface Expected extends CliFinding {
  file: string;
}

const normalize = (s: string): string => s.replace(/\s+/g, ' ').trim();
/** Training-script diagnostics (train.py) come from the editor alone; script-quick-fix.test.ts checks them. */
const isScriptRow = (r: ProblemRow): boolean => /\bscript-/.test(r.code ?? '');
/** What the panel must show of a message: its first line, at most 100 characters. */
const messagePrefix = (message: string): string => normalize(message.split(/\r?\n/)[0] ?? '').slice(0, 100);

function runCli(workspace: string): Promise<CliReport> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, workspace, '--format', 'json', '--budget', String(BUDGET_SECONDS)], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (err, stdout, stderr) => {
      // A linter may exit non-zero when it has findings: judge by the JSON it printed.
      try {
        const report = JSON.parse(stdout) as CliReport;
        if (!report || !Array.isArray(report.files)) throw new Error('no "files" array');
        resolve(report);
      } catch (e) {
        reject(new Error(`node ${path.relative(REPO_ROOT, CLI)} ${workspace} --format json did not print the JSON report ` +
          `(${(e as Error).message}; exit ${err?.code ?? 0}):\nstdout: ${stdout.slice(0, 2000)}\nstderr: ${stderr.slice(0, 2000)}`));
      }
    });
  });
}

/** Pairs each expected finding with its own Problems-panel row; returns what did not match. */
function matchFindings(expected: Expected[], rows: ProblemRow[]): { matched: Map<Expected, ProblemRow>; missing: Expected[] } {
  const ours = rows.filter((r) => r.message !== undefined && normalize(r.source ?? '') === SOURCE && !isScriptRow(r));
  const used = new Set<ProblemRow>();
  const matched = new Map<Expected, ProblemRow>();
  const missing: Expected[] = [];
  const fits = (f: Expected, r: ProblemRow, exact: boolean): boolean => {
    if (used.has(r) || !(r.code ?? '').includes(f.rule) || r.file !== f.file) return false;
    const shown = normalize(r.message ?? '');
    return exact ? shown === normalize(f.message) : shown.startsWith(messagePrefix(f.message));
  };
  // exact messages first, so a prefix match never steals another finding's row
  const pending: Expected[] = [];
  for (const f of expected) {
    const row = ours.find((r) => fits(f, r, true));
    if (row) {
      used.add(row);
      matched.set(f, row);
    } else pending.push(f);
  }
  for (const f of pending) {
    const row = ours.find((r) => fits(f, r, false));
    if (row) {
      used.add(row);
      matched.set(f, row);
    } else missing.push(f);
  }
  return { matched, missing };
}

const describeFinding = (f: Expected): string => `${f.file}: [${f.rule}] ${messagePrefix(f.message)}`;
const describeRow = (r: ProblemRow): string =>
  r.message === undefined ? `FILE ${r.text}` : `  ${r.file}: source=${r.source} code=${r.code} icon=${r.icon} message=${normalize(r.message).slice(0, 120)}`;

let workspace: string | undefined;
let session: EditorSession | undefined;
let page: Page | undefined;
let expected: Expected[] = [];
let hints: Expected[] = [];
let rows: ProblemRow[] = [];
let failed = false;

before(async () => {
  // Prerequisites: fail loudly, never skip.
  const problems: string[] = [];
  try {
    assertCodeServerReady();
  } catch (e) {
    problems.push((e as Error).message);
  }
  if (!fs.existsSync(VSIX)) problems.push(`packaged extension not found: ${VSIX}. Build it: npm run package`);
  if (!fs.existsSync(CLI)) problems.push(`CLI not found: ${CLI}. Build it: npm run build`);
  if (!fs.existsSync(EXAMPLES) || fs.readdirSync(EXAMPLES).length === 0) problems.push(`examples folder missing or empty: ${EXAMPLES}`);
  if (problems.length) throw new Error(`e2e prerequisites missing:\n - ${problems.join('\n - ')}`);

  workspace = copyToTempWorkspace(EXAMPLES);
  log(`workspace: ${workspace}`);

  const t0 = Date.now();
  const report = await runCli(workspace);
  const all = report.files.flatMap((f) => f.findings.map((x) => ({ ...x, file: path.basename(f.path) })));
  // VS Code lists hints in the hover, not in the Problems panel (exact-counts is one by default)
  hints = all.filter((f) => f.severity === 'hint');
  expected = all.filter((f) => f.severity !== 'hint');
  log(`CLI: ${report.files.length} files, ${expected.length} findings in ${Date.now() - t0} ms`);
  for (const f of expected) log(`  expect ${describeFinding(f)}`);
  if (expected.length === 0) throw new Error(`the CLI reported no findings for ${EXAMPLES}; this test needs example models with findings`);

  session = new EditorSession('problems-panel', workspace);
  page = await session.open(VSIX, EXTRA_SETTINGS);
  await openProblemsPanel(page);
}, { timeout: 240_000 });

after(async () => {
  if (!session) return;
  session.failed = failed;
  await session.close();
}, { timeout: 30_000 });

test('Problems panel lists every finding the CLI reports (rule id, message, file, source)', { timeout: DIAGNOSTICS_TIMEOUT_MS + 60_000 }, async () => {
  try {
    assert.ok(page, 'workbench not open');
    let missing: Expected[] = expected;
    await pollUntil(
      `${expected.length} model-privacy-lint diagnostics in the Problems panel`,
      async () => {
        rows = await readProblemRows(page!);
        missing = matchFindings(expected, rows).missing;
        return missing.length === 0
          ? undefined
          : `not shown (${missing.length} of ${expected.length}):\n${missing.map(describeFinding).join('\n')}\n` +
              `panel rows (${rows.length}):\n${rows.map(describeRow).join('\n') || '(none)'}`;
      },
      DIAGNOSTICS_TIMEOUT_MS,
    );
    // no hover over a row in the picture (the README's screenshot comes from here)
    await page.mouse.move(0, 0);
    await page.keyboard.press('Escape');
    await page.waitForTimeout(1000);
    await screenshot(page, 'problems-panel');
    fs.writeFileSync(path.join(RESULTS_DIR, 'problems-panel-rows.json'), JSON.stringify(rows, null, 2));
  } catch (e) {
    failed = true;
    throw e;
  }
});

test('severity icons follow the CLI severities, and no finding is shown twice', () => {
  try {
    const { matched } = matchFindings(expected, rows);
    assert.equal(matched.size, expected.length, 'not every finding was matched (see the test above)');
    const icon: Record<string, string> = { error: 'error', warning: 'warning', info: 'info', information: 'info' };
    const wrong = [...matched]
      .filter(([f, r]) => icon[f.severity.toLowerCase()] && !(r.icon ?? '').split(/\s+/).some((c) => c === `codicon-${icon[f.severity.toLowerCase()]}` || c === icon[f.severity.toLowerCase()]))
      .map(([f, r]) => `${describeFinding(f)}: severity ${f.severity}, panel icon "${r.icon}"`);
    assert.deepEqual(wrong, [], 'severity shown in the Problems panel differs from the CLI');
    const ours = rows.filter((r) => r.message !== undefined && normalize(r.source ?? '') === SOURCE && !isScriptRow(r));
    assert.equal(ours.length, expected.length,
      `the panel shows ${ours.length} ${SOURCE} diagnostics, the CLI reports ${expected.length} findings:\n${ours.map(describeRow).join('\n')}`);
  } catch (e) {
    failed = true;
    throw e;
  }
});

test('the panel is short: at most two rows per problem, hints not listed, and every first line says what leaks in 80 characters', () => {
  try {
    const ours = rows.filter((r) => r.message !== undefined && normalize(r.source ?? '') === SOURCE && !isScriptRow(r));
    const problems = rows.filter((r) => r.message !== undefined).length;
    // every row of the tree: files, problems and the related information under them
    log(`Problems panel: ${rows.length} rows for ${problems} problems (${ours.length} of them model findings; ${hints.length} hints not listed)`);
    const lines = rows.reduce((n, r) => n + (r.message === undefined ? 1 : r.message.split('\n').length), 0);
    log(`Problems panel: ${lines} visual lines (multi-line messages shown in full, the default)`);
    assert.ok(rows.length <= 2 * problems, `${rows.length} rows for ${problems} problems:\n${rows.map(describeRow).join('\n')}`);
    const listedHints = hints.filter((h) => ours.some((r) => (r.code ?? '').includes(h.rule) && r.file === h.file));
    assert.deepEqual(listedHints.map(describeFinding), [], 'hints are not rows of the Problems panel');
    const long = ours.filter((r) => normalize((r.message ?? '').split('\n')[0]).length > 80).map(describeRow);
    assert.deepEqual(long, [], 'first lines longer than 80 characters');
    // what leaks, then what to do after the colon
    const vague = ours.filter((r) => !/: \S.*\.$/.test(normalize((r.message ?? '').split('\n')[0]))).map(describeRow);
    assert.deepEqual(vague, [], 'first lines without an action after the colon');
    // One-hot features read as the category they encode (COMPAS' `name:value` columns), never as
    // `priors:=0 > 0.5`.
    const compas = ours.filter((r) => (r.file ?? '').includes('compas') && (r.code ?? '').includes('singleton-leaf'));
    assert.ok(compas.length > 0, 'the COMPAS model has a singleton-leaf finding in the panel');
    for (const r of compas) {
      assert.match(r.message ?? '', /\b[a-z-]+ (=|≠) [^ ,]+/, `one-hot conditions as categories: ${r.message}`);
      assert.doesNotMatch(r.message ?? '', /:[^ ,]* (<=|>) 0\.5/, `a one-hot column compared with 0.5: ${r.message}`);
    }
  } catch (e) {
    failed = true;
    throw e;
  }
});

test("a finding's rule link in the Problems panel opens the rendered page", { timeout: 60_000 }, async (t) => {
  try {
    assert.ok(page, 'workbench not open');
    const { matched } = matchFindings(expected, rows);
    const withLink = [...matched].find(([, r]) => r.link);
    if (!withLink) {
      t.skip('the diagnostics carry plain-string codes (no code.target), so the panel shows no rule link');
      return;
    }
    const [finding, row] = withLink;
    const href = row.link!;
    log(`rule link of ${describeFinding(finding)}: ${href}`);
    const context = page.context();
    const pagesBefore = context.pages().length;
    // With no network the new tab ends on an error page: its request shows where it went.
    const requested: string[] = [];
    context.on('request', (req) => requested.push(req.url()));
    const link = page.locator(`.markers-panel .monaco-list-row[data-index="${row.index}"] .monaco-link`).first();
    await revealProblemRow(page, row.index); // the tree is virtual: bring the row into the DOM
    await link.click({ timeout: 10_000 });
    const ruleBase = decodeURIComponent(href.split(/[?#]/)[0]!.split('/').pop() ?? '');
    let outcome = '';
    await pollUntil(
      `the rule link ${href} to open`,
      async () => {
        const popup = context.pages().slice(pagesBefore)[0];
        if (popup) {
          const target = requested.find((u) => u.replace(/\/$/, '') === href.replace(/\/$/, ''));
          if (!target) return `a new browser tab opened, but no request for ${href} yet (requests: ${JSON.stringify(requested.slice(-5))})`;
          outcome = `new browser tab requesting ${target}`;
          return undefined;
        }
        // VS Code asks before opening an external site: answer "Open".
        const open = page!.locator('.monaco-dialog-box .monaco-button', { hasText: /^Open$/ }).first();
        if (await open.isVisible().catch(() => false)) {
          await open.click();
          return 'confirmed the "open external website" dialog';
        }
        const tabs = await page!.locator('.tabs-container .tab').allInnerTexts();
        // the shipped page, rendered and read-only: the Markdown preview, not a text editor
        const preview = tabs.find((x) => x.includes(`Preview ${finding.rule}.md`));
        if (preview) {
          const textEditor = await page!.evaluate(() => document.querySelector('.editor-group-container.active .monaco-editor') !== null);
          if (textEditor) return `the preview tab "${normalize(preview)}" opened, but the active editor group shows a text editor`;
          let heading = '';
          for (const frame of page!.frames()) {
            heading = (await frame.locator('h1').first().innerText({ timeout: 200 }).catch(() => '')) || heading;
            if (heading.includes(finding.rule)) break;
          }
          if (!heading.includes(finding.rule)) return `preview tab "${normalize(preview)}" opened, its rendered heading not yet (${JSON.stringify(heading)})`;
          outcome = `Markdown preview "${normalize(preview)}" rendering the heading ${JSON.stringify(heading)}`;
          return undefined;
        }
        const tab = tabs.find((x) => (ruleBase && x.includes(ruleBase)) || x.includes(finding.rule));
        if (tab) return `a tab "${normalize(tab)}" opened, not the Markdown preview`;
        return `no new tab, dialog or editor yet (editor tabs: ${JSON.stringify(tabs)})`;
      },
      15_000,
      250,
    );
    log(`rule link opened: ${outcome}`);
    await page.mouse.move(0, 0);
    await screenshot(page, 'rule-link');
    assert.ok(outcome.startsWith('Markdown preview') || outcome.startsWith('new browser tab'), outcome);
  } catch (e) {
    failed = true;
    throw e;
  }
});

