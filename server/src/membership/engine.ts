/**
 * The membership engine: scores every candidate against the forest IR and states a verdict,
 * proven only where the model proves it (types.ts defines the verdicts, cell.ts the resolution).
 *
 * Scores (higher = more likely a member, all in [0, 1]). The share of a candidate in a tree is
 * 1 / (its leaf's count of its label): the part of that count it would be. Small leaves holding the
 * label are the strong evidence.
 *  - row counts (no bootstrap): a proven non-member scores 0; every other candidate 0.5 + mass *
 *    (1 + share) / 4, share its mean share and mass its estimated chance of being a training row
 *    in a fit of all candidates' masses to the leaf counts (row-count-mass.ts). Proven members take
 *    part and keep their verdict, but score their mass too: the proof is of a training row in their
 *    cell, the mass how likely this candidate is that row. Why: a leaf's rows are shared among the
 *    candidates in it, so a non-member beside members that fill its leaves loses its mass (bench
 *    AUC: breast cancer 0.873 -> 0.951, Pima 0.997 -> 1.000, COMPAS 0.528 -> 0.657, Adult 0.632 ->
 *    0.800; without the reconstruction, with half or a tenth of the members in the file, no
 *    fixture or bench model lost). `acrossCandidates: false` keeps
 *    0.5 + share / 2.
 *  - replayed bootstrap: a proven non-member (no row index's draws fit its leaves, replay.ts:
 *    label draws, and each leaf's distinct rows and total draws) scores 0; every other candidate
 *    0.5 + mass * (1 + share) / 4, where share is the best mean share over the fitting indices and
 *    mass the candidate's estimated chance of being a row in a soft assignment of all candidates
 *    to the indices, fitted to every leaf's draws (assignment.ts). Why: breast cancer's bench model
 *    ends in pure leaves of ~90 draws, where one row's share says little (AUC 0.726 with the share
 *    alone); which candidates those draws can belong to says more (0.839; Pima 0.987 -> 1.000,
 *    COMPAS 0.525 -> 0.651, Adult 0.664 -> 0.800). Alternatives measured and dropped: in- vs
 *    out-of-bag contrasts per index, threshold midpoints paired with other candidates' values
 *    (docs/membership.md).
 *  - draws without seeds, weights: the forest's confidence in the candidate's label (the mean over
 *    trees of the leaf's fraction of that label), the classic confidence attack. Measured on the
 *    bench's seedless bootstrap models, it beat the mean share (Pima AUC 0.784 against 0.645):
 *    without seeds the signal is in how many trees hold the label at all, not in how few.
 *  - DP: the posterior under the Laplace noise (dp.ts).
 *  - boosted models whose trees' sums follow from the model's own predictions (XGBoost's logistic,
 *    softmax and squared-error objectives, scikit-learn's squared-error regressors): the
 *    candidate's mass in a least-squares fit of all candidates' hessians and gradients to every
 *    tree's sums (boosted-hessians.ts; bench AUC Pima 0.476 -> 0.989 against tree 0's counts).
 *  - scikit-learn's log-loss gradient boosting: the candidate's mass in a least-squares fit to
 *    every leaf's rows and Newton step (newton-steps.ts), on the class-trees scale (class-trees.ts,
 *    which also proves non-members) when every stage grew on every row, as itself (basis
 *    `newton-steps`, nothing proven) when each stage grew on its own draw (subsample).
 *  - regression forests: the candidate's target against its leaves' mean targets (regression.ts).
 * Unproven candidates get `likely-member` at or above the threshold, `likely-non-member` below.
 */
