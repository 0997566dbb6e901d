/**
 * LSP wiring only: capabilities, settings, file events, diagnostics, status. The analysis lives in
 * linter/linter.ts and runs in a worker thread (jobs/lint-pool.ts), so this loop stays responsive; the slower
 * reconstruction runs after the fast findings in a worker of its own (jobs/background-reconstruction.ts).
 */
import { basename, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  createConnection,
  DiagnosticSeverity,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type Diagnostic,
  type WorkspaceFolder,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { BackgroundReconstruction, type ScheduleResult } from './jobs/background-reconstruction';
import { BatchProgress } from './lsp/batch-progress';
import { CandidateWatch } from './lsp/candidate-watch';
import { priorities, type Origin } from './jobs/work-priority';
import { DEFAULT_READ_TIMEOUT, LintPool } from './jobs/lint-pool';
import { workerScript } from './jobs/worker-scripts';
import type { FileReport } from './linter/linter';
import { collectModelFiles } from './linter/model-files';
import { modelOfSideFile } from './linter/side-files';
import { globToRegExp, matchesAny } from './linter/glob';
import { sidecarPaths } from './recoverability/declared-groups';
import { ruleDocUrl } from './util/package-info';
import type { Finding } from './rules/types';
import { ReportService, reportCodeActions } from './jobs/report-service';
import { disableCodeActions, docsCodeActions } from './lsp/rule-actions';
import { ScriptService, FIX_ALL_KIND } from './scripts/service';
import {
  ANALYZE_FILE_REQUEST,
  ANALYZE_WORKSPACE_REQUEST,
  DEFAULT_SETTINGS,
  REPORT_CHANGED_NOTIFICATION,
  REPORT_REQUEST,
  REVEAL_ROWS_REQUEST,
  STATUS_NOTIFICATION,
  type AnalyzeFileParams,
  type AnalyzeWorkspaceParams,
  type ReportParams,
  type ReconstructionStatusParams,
  type Settings,
  type StatusParams,
} from './lsp/protocol';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);

let settings: Settings = DEFAULT_SETTINGS;
let fileGlobs = settings.files.map(globToRegExp);
let workspaceFolders: WorkspaceFolder[] = [];
let configurationPull = false;
let folderEvents = false;
let watcherSupport = { dynamic: false, relative: false };
/** Files we published diagnostics for, so settings changes can re-run them and deletions clear them. */
const known = new Map<string, FileReport>();
const debounceTimers = new Map<string, NodeJS.Timeout>();
// Short: a save must show findings fast; long enough to merge the events of one write.
const DEBOUNCE_MS = 75;

// Both workers are held to `modelPrivacyLint.maxMemoryMB` (heap and resident memory; a change
// applies to the next worker started); the lint worker's watchdog is sized for reading.
const pool = new LintPool({
  workerScript: workerScript('lint-worker'),
  readTimeout: () => ({ baseMs: settings.readTimeoutSeconds * 1000, perMbMs: DEFAULT_READ_TIMEOUT.perMbMs }),
  memoryMb: () => settings.maxMemoryMB,
  raise: { memory: 'raise the setting modelPrivacyLint.maxMemoryMB', time: 'raise the setting modelPrivacyLint.readTimeoutSeconds' },
  log: (message) => connection.console.warn(message),
});

/**
 * Heap and memory ceiling of the reconstruction worker: the setting, or for tests the environment
 * variable. The engine aims at < 500 MB; the default 1024 leaves room for a legitimate run (and
 * for reading the model again) while a runaway one is stopped long before it threatens the editor.
 */
const reconstructionMemoryMb = () => Number(process.env.MODEL_PRIVACY_LINT_RECONSTRUCTION_MEMORY_MB) || settings.maxMemoryMB;

const background = new BackgroundReconstruction({
  workerScript: workerScript('reconstruction-worker'),
  memoryMb: reconstructionMemoryMb,
  settings: () => settings,
  publish: (uri) => publish(uri),
  onEvent: (event) => {
    reconstructionStatus(event);
    reportChanged(event.uri);
  },
  onStale: (uri) => schedule(uri),
  // The advisor's answer came or went: the report shows it, and the scripts' fixes take its values.
  onAdvice: (uri) => {
    reportChanged(uri);
    scripts.publishAll();
    for (const stale of scripts.stale(known.keys())) void publish(stale);
  },
  // The running reconstruction's timeline grew (at most once a second): an open report redraws its chart.
  onTimeline: (uri) => reportChanged(uri),
  // The file's work ended: the folder's progress counts it.
  onSettled: (uri) => batch?.settle(uri),
  createProgress: () => connection.window.createWorkDoneProgress(),
  log: (message) => connection.console.log(message),
});

