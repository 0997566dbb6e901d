/**
 * The CLI's JSON: a contract other tools read (documented in docs/cli.md, "JSON output (a contract)").
 * Add fields freely; never rename or remove one without bumping `version`.
 */
import type { FileReport } from '../linter/linter';
import { packageVersion } from '../util/package-info';

export const JSON_REPORT_VERSION = 1;

export function toJsonReport(files: FileReport[]): object {
  return {
    version: JSON_REPORT_VERSION,
    tool: { name: 'model-privacy-lint', version: packageVersion() },
    files: files.map((file) => ({
      path: file.path,
      format: file.format,
      contentHash: file.contentHash,
      model: file.model,
      ...(file.embedded ? { embedded: file.embedded } : {}),
      findings: file.findings.map(({ rule, severity, message, location, data }) => ({ rule, severity, message, location, ...(data ? { data } : {}) })),
      notes: file.notes,
      ...(file.recoverability ? { recoverability: file.recoverability } : {}),
      ...(file.evaluation ? { evaluation: file.evaluation } : {}),
      ...(file.advisor ? { advisor: file.advisor } : {}),
      ...(file.membership ? { membership: file.membership } : {}),
    })),
  };
}

export function writeJson(files: FileReport[]): string {
  return `${JSON.stringify(toJsonReport(files), null, 2)}\n`;
}
