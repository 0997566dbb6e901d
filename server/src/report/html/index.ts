/**
 * TEMPORARY PLACEHOLDER (branch webview): the html branch owns this module (the real renderer,
 * with media/report.js, media/report.css and the charts). This stand-in has the same exports and
 * signature (`renderReportHtml(report, RenderOptions)`) so the extension compiles before it lands.
 * On merge, take the html branch's version.
 */
import type { PrivacyReport, RevealedRows } from '../model';

export interface RenderOptions {
  nonce: string;
  mode: 'webview' | 'standalone';
  cspSource?: string;
  scripts: { chart: string; report: string };
  styles: { report: string };
  revealed?: RevealedRows;
}

const h = (value: unknown) => String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderReportHtml(report: PrivacyReport, options: RenderOptions): string {
  const { headline } = report;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${h(options.cspSource ?? '')} 'nonce-${h(options.nonce)}'; script-src 'nonce-${h(options.nonce)}'">
<title>Privacy report: ${h(report.file.name)}</title></head>
<body class="mpl-report"><main>
<h1>Privacy report: ${h(report.file.name)}</h1>
<section id="headline"><p class="figure">${h(headline.certifiedRows)} of ${h(headline.rows ?? '?')} training rows certified</p><p>${h(headline.summary)}</p></section>
<section id="rows"><button type="button" id="reveal-button">Reveal reconstructed values</button><div id="revealed-rows" hidden></div></section>
</main>
<script type="application/json" id="report-data" nonce="${h(options.nonce)}">${JSON.stringify(report).replace(/</g, '\\u003c')}</script>
<script nonce="${h(options.nonce)}">
const vscode = acquireVsCodeApi();
document.getElementById('reveal-button').addEventListener('click', () => vscode.postMessage({ type: 'reveal' }));
window.addEventListener('message', (event) => {
  if (event.data?.type !== 'rows' || !event.data.rows) return;
  const out = document.getElementById('revealed-rows');
  const table = document.createElement('table');
  const body = table.createTBody();
  event.data.rows.rows.forEach((row, i) => {
    const tr = body.insertRow();
    for (const v of [i + 1, row.certified ? 'certified' : 'estimate', ...row.values, row.label]) tr.insertCell().textContent = v === null ? '?' : String(v);
  });
  out.replaceChildren(table);
  out.hidden = false;
});
</script></body></html>`;
}
