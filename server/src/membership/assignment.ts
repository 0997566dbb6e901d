/**
 * Membership under a replayed bootstrap, across candidates: which candidate is which training row
 * index. Every leaf's draws of a label are the draws of the indices whose rows lie in it, so a soft
 * assignment `a[x][i]` (candidate x is row i) predicts each leaf's count as the sum over the
 * candidates in it of a[x][i] * (draws of i in that tree). Iterative scaling fits the assignment to
 * the stored counts: each pair is scaled by the weighted geometric mean, over the trees that drew
 * its index, of (stored count / predicted count) of the candidate's leaf; then an index's pairs are
 * scaled down when they sum over 1 (an index is one row), and a candidate's when they sum over 1
 * (a candidate is at most one row). A candidate's mass sum_i a[x][i] is then its estimated chance of
 * being a training row, given the others: a non-member beside a member must share its leaves'
 * draws with it, and the counts tell how many draws there are to share.
 *
 * An index's pairs are never scaled up to 1: the candidate file need not hold every training row.
 * Still, the mass leans on the file holding many of them. Measured with the engine (bench models,
 * no reconstruction; AUC of the share alone / the engine's score, mass with share): every row a
 * candidate: Pima 0.989 / 1.000, breast cancer 0.739 / 0.839, COMPAS 0.528 / 0.651, Adult 0.671 /
 * 0.800; half the members left out of the file: 0.990 / 0.991, 0.729 / 0.766, 0.529 / 0.620,
 * 0.670 / 0.750; nine in ten left out: 0.992 / 0.992, 0.720 / 0.711, 0.547 / 0.594, 0.628 / 0.700.
 * Leading with the mass (mass * (1 + share)) beat mass times share with every row in the file
 * (breast cancer 0.839 against 0.823, COMPAS 0.651 against 0.565) and with half the members out
 * (breast cancer 0.766 against 0.752); with nine in ten out it lost breast cancer (0.711 against
 * 0.722).
 *
 * A score only, never a proof: only pairs that pass every bound of replay.ts take part, so every
 * member keeps its own index, but nothing here is certain. Candidates with the same label and the
 * same leaf in every tree cannot be told apart by the model and are one group (weight: how many).
 * Deterministic: a fixed number of rounds, scaled down for large inputs (`workBudget`).
 */
import type { Forest } from '../forest/schema';
import { CandidateGroups, type CandidateGroup } from './candidate-groups';
import type { DrawTable } from './replay';
import type { CandidateVerdict } from './types';

export interface AssignmentGroup {
  /** Candidates in the group (identical leaves and label). */
  size: number;
  /** Per tree, the id of the leaf-and-label count the group's rows would add to (see `targets`). */
  keys: Int32Array;
  /** Row indices that fit the group (replay.ts's every bound), ascending. */
  indices: Int32Array;
}

export interface AssignmentOptions {
  /** Rounds of scaling (default 100). */
  rounds?: number;
  /**
   * Pair-tree visits all rounds together may take (default 1e9, about 8 s here): fewer rounds past
   * it. Breast cancer's bench model takes 7e6 a round (569 candidates, 408 groups).
   */
  workBudget?: number;
}

/**
 * Each group's mass per candidate (in [0, 1]): the estimated chance that one of its candidates is a
 * training row; null when not one round fits in the work budget.
 */
