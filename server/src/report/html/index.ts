/**
 * The privacy report as one HTML document, for the extension's webview and the CLI's
 * `--format html`. Pure: no node: imports, so the webview's client bundle imports it as it is.
 *
 * Security model (a model file is untrusted input, and the page may run inside VS Code):
 * - a strict Content-Security-Policy: nothing loads or runs without the page's nonce;
 * - every string from the report is HTML-escaped (sections.ts); the data for the charts is JSON
 *   in a `<script type="application/json">` element, escaped so it cannot end the element;
 * - media/report.js builds the charts and tables from that JSON with DOM APIs (textContent),
 *   never innerHTML.
 *
 * Two modes:
 * - `webview`: scripts and the stylesheet are URLs (`webview.asWebviewUri(...)`), the CSP admits
 *   `cspSource` for them; the reveal button asks the extension for the values (`{type:'reveal'}`)
 *   and the extension answers `{type:'rows', rows}`; links post `{type:'open', url}`.
 * - `standalone`: scripts and styles are inlined (one file to share or archive). Values are only
 *   in the file when given (`revealed`, CLI `--report-values`), and still hidden until a click.
 */
import { membershipSection } from './membership';
import type { PrivacyReport, RevealedRows } from '../model';
import { checkNonce, escapeHtml as h, inlineScriptSource, inlineStyleSource, jsonForScript } from './escape';
import * as section from './sections';
import { actions } from './actions';

export { escapeHtml, jsonForScript } from './escape';
export { ROW_TABLE_LIMIT } from './sections';
export { timelineMessage, type TimelineMessage } from './live';

export interface RenderOptions {
  /** A fresh random nonce per rendering (base64, at least 16 characters, e.g. 16 random bytes). */
  nonce: string;
  mode: 'webview' | 'standalone';
  /** `webview.cspSource`; webview mode only. */
  cspSource?: string;
  /** webview: URLs of media/vendor/chart.umd.js and media/report.js; standalone: their sources. */
  scripts: { chart: string; report: string };
  /** webview: URL of media/report.css; standalone: its source. */
  styles: { report: string };
  /** Standalone only: the values, embedded but hidden until the reader clicks "Reveal". */
  revealed?: RevealedRows;
}

export function contentSecurityPolicy(options: Pick<RenderOptions, 'nonce' | 'mode' | 'cspSource'>): string {
  const nonce = `'nonce-${checkNonce(options.nonce)}'`;
  const source = options.mode === 'webview' && options.cspSource ? `${options.cspSource} ` : '';
  return [`default-src 'none'`, `img-src ${source}data:`, `style-src ${source}${nonce}`, `script-src ${nonce}`, `base-uri 'none'`, `form-action 'none'`].join('; ');
}

export function renderReportHtml(report: PrivacyReport, options: RenderOptions): string {
  const nonce = checkNonce(options.nonce);
  const n = `nonce="${nonce}"`;
  const webview = options.mode === 'webview';
  if (webview && options.revealed) throw new Error('in the webview the values are sent on request ({type: "rows"}), never embedded');
  const style = webview ? `<link rel="stylesheet" ${n} href="${h(options.styles.report)}">` : `<style ${n}>\n${inlineStyleSource(options.styles.report)}\n</style>`;
  const script = (source: string, id: string) => (webview ? `<script ${n} id="${id}" src="${h(source)}"></script>` : `<script ${n} id="${id}">\n${inlineScriptSource(source)}\n</script>`);
  const revealed = !webview && options.revealed ? `\n<script type="application/json" id="revealed-data" ${n}>${jsonForScript(options.revealed)}</script>` : '';
  // The order a reader needs: the verdict, what to do about it, the findings (most severe first,
  // build.ts), then the details. A section with nothing to say renders '' and gets no nav link.
  const parts: [id: string, text: string, html: string][] = [
    ['headline', 'Headline', section.headline(report)],
    ['actions', 'What to do', actions(report, options.mode)],
    ['findings', 'Findings', section.findings(report, options.mode)],
    ['details', 'Details', section.noDetails(report)],
    ['boxes', 'Boxes', section.boxes(report)],
    ['features', 'Per feature', section.features(report)],
    ['rows', 'Per row', section.rows(report, options.mode, Boolean(revealed))],
    ['advisor', 'What if', section.advisor(report)],
    ['progress', 'Progress', section.progress(report)],
    ['evaluation', 'Evaluation', section.evaluation(report)],
    ['membership', 'Membership', membershipSection(report)],
    ['scripts', 'Training scripts', section.scripts(report, options.mode)],
    ['notes', 'Notes', section.notes(report)],
  ];
  const severity = report.headline.worstSeverity ? ` worst-${h(report.headline.worstSeverity)}` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${h(contentSecurityPolicy(options))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>Privacy report: ${h(report.file.name)}</title>
${style}
</head>
<body class="mpl-report mode-${webview ? 'webview' : 'standalone'}${severity}" data-mode="${webview ? 'webview' : 'standalone'}">
<a class="skip" href="#headline">Skip to the headline</a>
<main>
${section.header(report)}
${section.nav(parts.filter(([, , html]) => html).map(([id, text]) => [id, text] as const))}
${parts.map(([, , html]) => html).filter(Boolean).join('\n')}
${section.footer(report)}
</main>
<script type="application/json" id="report-data" ${n}>${jsonForScript(report)}</script>${revealed}
${script(options.scripts.chart, 'chart-js')}
${script(options.scripts.report, 'report-js')}
</body>
</html>
`;
}