/** The running folder analysis ("3 of 7 models"), if any: see batch-progress.ts. */
let batch: BatchProgress | undefined;

const reports = new ReportService({
  lint: (uri) => known.get(uri),
  outcome: (uri) => background.outcome(uri),
  running: (uri) => background.running(uri),
  liveTimeline: (uri) => background.liveTimeline(uri),
  advisor: (uri) => background.advisor(uri, known.get(uri)?.contentHash),
  advisorPending: (uri) => background.advisorPending(uri),
  scripts: (uri) => scripts.references(fileURLToPath(uri)),
  settings: () => settings,
});

/** An open privacy report of the file asks for it again (it carries no data: the uri only). */
function reportChanged(uri: string): void {
  void connection.sendNotification(REPORT_CHANGED_NOTIFICATION, { uri });
}

/** Training scripts and notebooks: their diagnostics, links from models to them, quick fixes. */
const scripts = new ScriptService({
  connection,
  documents,
  knownModels: () => [...known.keys()].map((uri) => fileURLToPath(uri)),
  severity: (rule) => settings.severity[rule],
  docUrl: (rule) => ruleDocUrl(rule, settings.docsBaseUrl || undefined),
  onLinksChanged: () => { for (const uri of scripts.stale(known.keys())) void publish(uri); },
  log: (message) => connection.console.log(message),
});

// The membership candidate files the sidecars name: a change runs their models again.
const candidateFiles = new CandidateWatch({
  support: () => watcherSupport,
  register: (watchers) => connection.client.register(DidChangeWatchedFilesNotification.type, { watchers }),
  log: (message) => connection.console.warn(message),
});

