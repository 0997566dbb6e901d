/**
 * Membership for outlier detectors (scikit-learn's IsolationForest, task `outlier-detection`):
 * their rows have no label, and every leaf holds at least one row, so no candidate is ever excluded
 * and nothing is proven. What the counts still say: each tree's leaves count the rows of its draw
 * (`max_samples_` rows without replacement; every row when N is at most that), so a leaf's count
 * times N / draw estimates the training rows in its box. The candidates' masses are fitted to those
 * targets in every tree (row-count-mass.ts, the fit of forests without bootstrap), and a candidate's
 * score is its mass: its estimated chance of being a training row. Candidates with the same leaf in
 * every tree are one group.
 *
 * Measured (a one-off script; candidates: every member and as many non-members): every tree holding
 * every row (200 breast cancer rows, max_samples 256) AUC 1.000; draws of 64 of those 200 rows,
 * 0.863; IsolationForest's defaults on 1,000 Default Credit rows (draws of 256), 0.718. The share
 * of a candidate in its leaves (1 / count), the others' first score, is no better than chance here
 * (0.49-0.50): isolation trees give members and non-members alike small leaves.
 */
import type { Forest } from '../forest/schema';
import { leavesOf } from './leaves';
import { rowCountMass } from './row-count-mass';
import type { Candidate, CandidateVerdict } from './types';

/** A mass of one half or more is the likely-member side. */
export const OUTLIER_ROWS_THRESHOLD = 0.5;

/** Rows each tree drew over N: the share of the training set a tree's leaves count. */
export function drawShare(forest: Forest): number {
  const rows = forest.training.rows;
  const drawn = forest.trees[0].distinctRows?.[0] ?? forest.trees[0].classWeights[0];
  if (!forest.training.bootstrap || rows === undefined || !(rows > 0) || !(drawn > 0)) return 1;
  return Math.min(1, drawn / rows);
}

export function scoreOutlierCandidates(forest: Forest, candidates: readonly Candidate[], threshold = OUTLIER_ROWS_THRESHOLD): CandidateVerdict[] {
  const offsets: number[] = [];
  let nodes = 0;
  for (const tree of forest.trees) {
    offsets.push(nodes);
    nodes += tree.left.length;
  }
  // Every node's rows (one count column), scaled from the tree's draw to the training set.
  const share = drawShare(forest);
  const targets = new Float64Array(nodes);
  forest.trees.forEach((tree, t) => {
    for (let n = 0; n < tree.left.length; n++) targets[offsets[t] + n] = Math.max(0, tree.classWeights[n]) / share;
  });
  const groupOf = new Map<string, number>();
  const groups: { size: number; keys: Int32Array }[] = [];
  const candidateGroup = candidates.map((candidate) => {
    const leaves = leavesOf(forest, candidate.values);
    const key = leaves.join(',');
    let g = groupOf.get(key);
    if (g === undefined) {
      g = groups.length;
      groupOf.set(key, g);
      groups.push({ size: 0, keys: leaves.map((leaf, t) => offsets[t] + leaf) });
    }
    groups[g].size++;
    return g;
  });
  const mass = rowCountMass(targets, groups);
  return candidateGroup.map((g) => ({ score: mass[g], verdict: mass[g] >= threshold ? 'likely-member' : 'likely-non-member' }));
}
