/**
 * Membership for an XGBoost model, or a scikit-learn gradient-boosting regressor with the squared
 * error, through every tree's sums (basis `boosted-hessians`).
 *
 * Tree t was fitted to the predictions of the rounds before it: a training row x with label y
 * reached one leaf of tree t, adding its hessian h to the leaf's cover and its gradient g to the
 * leaf's gradient sum G = -w (cover + lambda), w the leaf's value over the learning rate. With the
 * margins m of x after the earlier rounds (base margin + the values of the leaves x reached):
 *  - binary:logistic (and logitraw, reg:logistic): p = sigmoid(m), h = p (1 - p), g = p - y;
 *  - multi:softprob / softmax, the tree of class k: p = softmax(m)_k, h = 2 p (1 - p) (XGBoost's
 *    softmax hessian), g = p - [y = k];
 *  - reg:squarederror: h = 1 (covers count rows), g = m - y, y the target.
 * The model gives m for any row, so every candidate's h and g in every tree are known numbers: the
 * training set is a set of candidates whose h add up to every leaf's cover and whose g to its G. Each candidate gets a mass m in [0, 1] (its chance of being a training
 * row), fitted by least squares to every leaf's two sums (each residual relative to the leaf's
 * cover, so leaves count alike whatever their hessians, and weighted by its tree's share of the
 * hessian mass, so trees whose rows are already fitted count less), by diagonally scaled projected
 * gradient steps. The mass is the score. A score only, never a proof: it leans on the candidate file holding
 * many of the training rows, as the row-count fit does (docs/membership.md).
 *
 * Measured when written (defaults: 100 rounds of depth 6; a seeded half of the rows as members,
 * every row a candidate; docs/membership.md): Pima AUC 0.476 with tree 0's counts alone -> 0.989,
 * breast cancer 0.500 -> 0.709 (its rows are separated in a few rounds, after which p (1 - p) is
 * nearly 0 and the later trees say little); iris and wine, three classes, unscored before: 0.742
 * and 0.878; scikit-learn's diabetes regression: 1.000.
 *
 * Not for: dart (later trees were fitted with trees dropped), several trees per round (grown side
 * by side from the same predictions), sample weights (h and g are weighted), other objectives;
 * classifiers among those keep the first tree's counts.
 */
import type { Forest } from '../forest/schema';
import { baseMargin, isLogistic, positiveWeight } from '../forest/boosting';
import { isSquaredError } from '../attacks/boosted-covers';
import { isMultiClass } from '../attacks/reconstruction/boosting-counts';
import type { FirstTreeProbe } from '../attacks/first-tree-probe';
import { EntryTable, leastSquaresMass, nodeOffsets, treesWithinCap } from './least-squares-mass';
import { leavesOf } from './leaves';
import type { CandidateVerdict } from './types';

/** The loss the trees were fitted to, which gives a row's h and g (see the header). */
export type HessianLoss = 'logistic' | 'softmax' | 'squared';

export interface HessianSetup {
  loss: HessianLoss;
  /** Trees per round (the classes of a multi-class model, else 1). */
  groups: number;
  eta: number;
  lambda: number;
  /** False when alpha or max_delta_step change w's relation to G: the covers alone are fitted. */
  gradients: boolean;
  /** The stated subsample (each tree's sums are over its own draw of about that share of the rows). */
  subsample?: number;
}

