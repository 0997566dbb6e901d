/**
 * The score of class-trees.ts for scikit-learn's log-loss gradient boosting
 * (GradientBoostingClassifier, HistGradientBoostingClassifier: `countedClasses.logLoss`), through
 * every tree's leaf rows and Newton steps.
 *
 * Every tree was grown on every training row (no subsample), fitted to the predictions of the
 * stages before it, and its leaf holds the Newton step w of the log-loss over its rows:
 *   gradientScale x sum(y - p) = w x (sum p (1 - p) + lambda),
 * p a row's probability of the tree's class before the stage, y 1 for a row of that class
 * (GradientBoostingClassifier: lambda 0, and (K - 1) / K for K > 2 classes; HistGradient-
 * BoostingClassifier: lambda its l2_regularization). The model gives any candidate's p before
 * every stage, so each candidate's residual r = gradientScale (y - p) - w p (1 - p) in its leaf is
 * a known number: the training set is a set of candidates whose rows add up to each leaf's rows
 * and whose residuals to w x lambda. Each candidate gets a mass in [0, 1] fitted by least squares
 * to both sums (least-squares-mass.ts, residuals relative to the leaf's rows).
 *
 * The rows alone say which candidates fill which leaves; the steps add which labels the earlier
 * stages had trouble with there. Measured when written (defaults: 100 stages of depth 3; a seeded
 * half of the rows as members, every row a candidate; docs/membership.md): Pima AUC 0.895 with
 * the multiplicative fit of rows and stage 0's class rows -> 0.95, breast cancer 0.813 -> 0.82,
 * wine 0.871 -> 0.875, iris 0.756 -> 0.76.
 */
import type { Forest } from '../forest/schema';
import { probabilities } from './boosted-hessians';
import { EntryTable, leastSquaresMass, nodeOffsets, treesWithinCap } from './least-squares-mass';
import type { CandidateVerdict } from './types';

type LogLoss = NonNullable<NonNullable<Forest['countedClasses']>['logLoss']>;

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
    private readonly forest: Forest,
    private readonly logLoss: LogLoss,
    /** Candidates to be added, at most. */
    capacity: number,
  ) {
    this.groups = logLoss.initialMargins.length;
    this.treesUsed = treesWithinCap(forest.trees.length, this.groups, capacity);
    this.entries = new EntryTable(capacity, this.treesUsed);
    const { offsets, total } = nodeOffsets(forest.trees);
    this.offsets = offsets;
    // Per leaf: its rows, and w x lambda, what its rows' residuals add up to.
    this.rows = new Float64Array(total);
    this.steps = new Float64Array(total);
    forest.trees.forEach((tree, t) => {
      const values = tree.boosting!.leafValue;
      for (let node = 0; node < tree.left.length; node++) {
        if (tree.left[node] !== -1) continue;
        const rows = tree.classWeights[node];
        const sum = (values[node] / logLoss.learningRate) * logLoss.lambda;
        // A file with non-finite values (hostile or broken) leaves those leaves out of the fit.
        if (!Number.isFinite(rows) || !Number.isFinite(sum)) continue;
        this.rows[this.offsets[t] + node] = rows;
        this.steps[this.offsets[t] + node] = sum;
      }
    });
  }

  /** Adds candidate `index` reaching `leaves`, of class `k` (its index in the model's classes). */
  add(index: number, leaves: Int32Array, k: number): void {
    const { forest, logLoss, groups } = this;
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
        const w = forest.trees[t].boosting!.leafValue[leaf] / logLoss.learningRate;
        keys[at + t] = this.offsets[t] + leaf;
        ones[at + t] = 1;
        residuals[at + t] = logLoss.gradientScale * (y - p[g]) - w * p[g] * (1 - p[g]);
        share += 1 / Math.max(1, forest.trees[t].classWeights[leaf]);
      }
      for (let g = 0; g < groups; g++) margins[g] += forest.trees[round * groups + g].boosting!.leafValue[leaves[round * groups + g]];
    }
    this.shares.push(share / used);
  }

  /** Each added candidate's mass, in the order added. */
  masses(): Float64Array {
    const weight = this.rows.map((rows) => 1 / Math.max(1, rows));
    return leastSquaresMass(this.entries, { first: this.rows, second: this.steps, weight }, true);
  }

  /**
   * Every added candidate's score becomes 0.5 + mass x (1 + share) / 4, the class-trees scale
   * (engine.ts); a proven member keeps its verdict, its score its chance of being the proven row.
   */
  rescore(verdicts: CandidateVerdict[], threshold: number): void {
    const mass = this.masses();
    this.members.forEach((c, i) => {
      const score = 0.5 + (mass[i] * (1 + this.shares[i])) / 4;
      verdicts[c] = verdicts[c].verdict === 'member' ? { score, verdict: 'member' } : { score, verdict: score >= threshold ? 'likely-member' : 'likely-non-member' };
    });
  }
}