import { mayMixFits, WARM_START_REASON } from '../forest/warm-start';
import type { Forest } from '../forest/schema';
import { classCount } from '../forest/structure';
import { replayDraws } from '../attacks/reconstruction/bootstrap/draws';
import { probeFirstTrees, type FirstTreeProbe } from '../attacks/first-tree-probe';
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import { leavesOf, type Box } from './leaves';
import { missingOnSplits, withoutProofsForMissing } from './missing-values';
import { cellBox, cellPinsValues, certifiedInCell, certifiedMeetsCell, pinnableFeatures, proveByLeafCounts, type PinnableFeatures } from './cell';
import { bestFit, drawTable, leafCounts, type DrawTable } from './replay';
import { dpScore } from './dp';
import { AssignmentScorer } from './assignment';
import { drawShare, OUTLIER_ROWS_THRESHOLD, scoreOutlierCandidates } from './outlier-rows';
import { MassScorer } from './row-count-mass';
import { regressionProves, regressionUnsupported, scoreRegressionCandidate, targetInTreeScale } from './regression';
import { CLASS_TREES_THRESHOLD, scoreClassTreeCandidates } from './class-trees';
import { NEWTON_STEPS_THRESHOLD, scoreNewtonStepCandidates } from './newton-steps';
import { HessianScorer, hessianSetup, type HessianSetup } from './boosted-hessians';
import type { Candidate, CandidateVerdict, MembershipBasis, MembershipResult } from './types';
import { hasNoLabels } from '../forest/task';

export interface MembershipOptions {
  /** Certified rows of the model's reconstruction, when it ran (proofs of `member`, cell.ts). */
  certifiedRows?: readonly ReconstructedRow[];
  /**
   * Training rows N the reconstruction states (its `rows`). When its certified rows number N, they
   * are the whole training set (each a distinct row, proven in its box): a candidate whose cell
   * meets no certified box of its label is then a proven non-member.
   */
  trainingRows?: number | null;
  /** Leaves the count proof may visit per candidate (default 2,000). */
  proofBudget?: number;
  /**
   * Milliseconds all count proofs together may take (default 3,000); past it the remaining
   * candidates are not searched for a proof (certified rows are still checked), so scoring a
   * thousand candidates stays within seconds on deep numeric forests, where proofs rarely succeed.
   */
  proofTimeMs?: number;
  /** Score at and above which an unproven candidate is `likely-member` (default per basis). */
  threshold?: number;
  /** Date.now() after which the seed replay stops (see replayDraws). */
  deadline?: number;
  /**
   * Why the model's counts cannot be one training set, when the reconstruction found it (its
   * result's `contradiction` field): no verdict is then proven from them, only scored.
   */
  countsContradict?: string;
  /**
   * Without bootstrap, rescore the candidates by their mass in the fit of all candidates to the
   * leaf counts (row-count-mass.ts; default true). False keeps the share alone (for comparisons).
   */
  acrossCandidates?: boolean;
}

/** Default thresholds, measured on the bench (docs/_incoming/membership.md). */
export const DEFAULT_THRESHOLDS: Record<MembershipBasis, number> = {
  // 0.5 + mass * (1 + share) / 4: a mass above one half (with no share) is the likely-member side.
  // Against 0.5 on the bench: breast cancer 76.8% -> 85.4% accuracy without bootstrap, 64.1% ->
  // 73.1% with it; Pima 98.0% -> 100%, 93.0% -> 99.0%; COMPAS and Adult with bootstrap 52.6% ->
  // 59.0%, 61.8% -> 68.1%. Without the mass (acrossCandidates false, or no assignment) 0.5.
  'row-counts': 0.625,
  'replayed-bootstrap': 0.625,
  // The confidence scores: 0.8 gave the best accuracy on the bench's seedless Pima, breast cancer and Adult.
  'bootstrap-draws': 0.8,
  'dp-noise': 0.5,
  'boosted-first-tree': 0.5,
  // A mass: the likely-member side is a mass of at least one half.
  'boosted-hessians': 0.5,
  weighted: 0.8,
  'regression-targets': 0.5,
  'class-trees': CLASS_TREES_THRESHOLD,
  'outlier-rows': OUTLIER_ROWS_THRESHOLD,
  'newton-steps': NEWTON_STEPS_THRESHOLD,
  unsupported: 0.5,
};

interface Plan {
  basis: MembershipBasis;
  reason?: string;
  table?: DrawTable;
  /** Tree 0's probed count of each class per leaf node (boosted). */
  probed?: Map<number, number[]>;
  /** What the fit of every tree's sums needs (boosted-hessians). */
  hessians?: HessianSetup;
}

