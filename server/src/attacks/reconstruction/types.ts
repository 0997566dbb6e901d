/**
 * The public shapes of the reconstruction engine: what a caller passes to `reconstruct()` and
 * what it gets back. Kept apart from the algorithms so that the CLI, the server and the worker can
 * import them without pulling in the solver.
 */

/**
 * Binary features that encode one categorical attribute. `one-hot`: exactly one of them is 1 in
 * every training row; `at-most-one`: none or one. Declared by the user (sidecar, settings, CLI);
 * the engine trusts the declaration, so a wrong one can make the certificate wrong.
 */
export interface CategoricalGroup {
  kind: 'one-hot' | 'at-most-one';
  /** Feature indices (positions in `forest.features`). */
  features: number[];
}

export type ReconstructionPhase = 'cells' | 'formulation' | 'propagation' | 'milp' | 'certify' | 'search';

/**
 * Which formulation answered (issue 3 asks to report which case applied):
 * - `aggregated`: no bootstrap, exact counts; integer multiplicities of the cells of feature space.
 * - `replayed-bootstrap`: bootstrap whose per-tree draws were replayed from the stored seeds;
 *   one unknown per training row, each tree's equalities weighted by how often it drew the row.
 * - `bootstrap-likelihood`: bootstrap without usable seeds; the DRAFT paper's maximum-likelihood
 *   formulation (an estimate, nothing certified beyond what holds for every bootstrap draw).
 * - `dp-likelihood`: differentially private counts; noise variables and the DRAFT-DP likelihood (an estimate).
 * - `boosting-hessians`: XGBoost binary:logistic; tree 0's probed counts, then each later tree's
 *   cover and gradient sums matched through the hessians the earlier trees imply (an estimate).
 * - `boosting-counts`: XGBoost reg:squarederror (every tree's covers are row counts; labels from the
 *   gradient sums) or multi:softprob/softmax (the first K trees' class counts): the aggregated
 *   formulation over those counts, certified.
 * - `row-boxes`: numeric forests without bootstrap, too many cells to enumerate: groups of rows
 *   with a proven box each, narrowed by sound propagation over the leaf counts (boxes/), the rest
 *   completed by a greedy walk (the points are estimates inside the proven boxes).
 * - `box-estimate`: counts that are not row counts shared by every tree (bootstrap on numeric
 *   features, class or sample weights, noised counts): single-class leaves of one tree certify
 *   their distinct rows as boxes; the rest is an estimate (boxes/estimate.ts).
 * - `bounded-search`: too many cells to enumerate; the best reconstruction a bounded search found.
 * - `leaf-regions`: count trees whose training data had missing values their splits send both ways:
 *   one tree's leaves certify their rows as boxes (first-tree-regions.ts).
 * - `none`: the engine did not run a formulation (skipped or failed before one was chosen).
 */
export type ReconstructionMethod = 'aggregated' | 'row-boxes' | 'box-estimate' | 'replayed-bootstrap' | 'bootstrap-likelihood' | 'dp-likelihood' | 'boosting-hessians' | 'boosting-counts' | 'bounded-search' | 'leaf-regions' | 'none';

export interface ReconstructionProgress {
  phase: ReconstructionPhase;
  /** Milliseconds since `reconstruct()` started. */
  elapsedMs: number;
  /** Cells of feature space found so far (phase `cells`). */
  cells?: number;
  /** Work done and to do in the current phase, when countable (e.g. bounding LPs). */
  done?: number;
  total?: number;
}

