/**
 * The webview's live progress chart: while a reconstruction runs, the report changes about once a
 * second, and only in its timeline. Rendering the whole page again each time would reset its
 * scroll position, open details and chart animations; instead the extension posts the new
 * timeline to the page (`{ type: 'timeline', ... }`), and media/report.js redraws the progress
 * and phase charts and the phase table in place. Everything else (a finished run, new findings,
 * the advisor) still renders the page again.
 *
 * Pure, like the rest of html/: the client imports it. The message carries phases, times and
 * counters, never row values; the phase table's rows come as text, made here by the same words
 * and formats as the rendered table (sections.ts), and the page sets them with textContent.
 */
import type { PrivacyReport, TimelinePoint } from '../model';
import { count, milliseconds, PHASE_WORDS, phaseRuns } from './format';

/** One row of the phase table, as text: phase, from, to, duration. */
export type PhaseRow = [phase: string, from: string, to: string, duration: string];

export interface TimelineMessage {
  type: 'timeline';
  timeline: TimelinePoint[];
  /** The phase table's summary ("Phases (3)") and rows. */
  summary: string;
  phases: PhaseRow[];
}

export function phaseRows(timeline: readonly TimelinePoint[]): PhaseRow[] {
  return phaseRuns(timeline).map((run) => [PHASE_WORDS[run.phase] ?? run.phase, milliseconds(run.from), milliseconds(run.to), milliseconds(run.to - run.from)]);
}

export function phaseSummary(rows: number): string {
  return `Phases (${count(rows)})`;
}

/**
 * The message that brings a page showing `shown` to `next`, when that is only a longer timeline of
 * the same running reconstruction; undefined when the page must be rendered again. Both need a
 * timeline: without one the page has no chart to redraw (it says the progress will appear).
 */
export function timelineMessage(shown: PrivacyReport, next: PrivacyReport): TimelineMessage | undefined {
  if (shown.headline.status !== 'running' || next.headline.status !== 'running') return undefined;
  if (shown.timeline.length === 0 || next.timeline.length === 0) return undefined;
  const rest = (report: PrivacyReport) => JSON.stringify({ ...report, generatedAt: '', timeline: [] });
  if (rest(shown) !== rest(next)) return undefined;
  const phases = phaseRows(next.timeline);
  return { type: 'timeline', timeline: next.timeline, summary: phaseSummary(phases.length), phases };
}