function plan(forest: Forest, deadline: number, countsContradict?: string): Plan {
  // XGBoost: every tree's sums where the loss gives each candidate's hessians, else tree 0's counts.
  const boostedProbe = forest.boosting && !forest.countedClasses ? probeFirstTrees(forest) : undefined;
  const hessians = boostedProbe ? hessianSetup(forest, boostedProbe) : undefined;
  // Why a regressor's targets cannot be tested (regression.ts), once for both checks below.
  const untestable = forest.task !== 'classification' ? regressionUnsupported(forest) : undefined;
  // Targets through a function this tool does not apply (a TransformedTargetRegressor's scaler):
  // checked before the boosted plans, which would score them in the wrong scale.
  if (untestable && forest.targetTransform !== undefined) return { basis: 'unsupported', reason: untestable };
  if (hessians?.ok) return hessianPlan(hessians.setup, boostedProbe!);
  if (forest.countedClasses) {
    const score = forest.logLoss ? "; scored on every tree's leaf rows and log-loss Newton steps" : '';
    return { basis: 'class-trees', reason: `a classifier read as row counts: each candidate's class against the first round's tree for it; a leaf without rows of the class proves a non-member${score}` };
  }
  if (forest.logLoss) {
    const share = forest.logLoss.subsample;
    return {
      basis: 'newton-steps',
      reason: `log-loss gradient boosting, each stage grown on its own draw (subsample ${share}): scored by fitting every candidate's share of every stage's leaf rows and Newton steps, scaled by 1 / ${share}; scores only, nothing is proven from them`,
    };
  }
  if (hasNoLabels(forest)) {
    const share = drawShare(forest);
    const scaled = share < 1 ? `, scaled by N / the ${forest.trees[0].distinctRows?.[0] ?? 'some'} rows each tree drew` : '';
    return {
      basis: 'outlier-rows',
      reason: `an outlier detector (IsolationForest): every candidate's mass fitted to every leaf's rows${scaled}; scores only: every leaf holds rows, so no candidate is excluded and none proven`,
    };
  }
  if (forest.task !== 'classification') {
    if (forest.boosting) return { basis: 'unsupported', reason: `boosted regression model: ${hessians && !hessians.ok ? hessians.reason : 'no leaf targets to test a candidate against'}` };
    if (untestable) return { basis: 'unsupported', reason: untestable };
    return regressionProves(forest)
      ? { basis: 'regression-targets', reason: "regression forest: each candidate's target against its leaves' mean targets; a pure leaf of another target proves a non-member" }
      : { basis: 'regression-targets', reason: `regression forest: each candidate's target against its leaves' mean targets; likelihoods only (${mayMixFits(forest) ? WARM_START_REASON : forest.training.bootstrap ? 'bootstrap: a tree may not have drawn the candidate' : 'sample weights'})` };
  }
  if (forest.privacy) return { basis: 'dp-noise', reason: 'the counts are noised (differential privacy): likelihoods only, nothing is proven' };
  if (forest.boosting) {
    const probe = boostedProbe!;
    const tree = probe.trees[0];
    if (probe.status === 'not-applicable' || !tree || probe.trees.length !== 1 || forest.classes.length !== 2) {
      return { basis: 'unsupported', reason: `boosted model: the first tree's row counts could not be probed (${probe.reason ?? probe.status}; binary classification only)` };
    }
    const probed = new Map<number, number[]>();
    for (const leaf of tree.leaves) if (leaf.positives !== undefined) probed.set(leaf.node, [leaf.rows - leaf.positives, leaf.positives]);
    return { basis: 'boosted-first-tree', reason: "boosted model: scored on the first tree's probed row counts; a zero count proves nothing because the file does not show whether the tree saw every row (subsample)", probed };
  }
  // Trees that may not share one training set (warm_start, or counts the reconstruction found
  // contradictory) prove nothing from their counts: every count proof assumes they do.
  const apart = mayMixFits(forest) ? WARM_START_REASON : countsContradict ? `the leaf counts contradict one training set (${countsContradict})` : undefined;
  if (apart) return { basis: 'bootstrap-draws', reason: `${apart}; the counts only score (a member is proven only by a certified row of the reconstruction in its cell)` };
  if (forest.training.weighted) return { basis: 'weighted', reason: 'sample or class weights: the counts are weights, not rows, so they only score (a member is proven only by a certified row of the reconstruction in its cell)' };
  if (forest.training.bootstrap) {
    const replay = replayDraws(forest, deadline);
    if (!replay.ok) return { basis: 'bootstrap-draws', reason: `bootstrap: ${replay.reason}; the counts only score (a member is proven only by a certified row of the reconstruction in its cell)` };
    if (replay.draws.otherRows > 0) return { basis: 'bootstrap-draws', reason: `bootstrap: ${replay.draws.otherRows + 1} training-set sizes replay the seeds, so the draws are not certain; the counts only score (a member is proven only by a certified row of the reconstruction in its cell)` };
    return { basis: 'replayed-bootstrap', table: drawTable(replay.draws) };
  }
  // Row counts prove only when every tree holds the same N rows; a forest whose roots disagree did not.
  const classes = classCount(forest);
  const root = (t: number) => forest.trees[t].classWeights.slice(0, classes).reduce((a, b) => a + b, 0);
  if (forest.trees.some((_, t) => root(t) !== root(0))) {
    return { basis: 'bootstrap-draws', reason: "the trees' root counts differ, so they were not grown on the same rows; the counts only score (a member is proven only by a certified row of the reconstruction in its cell)" };
  }
  return { basis: 'row-counts' };
}