export interface ReconstructionOptions {
  /** Wall-clock budget in milliseconds for the whole reconstruction. Default 30,000. */
  budgetMs?: number;
  onProgress?: (progress: ReconstructionProgress) => void;
  /** Stops the work at the next checkpoint; the answer then has status `timeout` with what is known. */
  signal?: AbortSignal;
  /** Declared categorical groups; they prune cells that break them. */
  groups?: CategoricalGroup[];
  /** Cells (rows x features) the box estimate walks at most; default memory.ts's WALK_CELL_CAP (tests lower it). */
  walkCellCap?: number;
  /** Leaf choices (walked rows x trees) the estimate's repairs and point search keep; default memory.ts's WALKED_LEAF_CAP (tests lower it). */
  walkedLeafCap?: number;
  /** Cells (rows x the model's columns) of the rows listed at most; default compact-features.ts's EXPANDED_CELL_CAP (tests lower it). */
  listedCellCap?: number;
  /** Cells (rows x features) past which a boosted model's later trees are not matched (memory.ts HESSIAN_MATCH_CELL_CAP); tests lower it. */
  hessianMatchCellCap?: number;
  /**
   * The process's memory ceiling in MiB, which a large integer solve in its own thread is stopped
   * short of (highs/milp-thread.ts); default the worker's own (`--max-old-space-size`, which the
   * worker pools set to their ceiling), none when the process has none (tests set it).
   */
  memoryCeilingMb?: number;
}

/**
 * - `exact`: the leaf counts admit exactly one training set (up to row order, and up to the values
 *   the model never looks at, which are null), and it is `reconstruction`; every row is certified.
 * - `bounded`: a whole training set was reconstructed, but it is not proven unique: several fit the
 *   model (or, for the likelihood formulations and the bounded search, it is the best one found).
 *   Only `certifiedRows` of its rows are proven to be in the real training data.
 * - `timeout`: the budget ran out (or the signal aborted); what was proven by then is reported.
 * - `skipped`: the engine does not handle this model yet (`reason` says why).
 * - `failed`: the model's counts are inconsistent with the engine's reading of it, or the solver failed.
 */
export type ReconstructionStatus = 'exact' | 'bounded' | 'timeout' | 'skipped' | 'failed';

/** One reconstructed training row. */
export interface ReconstructedRow {
  /**
   * One value per feature of the model; null where the model does not determine it. On a numeric
   * feature the model only determines an interval (`intervals`) and this is a point inside it (an
   * estimate): where the forest's thresholds inside it are densest (point-choice.ts), else the
   * midpoint, an integer near it for integer-valued features, or the finite end of a half-open
   * interval (feature-axes.ts says why).
   */
  values: (number | null)[];
  /**
   * Only on forests with numeric features: per feature, the interval [lower, upper] the value lies
   * in, by the forest's `splitRule`: lower exclusive and upper inclusive when `x <= threshold` goes
   * left (scikit-learn), lower inclusive and upper exclusive when `x < threshold` does (XGBoost);
   * either end possibly infinite (JSON writes those as null); null where the model does not
   * constrain the feature. The value compared is the feature cast to float32.
   */
  intervals?: ([number, number] | null)[];
  label: string | number | boolean;
  /** Proven to exist in the real training data with these determined values and this label. */
  certified: boolean;
  /** Position of the row in the training set, when the model reveals it (replayed bootstrap). */
  index?: number;
  /**
   * Per feature, for a row that is not certified as a whole: whether this value is proven to be the
   * real row's (same in every training set that fits the model). Replayed bootstrap, and
   * `boosting-counts` regression rows whose intervals are certified but whose label is estimated.
   */
  certifiedValues?: boolean[];
  /**
   * Per feature, true where the row's value is missing (NaN in the training data); its value and
   * interval are then null. Present when the reconstruction modelled missing values
   * (`boosting-hessians` on features XGBoost sends missing values both ways); elsewhere a null
   * value means undetermined.
   */
  missing?: boolean[];
}

