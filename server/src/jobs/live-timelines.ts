/**
 * The running reconstructions' timelines, for the privacy report's live progress chart: the
 * latest timeline the worker posted per file, and a throttled "the report changed" so an open
 * report redraws while the run goes on, but at most every `intervalMs`.
 *
 * The worker posts up to ten times a second; a report redrawn that often would only cost the
 * editor. The throttle keeps a trailing call: the last timeline before a long silent stretch (a
 * HiGHS solve reports nothing until it returns) is still shown within `intervalMs`.
 *
 * A timeline holds phases, times and counters, never row values.
 */
import type { TimelinePoint } from '../report/model';

export const LIVE_REPORT_INTERVAL_MS = 1000;

export class LiveTimelines {
  private readonly timelines = new Map<string, TimelinePoint[]>();
  private readonly lastNotified = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    /** The file's report changed (server: sends `reportChanged`). */
    private readonly notify: (uri: string) => void,
    private readonly intervalMs = LIVE_REPORT_INTERVAL_MS,
  ) {}

  /** The file's running reconstruction's timeline so far; undefined when none runs. */
  get(uri: string): TimelinePoint[] | undefined {
    return this.timelines.get(uri);
  }

  /** A newer timeline of the file's running reconstruction. */
  update(uri: string, timeline: TimelinePoint[]): void {
    this.timelines.set(uri, timeline);
    if (this.timers.has(uri)) return;
    const wait = (this.lastNotified.get(uri) ?? -Infinity) + this.intervalMs - Date.now();
    if (wait <= 0) {
      this.fire(uri);
      return;
    }
    this.timers.set(uri, setTimeout(() => this.fire(uri), wait));
  }

  /**
   * The run ended, was cancelled or became stale: its timeline is no longer shown, and no pending
   * redraw fires for it (whoever ended it announces the new report).
   */
  drop(uri: string): void {
    this.timelines.delete(uri);
    this.lastNotified.delete(uri);
    clearTimeout(this.timers.get(uri));
    this.timers.delete(uri);
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.timelines.clear();
  }

  private fire(uri: string): void {
    this.timers.delete(uri);
    if (!this.timelines.has(uri)) return;
    this.lastNotified.set(uri, Date.now());
    this.notify(uri);
  }
}