function hessianPlan(setup: HessianSetup, probe: FirstTreeProbe): Plan {
  const assumed = (['eta', 'lambda'] as const).filter((k) => probe.parameters[k]?.source === 'assumed');
  return {
    basis: 'boosted-hessians',
    reason:
      `boosted model: scored by fitting every candidate's share of every tree's hessian ${setup.gradients ? 'and gradient sums' : 'sums (the gradient sums are not used: alpha or max_delta_step)'}; scores only, nothing is proven from them` +
      (setup.subsample !== undefined ? `; each tree's sums are over its own draw (subsample ${setup.subsample}), scaled to all rows` : '') +
      (assumed.length ? `; ${assumed.join(' and ')} assumed at XGBoost's default` : ''),
    hessians: setup,
  };
}

export function assessMembership(forest: Forest, candidates: readonly Candidate[], options: MembershipOptions = {}): MembershipResult {
  // Candidates missing a value are scored as the model walks them, never proven (missing-values.ts).
  const result = withoutProofsForMissing(assessCandidates(forest, candidates, options), missingOnSplits(forest, candidates));
  const partial = partOfTheFit(forest);
  return partial ? withoutProofs(result, partial) : result;
}

/**
 * Why what this model proves about its own training rows is not what it proves about the file's,
 * or undefined. Each proof is about the rows, labels and values the analysed model was fitted on;
 * sweep 19 found wrong proven verdicts wherever those were not the candidates' (125 of a
 * calibration fold's "non-members" were rows of other folds; 54 of a one-vs-one member's were
 * rows of a third class; a MultiOutputClassifier's second output scored against the first's
 * labels; raw rows matched by position to the output of a FunctionTransformer).
 */
function partOfTheFit(forest: Forest): string | undefined {
  const fold = forest.training.crossValidationFold;
  if (fold) return `the model analysed is one of a CalibratedClassifierCV's ${fold.folds} fold models: it saw only the rows outside its fold, and the rows given to fit include the others`;
  if (forest.recoded?.by === 'OneVsOneClassifier') return `the model analysed is a OneVsOneClassifier's model of ${forest.recoded.classes.join(' against ') || 'two classes'}: fitted on the rows of those classes only`;
  if (forest.recoded) return "the model analysed is an OutputCodeClassifier's model of one bit of the output code: its labels are groups of classes, not the candidates' labels";
  if (forest.multiOutput && forest.multiOutput.output > 0) return `the model analysed is output ${forest.multiOutput.output}'s of ${forest.multiOutput.outputs}, and the candidates' label column may be another output's`;
  if (forest.stepsNotFollowed) return `the model sits behind Pipeline steps this tool does not follow (${forest.stepsNotFollowed}): its features are their output, which a CSV of the Pipeline's input does not hold`;
  // Boosted and counted models are planned before the forests' warm-start check (plan()): here for all.
  if (mayMixFits(forest)) return WARM_START_REASON;
  return undefined;
}

