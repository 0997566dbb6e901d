/**
 * Membership through every stage's leaf rows and Newton steps, for scikit-learn's log-loss gradient
 * boosting (GradientBoostingClassifier, HistGradientBoostingClassifier: the forest's `logLoss`):
 * the score of class-trees.ts when every stage grew on every row, and basis `newton-steps` when
 * each stage grew on its own draw (subsample below 1).
 *
 * Each stage was fitted to the predictions of the stages before it, and its leaf holds the Newton
 * step w of the log-loss over the rows the stage grew on:
 *   gradientScale x sum(y - p) = w x (sum p (1 - p) + lambda),
 * p a row's probability of the tree's class before the stage, y 1 for a row of that class
 * (GradientBoostingClassifier: lambda 0, and (K - 1) / K for K > 2 classes; HistGradient-
 * BoostingClassifier: lambda its l2_regularization). The model gives any candidate's p before
 * every stage, so each candidate's residual r = gradientScale (y - p) - w p (1 - p) in its leaf is
 * a known number: the training set is a set of candidates whose rows add up to each leaf's rows
 * and whose residuals to w x lambda. Each candidate gets a mass in [0, 1] fitted by least squares
 * to both sums (least-squares-mass.ts, residuals relative to the leaf's rows). A stage grown on a
 * draw holds about `subsample` of the rows: its sums are scaled up by 1 / subsample, as
 * boosted-hessians.ts does for XGBoost.
 *
 * The rows alone say which candidates fill which leaves; the steps add which labels the earlier
 * stages had trouble with there. Measured when written (defaults: 100 stages of depth 3; a seeded
 * half of the rows as members, every row a candidate; docs/membership.md): Pima AUC 0.899 with
 * the multiplicative fit of rows and stage 0's class rows -> 0.952, breast cancer 0.850 -> 0.857;
 * with subsample=0.8, scored before on stage 0's draw alone (about 0.5) or not at all: Pima 0.829,
 * breast cancer 0.752, iris 0.841, wine 0.887.
 */
import type { Forest, Tree } from '../forest/schema';
import { probabilities } from './boosted-hessians';
import { EntryTable, leastSquaresMass, nodeOffsets, treesWithinCap } from './least-squares-mass';
import { leavesOf } from './leaves';
import type { Candidate, CandidateVerdict } from './types';

type LogLoss = NonNullable<Forest['logLoss']>;

export class NewtonStepScorer {
  private readonly members: number[] = [];
  /** The mean over the trees of 1 / the leaf's rows, per added candidate (the score's share). */
  private readonly shares: number[] = [];
  /** Per added candidate and tree: the leaf's key (an index into the sums), 1 (a row: first) and its residual there (second). */
  private readonly entries: EntryTable;
  /** Trees fitted: all of them, or the first stages' within the entry cap (least-squares-mass.ts). */
  readonly treesUsed: number;
  private readonly offsets: number[];
  private readonly rows: Float64Array;
  private readonly steps: Float64Array;
  private readonly groups: number;

  constructor(
    /** The stages' trees (`logLoss.stages`, or the forest's trees). */
    private readonly stages: readonly Tree[],
    private readonly logLoss: LogLoss,
    /** Candidates to be added, at most. */
    capacity: number,
  ) {
    this.groups = logLoss.initialMargins.length;
    this.treesUsed = treesWithinCap(stages.length, this.groups, capacity);
    this.entries = new EntryTable(capacity, this.treesUsed);
    const { offsets, total } = nodeOffsets(stages);
    this.offsets = offsets;
    // Per leaf: its rows, and w x lambda, what its rows' residuals add up to.
    this.rows = new Float64Array(total);
    this.steps = new Float64Array(total);
    // A stage grown on a draw of about `subsample` of the rows stands for all of them: its sums scaled up.
    const scale = 1 / logLoss.subsample;
    stages.forEach((tree, t) => {
      const values = tree.boosting!.leafValue;
      for (let node = 0; node < tree.left.length; node++) {
        if (tree.left[node] !== -1) continue;
        const rows = tree.classWeights[node] * scale;
        const sum = (values[node] / logLoss.learningRate) * logLoss.lambda * scale;
        // A file with non-finite values (hostile or broken) leaves those leaves out of the fit.
        if (!Number.isFinite(rows) || !Number.isFinite(sum)) continue;
        this.rows[this.offsets[t] + node] = rows;
        this.steps[this.offsets[t] + node] = sum;
      }
    });
  }

