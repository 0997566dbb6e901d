/**
 * The files the HTML report needs at run time (Chart.js, media/report.js, media/report.css),
 * found relative to the package root as the rule pages are (package-info.ts): beside the
 * bundled dist/cli.js in an installed package, beside out/ in a development checkout.
 *
 * Chart.js is copied to media/vendor/ by scripts/bundle.mjs (so the .vsix carries it); in a
 * checkout that was only compiled with tsc, node_modules still has it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../util/package-info';
import type { PrivacyReport, RevealedRows } from './model';
import { renderReportHtml } from './html';

export const CHART_JS_CANDIDATES = ['media/vendor/chart.umd.js', 'node_modules/chart.js/dist/chart.umd.js'];
export const REPORT_SCRIPT = 'media/report.js';
export const REPORT_STYLE = 'media/report.css';

export interface ReportAssets {
  chart: string;
  report: string;
  style: string;
  /** Files that were not found: the report is written without them (tables only, or unstyled). */
  missing: string[];
}

let cached: ReportAssets | undefined;

export function loadReportAssets(root = packageRoot()): ReportAssets {
  if (cached && root === packageRoot()) return cached;
  const missing: string[] = [];
  const read = (paths: string[]): string => {
    for (const path of paths) {
      const full = join(root, path);
      if (existsSync(full)) return readFileSync(full, 'utf8');
    }
    missing.push(paths[0]);
    return '';
  };
  const assets = { chart: read(CHART_JS_CANDIDATES), report: read([REPORT_SCRIPT]), style: read([REPORT_STYLE]), missing };
  if (root === packageRoot()) cached = assets;
  return assets;
}

/** A fresh nonce for one document (128 random bits, base64). */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** One standalone HTML document (the CLI's `--format html`), everything inlined. */
export function standaloneReportHtml(report: PrivacyReport, revealed?: RevealedRows, assets = loadReportAssets()): string {
  return renderReportHtml(report, {
    nonce: newNonce(),
    mode: 'standalone',
    scripts: { chart: assets.chart, report: assets.report },
    styles: { report: assets.style },
    ...(revealed ? { revealed } : {}),
  });
}
