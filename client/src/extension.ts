/**
 * The VS Code side: starts the language server, declares what it watches, and shows its status.
 * All analysis happens in the server; this file only wires VS Code to it.
 */
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import {
  ANALYZE_FILE_REQUEST,
  ANALYZE_WORKSPACE_REQUEST,
  DEFAULT_SETTINGS,
  REPORT_CHANGED_NOTIFICATION,
  STATUS_NOTIFICATION,
  type ReportChangedParams,
  type StatusParams,
} from '../../server/src/lsp/protocol';
import { ReportEditorProvider } from './report-editor';
import { registerShowReport, ReportViews } from './report-panel';
import { registerRuleDocs, ruleDocsMiddleware } from './rule-docs';

const SECTION = 'modelPrivacyLint';
let client: LanguageClient | undefined;

function modelGlobs(): string[] {
  return vscode.workspace.getConfiguration(SECTION).get<string[]>('files', DEFAULT_SETTINGS.files);
}

function createClient(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): LanguageClient {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  const globs = modelGlobs();
  // Sidecars (`<model>.privacy.json`) declare groups the reconstruction depends on; training
  // scripts and notebooks say how the models were trained and saved (quick fixes live there).
  // `*_[0-9]*.npy(.z)`: old joblib's side files (`clf.pkl_01.npy`), which a model reads from beside it.
  const sideFiles = ['**/*_[0-9]*.npy', '**/*_[0-9]*.npy.z'];
  const watchers = [...globs, '**/*.privacy.json', '**/*.py', '**/*.ipynb', ...sideFiles].map((glob) => vscode.workspace.createFileSystemWatcher(glob));
  context.subscriptions.push(...watchers);
  const clientOptions: LanguageClientOptions = {
    // Text model files opened in an editor (binary ones are read from disk through the watchers),
    // and XGBoost dumps of any name, which VS Code recognises by their first line (`booster[0]:`).
    // Python files are synchronised too: their diagnostics and quick fixes follow the editor's text.
    documentSelector: [
      ...globs.map((pattern) => ({ scheme: 'file', pattern })),
      { scheme: 'file', language: 'xgboost-dump' },
      { scheme: 'file', language: 'python' },
    ],
    synchronize: { fileEvents: watchers, configurationSection: SECTION },
    outputChannel: output,
    traceOutputChannel: output,
    // Rule links open the rendered page (rule-docs.ts), not the Markdown source as a text file.
    middleware: ruleDocsMiddleware(context.extensionUri),
  };
  return new LanguageClient('modelPrivacyLint', 'Model Privacy Lint', serverOptions, clientOptions);
}

function createStatusItem(): vscode.LanguageStatusItem {
  const selector: vscode.DocumentSelector = [
    { language: 'python' },
    ...modelGlobs().map((pattern) => ({ pattern })),
  ];
  const item = vscode.languages.createLanguageStatusItem('modelPrivacyLint.status', selector);
  item.name = 'Model Privacy Lint';
  item.text = 'Model Privacy Lint: starting';
  item.command = { title: 'Show log', command: 'modelPrivacyLint.showOutput' };
  return item;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Model Privacy Lint', { log: true });
  const status = createStatusItem();
  const reports = new ReportViews(context.extensionUri, () => client);
  context.subscriptions.push(output, status, reports, registerShowReport(reports), ReportEditorProvider.register(reports), registerRuleDocs(context));

  const start = async () => {
    client = createClient(context, output);
    client.onNotification(STATUS_NOTIFICATION, (params: StatusParams) => {
      status.text = `$(${params.state === 'busy' ? 'sync~spin' : params.state === 'error' ? 'error' : 'shield'}) ${params.text}`;
      status.detail = params.detail;
      status.busy = params.state === 'busy';
      // Rows certified from the model alone are a leak: say so with the item's severity too.
      const leaked = (params.reconstruction?.recoverability?.certifiedRows ?? 0) > 0;
      status.severity =
        params.state === 'error'
          ? vscode.LanguageStatusSeverity.Error
          : leaked
            ? vscode.LanguageStatusSeverity.Warning
            : vscode.LanguageStatusSeverity.Information;
    });
    client.onNotification(REPORT_CHANGED_NOTIFICATION, (params: ReportChangedParams) => reports.changed(params.uri));
    await client.start();
    reports.refreshAll();
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('modelPrivacyLint.analyzeWorkspace', () => client?.sendRequest(ANALYZE_WORKSPACE_REQUEST)),
    // The same, ignoring the cached answers: every model is read, reconstructed and advised again.
    vscode.commands.registerCommand('modelPrivacyLint.rerunAnalysis', () => client?.sendRequest(ANALYZE_WORKSPACE_REQUEST, { fresh: true })),
    vscode.commands.registerCommand('modelPrivacyLint.analyzeFile', (uri?: vscode.Uri) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (target) return client?.sendRequest(ANALYZE_FILE_REQUEST, { uri: target.toString() });
      return undefined;
    }),
    vscode.commands.registerCommand('modelPrivacyLint.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('modelPrivacyLint.restartServer', async () => {
      await client?.stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      // The watched globs are fixed when the client starts; a new list needs a new client.
      if (event.affectsConfiguration(`${SECTION}.files`)) await vscode.commands.executeCommand('modelPrivacyLint.restartServer');
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
