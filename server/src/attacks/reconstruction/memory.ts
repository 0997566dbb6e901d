/**
 * The engine's memory caps: what a formulation may hold before it is built. Time is kept by the
 * run's deadline (context.ts); memory cannot be taken back once a phase has built it, so the
 * phases whose size grows with the model (rows x trees x cells) count what they would build first
 * and stop at a cap, with a reason that says so, instead of growing until the process dies.
 *
 * One entry (a nonzero of the integer system) costs 16 bytes in our arrays (column-wise row index
 * and coefficient, the row-wise copy of both, Int32 each) and, once handed to HiGHS, about 5 times
 * that again (its own column- and row-wise copies in doubles, presolve's reduced copy). The cap
 * below keeps a formulation and its solve within about 600 MB on top of the model itself, so that
 * the whole process stays under 1 GB (test/bench/scale.bench.ts measures it).
 */

/** Nonzeros a bootstrap formulation may have (replayed or likelihood); past it, per-row answers only. */
export const FORMULATION_ENTRY_CAP = 6_000_000;

/** Rows enumerated before the projected size of the whole formulation is trusted to decide early. */
export const PROJECTION_ROWS = 64;

/** "6.0M" for messages. */
export function millions(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${Math.round(n / 1e3)}k` : String(n);
}
