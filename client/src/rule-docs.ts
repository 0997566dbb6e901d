/**
 * Rule pages as documentation, not as files to edit: a diagnostic's rule link and the quick fix
 * "Show documentation" open the page shipped in the extension (`docs/rules/<id>.md`) in VS Code's
 * Markdown preview, read-only and rendered; with `modelPrivacyLint.docsBaseUrl` set, the server's
 * links point there and open in the browser.
 *
 * The server links a diagnostic to the page's file URI (the CLI and SARIF use the same links);
 * VS Code would open that as an editable text file. Here such links become a `command:` URI of
 * the command below, which VS Code's Problems panel and hover open (they allow commands).
 */
import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';
import { SHOW_RULE_DOCS_COMMAND } from '../../server/src/lsp/protocol';

const RULE_PAGE = /\/docs\/rules\/([a-z0-9-]+)\.md$/;

/** The rule id of a link to a page shipped in the extension; undefined for any other link. */
export function shippedRulePage(target: vscode.Uri, extensionUri: vscode.Uri): string | undefined {
  if (target.scheme !== 'file') return undefined;
  const match = RULE_PAGE.exec(target.path);
  if (!match) return undefined;
  return target.path.startsWith(`${extensionUri.path}/`) ? match[1] : undefined;
}

export function ruleDocsCommandUri(rule: string): vscode.Uri {
  return vscode.Uri.parse(`command:${SHOW_RULE_DOCS_COMMAND}?${encodeURIComponent(JSON.stringify([rule]))}`);
}

/** Rewrites the rule links of published diagnostics (see the file comment). */
export function ruleDocsMiddleware(extensionUri: vscode.Uri): Middleware {
  return {
    handleDiagnostics(uri, diagnostics, next) {
      for (const diagnostic of diagnostics) {
        const code = diagnostic.code;
        if (!code || typeof code !== 'object') continue;
        const rule = shippedRulePage(code.target, extensionUri);
        if (rule) diagnostic.code = { value: code.value, target: ruleDocsCommandUri(rule) };
      }
      next(uri, diagnostics);
    },
  };
}

/** The command: the shipped page in the Markdown preview, or a remote page in the browser. */
export function registerRuleDocs(context: vscode.ExtensionContext): vscode.Disposable {
  return vscode.commands.registerCommand(SHOW_RULE_DOCS_COMMAND, async (rule: string, href?: string) => {
    if (typeof rule !== 'string' || !/^[a-z0-9-]+$/.test(rule)) return;
    if (href && !href.startsWith('file:')) {
      await vscode.env.openExternal(vscode.Uri.parse(href));
      return;
    }
    const page = vscode.Uri.joinPath(context.extensionUri, 'docs', 'rules', `${rule}.md`);
    await vscode.commands.executeCommand('markdown.showPreview', page);
  });
}
