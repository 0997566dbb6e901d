/** Human-readable CLI output: one block per file, one line per finding, a summary at the end. */
import type { FileReport } from '../linter';
import { countBySeverity } from './severity';

export function writeText(files: FileReport[]): string {
  const lines: string[] = [];
  for (const file of files) {
    const model = file.model;
    const about = model
      ? `${file.format}, ${model.estimator}, ${model.trees} tree${model.trees === 1 ? '' : 's'}` +
        (model.trainingRows !== null ? `, ${model.trainingRows} training rows` : '')
      : file.format;
    lines.push(`${file.path}  (${about})`);
    if (file.findings.length === 0) lines.push('  no findings');
    for (const finding of file.findings) {
      const where = finding.location.range ? `${finding.location.range.start.line + 1}:${finding.location.range.start.character + 1}  ` : '';
      lines.push(`  ${where}${finding.severity.padEnd(11)} ${finding.rule.padEnd(20)} ${finding.message}`);
    }
    lines.push('');
  }
  const counts = countBySeverity(files);
  lines.push(
    `${files.length} file${files.length === 1 ? '' : 's'}: ${counts.error} error(s), ${counts.warning} warning(s), ` +
      `${counts.information} information, ${counts.hint} hint(s)`,
  );
  return `${lines.join('\n')}\n`;
}
