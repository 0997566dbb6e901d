/**
 * Row counts in the covers of every tree of a squared-error XGBoost model. With
 * reg:squarederror a row's hessian is 1 whatever the prediction, so every tree's cover (sum of the
 * hessians of the rows that reached a node) is the number of training rows that reached it: not
 * only the first tree states leaf counts, all of them do (first-tree-probe.ts says why the first
 * tree alone does for the other objectives).
 */
import type { Forest } from '../forest/schema';
import { forEachLeaf } from '../forest/structure';

export type CoverCounts = { ok: true; rows: number; trees: number; leaves: number } | { ok: false; reason: string };

/** Covers are float32 sums of ones: exact integers far beyond any training set here. */
const TOLERANCE = 1e-3;

export function isSquaredError(forest: Forest): boolean {
  const objective = forest.boosting?.objective;
  return objective === 'reg:squarederror' || objective === 'reg:linear';
}

/**
 * Squared error: every tree's root cover counts the rows it was grown on, so roots that differ mean
 * each tree drew its own subsample, even when the file does not state `subsample` (a Booster's JSON).
 */
export function squaredErrorRootsDiffer(forest: Forest): boolean {
  if (!isSquaredError(forest) || forest.training.weighted) return false;
  const root = (t: number) => Math.round(forest.trees[t].boosting?.cover?.[0] ?? 0);
  return forest.trees.some((_, t) => root(t) !== root(0));
}

/**
 * Whether every tree's covers are whole row counts over the same N rows, or why not.
 * `sameRows: false` (subsample < 1, each tree grown on its own draw): whole counts whose roots may
 * differ; `rows` is then tree 0's.
 */
export function everyTreeRowCounts(forest: Forest, options: { sameRows?: boolean } = {}): CoverCounts {
  if (!forest.boosting || !isSquaredError(forest)) return { ok: false, reason: 'not a reg:squarederror model' };
  if (forest.training.weighted) return { ok: false, reason: 'the rows carry sample weights, so covers are weight sums' };
  let rows: number | undefined;
  let leaves = 0;
  for (let t = 0; t < forest.trees.length; t++) {
    const tree = forest.trees[t];
    const cover = tree.boosting?.cover;
    if (!cover) return { ok: false, reason: `tree ${t} stores no cover` };
    const root = cover[0];
    if (Math.abs(root - Math.round(root)) > TOLERANCE) return { ok: false, reason: `tree ${t}'s root cover ${root} is not a whole number of rows (sample weights)` };
    rows ??= Math.round(root);
    // subsample < 1: each tree saw another draw, and the roots disagree.
    if (options.sameRows !== false && Math.round(root) !== rows) return { ok: false, reason: `tree ${t} was grown on ${Math.round(root)} rows and tree 0 on ${rows}: each tree saw a different draw (subsample below 1)` };
    let problem: string | undefined;
    forEachLeaf(tree, (node) => {
      leaves++;
      if (Math.abs(cover[node] - Math.round(cover[node])) > TOLERANCE) problem ??= `tree ${t} node ${node}'s cover ${cover[node]} is not a whole number of rows`;
    });
    if (problem) return { ok: false, reason: problem };
  }
  return { ok: true, rows: rows!, trees: forest.trees.length, leaves };
}
