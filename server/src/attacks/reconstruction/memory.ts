/**
 * The engine's memory caps: what a formulation may hold before it is built. Time is kept by the
 * run's deadline (context.ts); memory cannot be taken back once a phase has built it, so the
 * phases whose size grows with the model (rows x trees x cells) count what they would build first
 * and stop at a cap, with a reason that says so, instead of growing until the process dies.
 *
 * One entry (a nonzero of the integer system) costs 16 bytes in our arrays (column-wise row index
 * and coefficient, the row-wise copy of both, Int32 each); handed to HiGHS, far more (its own
 * column- and row-wise copies in doubles, presolve's reduced copy): measured on the default forest
 * over 1,000 COMPAS rows, a 6.3M-entry formulation took the whole CLI process to 732 MB, a 21.9M
 * one to 1.8 GB. Hence two caps: the system itself (bound propagation certifies rows on it) up to
 * FORMULATION_ENTRY_CAP, the solver only up to SOLVER_ENTRY_CAP, so that the whole process stays
 * under 1 GB (test/bench/scale.bench.ts measures it).
 */

/** Nonzeros the replayed-bootstrap system may have (about 400 MB of Int32 arrays); past it, per-row answers only. */
export const FORMULATION_ENTRY_CAP = 24_000_000;

/** Nonzeros of a system handed to HiGHS; past it, what bound propagation proves is the answer. */
export const SOLVER_ENTRY_CAP = 6_000_000;

/**
 * Handing a model to HiGHS and its presolve are not interruptible: a solve is not begun with less
 * than this many milliseconds per million entries left (the 6.3M-entry solve above ended 3.8 s
 * past its deadline; a rough, conservative rate, measured on a loaded 2-core machine).
 */
export const SOLVER_MS_PER_MILLION_ENTRIES = 1_000;

/**
 * Candidate cells held across rows before the formulation is built (replayed bootstrap). A held
 * cell costs about 1.3 KB of heap (measured: 5 deep trees on 2,000 COMPAS rows, 809k cells at
 * 1.04 GB), whatever the entries it makes: few trees make many cells of few entries each, which
 * the entry cap above let through (17.8M entries, 2.2 GB resident, past the worker's 1 GB). 400k
 * cells is about 500 MB.
 */
export const CANDIDATE_CELL_CAP = 400_000;

/** Rows enumerated before the projected size of the whole formulation is trusted to decide early. */
export const PROJECTION_ROWS = 64;

/**
 * Fewer rows decide when the projection is far past the cap (EARLY_PROJECTION_FACTOR times): the
 * rows' candidates are held until then, and 64 rows of 5 deep trees on 2,000 Adult rows (about
 * 6,000 cells a row, projected 147M entries) held 1 GB.
 */
export const EARLY_PROJECTION_ROWS = 8;
export const EARLY_PROJECTION_FACTOR = 4;

/** "6.0M" for messages. */
export function millions(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${Math.round(n / 1e3)}k` : String(n);
}

/**
 * Cells (rows x the model's features) the box estimate walks at most (boxes/estimate.ts). Its walks
 * and point search hold every row's box and point: measured on IsolationForest's defaults over 40
 * numeric features, 1M cells took the CLI process to 233 MB and 2M cells to 359 MB, and 10M cells
 * (250,000 rows) ran out of the 1 GB ceiling after 20 s with nothing but "failed". Past the cap the
 * certified rows are listed alone (they come from the anchor trees' leaves, not from the walks).
 */
export const WALK_CELL_CAP = 4_000_000;

/**
 * Bytes the row groups of `row-boxes` may hold (boxes/propagate.ts): each group keeps its own box,
 * two Int32 per feature, and its leaf per tree, and the propagation splits groups up to one per
 * row. A public HistGradientBoostingRegressor on 706,048 rows, whose categorical splits make 3,975
 * 0/1 features (32 KB a group), went past 6 GB while splitting. Past the cap no group is split
 * further: what was proven stands, the rest stays unproven (an answer with fewer proofs, never a
 * wrong one). 256 MB is 570,000 groups of Pima's 8 features and 100 trees, so numeric forests of
 * ordinary width never meet it.
 */
export const GROUP_BYTES_CAP = 256 * 1024 * 1024;

/** The groups GROUP_BYTES_CAP allows for a model of `features` features and `trees` trees. */
export function groupCap(features: number, trees: number): number {
  return Math.max(1, Math.floor(GROUP_BYTES_CAP / (8 * features + 4 * trees + 96)));
}

/**
 * Leaf choices (walked rows x trees) the estimate's repair passes and point search keep
 * (boxes/complete.ts, point-search.ts: an Int32 per row and tree, each). A public 950-tree XGBoost
 * regressor on 168,864 rows (160M choices, under WALK_CELL_CAP's 1.5M cells) took its worker from
 * 200 MB to 935 MB of its 1 GB ceiling in the walks alone, and the point search would have held as
 * much again. Past the cap the rows are walked once, each into the leaves with most room, and
 * neither repaired nor searched: at that size a single pass would outlast any budget anyway.
 * 32M choices are 128 MB in each of the two phases.
 */
export const WALKED_LEAF_CAP = 32_000_000;

/**
 * Cells (rows x the model's features) the hessian matching of a boosted model holds at most
 * (boosting-hessians.ts). Public XGBoost files of 455k to 1.2M rows ran out of the worker's 1 GB
 * ("failed"): each row carried its own copy of its group's box, and the box widths were measured
 * on a list of rows x features numbers (25.7M on one of them). Rows now share their group's box and
 * widths are measured once per box, weighted; measured since, in the engine alone (13 to 100 trees
 * of depth 6): 1.0M cells 257 MB, 5M cells 296 MB, 19M cells (XGBClassifier's defaults on 1M rows
 * of Adult) 409 MB, 25.7M cells (1.17M rows x 22 features, a public file) 403 MB. Past the cap,
 * an order beyond what was measured, only tree 0 is read: its exact counts certify every row in
 * its leaves' boxes, without the later trees' matching.
 */
export const HESSIAN_MATCH_CELL_CAP = 100_000_000;