  /** Adds candidate `index` reaching `leaves` (one per stage tree), of class `k` (its index in `logLoss.classes`). */
  add(index: number, leaves: Int32Array, k: number): void {
    const { stages, logLoss, groups } = this;
    const used = this.treesUsed;
    const binary = groups === 1;
    const margins = Float64Array.from(logLoss.initialMargins);
    const p = new Float64Array(groups);
    const { keys, first: ones, second: residuals } = this.entries;
    const at = this.entries.next();
    this.members.push(index);
    let share = 0;
    for (let round = 0; round * groups < used; round++) {
      probabilities(binary ? 'logistic' : 'softmax', margins, p);
      for (let g = 0; g < groups; g++) {
        const t = round * groups + g;
        const leaf = leaves[t];
        const y = (binary ? k === 1 : k === g) ? 1 : 0;
        const w = stages[t].boosting!.leafValue[leaf] / logLoss.learningRate;
        const residual = logLoss.gradientScale * (y - p[g]) - w * p[g] * (1 - p[g]);
        keys[at + t] = this.offsets[t] + leaf;
        // A non-finite value (a hostile or broken file) takes the entry out of the fit.
        const usable = Number.isFinite(residual);
        ones[at + t] = usable ? 1 : 0;
        residuals[at + t] = usable ? residual : 0;
        share += 1 / Math.max(1, stages[t].classWeights[leaf]);
      }
      for (let g = 0; g < groups; g++) margins[g] += stages[round * groups + g].boosting!.leafValue[leaves[round * groups + g]];
    }
    this.shares.push(share / used);
  }

  /** Each added candidate's mass, in the order added. */
  masses(): Float64Array {
    const weight = this.rows.map((rows) => 1 / Math.max(1, rows));
    return leastSquaresMass(this.entries, { first: this.rows, second: this.steps, weight }, true);
  }

  /**
   * Every added candidate's score becomes `scoreOf` its mass and share: by default
   * 0.5 + mass x (1 + share) / 4, the class-trees scale (engine.ts). A proven member keeps its
   * verdict, its score its chance of being the proven row.
   */
  rescore(verdicts: CandidateVerdict[], threshold: number, scoreOf = (mass: number, share: number) => 0.5 + (mass * (1 + share)) / 4): void {
    const mass = this.masses();
    this.members.forEach((c, i) => {
      const score = scoreOf(mass[i], this.shares[i]);
      verdicts[c] = verdicts[c].verdict === 'member' ? { score, verdict: 'member' } : { score, verdict: score >= threshold ? 'likely-member' : 'likely-non-member' };
    });
  }
}

/** Likely-member at a mass of one half, as for boosted-hessians. */
export const NEWTON_STEPS_THRESHOLD = 0.5;

/**
 * Basis `newton-steps` (each stage grew on its own draw): every candidate's score is its mass;
 * nothing is proven but that a label the model never saw is no training row's.
 */
export function scoreNewtonStepCandidates(forest: Forest, candidates: readonly Candidate[], threshold: number): CandidateVerdict[] {
  const logLoss = forest.logLoss!;
  const stages = logLoss.stages ?? forest.trees;
  const scorer = new NewtonStepScorer(stages, logLoss, candidates.length);
  const verdicts = candidates.map((candidate, i): CandidateVerdict => {
    // The model's classes are every label of the rows it was given: an unseen label is no row of it.
    const k = logLoss.classes.findIndex((c) => c === candidate.label);
    if (k < 0) return { score: 0, verdict: 'non-member' };
    scorer.add(i, leavesOf({ trees: stages, splitRule: forest.splitRule, estimator: forest.estimator }, candidate.values), k);
    return { score: 0.5, verdict: 'likely-non-member' };
  });
  scorer.rescore(verdicts, threshold, (mass) => mass);
  return verdicts;
}
