// Helpers for the editor-level tests: a packaged .vsix installed into a cached
// code-server (a real VS Code workbench), driven by Debian's Chromium through
// playwright-core. Recipe: shared/notes/editor-testing.md; the cache is built by
// scripts/setup-code-server.sh.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type FrameLocator, type Locator, type Page } from 'playwright-core';

/** Repository root (this file compiles to out/test/e2e/code-server.js). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const CODE_SERVER_VERSION = process.env.CODE_SERVER_VERSION ?? '4.100.3';
export const CODE_SERVER_CACHE = process.env.CODE_SERVER_CACHE ?? path.join(REPO_ROOT, '.cache', 'code-server');
export const CODE_SERVER_ENTRY = path.join(CODE_SERVER_CACHE, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const RESULTS_DIR = path.join(REPO_ROOT, 'test-results', 'e2e');

/** Chromium flags from the recipe; the background-networking ones keep it off the closed network. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function log(message: string): void {
  process.stderr.write(`[e2e ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Throws (so the test fails, never skips) when the cache or browser is not there. */
export function assertCodeServerReady(): void {
  const ready = path.join(CODE_SERVER_CACHE, '.ready');
  const builtVersion = fs.existsSync(ready) ? fs.readFileSync(ready, 'utf8').trim() : undefined;
  if (builtVersion !== CODE_SERVER_VERSION || !fs.existsSync(CODE_SERVER_ENTRY)) {
    throw new Error(
      `cached code-server ${CODE_SERVER_VERSION} not found in ${CODE_SERVER_CACHE} ` +
        `(marker .ready: ${builtVersion ?? 'missing'}). Build it first: bash scripts/setup-code-server.sh`,
    );
  }
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}. Run: bash scripts/setup-code-server.sh (installs Debian's chromium)`);
  }
}

