/**
 * What every reconstruction method shares while it runs: the clock and the budget, the abort
 * signal, progress reports, statistics, and how an answer is assembled. One context per call of
 * `reconstruct()`; the methods (aggregated.ts, and the ones for bootstrap, privacy and numeric
 * features) receive it instead of each keeping their own clock.
 */
import type {
  ReconstructionMethod,
  ReconstructionOptions,
  ReconstructionPhase,
  ReconstructionProgress,
  ReconstructionResult,
  ReconstructionStats,
  RowsKind,
} from './types';

export const DEFAULT_BUDGET_MS = 30_000;

export type AnswerFields = Omit<ReconstructionResult, 'seconds' | 'stats' | 'reconstruction' | 'reconstructedRows' | 'method'> & {
  reconstruction?: ReconstructionResult['reconstruction'];
};

export class RunContext {
  readonly started = Date.now();
  /**
   * The columns the rows will be listed in, when more than the method sees (a wide model run on the
   * features its trees split on: compact-features.ts). A method that builds rows only to have most
   * of them dropped from the listing (EXPANDED_CELL_CAP) builds those that will be listed.
   */
  listColumns?: number;
  /** When the budget ends. */
  private readonly budgetEnd: number;
  /** Milliseconds kept back from the methods for work after them (`reserve`). */
  private reserved = 0;
  /** What the reserve is kept for, in words (stopReason). */
  private readonly reservedFor: string[] = [];
  readonly stats: ReconstructionStats = {
    cells: 0,
    searchNodes: 0,
    mergedCells: 0,
    columns: 0,
    constraints: 0,
    fixedByPropagation: 0,
    probed: 0,
    lpSolves: 0,
    enumerationMs: 0,
    milpMs: 0,
    certifyMs: 0,
  };
  /** Which formulation produced the answer; set by the dispatcher before a method runs. */
  method: ReconstructionMethod = 'none';
  /** Set by a method whose N is an estimate or a lower bound (ReconstructionResult.rowsKind). */
  rowsKind: RowsKind | undefined;

  constructor(readonly options: ReconstructionOptions) {
    this.budgetEnd = this.started + (options.budgetMs ?? DEFAULT_BUDGET_MS);
  }

  /** When the methods must stop: the budget's end, less what was reserved for work after them. */
  get deadline(): number {
    return this.budgetEnd - this.reserved;
  }

  /**
   * Keeps `ms` more of the budget (in all at most half of what is left) for work done after the
   * walks or the method, so that the whole answer still ends within the budget: regression targets
   * after a box method, a box estimate's points and widths for every row after its walks (a public
   * 135,691-row forest of 300 trees ended 2.5 s past a 15 s budget without it). `purpose` names it.
   */
  reserve(ms: number, purpose = 'the targets'): void {
    if (!(ms > 0)) return;
    this.reserved = Math.max(0, Math.min(this.reserved + ms, (this.budgetEnd - Date.now()) / 2));
    if (!this.reservedFor.includes(purpose)) this.reservedFor.push(purpose);
  }

  get aborted(): boolean {
    return this.options.signal?.aborted === true;
  }

  /**
   * True once the signal aborted or the whole budget ran out, reserve included: for the work done
   * after a method returns (regression targets), which has the reserve to itself.
   */
  overBudget(): boolean {
    return this.aborted || Date.now() >= this.budgetEnd;
  }

  /** True once the signal aborted or the budget ran out: stop at the next checkpoint. */
  stopped(): boolean {
    return this.aborted || Date.now() >= this.deadline;
  }

  /** Why the work stopped, in words (for `reason`); `early`: stopped before the deadline, since the next step would have ended past it. */
  stopReason(early = false): string {
    if (this.aborted) return 'cancelled';
    const budget = `the time budget of ${((this.budgetEnd - this.started) / 1000).toFixed(1)} s`;
    // Stopped early: say how much was left rather than "nearly spent" (sweep 16: at 4.9 s of 10 s).
    if (early && Date.now() < this.deadline) return `${((this.deadline - Date.now()) / 1000).toFixed(1)} s of ${budget} were left`;
    // Stopped at the deadline with part of the budget kept for the targets: not the whole budget (sweep 9: "15.0 s ran out" after 8.6 s).
    if (this.reserved > 0 && Date.now() < this.budgetEnd) return `its share of ${budget} ran out (${((this.deadline - this.started) / 1000).toFixed(1)} s; the rest was kept for ${this.reservedFor.join(' and ')})`;
    return `${budget} ran out`;
  }

  progress(phase: ReconstructionPhase, extra: Omit<ReconstructionProgress, 'phase' | 'elapsedMs'> = {}): void {
    this.options.onProgress?.({ phase, elapsedMs: Date.now() - this.started, ...extra });
  }

  answer(fields: AnswerFields): ReconstructionResult {
    const reconstruction = fields.reconstruction ?? [];
    return {
      ...fields,
      ...(this.rowsKind && fields.rows !== null ? { rowsKind: this.rowsKind } : {}),
      method: this.method,
      reconstruction,
      reconstructedRows: reconstruction.length,
      seconds: (Date.now() - this.started) / 1000,
      stats: this.stats,
    };
  }
}

export function sum(values: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