/** Whether the fit applies to the model, and with what, or why not. */
export function hessianSetup(forest: Forest, probe: FirstTreeProbe): { ok: true; setup: HessianSetup } | { ok: false; reason: string } {
  const b = forest.boosting;
  // scikit-learn's squared-error regressors are read into the same fields (reg:squarederror, eta the
  // learning rate, lambda 0 or l2_regularization); its classifiers are count trees with class trees
  // (class-trees.ts), without these fields.
  if (!b || forest.countedClasses) return { ok: false, reason: 'not a boosted model with hessian sums' };
  const loss: HessianLoss | undefined =
    isLogistic(b.objective) && b.outputGroups === 1 ? 'logistic' : isMultiClass(forest) && b.outputGroups > 1 ? 'softmax' : isSquaredError(forest) ? 'squared' : undefined;
  if (!loss) return { ok: false, reason: `objective ${b.objective}: the hessians of the logistic, softmax and squared-error objectives only` };
  const groups = loss === 'softmax' ? b.outputGroups : 1;
  // Round r's trees are r x groups .. r x groups + groups - 1, one per class in class order.
  if (forest.trees.length % groups !== 0 || forest.trees.some((tree, t) => (tree.boosting?.group ?? 0) !== t % groups)) {
    return { ok: false, reason: 'the trees are not one per class and round, in order' };
  }
  if (b.booster === 'dart') return { ok: false, reason: 'dart: later trees were fitted with earlier ones dropped' };
  const parallel = forest.hyperParameters.num_parallel_tree;
  if (typeof parallel === 'number' && parallel > 1) return { ok: false, reason: `num_parallel_tree=${parallel}: the trees of a round were grown side by side` };
  if (forest.training.weighted) return { ok: false, reason: 'sample weights: the sums are weighted' };
  if (forest.trees.some((tree) => !tree.boosting?.cover)) return { ok: false, reason: 'the file stores no cover for every tree' };
  const eta = probe.parameters.eta?.value;
  if (eta === undefined || !(eta > 0)) return { ok: false, reason: 'the learning rate could not be read or inferred' };
  const p = probe.parameters;
  const gradients = !(p.alpha && p.alpha.value > 0) && !(p.maxDeltaStep && p.maxDeltaStep.value > 0);
  const stated = forest.hyperParameters.subsample;
  const subsample = typeof stated === 'number' && stated > 0 && stated < 1 ? stated : undefined;
  return { ok: true, setup: { loss, groups, eta, lambda: p.lambda?.value ?? 1, gradients, ...(subsample !== undefined ? { subsample } : {}) } };
}

/** Covers below this are taken as this in the residuals' scale (XGBoost's min_child_weight is 1 by default). */
const LEAST_COVER = 1e-3;

/** The predicted probability per group from the margins (unused for squared error). */
export function probabilities(loss: HessianLoss, margins: Float64Array, out: Float64Array): void {
  if (loss === 'logistic') {
    out[0] = 1 / (1 + Math.exp(-margins[0]));
  } else if (loss === 'softmax') {
    let top = -Infinity;
    for (const m of margins) top = Math.max(top, m);
    let sum = 0;
    for (let k = 0; k < margins.length; k++) sum += out[k] = Math.exp(margins[k] - top);
    for (let k = 0; k < margins.length; k++) out[k] /= sum;
  }
}

/** Collects candidates (their leaves, h and g per tree), then fits their masses. */
export class HessianScorer {
  private readonly members: number[] = [];
  /** Per added candidate and tree: the leaf's key (an index into the sums), h (first) and g (second). */
  private readonly entries: EntryTable;
  /** Trees fitted: all of them, or the first rounds' when the candidates times the trees pass the entry cap (least-squares-mass.ts). */
  readonly treesUsed: number;
  private readonly offsets: number[];
  private readonly cover: Float64Array;
  private readonly gradient: Float64Array;
  /** scale_pos_weight: a positive row's hessian and gradient are this many times a negative's. */
  private readonly positiveWeight: number;

  constructor(
    private readonly forest: Forest,
    private readonly setup: HessianSetup,
    /** Candidates to be added, at most. */
    capacity: number,
  ) {
    this.treesUsed = treesWithinCap(forest.trees.length, setup.groups, capacity);
    this.positiveWeight = positiveWeight(forest);
    this.entries = new EntryTable(capacity, this.treesUsed);
    const { offsets, total } = nodeOffsets(forest.trees);
    this.offsets = offsets;
    // Sums over one tree's draw stand for about `subsample` of the rows: scaled up to all of them.
    const scale = 1 / (setup.subsample ?? 1);
    this.cover = new Float64Array(total);
    this.gradient = new Float64Array(total);
    forest.trees.forEach((tree, t) => {
      const b = tree.boosting!;
      for (let node = 0; node < tree.left.length; node++) {
        if (tree.left[node] !== -1) continue;
        const hessians = b.cover![node];
        // The leaf's weight is its value over the learning rate: G = -w (H + lambda).
        const sum = -(b.leafValue[node] / setup.eta) * (hessians + setup.lambda);
        // A file with non-finite sums (hostile or broken) leaves those leaves out of the fit.
        if (!Number.isFinite(hessians) || !Number.isFinite(sum)) continue;
        this.cover[this.offsets[t] + node] = hessians * scale;
        this.gradient[this.offsets[t] + node] = sum * scale;
      }
    });
  }

