/**
 * The page shown while a report is not there yet (analysing, server starting) or cannot be made.
 * Self-contained: an inline stylesheet admitted by a fresh nonce, no script; the colours are the
 * theme's (`--vscode-*` variables, which VS Code sets on every webview).
 */
import { randomBytes } from 'node:crypto';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function pendingHtml(cspSource: string, fileName: string, message: string, busy: boolean): string {
  const nonce = randomBytes(16).toString('base64');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${escape(cspSource)} 'nonce-${nonce}'">
<title>Privacy report: ${escape(fileName)}</title>
<style nonce="${nonce}">
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 2em; }
  h1 { font-size: 1.3em; font-weight: 600; }
  .bar { height: 2px; width: 100%; max-width: 30em; overflow: hidden; background: var(--vscode-editorWidget-background); }
  .bar::after { content: ''; display: block; height: 100%; width: 30%; background: var(--vscode-progressBar-background); animation: slide 1.2s linear infinite; }
  @keyframes slide { from { transform: translateX(-100%); } to { transform: translateX(340%); } }
  @media (prefers-reduced-motion: reduce) { .bar::after { animation: none; width: 100%; } }
</style>
</head>
<body>
<h1>Privacy report: ${escape(fileName)}</h1>
<p role="status" id="pending-message">${escape(message)}</p>
${busy ? '<div class="bar" aria-hidden="true"></div>' : ''}
</body>
</html>
`;
}
