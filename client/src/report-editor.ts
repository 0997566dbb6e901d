/**
 * The custom editor of binary model files (`*.joblib`, `*.pkl`, `*.pickle`, `*.sav`, compressed ones
 * such as `*.pkl.gz` and `*.pbz2`, `*.ubj`, and XGBoost's legacy binary `*.xgb`, `*xgb*.model`,
 * `*xgb*.bin`; the list is package.json's `customEditors`): opening one shows its privacy report instead
 * of unreadable bytes. Read-only: the model is never changed, and
 * never loaded in Python (unpickling runs code); the language server reads it without executing it.
 */
import * as vscode from 'vscode';
import type { ReportViews } from './report-panel';

export const REPORT_EDITOR_TYPE = 'modelPrivacyLint.report';

export class ReportEditorProvider implements vscode.CustomReadonlyEditorProvider {
  constructor(private readonly views: ReportViews) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => {} };
  }

  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const view = this.views.attach(panel, document.uri);
    // Shows "Analysing…" until the server's report is there (it may not have read this file yet,
    // e.g. with `run: manual` or a file outside the watched globs).
    await view.refresh(true);
  }

  static register(views: ReportViews): vscode.Disposable {
    // Not retained when hidden: the page is rebuilt from the server's report when shown again.
    return vscode.window.registerCustomEditorProvider(REPORT_EDITOR_TYPE, new ReportEditorProvider(views), {
      webviewOptions: { retainContextWhenHidden: false },
      supportsMultipleEditorsPerDocument: true,
    });
  }
}
