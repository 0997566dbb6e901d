/** Severity arithmetic shared by the writers and the CLI's exit code. */
import type { FileReport } from '../linter/linter';
import type { Finding } from '../rules/types';

export function countBySeverity(files: FileReport[]): Record<Finding['severity'], number> {
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const file of files) for (const finding of file.findings) counts[finding.severity]++;
  return counts;
}

export type FailOn = 'error' | 'warning' | 'never';

/** Whether findings of these severities should fail a CI run under the `--fail-on` policy. */
export function shouldFail(files: FileReport[], failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  const counts = countBySeverity(files);
  return counts.error > 0 || (failOn === 'warning' && counts.warning > 0);
}
