/**
 * The reconstruction's progress over time, kept for the privacy report's progress chart: one point
 * when a phase starts, then at most one every `intervalMs` within it, and the end with the counts.
 * Progress events carry phases and work counts, never row values, so neither does the timeline.
 * Bounded in size: a long certification reports thousands of LPs, the chart needs a few hundred.
 */
import type { ReconstructionProgress, ReconstructionResult } from './attacks/reconstruction/types';
import type { TimelinePoint } from './report/model';

const DEFAULT_INTERVAL_MS = 250;
const DEFAULT_MAX_POINTS = 400;

export class TimelineRecorder {
  private readonly points: TimelinePoint[] = [];
  private lastPhase = '';
  private lastMs = -Infinity;

  constructor(
    private readonly intervalMs = DEFAULT_INTERVAL_MS,
    private readonly maxPoints = DEFAULT_MAX_POINTS,
  ) {}

  record(progress: ReconstructionProgress): void {
    const newPhase = progress.phase !== this.lastPhase;
    if (!newPhase && progress.elapsedMs - this.lastMs < this.intervalMs) return;
    // Keep room for the end point; past the cap only phase starts are kept.
    if (this.points.length >= this.maxPoints - 1 && !newPhase) return;
    if (this.points.length >= this.maxPoints - 1) this.points.splice(1, 1);
    this.lastPhase = progress.phase;
    this.lastMs = progress.elapsedMs;
    this.points.push({ ms: progress.elapsedMs, phase: progress.phase });
  }

  /** The points, closed by when the first whole reconstruction was found and by the end's counts. */
  finish(result: Pick<ReconstructionResult, 'seconds' | 'certifiedRows' | 'reconstructedRows' | 'stats'>): TimelinePoint[] {
    const end = Math.round(result.seconds * 1000);
    const first = result.stats.firstReconstructionMs;
    const points = [...this.points];
    if (first !== undefined && first <= end) {
      points.push({ ms: first, phase: 'first reconstruction', reconstructedRows: result.reconstructedRows });
    }
    points.push({ ms: end, phase: 'done', certifiedRows: result.certifiedRows, reconstructedRows: result.reconstructedRows });
    return points.sort((a, b) => a.ms - b.ms);
  }
}
