/**
 * The privacy report's panels and the `modelPrivacyLint.showReport` command: one webview panel per
 * model file, created or revealed on demand; every open report (panels and custom editors)
 * refreshes when the server says the file's report changed.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { SHOW_REPORT_COMMAND } from '../../server/src/lsp/protocol';
import { ReportView } from './report-view';

export const REPORT_PANEL_TYPE = 'modelPrivacyLint.reportPanel';

export class ReportViews implements vscode.Disposable {
  /** Every open report view, per file URI (a file can be shown in a panel and a custom editor). */
  private readonly views = new Map<string, Set<ReportView>>();
  private readonly panels = new Map<string, vscode.WebviewPanel>();

  constructor(
    readonly extensionUri: vscode.Uri,
    readonly client: () => LanguageClient | undefined,
  ) {}

  /** Shows the file's report in its panel (created beside the active editor if needed). */
  showPanel(uri: vscode.Uri): void {
    const existing = this.panels.get(uri.toString());
    if (existing) {
      existing.reveal();
      return;
    }
    const name = uri.path.split('/').pop() ?? uri.toString();
    // Hidden panels are rebuilt from the server's report when shown again: no page kept in memory.
    const panel = vscode.window.createWebviewPanel(REPORT_PANEL_TYPE, `Privacy report: ${name}`, vscode.ViewColumn.Beside, {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')],
    });
    this.panels.set(uri.toString(), panel);
    const view = this.attach(panel, uri);
    panel.onDidDispose(() => this.panels.delete(uri.toString()));
    void view.refresh(true);
  }

  /**
   * Drives `panel`'s webview as the report of `uri` until the panel closes. A panel that was hidden
   * loses its page (no retained context): it is rendered again when it becomes visible.
   */
  attach(panel: vscode.WebviewPanel, uri: vscode.Uri): ReportView {
    const view = new ReportView(panel.webview, uri, this.extensionUri, this.client);
    const key = uri.toString();
    if (!this.views.has(key)) this.views.set(key, new Set());
    this.views.get(key)!.add(view);
    const visibility = panel.onDidChangeViewState(() => {
      // Not retained when hidden: the page was rebuilt from its last HTML.
      if (panel.visible) void view.refresh(false, true);
    });
    panel.onDidDispose(() => {
      visibility.dispose();
      view.dispose();
      this.views.get(key)?.delete(view);
      if (this.views.get(key)?.size === 0) this.views.delete(key);
    });
    return view;
  }

  /** The server's `reportChanged`: the open reports of that file ask again. */
  changed(uri: string): void {
    for (const view of this.views.get(vscode.Uri.parse(uri).toString()) ?? []) void view.refresh();
  }

  /** After the language server (re)started: its reports are new, and files may need analysing. */
  refreshAll(): void {
    for (const views of this.views.values()) for (const view of views) void view.refresh(true);
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) panel.dispose();
  }
}

/** The file a command was run on: its argument (URI or URI string), else the active editor's. */
export function targetUri(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string') return vscode.Uri.parse(arg, true);
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputText) return input.uri;
  return vscode.window.activeTextEditor?.document.uri;
}

export function registerShowReport(views: ReportViews): vscode.Disposable {
  return vscode.commands.registerCommand(SHOW_REPORT_COMMAND, (arg?: unknown) => {
    const uri = targetUri(arg);
    if (uri) views.showPanel(uri);
    else void vscode.window.showInformationMessage('Open or select a model file to see its privacy report.');
  });
}