function run(cmd: string, args: string[], timeoutMs: number, cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: cleanEnv() }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') {
        reject(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stderr}`));
        return;
      }
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

/** Our environment less what would make code-server think it runs inside another VS Code. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE' || k.startsWith('NODE_TEST')) continue;
    env[k] = v;
  }
  return env;
}

export interface EditorProfile {
  /** Temp folder holding both dirs below; removed by dispose(). */
  root: string;
  extensionsDir: string;
  userDataDir: string;
  dispose(): void;
}

/**
 * Fresh extensions dir + user-data dir with the recipe's settings (plus `settings`),
 * and the vsix installed with `--install-extension` (recipe step 5-6).
 */
export async function installVsix(vsixPath: string, settings: Record<string, unknown> = {}): Promise<EditorProfile> {
  if (!fs.existsSync(vsixPath)) throw new Error(`vsix not found: ${vsixPath}`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mpl-e2e-profile-'));
  const extensionsDir = path.join(root, 'extensions');
  const userDataDir = path.join(root, 'user-data');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const allSettings = {
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'telemetry.telemetryLevel': 'off',
    // sticky parent rows float over the Problems tree and take the clicks meant for the rows below
    'workbench.tree.enableStickyScroll': false,
    ...settings,
  };
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(allSettings, null, 2));
  const profile: EditorProfile = {
    root,
    extensionsDir,
    userDataDir,
    dispose: () => fs.rmSync(root, { recursive: true, force: true }),
  };
  const t0 = Date.now();
  const res = await run(
    process.execPath,
    [CODE_SERVER_ENTRY, '--install-extension', vsixPath, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir],
    180_000,
  );
  const out = `${res.stdout}\n${res.stderr}`;
  if (res.code !== 0 || !/successfully installed/i.test(out)) {
    profile.dispose();
    throw new Error(`code-server --install-extension ${vsixPath} failed (exit ${res.code}):\n${out}`);
  }
  log(`installed ${path.basename(vsixPath)} in ${Date.now() - t0} ms`);
  return profile;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function httpStatus(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => {
      req.destroy();
      resolve(undefined);
    });
  });
}

export interface RunningCodeServer {
  url: string;
  port: number;
  logFile: string;
  process: ChildProcess;
  /** Kills the whole process group (code-server, its extension hosts, the language server). */
  stop(): Promise<void>;
}

/** Starts code-server on a free 127.0.0.1 port (recipe step 7) and waits until it answers. */
export async function startCodeServer(profile: EditorProfile, workspace: string, timeoutMs = 60_000): Promise<RunningCodeServer> {
  const port = await freePort();
  const logFile = path.join(profile.root, 'code-server.log');
  const fd = fs.openSync(logFile, 'a');
  const args = [
    CODE_SERVER_ENTRY,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--user-data-dir', profile.userDataDir,
    '--extensions-dir', profile.extensionsDir,
    workspace,
  ];
  const t0 = Date.now();
  // detached: own process group, so stop() can take down everything it started.
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', fd, fd], env: cleanEnv() });
  fs.closeSync(fd);
  let exited: string | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `exit code ${code}, signal ${signal}`;
      resolve();
    });
  });

  const killGroup = (sig: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, sig);
    } catch {
      /* already gone */
    }
  };
  // If this process ends without reaching stop() (a crash, the runner's timeout), take the
  // group down with it rather than leave a server behind.
  const onExit = () => killGroup('SIGKILL');
  const onSignal = (sig: NodeJS.Signals) => {
    killGroup('SIGKILL');
    process.exit(128 + (sig === 'SIGINT' ? 2 : 15));
  };
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (!exited) {
      killGroup('SIGTERM');
      const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5000).unref());
      if ((await Promise.race([exitPromise.then(() => 'exited' as const), timer])) === 'timeout') {
        killGroup('SIGKILL');
        await exitPromise;
      }
    }
    killGroup('SIGKILL'); // stragglers in the group (extension host, language server, workers)
  };

  const url = `http://127.0.0.1:${port}`;
  try {
    for (;;) {
      if (exited) throw new Error(`code-server exited before answering (${exited})`);
      if ((await httpStatus(`${url}/healthz`)) === 200) break;
      if (Date.now() - t0 > timeoutMs) throw new Error(`code-server did not answer on ${url} within ${timeoutMs} ms`);
      await delay(200);
    }
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n--- ${logFile} ---\n${tail(logFile)}`);
  }
  log(`code-server answering on ${url} after ${Date.now() - t0} ms (pid ${child.pid})`);
  return { url, port, logFile, process: child, stop };
}

export function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Debian's Chromium with the recipe's flags (recipe step 8). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** Opens the workbench on `folder` and waits for it to be there. */
export async function openWorkbench(browser: Browser, server: RunningCodeServer, folder: string, timeoutMs = 60_000): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const t0 = Date.now();
  await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}`, { timeout: timeoutMs });
  await page.waitForSelector('.monaco-workbench', { state: 'visible', timeout: timeoutMs });
  log(`workbench loaded in ${Date.now() - t0} ms`);
  // Show the Explorer (code-server may open the Extensions view after an install), so
  // screenshots show the workspace's files.
  await page.locator('.part.editor').click({ position: { x: 200, y: 200 } }).catch(() => undefined);
  await page.keyboard.press('Control+Shift+E');
  await page.waitForSelector('.explorer-folders-view', { state: 'visible', timeout: 10_000 }).catch(() => log('Explorer did not show (ignored)'));
  return page;
}

/** Runs a command through the command palette (F1), e.g. 'View: Toggle Maximized Panel'. */
export async function runCommand(page: Page, label: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${label}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
}

/**
 * Chooses a colour theme as a user does (Preferences: Color Theme, which writes
 * `workbench.colorTheme` to the user settings). The Ctrl+K Ctrl+T chord is tried first; when
 * it does not take (focus inside a webview can swallow the chord), the command palette opens
 * the picker. Waiting on the picker's own placeholder matters: the quick-input widget of the
 * previous pick lingers hidden in the page, and waiting on any input can resolve to it.
 */