/** The result with every proven verdict turned into its likely one (scores kept), and why. */
function withoutProofs(result: MembershipResult, why: string): MembershipResult {
  const unproven = (verdict: CandidateVerdict['verdict']): CandidateVerdict['verdict'] => (verdict === 'member' ? 'likely-member' : verdict === 'non-member' ? 'likely-non-member' : verdict);
  const reason = `${result.reason ? `${result.reason}; ` : ''}no verdict is proven: ${why}`;
  return { ...result, reason, candidates: result.candidates.map((c) => ({ ...c, verdict: unproven(c.verdict) })) };
}

function assessCandidates(forest: Forest, candidates: readonly Candidate[], options: MembershipOptions): MembershipResult {
  const started = Date.now();
  const p = plan(forest, options.deadline ?? Number.POSITIVE_INFINITY, options.countsContradict);
  // Without the mass fit, row counts score 0.5 + share / 2: "not excluded" is the likely-member side.
  let threshold = options.threshold ?? (p.basis === 'row-counts' && options.acrossCandidates === false ? 0.5 : DEFAULT_THRESHOLDS[p.basis]);
  const classes = classCount(forest);
  const trees = forest.trees;
  const certified = (options.certifiedRows ?? []).filter((row) => row.certified);
  // Every training row certified: the boxes hold the whole training set (types.ts: certified rows are
  // distinct rows). Only where the stated N is the training set's size for sure: row counts (the
  // root's count) and replayed draws (the N the seeds replay); elsewhere N may count draws or weights.
  const complete =
    (p.basis === 'row-counts' || p.basis === 'replayed-bootstrap') &&
    options.trainingRows !== undefined &&
    options.trainingRows !== null &&
    options.trainingRows > 0 &&
    certified.length === options.trainingRows;
  if (p.basis === 'outlier-rows') {
    return { basis: p.basis, ...(p.reason ? { reason: p.reason } : {}), threshold, candidates: scoreOutlierCandidates(forest, candidates, threshold), seconds: (Date.now() - started) / 1000 };
  }
  if (p.basis === 'class-trees' || p.basis === 'newton-steps') {
    const verdicts = p.basis === 'class-trees' ? scoreClassTreeCandidates(forest, candidates, certified, threshold) : scoreNewtonStepCandidates(forest, candidates, threshold);
    return { basis: p.basis, ...(p.reason ? { reason: p.reason } : {}), threshold, candidates: verdicts, seconds: (Date.now() - started) / 1000 };
  }
  const verdicts: CandidateVerdict[] = [];
  const counts = new Float64Array(trees.length);
  const assign = p.basis === 'replayed-bootstrap' ? new AssignmentScorer(forest) : undefined;
  const mass = p.basis === 'row-counts' && options.acrossCandidates !== false ? new MassScorer(forest) : undefined;
  const sums = p.basis === 'boosted-hessians' ? new HessianScorer(forest, p.hessians!, candidates.length) : undefined;
  const proofDeadline = started + (options.proofTimeMs ?? 3_000);
  const pin = pinnableFeatures(forest);
  /** Candidates in a cell proven to hold a training row of their label that does not pin their values (scored, not proven). */
  let inProvenCell = 0;
  for (const candidate of candidates) {
    const y = forest.classes.findIndex((c) => c === candidate.label);
    if (p.basis === 'unsupported') {
      verdicts.push({ score: NaN, verdict: 'unknown' });
      continue;
    }
    if (p.basis === 'regression-targets') {
      const target = targetInTreeScale(forest, Number(candidate.label));
      if (!Number.isFinite(target)) {
        verdicts.push({ score: NaN, verdict: 'unknown' });
        continue;
      }
      const scored = scoreRegressionCandidate(forest, leavesOf(forest, candidate.values), target, regressionProves(forest));
      verdicts.push({ score: scored.score, verdict: scored.nonMember ? 'non-member' : scored.score >= threshold ? 'likely-member' : 'likely-non-member' });
      continue;
    }
    if (p.basis === 'boosted-hessians' && forest.task !== 'classification') {
      // Squared error: the label is the target (in the trees' scale).
      const target = targetInTreeScale(forest, Number(candidate.label));
      if (!Number.isFinite(target)) {
        verdicts.push({ score: NaN, verdict: 'unknown' });
        continue;
      }
      sums!.add(verdicts.length, candidate.values, target);
      verdicts.push({ score: 0.5, verdict: 'likely-non-member' });
      continue;
    }
    if (y < 0) {
      // The model's classes are every label of its training rows: an unseen label is no row of it.
      const proven = p.basis === 'row-counts' || p.basis === 'replayed-bootstrap';
      verdicts.push({ score: 0, verdict: proven ? 'non-member' : 'likely-non-member' });
      continue;
    }
    const leaves = leavesOf(forest, candidate.values);
    for (let t = 0; t < trees.length; t++) counts[t] = trees[t].classWeights[leaves[t] * classes + y];
    let score: number;
    let proven: 'member' | 'non-member' | undefined;
    switch (p.basis) {
      case 'row-counts': {
        if (counts.some((n) => n <= 0)) {
          proven = 'non-member';
          score = 0;
        } else {
          score = 0.5 + meanShare(counts) / 2;
        }
        break;
      }
      case 'replayed-bootstrap': {
        const fitting: number[] = [];
        const fit = bestFit(p.table!, leafCounts(forest, leaves, counts), fitting);
        score = fit.fits === 0 ? 0 : 0.5 + fit.score / 2;
        if (fit.fits === 0) proven = 'non-member';
        else assign!.add(verdicts.length, leaves, y, fitting, fit.score);
        break;
      }
      case 'dp-noise':
        score = dpScore(counts, forest.privacy!.epsilon);
        break;
      case 'boosted-first-tree': {
        const probedCounts = p.probed!.get(leaves[0]);
        score = probedCounts && probedCounts[y] > 0 ? 1 / probedCounts[y] : 0;
        break;
      }
      case 'boosted-hessians':
        // Rescored by the fit below.
        score = 0.5;
        sums!.add(verdicts.length, candidate.values, y);
        break;
      default:
        score = confidence(forest, leaves, y);
    }
    if (!proven && p.basis !== 'dp-noise' && p.basis !== 'boosted-first-tree' && p.basis !== 'boosted-hessians') {
      const budget = Date.now() < proofDeadline ? options.proofBudget ?? 2_000 : 0;
      if (provenMember(forest, candidate, leaves, y, p.basis, certified, budget)) proven = 'member';
    } else if (!proven && certified.length && p.basis !== 'dp-noise') {
      if (certifiedMember(forest, candidate, y, certified)) proven = 'member';
    }
    // A training row of the label in the cell is this candidate only where the cell pins every
    // value the model reads (0/1 features): a numeric interval also holds other people. A public
    // single decision tree gave "member" to 160 of its 171 true non-members before.
    // The candidate's cell walks every tree: once per candidate, when a proof needs it.
    let cell: Box | undefined;
    const cellOf = () => (cell ??= cellBox(forest, candidate.values));
    if (proven === 'member' && !cellPinsValues(cellOf(), pin, candidate.values) && !certifiedAtValues(forest, candidate, y, certified, pin)) {
      proven = undefined;
      inProvenCell++;
    }
    if (!proven && complete) {
      const label = forest.classes[y];
      if (!certified.some((row) => row.label === label && certifiedMeetsCell(row, cellOf()))) proven = 'non-member';
    }
    if (proven === 'member') score = 1;
    if (proven === 'non-member') score = 0;
    // Row counts: every candidate the counts do not exclude takes part in the mass fit below, proven
    // members too: "member" proves a training row with this cell and label, and the fit says how
    // likely this candidate is that row when several candidates share the cell.
    if (mass && proven !== 'non-member') mass.add(verdicts.length, leaves, y, meanShare(counts));
    verdicts.push({ score, verdict: proven ?? (score >= threshold ? 'likely-member' : 'likely-non-member') });
  }
  // Replayed bootstrap: the candidate's mass in the assignment across all candidates (assignment.ts)
  // with its best share; proven verdicts keep their 0 and 1, every other score stays >= 0.5.
  if (assign && !assign.rescore(p.table!, verdicts, threshold) && options.threshold === undefined) {
    // No assignment: the scores are 0.5 + share / 2, whose likely-member side starts at 0.5.
    threshold = 0.5;
    for (const v of verdicts) if (v.verdict === 'likely-member' || v.verdict === 'likely-non-member') v.verdict = v.score >= threshold ? 'likely-member' : 'likely-non-member';
  }
  // Row counts: the candidate's mass in the fit of all candidates to the leaf counts (row-count-mass.ts).
  mass?.rescore(verdicts, threshold);
  // Boosted: the candidate's mass in the fit of every tree's sums (boosted-hessians.ts).
  sums?.rescore(verdicts, threshold);
  const capped = sums && sums.treesUsed < trees.length ? `; the first ${sums.treesUsed} of ${trees.length} trees fitted (memory cap for ${candidates.length} candidates)` : '';
  const reason = p.reason ? p.reason + capped : undefined;
  return { basis: p.basis, ...(reason ? { reason } : {}), threshold, candidates: verdicts, ...(inProvenCell > 0 ? { inProvenCells: inProvenCell } : {}), seconds: (Date.now() - started) / 1000 };
}

