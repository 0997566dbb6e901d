/**
 * Links clicked in a report page (`{type:'open', url, line?}`): rule pages, training scripts,
 * the model file. The page renders an untrusted model file's strings, so only file: and https:
 * (http:) URLs are followed, files inside VS Code and web pages in the browser.
 */
import * as vscode from 'vscode';

export async function openLink(message: { url?: unknown; line?: unknown }): Promise<void> {
  if (typeof message.url !== 'string') return;
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(message.url, true);
  } catch {
    return;
  }
  if (uri.scheme === 'http' || uri.scheme === 'https') {
    await vscode.env.openExternal(uri);
    return;
  }
  if (uri.scheme !== 'file') return;
  const line = typeof message.line === 'number' && Number.isInteger(message.line) && message.line >= 0 ? message.line : undefined;
  const options: vscode.TextDocumentShowOptions | undefined = line !== undefined ? { selection: new vscode.Range(line, 0, line, 0) } : undefined;
  await vscode.commands.executeCommand('vscode.open', uri, options);
}