  /**
   * Adds candidate `index` with label y: its class's index in the model's order for classifiers,
   * its target for squared error.
   */
  add(index: number, values: readonly number[], y: number): void {
    const { forest, setup } = this;
    const { loss, groups } = setup;
    const trees = forest.trees;
    const used = this.treesUsed;
    const leaves = leavesOf(forest, values);
    const b = forest.boosting!;
    const margins = Float64Array.from({ length: groups }, (_, k) => baseMargin({ objective: b.objective, baseScore: [b.baseScore[k] ?? b.baseScore[0]] }));
    const p = new Float64Array(groups);
    const { keys, first: h, second: g } = this.entries;
    const at = this.entries.next();
    this.members.push(index);
    for (let round = 0; round * groups < used; round++) {
      probabilities(loss, margins, p);
      for (let k = 0; k < groups; k++) {
        const t = round * groups + k;
        keys[at + t] = this.offsets[t] + leaves[t];
        if (loss === 'squared') {
          h[at + t] = 1;
          g[at + t] = margins[0] - y;
        } else {
          const own = loss === 'logistic' ? y : y === k ? 1 : 0;
          // scale_pos_weight weighs a positive row's hessian and gradient (XGBoost's binary objectives).
          const w = loss === 'logistic' && own === 1 ? this.positiveWeight : 1;
          h[at + t] = w * (loss === 'softmax' ? 2 : 1) * p[k] * (1 - p[k]);
          g[at + t] = w * (p[k] - own);
        }
      }
      for (let k = 0; k < groups; k++) margins[k] += trees[round * groups + k].boosting!.leafValue[leaves[round * groups + k]];
    }
  }

  /** Each added candidate's mass, in the order added. */
  masses(): Float64Array {
    const { cover, offsets } = this;
    const size = cover.length;
    // Each leaf's residuals relative to its cover, times its tree's share of the hessian mass: a
    // tree whose rows the earlier rounds already fit (p near 0 or 1) holds little of it and says
    // little (bench AUC without -> with: breast cancer 0.605 -> 0.709, wine 0.840 -> 0.878, Pima
    // 0.988 -> 0.989, iris 0.759 -> 0.742, a subsample=0.8 classifier 0.904 -> 0.883).
    const weight = new Float64Array(size);
    let heaviest = 0;
    this.forest.trees.forEach((tree) => (heaviest = Math.max(heaviest, tree.boosting!.cover![0] ?? 0)));
    this.forest.trees.forEach((tree, t) => {
      const share = heaviest > 0 && Number.isFinite(tree.boosting!.cover![0]) ? Math.max(0, tree.boosting!.cover![0]) / heaviest : 1;
      const end = t + 1 < offsets.length ? offsets[t + 1] : size;
      for (let q = offsets[t]; q < end; q++) weight[q] = share / Math.max(LEAST_COVER, cover[q]);
    });
    return leastSquaresMass(this.entries, { first: cover, second: this.gradient, weight }, this.setup.gradients);
  }

  /** Every added candidate's score becomes its mass; proven verdicts keep theirs. */
  rescore(verdicts: CandidateVerdict[], threshold: number): void {
    const mass = this.masses();
    this.members.forEach((c, i) => {
      const v = verdicts[c].verdict;
      if (v === 'member' || v === 'non-member') return;
      verdicts[c] = { score: mass[i], verdict: mass[i] >= threshold ? 'likely-member' : 'likely-non-member' };
    });
  }
}