/** Mean over trees of the candidate's leaf's fraction of label y (0 for an empty leaf). */
function confidence(forest: Forest, leaves: Int32Array, y: number): number {
  const classes = classCount(forest);
  let sum = 0;
  forest.trees.forEach((tree, t) => {
    let total = 0;
    for (let c = 0; c < classes; c++) total += Math.max(0, tree.classWeights[leaves[t] * classes + c]);
    if (total > 0) sum += Math.max(0, tree.classWeights[leaves[t] * classes + y]) / total;
  });
  return sum / forest.trees.length;
}

/** Mean over trees of 1 / count, a tree without the label adding 0. */
function meanShare(counts: Float64Array): number {
  let sum = 0;
  for (const n of counts) if (n > 0) sum += 1 / Math.max(1, n);
  return sum / counts.length;
}

function provenMember(forest: Forest, candidate: Candidate, leaves: Int32Array, y: number, basis: MembershipBasis, certified: readonly ReconstructedRow[], budget: number): boolean {
  const classes = classCount(forest);
  const byCounts = budget > 0 && proveByLeafCounts(forest, candidate.values, leaves, {
    countOf: (t, node) => forest.trees[t].classWeights[node * classes + y],
    // Zero counts exclude a region only when they count rows of every tree.
    zeroExcludes: basis === 'row-counts',
    budget,
  });
  return byCounts || certifiedMember(forest, candidate, y, certified);
}

/**
 * Whether a certified row proven at exact values (no intervals: the exact methods) has the
 * candidate's label and its values (as float32, as the trees compare them) on every feature the
 * model splits on: then that training row is the candidate wherever the model looks.
 */
function certifiedAtValues(forest: Forest, candidate: Candidate, y: number, certified: readonly ReconstructedRow[], pin: PinnableFeatures): boolean {
  const label = forest.classes[y];
  return certified.some(
    (row) =>
      row.label === label &&
      !row.intervals &&
      pin.used.every((used, f) => !used || (row.values[f] !== null && row.values[f] !== undefined && Math.fround(row.values[f] as number) === Math.fround(candidate.values[f]))),
  );
}

function certifiedMember(forest: Forest, candidate: Candidate, y: number, certified: readonly ReconstructedRow[]): boolean {
  const label = forest.classes[y];
  const mine = certified.filter((row) => row.label === label);
  if (mine.length === 0) return false;
  const cell = cellBox(forest, candidate.values);
  return mine.some((row) => certifiedInCell(row, cell, forest.splitRule));
}
