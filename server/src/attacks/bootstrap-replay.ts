/**
 * Bootstrap replay: scikit-learn stores an integer `random_state` in every tree of a fitted forest,
 * and the tree's bootstrap sample is `RandomState(seed).randint(0, n_samples, n_bootstrap)`
 * (`sklearn.ensemble._forest._generate_sample_indices`). Replaying it gives how many times each
 * training row index was drawn into each tree, which turns bagging into a known weighting.
 */
import type { Forest } from '../forest/schema';
import { LegacyMT19937 } from './mt19937';

/** How many times each row index 0..rows-1 was drawn for a tree with this seed. */
export function replayMultiplicities(seed: number, rows: number, drawn: number): Uint16Array {
  if (rows > 0xffff * 0xffff) throw new RangeError('too many rows to replay');
  const counts = new Uint16Array(rows);
  new LegacyMT19937(seed).randintInt32(0, rows, drawn, (row) => {
    counts[row]++;
  });
  return counts;
}

/** Number of distinct rows in a replayed sample. */
export function distinctDrawn(counts: Uint16Array): number {
  let distinct = 0;
  for (const c of counts) if (c > 0) distinct++;
  return distinct;
}

/** Root node facts of a tree: weighted count (draws) and distinct rows, when stored. */
function rootCounts(forest: Forest, treeIndex: number): { drawn: number; distinct?: number } {
  const tree = forest.trees[treeIndex];
  const k = forest.classes.length || 1;
  let drawn = 0;
  for (let c = 0; c < k; c++) drawn += tree.classWeights[c] ?? 0;
  return { drawn: Math.round(drawn), distinct: tree.distinctRows?.[0] };
}

export type ReplayCheck =
  | { status: 'replayed'; rows: number; drawn: number; treesChecked: number }
  | { status: 'no-seeds' }
  | { status: 'mismatch'; tree: number; expected: number; replayed: number }
  | { status: 'unknown-rows' };

/**
 * Whether the stored seeds really replay the stored trees: for every tree the replayed sample must
 * have as many distinct rows as the tree's root says (`n_node_samples`). When the number of
 * training rows is not stored (scikit-learn's `max_samples` set), it is searched for.
 * `deadline` (a Date.now() value) bounds the work: checking a tree costs one pass over its draws,
 * and trees left unchecked at the deadline are reported through `treesChecked`.
 */
export function checkReplay(forest: Forest, deadline = Number.POSITIVE_INFINITY): ReplayCheck {
  const trees = forest.trees;
  if (!forest.training.bootstrap || trees.some((t) => t.training.seed === undefined)) return { status: 'no-seeds' };
  const first = rootCounts(forest, 0);
  const drawn = forest.training.bootstrapSize ?? first.drawn;
  let rows = forest.training.rows;
  if (rows === undefined) {
    const probes = trees.slice(0, 3).map((tree, t) => ({ seed: tree.training.seed!, distinct: rootCounts(forest, t).distinct }));
    rows = searchRows(probes, drawn);
    if (rows === undefined) return { status: 'unknown-rows' };
  }
  let checked = 0;
  for (let t = 0; t < trees.length; t++) {
    if (checked > 0 && Date.now() > deadline) break;
    const { distinct } = rootCounts(forest, t);
    if (distinct === undefined) continue;
    const replayed = distinctDrawn(replayMultiplicities(trees[t].training.seed!, rows, drawn));
    if (replayed !== distinct) return { status: 'mismatch', tree: t, expected: distinct, replayed };
    checked++;
  }
  return { status: 'replayed', rows, drawn, treesChecked: checked };
}

/**
 * Finds the training-set size N whose replay of the first tree yields its stored distinct count.
 * A candidate must fit the first few trees, so a chance match on one tree is not taken.
 * The expected number of distinct rows among m draws from N is N(1 - (1 - 1/N)^m); we start from
 * the N that inverts it and widen the search, so a handful of replays usually suffice.
 */
function searchRows(probes: { seed: number; distinct?: number }[], drawn: number): number | undefined {
  const distinct = probes[0].distinct;
  if (distinct === undefined || distinct <= 0) return undefined;
  const fits = (n: number) =>
    probes.every((p) => p.distinct === undefined || distinctDrawn(replayMultiplicities(p.seed, n, drawn)) === p.distinct);
  let estimate = distinct;
  for (let n = distinct; n < distinct * 64 + 64; n = Math.ceil(n * 1.01) + 1) {
    if (n * (1 - Math.pow(1 - 1 / n, drawn)) >= distinct) {
      estimate = n;
      break;
    }
  }
  const budget = 4000;
  for (let offset = 0; offset < budget; offset++) {
    for (const n of offset === 0 ? [estimate] : [estimate + offset, estimate - offset]) {
      if (n < distinct) continue;
      if (fits(n)) return n;
    }
  }
  return undefined;
}