export function assignmentMass(table: DrawTable, targets: Float64Array, groups: readonly AssignmentGroup[], options: AssignmentOptions = {}): Float64Array | null {
  const { rows, trees, counts } = table;
  // The trees that drew each index, and how often: the only trees where its pairs add draws.
  const start = new Int32Array(rows + 1);
  for (let i = 0; i < rows; i++) {
    let n = 0;
    for (let t = 0; t < trees; t++) if (counts[i * trees + t] > 0) n++;
    start[i + 1] = start[i] + n;
  }
  const drewTree = new Int32Array(start[rows]);
  const drewCount = new Float64Array(start[rows]);
  for (let i = 0, k = 0; i < rows; i++) {
    for (let t = 0; t < trees; t++) {
      const c = counts[i * trees + t];
      if (c > 0) {
        drewTree[k] = t;
        drewCount[k++] = c;
      }
    }
  }
  // Start: each index's unit of mass spread evenly over the candidates (not groups) that fit it.
  const fitting = new Float64Array(rows);
  for (const g of groups) for (const i of g.indices) fitting[i] += g.size;
  const a = groups.map((g) => Float64Array.from(g.indices, (i) => g.size / fitting[i]));
  let work = 0;
  for (const g of groups) for (const i of g.indices) work += start[i + 1] - start[i];
  const rounds = Math.max(0, Math.min(options.rounds ?? 100, Math.floor((options.workBudget ?? 1e9) / Math.max(1, 2 * work))));
  if (rounds === 0) return null;
  const predicted = new Float64Array(targets.length);
  const logRatio = new Float64Array(targets.length);
  const column = new Float64Array(rows);
  // Step 2 converged fastest on the bench; a round whose misfit grows halves it (3 diverged on breast cancer).
  let step = 2;
  let lastMisfit = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    predicted.fill(0);
    groups.forEach((g, n) => {
      const w = a[n];
      for (let k = 0; k < g.indices.length; k++) {
        const i = g.indices[k];
        for (let j = start[i]; j < start[i + 1]; j++) predicted[g.keys[drewTree[j]]] += w[k] * drewCount[j];
      }
    });
    let misfit = 0;
    for (let q = 0; q < targets.length; q++) {
      logRatio[q] = predicted[q] > 0 && targets[q] > 0 ? Math.log(targets[q] / predicted[q]) : 0;
      misfit += Math.abs(logRatio[q]) * targets[q];
    }
    if (misfit > lastMisfit && step > 1) step = Math.max(1, step / 2);
    lastMisfit = misfit;
    column.fill(0);
    groups.forEach((g, n) => {
      const w = a[n];
      for (let k = 0; k < g.indices.length; k++) {
        const i = g.indices[k];
        let sum = 0;
        let drawn = 0;
        for (let j = start[i]; j < start[i + 1]; j++) {
          sum += drewCount[j] * logRatio[g.keys[drewTree[j]]];
          drawn += drewCount[j];
        }
        if (drawn > 0) w[k] *= Math.exp((step * sum) / drawn);
        column[i] += w[k];
      }
    });
    groups.forEach((g, n) => {
      const w = a[n];
      let total = 0;
      for (let k = 0; k < g.indices.length; k++) {
        if (column[g.indices[k]] > 1) w[k] /= column[g.indices[k]];
        total += w[k];
      }
      if (total > g.size) for (let k = 0; k < w.length; k++) w[k] *= g.size / total;
    });
  }
  return Float64Array.from(a, (w, n) => Math.min(1, w.reduce((s, v) => s + v, 0) / groups[n].size));
}

/**
 * Group-index pairs the assignment may hold (12 bytes each): 2e7 is 240 MB. Breast cancer's bench
 * model has 5.5e4 (408 groups of 569 candidates, 284 rows); past the cap, the assignment is skipped.
 */
const MAX_PAIRS = 2e7;

/**
 * The engine's side: collects the candidates that fit into groups (same label, same leaves), then
 * rescores them with their mass (0.5 + mass * (1 + share) / 4; engine.ts says why).
 */
export class AssignmentScorer {
  private pairs = 0;
  private readonly candidates: CandidateGroups<AssignmentGroup & CandidateGroup & { share: number }>;

  constructor(forest: Forest) {
    this.candidates = new CandidateGroups(forest);
  }

  add(candidate: number, leaves: Int32Array, y: number, fitting: number[], share: number): void {
    if (this.pairs > MAX_PAIRS) return;
    if (this.candidates.add(candidate, leaves, y, () => ({ indices: Int32Array.from(fitting), share }))) this.pairs += fitting.length;
  }

  rescore(table: DrawTable, verdicts: CandidateVerdict[], threshold: number): boolean {
    // Past the pair cap, or without a round in the work budget, every candidate keeps 0.5 + share / 2.
    const { groups, targets } = this.candidates;
    if (groups.length === 0 || this.pairs > MAX_PAIRS) return false;
    const mass = assignmentMass(table, targets, groups);
    if (!mass) return false;
    groups.forEach((group, g) => {
      for (const c of group.members) {
        if (verdicts[c].verdict === 'member' || verdicts[c].verdict === 'non-member') continue;
        const score = 0.5 + (mass[g] * (1 + group.share)) / 4;
        verdicts[c] = { score, verdict: score >= threshold ? 'likely-member' : 'likely-non-member' };
      }
    });
    return true;
  }
}