/** Sizes and timings, for benchmarks and logs. */
export interface ReconstructionStats {
  /** Cells found by the enumeration (before merging identical leaf signatures). */
  cells: number;
  /** Search nodes the enumeration visited. */
  searchNodes: number;
  /** Cells left after merging cells that every tree sends to the same leaves. */
  mergedCells: number;
  /** Unknowns of the formulation: (merged cell, class) pairs not pruned. */
  columns: number;
  /** Leaf-count equalities (tree, leaf, class) with a nonzero count. */
  constraints: number;
  /** Columns whose lower bound bound propagation alone proved equal to the solution. */
  fixedByPropagation: number;
  /** Columns whose bound probing (propagation under a supposed lower value) proved. */
  probed: number;
  /** Linear programs solved for the certificate. */
  lpSolves: number;
  enumerationMs: number;
  milpMs: number;
  certifyMs: number;
  /** `dp-likelihood`: milliseconds from the start to the first reconstruction inside the paper's noise range. */
  firstReconstructionMs?: number;
  /** `dp-likelihood`: the 95% confidence interval on N from the trees' noisy totals (used when N is not stated). */
  rowsInterval?: { estimate: number; low: number; high: number };
  /**
   * Bounded search only: how far the answer is from the model, the sum over every tree, leaf and
   * class of |rows stored - rows reconstructed| (0: the rows fit every leaf count).
   */
  leafCountError?: number;
  /**
   * `row-boxes`: the tree whose leaves seeded the row groups; `box-estimate`: the one of the first
   * class (each class has its own; a one-class estimate, as regression forests' count view, has
   * one). Every certified row of that class lies inside one of its leaves
   * (regression-box-labels.ts reads targets from them).
   */
  anchorTree?: number;
  /**
   * `boosting-hessians` only: sum over the later trees' leaves of |cover - sum of the rows' hessians|
   * + |G - sum of their gradients| (0: the rows fit every tree matched), and how many trees were matched.
   */
  leafEquationError?: number;
  treesMatched?: number;
}

/**
 * How tight the proven boxes of a numeric reconstruction are (boxes/tightness.ts): per numeric
 * feature the median over rows of the box's width relative to the range of the forest's thresholds
 * on that feature (1: the box does not narrow it), the median over every row and numeric feature,
 * and the rows whose box is a single cell of the forest (their leaf is proven in every tree).
 */
export interface BoxTightness {
  /** The rows measured (every proven box, with or without its label). */
  rows: number;
  pinnedRows: number;
  medianWidth: number;
  featureWidths: { feature: number; medianWidth: number }[];
}

export type RowsKind = 'estimate' | 'at-least';

export interface ReconstructionResult {
  status: ReconstructionStatus;
  method: ReconstructionMethod;
  /** Why the status is not `exact` or `bounded`, in words. */
  reason?: string;
  /** Training rows N stated by the model; null when unknown (skipped models). */
  rows: number | null;
  /**
   * How N is known when neither stated nor determined: `estimate` (about N: an XGBoost subsample's
   * draw over its rate, a bootstrap's distinct in-bag counts), `at-least` (N or more: the rows a
   * draw holds). Absent: stated or determined, or unknown (rows null).
   */
  rowsKind?: RowsKind;
  /** Rows proven to be in the real training data (sum of the certified lower bounds). */
  certifiedRows: number;
  /**
   * `boosting-counts` regression only: rows proven to be in the real training data with their
   * feature intervals, whose label the model does not pin (it is estimated). Not in
   * `certifiedRows`, which always includes the label; absent when there are none.
   */
  certifiedWithoutLabel?: number;
  /** Rows in `reconstruction`. */
  reconstructedRows: number;
  /**
   * Set when `reconstruction` lists fewer rows than were reconstructed: a model too wide for every
   * row to be put back in all its columns (compact-features.ts). The counts stay every row's.
   */
  listedRows?: number;
  /**
   * Set (with status `failed`) when the counts admit no training set every tree shares: then
   * nothing may be proven from them (membership scores only, membership/engine.ts).
   */
  contradiction?: string;
  /** Numeric forests reconstructed as boxes (`row-boxes`): how tight the certified boxes are. */
  boxes?: BoxTightness;
  seconds: number;
  reconstruction: ReconstructedRow[];
  stats: ReconstructionStats;
}
