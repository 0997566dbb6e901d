/**
 * Membership under a replayed bootstrap: tree t drew row index i c[i][t] times, and those draws
 * sit in the leaf the row reaches, with its label. So the candidate can be row i only if, in every
 * tree that drew i, the candidate's leaf can hold those draws (`labelHolds`, `restHolds`). When no
 * index fits, no training row has the candidate's label and its values up to the model's splits: a
 * proven non-member. Indices laid out row-major (one index's trees side by side) for the scan.
 */
import type { ReplayedDraws } from '../attacks/reconstruction/bootstrap/draws';
import type { Forest } from '../forest/schema';
import { classCount } from '../forest/structure';

export interface DrawTable {
  rows: number;
  trees: number;
  /** `counts[i * trees + t]`: draws of index i in tree t. */
  counts: Uint16Array;
  /** `maxDraws[t]`: the most draws any one index got in tree t. */
  maxDraws: Uint16Array;
}

export function drawTable(draws: ReplayedDraws): DrawTable {
  const trees = draws.perTree.length;
  const counts = new Uint16Array(draws.rows * trees);
  const maxDraws = new Uint16Array(trees);
  for (let t = 0; t < trees; t++) {
    const column = draws.perTree[t];
    for (let i = 0; i < draws.rows; i++) {
      counts[i * trees + t] = column[i];
      if (column[i] > maxDraws[t]) maxDraws[t] = column[i];
    }
  }
  return { rows: draws.rows, trees, counts, maxDraws };
}

/**
 * The candidate's leaf in each tree: `label[t]` draws of its label; optionally `all[t]` draws of
 * every label and `distinct[t]` distinct rows (scikit-learn's n_node_samples: with bootstrap, the
 * in-bag rows, each counted once; NaN where the tree does not store it).
 */
export interface LeafCounts {
  label: Float64Array;
  all?: Float64Array;
  distinct?: Float64Array;
}

/** The candidate's leaves' counts: draws of its label (given), of every label, distinct rows. */
export function leafCounts(forest: Forest, leaves: Int32Array, label: Float64Array): LeafCounts {
  const classes = classCount(forest);
  const all = new Float64Array(forest.trees.length);
  const distinct = new Float64Array(forest.trees.length).fill(NaN);
  forest.trees.forEach((tree, t) => {
    for (let c = 0; c < classes; c++) all[t] += tree.classWeights[leaves[t] * classes + c];
    if (tree.distinctRows) distinct[t] = tree.distinctRows[leaves[t]];
  });
  return { label, all, distinct };
}

/** Whether the leaf holds at least c draws of the candidate's label. */
function labelHolds(leaf: LeafCounts, t: number, c: number): boolean {
  return leaf.label[t] >= c;
}

/**
 * Whether the leaf's other d - 1 distinct rows can take its other N - c draws (of any label), each
 * at least 1 and at most the tree's most draws of any index. A leaf of one distinct row thus takes
 * only the index drawn exactly N times. Every bound holds for the true row, so the non-members it
 * excludes stay proven. True when the tree stores no distinct count.
 */
function restHolds(leaf: LeafCounts, t: number, c: number, maxDraw: number): boolean {
  if (!leaf.all || !leaf.distinct) return true;
  const others = leaf.distinct[t] - 1;
  if (!(others >= 0)) return true;
  const rest = leaf.all[t] - c;
  return rest >= others && rest <= others * maxDraw;
}

/**
 * `fits`: the indices that pass every bound (labelHolds and restHolds in every tree that drew
 * them); none proves the candidate a non-member. `score`: over the indices that pass labelHolds,
 * the best mean (over the trees that drew the index) of the share the index's draws take of the
 * leaf's draws of the label; 0 when none does.
 *
 * The score deliberately keeps the wider set: restHolds excludes more non-members (bench: breast
 * cancer 76 -> 81, Pima 330 -> 337, Adult 236 -> 251), but taking the best share over the narrower
 * set lowered the 10-tree COMPAS fixture's AUC (0.640 -> 0.614): a member's best share mostly comes
 * from some other index (breast cancer: only 56 of 284 members' best index is their own), so
 * narrowing the set moves members' scores too. Used only to exclude, the bound can lower no
 * member's score and raise no non-member's, so no AUC. `fitting`, when given, receives the indices
 * that pass every bound and that some tree drew.
 */
export function bestFit(table: DrawTable, leaf: LeafCounts, fitting?: number[]): { fits: number; score: number } {
  const { trees, counts, maxDraws } = table;
  const labelCounts = leaf.label;
  let fits = 0;
  let best = 0;
  for (let i = 0, base = 0; i < table.rows; i++, base += trees) {
    let share = 0;
    let inBag = 0;
    let ok = true;
    let rest = true;
    for (let t = 0; t < trees; t++) {
      const c = counts[base + t];
      if (c === 0) continue;
      if (!labelHolds(leaf, t, c)) {
        ok = false;
        break;
      }
      if (rest && !restHolds(leaf, t, c, maxDraws[t])) rest = false;
      share += c / labelCounts[t];
      inBag++;
    }
    if (!ok) continue;
    // An index no tree drew is in no leaf: it could be any row, so it fits every candidate (score 0).
    if (rest) {
      fits++;
      // Indices no tree drew add no draws anywhere: nothing to assign (assignment.ts).
      if (fitting && inBag > 0) fitting.push(i);
    }
    if (inBag > 0 && share / inBag > best) best = share / inBag;
  }
  return { fits, score: best };
}