const SEVERITY: Record<Finding['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

function toDiagnostic(finding: Finding): Diagnostic {
  // Binary model files have no text: their findings sit at the top of the file.
  const range = finding.location.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return {
    range,
    severity: SEVERITY[finding.severity],
    source: 'model-privacy-lint',
    code: finding.rule,
    codeDescription: { href: ruleDocUrl(finding.rule, settings.docsBaseUrl || undefined) },
    message: finding.message,
    data: { rule: finding.rule, tree: finding.location.tree, node: finding.location.node },
  };
}

function sendStatus(params: StatusParams): void {
  // While a folder is analysed, the status item says how far (its detail keeps the rest).
  const text = batch?.active && params.state === 'busy' ? `${params.text} (${batch.text})` : params.text;
  void connection.sendNotification(STATUS_NOTIFICATION, { ...params, text });
}

function totals(): string {
  let findings = 0;
  for (const [uri, report] of known) findings += report.findings.length + background.findings(uri).length;
  return `${known.size} model file(s) checked, ${findings} finding(s)`;
}

function idleStatus(): void {
  sendStatus({ state: 'idle', text: `${known.size} model file${known.size === 1 ? '' : 's'}`, detail: totals() });
}

/** The status item follows the reconstructions: what runs, then what the last one proved. */
function reconstructionStatus(event: ReconstructionStatusParams): void {
  const name = basename(fileURLToPath(event.uri));
  const state = pool.busy || background.busy ? 'busy' : 'idle';
  if (event.state === 'running') {
    sendStatus({ state: 'busy', text: 'reconstructing', detail: `Reconstructing the training rows of ${name}`, reconstruction: event });
    return;
  }
  const r = event.recoverability;
  if (event.state === 'cancelled' || !r) {
    sendStatus({ state, text: 'reconstruction cancelled', detail: `${name}: reconstruction cancelled. ${totals()}`, reconstruction: event });
  } else if (r.status === 'failed') {
    sendStatus({ state: 'error', text: 'reconstruction failed', detail: `${name}: ${r.reason}. ${totals()}`, reconstruction: event });
  } else if (r.status === 'skipped' || r.rows === null) {
    sendStatus({ state, text: `${known.size} model file${known.size === 1 ? '' : 's'}`, detail: `${name}: not reconstructed (${r.reason}). ${totals()}`, reconstruction: event });
  } else {
    const bounded = r.status === 'timeout' ? ', stopped by the time budget' : r.status === 'exact' ? ', the whole training set' : '';
    sendStatus({
      state,
      text: `${r.certifiedRows}/${r.rows} rows certified`,
      detail: `${name}: ${r.certifiedRows} of ${r.rows} training rows certified from the model alone (${r.method}${bounded}, ${r.seconds} s). ${totals()}`,
      reconstruction: event,
    });
  }
}

/** Publishes a file's diagnostics: its fast findings, and its reconstruction's once that ended. */
async function publish(uri: string): Promise<void> {
  const report = known.get(uri);
  if (!report) return;
  // A rule the model's sidecar disables stays out of the reconstruction's findings too.
  const later = background.findings(uri, report.contentHash).filter((f) => !report.disabledRules?.includes(f.rule));
  const findings = [...report.findings, ...later];
  await connection.sendDiagnostics({ uri, diagnostics: scripts.decorate(uri, findings.map(toDiagnostic)) });
}

function isModelPath(path: string): boolean {
  for (const folder of workspaceFolders) {
    const rel = relative(fileURLToPath(folder.uri), path);
    if (!rel.startsWith('..')) return matchesAny(rel.split(sep).join('/'), fileGlobs);
  }
  // Outside any folder (a loose file): match on the name alone (`**/*.joblib` matches `m.joblib`).
  return matchesAny(basename(path), fileGlobs);
}

interface AnalyzeOptions {
  /** A change of the user's, or a folder scan: sets the priority of the file's work (work-priority.ts). */
  origin?: Origin;
  /** Bypass the cached answers (the "Re-run analysis" command). */
  fresh?: boolean;
  /** Plan the background work now (a folder scan plans it after every file's fast findings). */
  background?: boolean;
}

/** The file's fast findings, published; then its background work planned. Undefined when superseded. */
async function analyze(uri: string, options: AnalyzeOptions = {}): Promise<FileReport | undefined> {
  const path = fileURLToPath(uri);
  const origin = options.origin ?? 'changed';
  sendStatus({ state: 'busy', text: 'analysing', detail: `Reading ${path}` });
  const started = Date.now();
  const report = await pool.lint(
    path,
    {
      severities: settings.severity,
      maxFileBytes: settings.maxFileSizeMB * 1024 * 1024,
      budgetMs: settings.timeBudgetSeconds * 1000,
      ...(options.fresh ? { fresh: true } : {}),
    },
    priorities(origin).findings,
  );
  if (!report) return undefined; // superseded by a newer request for the same file
  known.set(uri, report);
  void candidateFiles.refresh(uri); // not awaited: the findings do not wait for the watcher
  // Before publishing: a plan that differs from the one in place drops the stale reconstruction
  // first, so the new fast findings never go out with an older model's answer. An unchanged plan
  // (same bytes, sidecar, settings) keeps its answers: they are published with the findings.
  if (options.background !== false) await planBackground(uri, report, origin, options.fresh);
  if (known.get(uri) !== report) return undefined; // a newer analysis of the file published since
  await publish(uri);
  reportChanged(uri);
  connection.console.log(`${path}: ${report.format}, ${report.findings.length} finding(s) in ${Date.now() - started} ms`);
  if (!pool.busy && !background.busy) idleStatus();
  return report;
}

/** Plans the file's reconstruction and advisor run (or keeps those in place); see background-reconstruction.ts. */
async function planBackground(uri: string, report: FileReport, origin: Origin, fresh = false): Promise<ScheduleResult> {
  return background.schedule(uri, report, { origin, fresh });
}

/** Coalesces bursts of events (a training run writes a file in several chunks) into one analysis. */
function schedule(uri: string): void {
  // The file's running work is not stopped here: if the bytes turn out the same (a retrain with
  // fixed seeds), it goes on; if they differ, the plan after the fast findings stops it.
  clearTimeout(debounceTimers.get(uri));
  debounceTimers.set(
    uri,
    setTimeout(() => {
      debounceTimers.delete(uri);
      analyze(uri).catch((error) => connection.console.error(`${uri}: ${(error as Error).stack ?? error}`));
    }, DEBOUNCE_MS),
  );
}

/**
 * Analyses many files as a folder's start-up work: every file's fast findings first, then their
 * reconstructions and advisor runs behind any file the user changes meanwhile, with a progress
 * that counts the files done ("3 of 7 models").
 */
async function analyzeBatch(uris: string[], fresh = false): Promise<void> {
  if (uris.length === 0) return;
  if (batch?.active) batch.add(uris);
  else if (uris.length > 1) batch = new BatchProgress(() => connection.window.createWorkDoneProgress(), uris, () => undefined);
  const reports = await Promise.all(
    uris.map((uri) =>
      analyze(uri, { origin: 'startup', fresh, background: false }).catch((error) => {
        connection.console.error(`${uri}: ${(error as Error).stack ?? error}`);
        batch?.settle(uri); // nothing more will come for it: the progress must not wait for it
        return undefined;
      }),
    ),
  );
  for (const [i, uri] of uris.entries()) {
    const report = reports[i];
    // Superseded (the user changed the file meanwhile): that analysis plans its work.
    if (!report || known.get(uri) !== report) continue;
    // Its fast findings went out with the reconstruction's finding in place; if a new plan dropped
    // it, publish them again without it.
    const had = background.findings(uri, report.contentHash).length > 0;
    const result = await planBackground(uri, report, 'startup', fresh);
    if (had && result !== 'unchanged' && known.get(uri) === report) await publish(uri);
  }
  if (!pool.busy && !background.busy) idleStatus();
}

async function forget(uri: string): Promise<void> {
  clearTimeout(debounceTimers.get(uri));
  background.invalidate(uri);
  batch?.settle(uri);
  known.delete(uri);
  await candidateFiles.forget(uri);
  await connection.sendDiagnostics({ uri, diagnostics: [] });
  reportChanged(uri);
}

/** Every model file of the workspace folders (plus `extra` files), analysed as one batch. */
async function scanWorkspace(fresh = false, extra: string[] = []): Promise<void> {
  const roots = workspaceFolders.map((folder) => fileURLToPath(folder.uri));
  // The `modelPrivacyLint.files` globs decide alone: the watchers follow them, so a file scanned
  // by content (the CLI's dump sniff) would never be re-read on change.
  const { files } = await collectModelFiles(roots, (path) => isModelPath(path), false);
  connection.console.log(`workspace scan: ${files.length} model file(s)${fresh ? ', cached answers ignored' : ''}`);
  const uris = [...new Set([...files.map((file) => pathToFileURL(file).href), ...extra])];
  if (uris.length === 0) idleStatus();
  // Not awaited: the scripts' scan does not wait for the models' analyses.
  const models = analyzeBatch(uris, fresh).catch((error) => connection.console.error(`workspace scan: ${(error as Error).stack ?? error}`));
  await scripts.scan(roots);
  await models;
}

async function loadSettings(): Promise<void> {
  if (!configurationPull) return;
  const section = (await connection.workspace.getConfiguration('modelPrivacyLint')) as Partial<Settings> | null;
  settings = { ...DEFAULT_SETTINGS, ...(section ?? {}) };
  settings.reconstruction = { ...DEFAULT_SETTINGS.reconstruction, ...(section?.reconstruction ?? {}) };
  settings.advisor = { ...DEFAULT_SETTINGS.advisor, ...(section?.advisor ?? {}) };
  fileGlobs = settings.files.map(globToRegExp);
}

connection.onInitialize((params) => {
  workspaceFolders = params.workspaceFolders ?? (params.rootUri ? [{ uri: params.rootUri, name: 'root' }] : []);
  configurationPull = Boolean(params.capabilities.workspace?.configuration);
  folderEvents = Boolean(params.capabilities.workspace?.workspaceFolders);
  const watched = params.capabilities.workspace?.didChangeWatchedFiles;
  watcherSupport = { dynamic: Boolean(watched?.dynamicRegistration), relative: Boolean(watched?.relativePatternSupport) };
  return {
    capabilities: {
      // Incremental: quick fixes must apply to the script as it is in the editor.
      textDocumentSync: { openClose: true, save: { includeText: false }, change: TextDocumentSyncKind.Incremental },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'model-privacy-lint' },
  };
});

connection.onInitialized(async () => {
  if (configurationPull) void connection.client.register(DidChangeConfigurationNotification.type, undefined);
  if (folderEvents) {
    connection.workspace.onDidChangeWorkspaceFolders(async (event) => {
      const removed = new Set(event.removed.map((f) => f.uri));
      workspaceFolders = workspaceFolders.filter((f) => !removed.has(f.uri)).concat(event.added);
      if (settings.run === 'always') await scanWorkspace();
    });
  }
  await loadSettings();
  if (settings.run === 'always') await scanWorkspace();
  else idleStatus();
});

connection.onDidChangeConfiguration(async () => {
  await loadSettings();
  if (settings.run === 'manual') return;
  scripts.publishAll();
  // Every file again, as one batch: the plans whose settings did not change stay as they are.
  if (settings.run === 'always') await scanWorkspace(false, [...known.keys()]);
  else await analyzeBatch([...known.keys()]);
});

/** Model files whose sidecar (`<model>.privacy.json`) is `path`: their reconstruction depends on it. */
function modelsOfSidecar(path: string): string[] {
  return [...known.keys()].filter((uri) => sidecarPaths(fileURLToPath(uri)).includes(path));
}

connection.onDidChangeWatchedFiles(async ({ changes }) => {
  for (const change of changes) {
    const path = fileURLToPath(change.uri);
    const candidatesOf = candidateFiles.modelsOf(path);
    if (candidatesOf.length > 0) {
      // A membership candidate file (a sidecar names it): its models' answers depend on its bytes.
      if (settings.run !== 'manual') for (const uri of candidatesOf) schedule(uri);
      continue;
    }
    // An old joblib side file (`clf.pkl_01.npy`): its model reads it, and joblib may rewrite it
    // without changing the model's own bytes.
    const sideOf = modelOfSideFile(path);
    if (sideOf !== undefined) {
      const model = pathToFileURL(sideOf).href;
      if (settings.run !== 'manual' && (known.has(model) || isModelPath(sideOf))) schedule(model);
      continue;
    }
    if (scripts.isScript(path)) {
      if (change.type === FileChangeType.Deleted) await scripts.deleted(change.uri);
      else if (settings.run !== 'manual') scripts.changed(change.uri);
    } else if (path.endsWith('.privacy.json')) {
      if (settings.run !== 'manual') for (const uri of modelsOfSidecar(path)) schedule(uri);
    } else if (change.type === FileChangeType.Deleted) {
      await forget(change.uri);
    } else if (settings.run !== 'manual' && isModelPath(path)) {
      schedule(change.uri);
    }
  }
});

/**
 * An open document to analyse: a model file by the globs, or a text file VS Code recognised as an
 * XGBoost dump by its first line (package.json's `xgboost-dump` language), whatever its name
 * (`trees.txt`, R's `xgb.dump(model, "model_dump.txt")`).
 */
function isModelDocument(document: TextDocument): boolean {
  if (!document.uri.startsWith('file:')) return false;
  return document.languageId === 'xgboost-dump' || isModelPath(fileURLToPath(document.uri));
}

documents.onDidOpen(({ document }) => {
  if (settings.run === 'always' && isModelDocument(document)) schedule(document.uri);
});
documents.onDidSave(({ document }) => {
  if (settings.run !== 'manual' && isModelDocument(document)) schedule(document.uri);
  if (settings.run !== 'manual') void scripts.saved(document.uri);
});
// Scripts are checked as they are typed (debounced), and read from disk again when closed.
documents.onDidChangeContent(({ document }) => {
  if (settings.run === 'always') scripts.changed(document.uri);
});
documents.onDidClose(({ document }) => scripts.changed(document.uri));

// `fresh`: the "Re-run Analysis" command, which ignores the cached answers.
connection.onRequest(ANALYZE_WORKSPACE_REQUEST, async (params?: AnalyzeWorkspaceParams | null) => {
  await scanWorkspace(params?.fresh === true);
});
connection.onRequest(ANALYZE_FILE_REQUEST, async (params: AnalyzeFileParams) => {
  await analyze(params.uri, { fresh: params.fresh === true });
});

connection.onRequest(REPORT_REQUEST, (params: ReportParams) => reports.report(params.uri));
// The reconstructed values: only ever in this reply, never in a notification, diagnostic or log.
connection.onRequest(REVEAL_ROWS_REQUEST, (params: ReportParams) => reports.revealRows(params.uri));
// One handler (a connection keeps only the last): script fixes, and "open the report" on model files.
// Beside the fixes, every diagnostic gets "Show documentation" and (model files) "Disable ... for this file".
connection.onCodeAction((params) => [
  ...scripts.codeActions(params),
  ...reportCodeActions(params, (uri) => known.has(uri)),
  ...docsCodeActions(
    params,
    (rule) => ruleDocUrl(rule, settings.docsBaseUrl || undefined),
    (uri, rule) => (rule.startsWith('script-') ? uri.startsWith('file:') && scripts.isScript(fileURLToPath(uri)) : known.has(uri)),
  ),
  ...disableCodeActions(params, (uri) => known.has(uri)),
]);

connection.onShutdown(() => {
  batch?.end();
  pool.dispose();
  background.dispose();
});
// Last line of defence: a bug in a handler is logged, never allowed to end the server.
process.on('uncaughtException', (error) => connection.console.error(`internal error: ${error.stack ?? error}`));
process.on('unhandledRejection', (error) => connection.console.error(`internal error: ${(error as Error)?.stack ?? error}`));
documents.listen(connection);
connection.listen();
