/**
 * The reconstruction's progress over time, for the report's progress chart: records the engine's
 * `ReconstructionProgress` events and the final result as `TimelinePoint`s.
 *
 * The engine can report thousands of events (one per bounding LP, per enumeration step); a chart
 * needs a few hundred at most, and the report travels over LSP. So the recorder thins as it goes:
 * the first and last point of every phase are always kept (the phase strip needs its boundaries),
 * and whenever the buffer grows past twice the limit, the points in between are thinned to an
 * even spread in time (`thin`).
 * Memory stays O(limit) however long the run.
 *
 * Rows are only known at the end: the engine certifies rows in one step after its last phase, so
 * intermediate points carry no row counts, except the start (nothing is certified at 0 ms).
 */
import type { ReconstructionProgress, ReconstructionResult } from '../attacks/reconstruction/types';
import type { TimelinePoint } from './model';

export const DEFAULT_TIMELINE_POINTS = 200;
/** The phase of the final point, after the engine answered. */
export const DONE_PHASE = 'done';

export class TimelineRecorder {
  private points: TimelinePoint[] = [{ ms: 0, phase: 'start', certifiedRows: 0, reconstructedRows: 0 }];
  private finished = false;

  constructor(private readonly maxPoints = DEFAULT_TIMELINE_POINTS) {
    if (!(maxPoints >= 4)) throw new RangeError('a timeline needs room for at least 4 points');
  }

  /** Feed it the engine's `onProgress` events; after `finish` it ignores them. */
  record(progress: ReconstructionProgress): void {
    if (this.finished) return;
    const last = this.points[this.points.length - 1];
    const ms = Math.max(last.ms, Math.round(progress.elapsedMs));
    const point: TimelinePoint = { ms, phase: progress.phase };
    if (progress.cells !== undefined) point.cells = progress.cells;
    if (progress.done !== undefined) point.done = progress.done;
    if (progress.total !== undefined) point.total = progress.total;
    // Two reports of the same phase in the same millisecond: keep the later one only, unless
    // the earlier one opens the phase.
    const beforeLast = this.points[this.points.length - 2];
    if (last.phase === point.phase && last.ms === point.ms && beforeLast?.phase === last.phase) {
      this.points[this.points.length - 1] = point;
      return;
    }
    this.points.push(point);
    if (this.points.length > 2 * this.maxPoints) this.points = thin(this.points, this.maxPoints);
  }

  /** Adds the answer as the last point and returns the thinned timeline. */
  finish(result: Pick<ReconstructionResult, 'seconds' | 'certifiedRows' | 'reconstructedRows'>): TimelinePoint[] {
    if (!this.finished) {
      const last = this.points[this.points.length - 1];
      this.points.push({
        ms: Math.max(last.ms, Math.round(result.seconds * 1000)),
        phase: DONE_PHASE,
        certifiedRows: result.certifiedRows,
        reconstructedRows: result.reconstructedRows,
      });
      this.finished = true;
    }
    return this.timeline();
  }

  /** The timeline so far (at most `maxPoints`), e.g. for a report shown while the engine runs. */
  timeline(): TimelinePoint[] {
    return thin(this.points, this.maxPoints).map((point) => ({ ...point }));
  }
}

/**
 * At most `max` points: phase boundaries (first and last point of each run of a phase) first,
 * then the points between them spread evenly in TIME (the first point of each of `room` equal
 * time slices). Thinning by time rather than by position keeps the result the same whether the
 * recorder thinned once at the end or many times along the way, and keeps slow phases visible.
 * If the boundaries alone exceed `max` (a run that switches phase hundreds of times), every k-th
 * boundary is kept, always with the first and last point.
 */
export function thin(points: readonly TimelinePoint[], max: number): TimelinePoint[] {
  if (points.length <= max) return points.slice();
  const boundary = points.map((p, i) => i === 0 || i === points.length - 1 || points[i - 1].phase !== p.phase || points[i + 1].phase !== p.phase);
  const boundaries = boundary.filter(Boolean).length;
  if (boundaries >= max) {
    const kept = points.filter((_, i) => boundary[i]);
    const step = (kept.length - 1) / (max - 1);
    return Array.from({ length: max }, (_, k) => kept[Math.round(k * step)]);
  }
  const room = max - boundaries;
  const from = points[0].ms;
  const span = Math.max(1, points[points.length - 1].ms - from);
  const slices = new Set<number>();
  return points.filter((point, i) => {
    if (boundary[i]) return true;
    const slice = Math.min(room - 1, Math.floor(((point.ms - from) / span) * room));
    if (slices.has(slice)) return false;
    slices.add(slice);
    return true;
  });
}
