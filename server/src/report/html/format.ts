/** Number formatting shared by the HTML sections (pure: the webview bundle imports it). */

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A share 0-1 as a percentage: whole numbers, one decimal below 10%, "<0.1%" for tiny non-zero shares. */
export function percent(share: number): string {
  if (!Number.isFinite(share)) return '–';
  const p = share * 100;
  if (p > 0 && p < 0.1) return '<0.1%';
  if (p < 10 && p !== Math.round(p)) return `${p.toFixed(1)}%`;
  if (p > 99 && p < 100) return `${p.toFixed(1)}%`;
  return `${Math.round(p)}%`;
}

export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

export function milliseconds(ms: number): string {
  return duration(ms / 1000);
}

/** Mean error (0-1, fraction of wrong features) as shown in the papers: three decimals. */
export function errorValue(error: number | null | undefined): string {
  return error === null || error === undefined || !Number.isFinite(error) ? '–' : error.toFixed(3);
}

export const METHOD_WORDS: Record<string, string> = {
  aggregated: 'aggregated counts (no bootstrap)',
  'replayed-bootstrap': 'replayed bootstrap',
  'bootstrap-likelihood': 'bootstrap likelihood (estimate)',
  'dp-likelihood': 'differential-privacy likelihood (estimate)',
  'boosting-hessians': 'boosting hessians (estimate)',
  'bounded-search': 'bounded search (estimate)',
  'row-boxes': 'rows proven as boxes',
  'box-estimate': 'leaf boxes, the rest an estimate',
  'leaf-regions': "one tree's leaves as boxes",
  none: 'none',
};

export const STATUS_WORDS: Record<string, string> = {
  exact: 'exact',
  bounded: 'bounded',
  timeout: 'budget ran out',
  skipped: 'skipped',
  failed: 'failed',
  'not-run': 'not run',
  running: 'running',
};

export const PHASE_WORDS: Record<string, string> = {
  start: 'start',
  cells: 'finding cells',
  formulation: 'building the program',
  propagation: 'propagating counts',
  milp: 'solving (HiGHS)',
  certify: 'certifying rows',
  search: 'searching',
  done: 'done',
};

/** The phases of a timeline as runs: [phase, from ms, to ms]; the start and done markers are not phases. */
export function phaseRuns(points: readonly { ms: number; phase: string }[]): { phase: string; from: number; to: number }[] {
  const runs: { phase: string; from: number; to: number }[] = [];
  points.forEach((point, i) => {
    const last = runs[runs.length - 1];
    if (last) last.to = point.ms;
    if (point.phase === 'start' || point.phase === 'done') return;
    if (!last || last.phase !== point.phase || i === 0) runs.push({ phase: point.phase, from: point.ms, to: point.ms });
  });
  return runs.filter((run) => run.phase !== 'start' && run.phase !== 'done');
}

/**
 * A finding's message is its short first line, then the detail on the next (rules/message.ts lays
 * them out; the renderer keeps no imports outside this folder, so it splits them itself).
 */
export function messageSummary(message: string): string {
  return message.split(/\r?\n/, 1)[0] ?? '';
}

export function messageDetail(message: string): string {
  const at = message.indexOf('\n');
  return at < 0 ? '' : message.slice(at + 1);
}

/** The proofs against the truth: a proof the truth contradicts is this tool's bug, said so plainly. */
export function certifiedCheckText(check: { proven: number; held: number | null; problem?: string; note?: string; throughSteps?: true }): string {
  if (check.held === null) return `proven rows not checked against them (${check.problem})`;
  const note = check.note ? ` (${check.note})` : '';
  if (check.held === check.proven) return `each of the ${check.proven.toLocaleString('en-US')} proven rows is a distinct true row inside its proven box${note}`;
  const only = `ONLY ${check.held.toLocaleString('en-US')} OF THE ${check.proven.toLocaleString('en-US')} PROVEN ROWS are distinct true rows inside their proven boxes`;
  // Rows sent through the steps before the model: a file of the values the model itself saw fails so too.
  if (check.throughSteps) return `${only}: the rows were read as the input of the steps before the model and sent through them, so a file of the values the model itself saw fails so; if these are that input, a proof the truth contradicts is a bug of this tool, please report it${note}`;
  return `${only}: a proof the truth contradicts is a bug of this tool, please report it${note}`;
}
