/**
 * Membership for a classifier read as row counts with class trees (`forest.countedClasses`:
 * scikit-learn's gradient boosting without subsample or sample weights, and AdaBoostClassifier, so
 * every training row reached a leaf of every tree). Basis `class-trees`.
 *
 * Proven non-member: the leaf the candidate reaches in its class's tree holds no row of its class,
 * or the leaf it reaches in another class's tree holds rows of that class only: either way no
 * training row has the candidate's class there. Proven member: a certified row of its class lies
 * in the candidate's cell (as for row counts).
 *
 * Score otherwise, across candidates (as row-count-mass.ts does for forests): each candidate not
 * excluded gets a mass in [0, 1], fitted so that the candidates in every tree's leaf add up to its
 * rows and those of class k in class k's tree's leaf to its rows of k; the score is
 * 0.5 + mass x (1 + share) / 4, share the mean over the trees of 1 / the leaf's rows.
 */
import type { Forest } from '../forest/schema';
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import { cellBox, certifiedInCell } from './cell';
import { leavesOf } from './leaves';
import { rowCountMass } from './row-count-mass';
import type { Candidate, CandidateVerdict } from './types';

/** The likely-member side starts at a mass above one half (with no share), as for row counts. */
export const CLASS_TREES_THRESHOLD = 0.625;

export function scoreClassTreeCandidates(forest: Forest, candidates: readonly Candidate[], certified: readonly ReconstructedRow[], threshold: number): CandidateVerdict[] {
  const counted = forest.countedClasses!;
  const trees = forest.trees.length;
  // Fit targets: every tree's leaf rows (key tree x leaf), then every class tree's rows of its class.
  const offsets: number[] = [];
  let size = 0;
  for (const tree of forest.trees) {
    offsets.push(size);
    size += tree.left.length;
  }
  const classOffsets = counted.trees.map(({ tree }) => {
    const at = size;
    size += forest.trees[tree].left.length;
    return at;
  });
  const targets = new Float64Array(size);
  forest.trees.forEach((tree, t) => tree.classWeights.forEach((n, node) => (targets[offsets[t] + node] = n)));
  counted.trees.forEach(({ rows }, k) => rows.forEach((n, node) => (targets[classOffsets[k] + node] = n)));

  // The certified rows of each class, once.
  const certifiedOf = counted.classes.map((label) => certified.filter((row) => row.certified && row.label === label));
  const verdicts: CandidateVerdict[] = [];
  const groups: { size: number; keys: Int32Array; members: number[]; share: number }[] = [];
  const groupOf = new Map<string, number>();
  candidates.forEach((candidate, i) => {
    const k = counted.classes.findIndex((c) => c === candidate.label);
    // The model's classes are every label of its training rows: an unseen label is no row of it.
    if (k < 0) return verdicts.push({ score: 0, verdict: 'non-member' });
    const leaves = leavesOf(forest, candidate.values);
    if (excluded(forest, counted, leaves, k)) return verdicts.push({ score: 0, verdict: 'non-member' });
    const mine = certifiedOf[k];
    const member = mine.length > 0 && mine.some((row) => certifiedInCell(row, cellBox(forest, candidate.values), forest.splitRule));
    verdicts.push({ score: member ? 1 : 0.5, verdict: member ? 'member' : 'likely-non-member' });
    const keys = new Int32Array(trees + 1);
    leaves.forEach((leaf, t) => (keys[t] = offsets[t] + leaf));
    keys[trees] = classOffsets[k] + leaves[counted.trees[k].tree];
    const id = keys.join(',');
    let g = groupOf.get(id);
    if (g === undefined) {
      let share = 0;
      forest.trees.forEach((tree, t) => (share += 1 / Math.max(1, tree.classWeights[leaves[t]])));
      g = groups.length;
      groupOf.set(id, g);
      groups.push({ size: 0, keys, members: [], share: share / trees });
    }
    groups[g].size++;
    groups[g].members.push(i);
  });
  const mass = rowCountMass(targets, groups);
  groups.forEach((g, n) => {
    const score = 0.5 + (mass[n] * (1 + g.share)) / 4;
    for (const i of g.members) {
      if (verdicts[i].verdict === 'member') continue;
      verdicts[i] = { score, verdict: score >= threshold ? 'likely-member' : 'likely-non-member' };
    }
  });
  return verdicts;
}

/** No training row of class k reaches these leaves: its own tree's leaf has none of k, or another class's tree's leaf holds only its class. */
function excluded(forest: Forest, counted: NonNullable<Forest['countedClasses']>, leaves: Int32Array, k: number): boolean {
  return counted.trees.some(({ tree: t, rows }, j) => {
    const leaf = leaves[t];
    const all = forest.trees[t].classWeights[leaf];
    return j === k ? rows[leaf] === 0 : all > 0 && rows[leaf] === all;
  });
}
