/** Render options of a webview page for tests that render a report (any nonce and URLs will do). */
import type { RenderOptions } from '../../server/src/report/html';

export const TEST_WEBVIEW: RenderOptions = {
  nonce: 'cmFuZG9tLW5vbmNlLTEyMzQ1Ng==',
  mode: 'webview',
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  scripts: { chart: 'https://x/chart.umd.js', report: 'https://x/report.js' },
  styles: { report: 'https://x/report.css' },
};
