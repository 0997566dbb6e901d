/**
 * What the report's headline says and how it looks, from the reconstruction's status, the claim
 * and the most severe finding. One rule above all: the headline never reads "safe" (green) unless
 * it is, that is unless the reconstruction ran to completion, recovered nothing, AND no finding is
 * a warning or an error. A reconstruction that was skipped, failed, not run, still running, or
 * stopped by the budget with nothing is NOT MEASURED: neutral, or warning-coloured when a warning
 * or error finding stands, and the headline points at those findings.
 *
 * Pure (no node: imports): build.ts stores the verdict in the report, and the renderer (which the
 * webview bundle imports) derives it the same way for a report that lacks it.
 *
 * The whole table (status x claim x worst finding severity; "any" = every value):
 *
 * | status                  | claim      | worst severity          | verdict          | look     | figure                                   | badge                 |
 * |-------------------------|------------|-------------------------|------------------|----------|------------------------------------------|-----------------------|
 * | exact, bounded, timeout | certified  | any                     | certified        | exposed  | "C of N training rows certified"         | Certified             |
 * | exact, bounded, timeout | estimate   | any                     | estimate         | estimate | "R rows reconstructed for N ..., 0 cert." | Estimate              |
 * | exact, bounded          | none       | error, warning          | nothing-found    | warning  | "0 of N training rows reconstructed"     | Nothing reconstructed |
 * | exact, bounded          | none       | information, hint, none | nothing-found    | safe     | "0 of N training rows reconstructed"     | Nothing reconstructed |
 * | timeout                 | none       | error, warning          | not-measured     | warning  | "Not measured"                           | Budget ran out        |
 * | timeout                 | none       | information, hint, none | not-measured     | neutral  | "Not measured"                           | Budget ran out        |
 * | skipped, failed, not-run| any (*)    | error, warning          | not-measured     | warning  | "Not measured"                           | Skipped/Failed/Not run|
 * | skipped, failed, not-run| any (*)    | information, hint, none | not-measured     | neutral  | "Not measured"                           | Skipped/Failed/Not run|
 * | running                 | any (*)    | error, warning          | not-measured-yet | warning  | "Not measured yet"                       | Running               |
 * | running                 | any (*)    | information, hint, none | not-measured-yet | neutral  | "Not measured yet"                       | Running               |
 *
 * (*) build.ts only ever gives these statuses the claim `none`; a run that did not finish is not
 * measured whatever count it carries. Under every `warning` look and every not-measured verdict
 * with a warning or error, the headline lists them: "2 warnings still apply: replayable-bootstrap,
 * singleton-leaf". The reason (skipped, failed, budget) is shown once, in the "Why" line.
 */
import type { HeadlineLook, HeadlineVerdict, ReportFinding, ReportHeadline } from '../model';

/** The statuses of a reconstruction that ended by itself (the only ones that can measure "nothing"). */
const COMPLETED = new Set<ReportHeadline['status']>(['exact', 'bounded']);

export function headlineVerdict(hl: Pick<ReportHeadline, 'status' | 'claim'>): HeadlineVerdict {
  if (hl.status === 'running') return 'not-measured-yet';
  if (hl.status === 'skipped' || hl.status === 'failed' || hl.status === 'not-run') return 'not-measured';
  if (hl.claim === 'certified') return 'certified';
  if (hl.claim === 'estimate') return 'estimate';
  return COMPLETED.has(hl.status) ? 'nothing-found' : 'not-measured';
}

export function headlineLook(verdict: HeadlineVerdict, worstSeverity: ReportHeadline['worstSeverity']): HeadlineLook {
  if (verdict === 'certified') return 'exposed';
  if (verdict === 'estimate') return 'estimate';
  const standing = worstSeverity === 'error' || worstSeverity === 'warning';
  if (standing) return 'warning';
  return verdict === 'nothing-found' ? 'safe' : 'neutral';
}

/** The headline's verdict and look: the stored ones, or derived (reports made before they were stored). */
export function verdictOf(hl: ReportHeadline): { verdict: HeadlineVerdict; look: HeadlineLook } {
  const verdict = hl.verdict ?? headlineVerdict(hl);
  return { verdict, look: hl.look ?? headlineLook(verdict, hl.worstSeverity) };
}

/** Whether the headline says "not measured" (yet): no finished reconstruction speaks for the model. */
export function isMeasured(verdict: HeadlineVerdict): boolean {
  return verdict !== 'not-measured' && verdict !== 'not-measured-yet';
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/**
 * The warning and error findings that still stand when the headline measured nothing, as a
 * sentence: "2 warnings still apply: replayable-bootstrap, singleton-leaf". Undefined when none.
 */
export function standingFindings(findings: readonly ReportFinding[]): { text: string; rules: string[] } | undefined {
  const errors = findings.filter((f) => f.severity === 'error');
  const warnings = findings.filter((f) => f.severity === 'warning');
  if (errors.length + warnings.length === 0) return undefined;
  const counts = [errors.length ? plural(errors.length, 'error') : '', warnings.length ? plural(warnings.length, 'warning') : ''].filter(Boolean).join(' and ');
  const rules: string[] = [];
  for (const f of [...errors, ...warnings]) if (!rules.includes(f.rule)) rules.push(f.rule);
  return { text: `${counts} still ${errors.length + warnings.length === 1 ? 'applies' : 'apply'}`, rules };
}
