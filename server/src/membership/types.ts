/**
 * Membership exposure (issue 14): for a candidate row (features and label), how likely it is that
 * the model was trained on it, and whether the model proves it either way. Shapes only, so the
 * CLI, the report and the tests can import them without the engine.
 */

/**
 * - `member`: proven from the model and its counts alone: a training row with this label lies in
 *   the candidate's cell (the same leaf in every tree; see cell.ts), and the cell pins the
 *   candidate's value of every feature the model splits on (0/1 features), so that row has the
 *   candidate's values wherever the model looks. No attack on the model can tell two rows of one
 *   cell apart, so this is the finest membership any attack can prove. A cell that bounds a
 *   numeric feature holds other people too: its candidates are scored (`inProvenCells`).
 * - `non-member`: proven: no training row with this label and the candidate's values exists.
 * - `likely-member` / `likely-non-member`: the score's side of the basis's threshold; a guess.
 * - `unknown`: the model gives no usable evidence for this candidate (or cannot be scored).
 */
export type MembershipVerdict = 'member' | 'non-member' | 'likely-member' | 'likely-non-member' | 'unknown';

export const VERDICTS: readonly MembershipVerdict[] = ['member', 'non-member', 'likely-member', 'likely-non-member', 'unknown'];

/**
 * Which reading of the counts scored the candidates:
 * - `row-counts`: no bootstrap, unweighted: a leaf's per-class counts are training rows.
 * - `replayed-bootstrap`: bootstrap whose draws per row index and tree were replayed from the seeds.
 * - `bootstrap-draws`: bootstrap without usable seeds: counts are draws; likelihoods only.
 * - `dp-noise`: differentially private counts: the Laplace likelihood, no proven verdicts.
 * - `boosted-first-tree`: XGBoost binary:logistic, the first tree's probed row counts.
 * - `boosted-hessians`: XGBoost (logistic, softmax, squared error), every tree's hessian and
 *   gradient sums, fitted across candidates (boosted-hessians.ts); scores only.
 * - `weighted`: sample or class weights: counts are weights; scores only.
 * - `regression-targets`: regression forests: the candidate's target against its leaves' mean
 *   targets (regression.ts); proven non-members without bootstrap and sample weights.
 * - `class-trees`: a classifier read as row counts with one tree per class (multi-class gradient
 *   boosting): the candidate's class against its class's tree (class-trees.ts); proven non-members.
 * - `unsupported`: nothing to score (regression trees without mean targets, boosted models
 *   without probed counts).
 */
export type MembershipBasis = 'row-counts' | 'replayed-bootstrap' | 'bootstrap-draws' | 'dp-noise' | 'boosted-first-tree' | 'boosted-hessians' | 'newton-steps' | 'weighted' | 'regression-targets' | 'class-trees' | 'outlier-rows' | 'unsupported';

export interface Candidate {
  /** One value per model feature, in the model's order (already lined up, see cli/membership.ts); NaN where the value is missing. */
  values: readonly number[];
  label: string | number | boolean;
}

export interface CandidateVerdict {
  /** Higher = more likely a member; in [0, 1]; NaN only with verdict `unknown` on an unsupported model. */
  score: number;
  verdict: MembershipVerdict;
}

export interface MembershipResult {
  basis: MembershipBasis;
  /** Why proven verdicts are not available, or what limits them, in words. */
  reason?: string;
  /** Score at and above which an unproven candidate is `likely-member`. */
  threshold: number;
  candidates: CandidateVerdict[];
  /**
   * Candidates in a cell the model proves holds a training row of their label, where the cell does
   * not pin their values (a numeric interval, a 0/1 feature left open): scored, not proven members.
   */
  inProvenCells?: number;
  /** Candidates missing a value of a feature the model splits on: walked as the model walks them, scored, never proven (missing-values.ts). */
  missingValues?: number;
  seconds: number;
}
