/** The advisor in the CLI's text output: one line per setting, then the advice. */
import type { AdvisorReport } from '../report/model';
import { baselineWords } from './recommendations';

const fmt = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

export function advisorLines(report: AdvisorReport & { notes?: string[] }): string[] {
  const measure = report.errorMeasure === 'timberstrike' ? 'error = 1 - TimberStrike RA; ' : '';
  const lines = [`what-if advisor (simulated remedies; ${measure}${baselineWords(report.errorMeasure)} ${fmt(report.baselineError)}; ${report.seconds.toFixed(1)} s${report.partial ? ', partial' : ''}):`];
  const width = Math.max(...[report.current, ...report.scenarios].map((s) => s.label.length));
  for (const s of [report.current, ...report.scenarios]) {
    const verdict = s.noBetterThanBaseline === null ? '' : s.noBetterThanBaseline ? '  no better than guessing' : '';
    const membership = s.membershipAuc === undefined ? '' : `, membership AUC ${fmt(s.membershipAuc)}`;
    lines.push(`  ${s.label.padEnd(width)}  error ${fmt(s.error)}, ${s.certifiedRows} certified${membership}, ${s.status}, ${s.method}, ${s.seconds.toFixed(1)} s${verdict}`);
  }
  for (const r of report.recommendations) lines.push(`  advice: ${r.text}`);
  for (const note of report.notes ?? []) lines.push(`  note: ${note}`);
  return lines;
}
