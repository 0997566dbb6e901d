/**
 * How a finding's message is laid out. The first line is what the Problems panel, a SARIF
 * viewer's result list and a CI log show: one sentence of at most SUMMARY_LIMIT characters that
 * says what leaks and what to do. The detail follows after a newline; VS Code's hover shows the
 * whole message (pre-wrapped), its Problems panel one row per line (a toggle collapses it to the
 * first), and SARIF viewers show the first sentence of `message.text` as the result's summary.
 */
export const SUMMARY_LIMIT = 80;

/**
 * `summary` then `detail` on the next line, each one line: two rows per finding in the panel,
 * the second cut at the panel's width. No detail, no second line.
 */
export function lead(summary: string, detail?: string): string {
  const first = summary.replace(/\s*\n\s*/g, ' ').trim();
  const rest = detail?.replace(/\s*\n\s*/g, ' ').trim();
  return rest ? `${first}\n${rest}` : first;
}

/** The first line of a message: what the panel shows. */
export function summaryOf(message: string): string {
  return message.split(/\r?\n/, 1)[0] ?? '';
}

/**
 * A finding about one model of a file that holds several, or one not at its root: the first line
 * stays the short one the Problems panel shows; where the model sits leads the detail.
 */
export function placedIn(message: string, location: string, estimator: string): string {
  return lead(summaryOf(message), `In ${location} (${estimator}): ${detailOf(message) || summaryOf(message)}`);
}

/** The message after its first line (empty when it has none). */
export function detailOf(message: string): string {
  const at = message.indexOf('\n');
  return at < 0 ? '' : message.slice(at + 1);
}
