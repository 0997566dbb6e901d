/**
 * One privacy report shown in one webview (a panel, or the custom editor of a binary model):
 * asks the server for the report, renders it with the shared renderer (server/src/report/html,
 * the same as the CLI's HTML report), and answers the page's messages.
 *
 * While a reconstruction runs, the report changes about once a second, in its timeline only: the
 * new timeline is posted to the page, which redraws its progress charts in place (html/live.ts),
 * so the reader's scroll position and open sections stay put. Any other change renders the page.
 *
 * The reconstructed values are personal data: the report never holds them. They are fetched only
 * when the reader clicks "reveal" AND confirms a modal warning, and are posted to this page alone.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { ANALYZE_FILE_REQUEST, REPORT_REQUEST, REVEAL_ROWS_REQUEST } from '../../server/src/lsp/protocol';
import type { PrivacyReport, RevealedRows } from '../../server/src/report/model';
import { renderReportHtml, timelineMessage } from '../../server/src/report/html';
import { openLink } from './report-links';
import { pendingHtml } from './report-pending';

export const REVEAL_WARNING = 'The reconstructed values are personal data of the people in the training set. Show them?';
const REVEAL_BUTTON = 'Show values';
/** How long a report view waits for the server's own analysis before asking for one. */
const ANALYSIS_GRACE_MS = 1500;

/** The folder the webview may load from: media/ only (the renderer's script, stylesheet, charts). */
export function mediaRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'media');
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [mediaRoot(extensionUri)] };
}

interface Shown {
  key: string;
  report?: PrivacyReport;
}

export class ReportView implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Bumped by each refresh: an older request's answer never replaces a newer one's. */
  private generation = 0;
  /**
   * What the page's HTML was made from, and what the page shows now (that HTML, or a later timeline
   * posted to it), each as a key (the report without its build time, or a placeholder's name) and
   * the report. An unchanged report is not sent again.
   */
  private rendered: Shown = { key: '' };
  private page: Shown = { key: '' };
  private analysisAsked = false;
  private disposed = false;

  constructor(
    private readonly webview: vscode.Webview,
    readonly uri: vscode.Uri,
    private readonly extensionUri: vscode.Uri,
    private readonly client: () => LanguageClient | undefined,
  ) {
    webview.options = webviewOptions(extensionUri);
    this.subscriptions.push(webview.onDidReceiveMessage((message: unknown) => this.onMessage(message)));
  }

  /**
   * Shows the file's current report. With none yet (not analysed, or the server restarted), says
   * so and asks the server to analyse the file when `analyse` is set; its `reportChanged` then
   * calls this again. `reloaded`: the page was rebuilt from its HTML (a hidden panel shown again),
   * so it no longer shows the timelines posted to it since.
   */
  async refresh(analyse = false, reloaded = false): Promise<void> {
    const generation = ++this.generation;
    if (reloaded) this.page = this.rendered;
    const name = this.uri.path.split('/').pop() ?? this.uri.toString();
    const client = this.client();
    if (this.uri.scheme !== 'file') {
      this.setHtml('unsupported', pendingHtml(this.webview.cspSource, name, 'Only model files on disk can be analysed.', false));
      return;
    }
    if (!client?.isRunning()) {
      this.setHtml('starting', pendingHtml(this.webview.cspSource, name, 'Waiting for the language server…', true));
      return;
    }
    let report: PrivacyReport | null;
    try {
      report = await client.sendRequest<PrivacyReport | null>(REPORT_REQUEST, { uri: this.uri.toString() });
    } catch (error) {
      if (generation === this.generation) this.setHtml('error', pendingHtml(this.webview.cspSource, name, `The report could not be made: ${(error as Error).message}`, false));
      return;
    }
    if (generation !== this.generation) return;
    if (!report) {
      this.setHtml('pending', pendingHtml(this.webview.cspSource, name, `Analysing ${name}…`, true));
      if (analyse && !this.analysisAsked) {
        this.analysisAsked = true;
        // The server may be reading the file already (its start-up scan): an explicit request now
        // would read it twice. Ask only if no report came meanwhile.
        setTimeout(() => void this.analyseIfStillMissing(), ANALYSIS_GRACE_MS);
      }
      return;
    }
    const key = JSON.stringify({ ...report, generatedAt: '' });
    if (key === this.page.key) return;
    const live = this.page.report && timelineMessage(this.page.report, report);
    if (live) {
      const before = this.page;
      this.page = { key, report };
      if (await this.webview.postMessage(live)) return;
      // Not delivered (the page is hidden or gone): render it whole, unless a newer refresh did.
      if (generation !== this.generation) return;
      this.page = before;
    }
    const nonce = randomBytes(16).toString('base64');
    const media = (...path: string[]) => this.webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot(this.extensionUri), ...path)).toString();
    const html = renderReportHtml(report, {
      nonce,
      mode: 'webview',
      cspSource: this.webview.cspSource,
      scripts: { chart: media('vendor', 'chart.umd.js'), report: media('report.js') },
      styles: { report: media('report.css') },
    });
    this.setHtml(key, html, report);
  }

  private async analyseIfStillMissing(): Promise<void> {
    const client = this.client();
    if (this.disposed || !client?.isRunning()) return;
    const uri = this.uri.toString();
    try {
      if (await client.sendRequest<PrivacyReport | null>(REPORT_REQUEST, { uri })) return;
      await client.sendRequest(ANALYZE_FILE_REQUEST, { uri });
    } catch {
      this.analysisAsked = false; // the server restarted: refreshAll() asks again
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
  }

  private setHtml(key: string, html: string, report?: PrivacyReport): void {
    if (key === this.page.key) return;
    this.rendered = this.page = report ? { key, report } : { key };
    this.webview.html = html;
  }

  private async onMessage(message: unknown): Promise<void> {
    if (!message || typeof message !== 'object') return;
    const { type } = message as { type?: unknown };
    if (type === 'reveal') await this.reveal();
    else if (type === 'open') await openLink(message as { url?: unknown; line?: unknown });
  }

  /** The reveal: a modal confirmation first, then the values, to this page only. */
  private async reveal(): Promise<void> {
    const answer = await vscode.window.showWarningMessage(
      REVEAL_WARNING,
      { modal: true, detail: 'They are shown in this report only, and are not saved. Anyone who sees your screen sees them.' },
      REVEAL_BUTTON,
    );
    if (answer !== REVEAL_BUTTON) {
      await this.webview.postMessage({ type: 'rows-unavailable', reason: 'The values were not shown.' });
      return;
    }
    let rows: RevealedRows | null | undefined;
    try {
      rows = await this.client()?.sendRequest<RevealedRows | null>(REVEAL_ROWS_REQUEST, { uri: this.uri.toString() });
    } catch (error) {
      await this.webview.postMessage({ type: 'rows-unavailable', reason: `The values could not be fetched: ${(error as Error).message}` });
      return;
    }
    if (!rows) {
      await this.webview.postMessage({ type: 'rows-unavailable', reason: 'No reconstruction of this model has finished yet: there are no values to show.' });
      return;
    }
    await this.webview.postMessage({ type: 'rows', rows });
  }
}
