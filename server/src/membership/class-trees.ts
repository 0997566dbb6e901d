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
 * 0.5 + mass x (1 + share) / 4, share the mean over the trees of 1 / the leaf's rows (row-count-mass.ts's
 * MassScorer, with the class trees' rows as further counts to fit). Log-loss models (the forest's
 * `logLoss`) fit the mass by least squares to every leaf's rows and Newton step instead
 * (newton-steps.ts; bench AUC Pima GradientBoostingClassifier 0.899 -> 0.952), on the same scale.
 */
import type { Forest } from '../forest/schema';
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import { cellBox, cellPinsValues, certifiedInCell, pinnableFeatures } from './cell';
import { leavesOf } from './leaves';
import { NewtonStepScorer } from './newton-steps';
import { MassScorer } from './row-count-mass';
import type { Candidate, CandidateVerdict } from './types';

/** The likely-member side starts at a mass above one half (with no share), as for row counts. */
export const CLASS_TREES_THRESHOLD = 0.625;

export function scoreClassTreeCandidates(forest: Forest, candidates: readonly Candidate[], certified: readonly ReconstructedRow[], threshold: number): CandidateVerdict[] {
  const counted = forest.countedClasses!;
  // Log-loss models: least squares to every leaf's rows and Newton step (newton-steps.ts). Else
  // (AdaBoost) the multiplicative fit to every tree's leaf rows (the trees are read as row counts,
  // one column), then each class tree's rows of its class, as one extra block per class.
  const newton = forest.logLoss && !forest.logLoss.stages ? new NewtonStepScorer(forest.trees, forest.logLoss, candidates.length) : undefined;
  const mass = newton ? undefined : new MassScorer(forest, counted.trees.map(({ rows }) => rows));
  // The certified rows of each class, once.
  const certifiedOf = counted.classes.map((label) => certified.filter((row) => row.certified && row.label === label));
  const verdicts: CandidateVerdict[] = [];
  const pin = pinnableFeatures(forest);
  candidates.forEach((candidate, i) => {
    const k = counted.classes.findIndex((c) => c === candidate.label);
    // The model's classes are every label of its training rows: an unseen label is no row of it.
    if (k < 0) return verdicts.push({ score: 0, verdict: 'non-member' });
    const leaves = leavesOf(forest, candidate.values);
    if (excluded(forest, counted, leaves, k)) return verdicts.push({ score: 0, verdict: 'non-member' });
    const mine = certifiedOf[k];
    // The candidate's cell once (a walk of every tree), not once per certified row.
    const cell = mine.length > 0 ? cellBox(forest, candidate.values) : undefined;
    // Proven only where the cell pins every value the model reads (cell.ts `cellPinsValues`).
    const member = cell !== undefined && mine.some((row) => certifiedInCell(row, cell, forest.splitRule)) && cellPinsValues(cell, pin, candidate.values);
    verdicts.push({ score: member ? 1 : 0.5, verdict: member ? 'member' : 'likely-non-member' });
    if (newton) return newton.add(i, leaves, k);
    let share = 0;
    forest.trees.forEach((tree, t) => (share += 1 / Math.max(1, tree.classWeights[leaves[t]])));
    mass!.add(i, leaves, 0, share / forest.trees.length, [[k, leaves[counted.trees[k].tree]]]);
  });
  // Proven members keep their verdict; their score becomes their chance of being the proven row.
  (newton ?? mass!).rescore(verdicts, threshold);
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