export async function selectColorTheme(page: Page, theme: string): Promise<void> {
  const picker = page.locator('.quick-input-widget input[placeholder^="Select Color Theme"]');
  // Up to three tries: the picker can close under the test between opening and typing (CI at
  // 3107331: found visible, then hidden for 30 s while filling), and a route can fail to open it
  // (CI at 84abcef: the palette's Enter took another row).
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (!(await openThemePicker(page, picker))) continue;
    try {
      // Filter first: a theme's row can be scrolled out of the unfiltered list.
      await picker.fill(theme, { timeout: 5000 });
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: theme }).first().click({ timeout: 10_000 });
      await picker.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
      return;
    } catch (error) {
      log(`choosing ${theme} in the theme picker failed (try ${attempt}): ${(error as Error).message.split('\n')[0]}`);
      await page.keyboard.press('Escape');
    }
  }
  throw new Error(`could not choose the colour theme ${theme}`);
}

/**
 * Opens Preferences: Color Theme by its chord, else from the command palette; false when neither
 * shows it. MPL_E2E_PALETTE_ONLY=1 skips the chord, to exercise the palette route.
 */
async function openThemePicker(page: Page, picker: Locator): Promise<boolean> {
  await page.locator('.quick-input-widget input').first().waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
  await page.locator('.part.editor .tab.active').click().catch(() => undefined);
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+T');
  if (!process.env.MPL_E2E_PALETTE_ONLY && (await picker.waitFor({ state: 'visible', timeout: 5000 }).then(() => true, () => false))) return true;
  log('Ctrl+K Ctrl+T did not open the theme picker; using the command palette');
  try {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill('>Preferences: Color Theme');
    // Click the row itself: Enter takes whichever row is focused while the list still filters.
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Preferences: Color Theme' }).first().click({ timeout: 10_000 });
    await picker.waitFor({ state: 'visible', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Opens the Problems panel (Control+Shift+M, the command palette if that did not take). */
export async function openProblemsPanel(page: Page): Promise<void> {
  const panel = page.locator('.markers-panel');
  if (await panel.isVisible()) return;
  await page.locator('.part.editor').click({ position: { x: 200, y: 200 } }).catch(() => undefined);
  await page.keyboard.press('Control+Shift+M');
  try {
    await panel.waitFor({ state: 'visible', timeout: 5000 });
  } catch {
    log('Control+Shift+M did not open the Problems panel; using the command palette');
    await runCommand(page, 'Problems: Focus on Problems View');
    await panel.waitFor({ state: 'visible', timeout: 10_000 });
  }
}

export interface ProblemRow {
  index: number;
  level: number;
  /** Resource rows: the file label; marker rows: the file of the resource row above. */
  file: string;
  text: string;
  /** Marker rows only: the full message (the row's hover title), source, code, link. */
  message?: string;
  source?: string;
  code?: string;
  link?: string;
  /** Marker rows only: class names of the severity icon (e.g. "marker-icon error codicon codicon-error"). */
  icon?: string;
}

interface RawRow extends Omit<ProblemRow, 'file'> {
  resource?: string;
}

/** The rows of the Problems panel's tree that are in the DOM now (the tree is virtual). */
async function renderedProblemRows(page: Page): Promise<RawRow[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('.markers-panel .monaco-list-row'))
      // sticky-scroll copies of parent rows float above the list: not rows of their own
      .filter((el) => !el.closest('.monaco-tree-sticky-container') && !el.classList.contains('monaco-tree-sticky-row'))
      .map((el) => {
      const row = el as HTMLElement;
      const isMarker = row.querySelector('.marker-message-details-container') !== null;
      const messageLines = Array.from(row.querySelectorAll('.marker-message')).map((m) => (m as HTMLElement).innerText);
      const link = row.querySelector('.monaco-link') as HTMLElement | null;
      return {
        index: Number(row.getAttribute('data-index')),
        level: Number(row.getAttribute('aria-level') ?? '0'),
        text: row.innerText.replace(/\s+/g, ' ').trim(),
        message: isMarker ? messageLines.join('\n') : undefined,
        source: (row.querySelector('.marker-source') as HTMLElement | null)?.innerText,
        code: (row.querySelector('.marker-code') as HTMLElement | null)?.innerText,
        link: link ? (link.getAttribute('href') ?? link.getAttribute('title') ?? undefined) : undefined,
        icon: (row.querySelector('.marker-icon') as HTMLElement | null)?.className,
        resource: (row.querySelector('.label-name') as HTMLElement | null)?.innerText,
      };
    }),
  );
}

/** Scrolls the Problems tree (mouse wheel over it) until `done(rows in view)` or no more movement. */
async function scrollProblems(page: Page, direction: 1 | -1, done: (rows: RawRow[]) => boolean): Promise<RawRow[][]> {
  const list = page.locator('.markers-panel .monaco-list').first();
  const box = await list.boundingBox();
  if (!box) return [];
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const seenPages: RawRow[][] = [];
  let lastKey = '';
  for (let round = 0, stale = 0; round < 500 && stale < 3; round++) {
    const rows = await renderedProblemRows(page);
    seenPages.push(rows);
    if (done(rows)) break;
    // the scroll position: monaco moves the rows container instead of scrolling natively
    const offset = await page.evaluate(() => {
      const rowsEl = document.querySelector('.markers-panel .monaco-list-rows') as HTMLElement | null;
      return rowsEl ? `${rowsEl.style.top}|${rowsEl.style.transform}` : '';
    });
    const key = `${offset}/${rows.map((r) => r.index).join(',')}`;
    stale = key === lastKey ? stale + 1 : 0;
    lastKey = key;
    await page.mouse.wheel(0, direction * Math.max(60, Math.floor(box.height * 0.7)));
    await delay(60); // the list renders on the next animation frame
  }
  return seenPages;
}

/**
 * Every row of the Problems panel's tree. The tree is virtual (only rows in view are
 * in the DOM), so this scrolls it top to bottom and joins rows by their index.
 */
export async function readProblemRows(page: Page): Promise<ProblemRow[]> {
  if (!(await page.locator('.markers-panel .monaco-list').first().isVisible().catch(() => false))) return [];
  await scrollProblems(page, -1, () => false);
  const pages = await scrollProblems(page, 1, () => false);
  await scrollProblems(page, -1, () => false); // leave it at the top, for screenshots
  await page.mouse.move(0, 0); // no hover popups over the list
  const seen = new Map<number, RawRow>();
  for (const r of pages.flat()) if (!Number.isNaN(r.index)) seen.set(r.index, r);
  let file = '';
  return [...seen.values()]
    .sort((a, b) => a.index - b.index)
    .map(({ resource, ...r }) => {
      // Resource rows are the tree's first level; rows below a marker without a message of their
      // own are its related information ("trained by train.py:41"), not files.
      if (r.message === undefined && r.level <= 1) {
        file = resource ?? r.text;
        return { ...r, text: file, file };
      }
      return { ...r, file };
    });
}

/** Scrolls the Problems tree until the row with `index` is in view. */
export async function revealProblemRow(page: Page, index: number): Promise<void> {
  const fullyInView = () =>
    page.evaluate((i) => {
      const list = document.querySelector('.markers-panel .monaco-list');
      const row = document.querySelector(`.markers-panel .monaco-list-rows .monaco-list-row[data-index="${i}"]`);
      if (!list || !row) return false;
      const l = list.getBoundingClientRect();
      const r = row.getBoundingClientRect();
      return r.top >= l.top && r.bottom <= l.bottom;
    }, index);
  if (await fullyInView()) return;
  await scrollProblems(page, -1, () => false);
  for (let round = 0; round < 200 && !(await fullyInView()); round++) {
    const box = await page.locator('.markers-panel .monaco-list').first().boundingBox();
    if (!box) return;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 40); // about one row
    await delay(60);
  }
}

/**
 * Polls `check` (no fixed sleeps) until it returns `undefined` (done) or the timeout;
 * `check` returns a description of what is still missing, used in the error.
 */
export async function pollUntil(what: string, check: () => Promise<string | undefined>, timeoutMs: number, intervalMs = 500): Promise<void> {
  const t0 = Date.now();
  let missing: string | undefined = 'not checked yet';
  while (Date.now() - t0 < timeoutMs) {
    missing = await check();
    if (missing === undefined) {
      log(`${what}: after ${Date.now() - t0} ms`);
      return;
    }
    await delay(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}:\n${missing}`);
}

/** Polls the Problems panel until every text in `texts` is shown. */
export async function waitForProblemTexts(page: Page, texts: string[], timeoutMs = 60_000): Promise<ProblemRow[]> {
  let rows: ProblemRow[] = [];
  await pollUntil(
    `Problems panel showing ${texts.length} texts`,
    async () => {
      rows = await readProblemRows(page);
      const all = rows.map((r) => `${r.text} ${r.message ?? ''}`).join('\n');
      const missing = texts.filter((t) => !all.includes(t));
      return missing.length ? `missing: ${JSON.stringify(missing)}\npanel rows:\n${all}` : undefined;
    },
    timeoutMs,
  );
  return rows;
}

/**
 * Opens a workspace file as a user does, with Quick Open (Ctrl+P): `query` may carry a position
 * (`train.py:12:5`); `name` is the file name the list must show before Enter is pressed.
 */
export async function quickOpen(page: Page, query: string, name = query, listTimeoutMs = 20_000): Promise<void> {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(query);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: listTimeoutMs });
  await page.keyboard.press('Enter');
}

/** The privacy report of the active custom editor: the webview's outer iframe, then its content frame. */
export function reportFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview').first().frameLocator('iframe#active-frame');
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot: ${path.relative(REPO_ROOT, file)}`);
  return file;
}

/** Copies a folder to a fresh temp folder (skipping generated reports and caches). */
export function copyToTempWorkspace(src: string, prefix = 'mpl-e2e-ws-'): string {
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.cpSync(src, dest, {
    recursive: true,
    filter: (p) => !/(^|[\\/])(__pycache__|\.venv|node_modules|privacy-report\.[^\\/]*)$/.test(p),
  });
  return dest;
}

/** Saves the code-server and extension-host logs next to the screenshots, for a failed run. */
export function keepLogs(profile: EditorProfile, server?: RunningCodeServer): void {
  try {
    const dest = path.join(RESULTS_DIR, 'logs');
    fs.rmSync(dest, { recursive: true, force: true });
    fs.mkdirSync(dest, { recursive: true });
    if (server && fs.existsSync(server.logFile)) fs.copyFileSync(server.logFile, path.join(dest, 'code-server.log'));
    const logs = path.join(profile.userDataDir, 'logs');
    if (fs.existsSync(logs)) fs.cpSync(logs, path.join(dest, 'user-data-logs'), { recursive: true });
    log(`logs kept in ${path.relative(REPO_ROOT, dest)}`);
  } catch (e) {
    log(`could not keep logs: ${(e as Error).message}`);
  }
}

/**
 * One editor for a test file: the packaged extension installed into a fresh profile, code-server
 * serving `workspace`, and Chromium on its workbench. `open` in `before`, `close` in `after`: on a
 * failure (`failed`) it keeps a screenshot named `<name>-failure.png` and the logs, and it always
 * removes the workspace. What `open` started before a failure is still closed.
 */
export class EditorSession {
  profile?: EditorProfile;
  server?: RunningCodeServer;
  browser?: Browser;
  page?: Page;
  failed = false;

  constructor(
    private readonly name: string,
    readonly workspace: string,
  ) {}

  async open(vsix: string, settings: Record<string, unknown>): Promise<Page> {
    assertCodeServerReady();
    if (!fs.existsSync(vsix)) throw new Error(`packaged extension not found: ${vsix}. Build it: npm run package`);
    // this run's evidence only: drop a failed earlier run's screenshot and logs
    for (const stale of [`${this.name}-failure.png`, 'logs']) fs.rmSync(path.join(RESULTS_DIR, stale), { recursive: true, force: true });
    // Start the browser while the vsix installs (2 cores: both are mostly waiting).
    const browserPromise = launchBrowser();
    browserPromise.catch(() => undefined);
    this.profile = await installVsix(vsix, settings);
    this.server = await startCodeServer(this.profile, this.workspace);
    this.browser = await browserPromise;
    this.page = await openWorkbench(this.browser, this.server, this.workspace);
    return this.page;
  }

  async close(): Promise<void> {
    try {
      if (this.page && this.failed) await screenshot(this.page, `${this.name}-failure`).catch(() => undefined);
      if (this.profile && this.failed) keepLogs(this.profile, this.server);
      await this.browser?.close().catch(() => undefined);
    } finally {
      await this.server?.stop();
      this.profile?.dispose();
      fs.rmSync(this.workspace, { recursive: true, force: true });
    }
  }
}
