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

/** Distinct training rows stored at a tree's root (scikit-learn's `n_node_samples[0]`). */
function rootDistinct(forest: Forest, treeIndex: number): number | undefined {
  return forest.trees[treeIndex].distinctRows?.[0];
}

export type ReplayCheck =
  | {
      status: 'replayed';
      /**
       * Training rows N. When N is not stored and several values fit every tree (rejection
       * sampling draws nearly the same indices for neighbouring N), `rows` is the smallest and
       * `rowsAtMost` the largest of `candidates`: an attacker simply tries each.
       */
      rows: number;
      rowsAtMost?: number;
      candidates?: number;
      drawn: number;
      treesChecked: number;
    }
  | { status: 'no-seeds' }
  | { status: 'mismatch'; tree: number; expected: number; replayed: number }
  | { status: 'unknown-rows'; candidates: number[] };

/**
 * How many rows each tree draws when the training set has `rows` rows, following scikit-learn's
 * `_get_n_samples_bootstrap`: `max_samples` None draws N, an int draws that many, a float draws
 * max(round(N * max_samples), 1). The IR's `bootstrapSize`, when known, wins.
 */
function drawsFor(forest: Forest): (rows: number) => number {
  const known = forest.training.bootstrapSize;
  const maxSamples = forest.hyperParameters['max_samples'];
  if (typeof maxSamples === 'number' && !Number.isInteger(maxSamples) && maxSamples > 0 && maxSamples < 1) {
    return (rows) => Math.max(roundHalfEven(rows * maxSamples), 1);
  }
  if (known !== undefined) return () => known;
  if (typeof maxSamples === 'number' && Number.isInteger(maxSamples) && maxSamples >= 1) return () => maxSamples;
  return (rows) => rows;
}

/** Python's round(): halves go to the even neighbour. */
function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * Whether the stored seeds really replay the stored trees: for every tree the replayed sample must
 * have as many distinct rows as the tree's root says (`n_node_samples`). When the number of
 * training rows is not stored (scikit-learn's `max_samples` set, or weighted counts), it is
 * searched for.
 * `deadline` (a Date.now() value) bounds the work: checking a tree costs one pass over its draws,
 * and trees left unchecked at the deadline are reported through `treesChecked`.
 */
export function checkReplay(forest: Forest, deadline = Number.POSITIVE_INFINITY): ReplayCheck {
  const trees = forest.trees;
  if (!forest.training.bootstrap || trees.some((t) => t.training.seed === undefined)) return { status: 'no-seeds' };
  const draws = drawsFor(forest);
  let rows = forest.training.rows;
  let rowsAtMost: number | undefined;
  let candidateCount = 1;
  if (rows === undefined) {
    const candidates = searchRows(forest, draws, deadline);
    if (candidates.length === 0) return { status: 'unknown-rows', candidates };
    rows = candidates[0];
    if (candidates.length > 1) rowsAtMost = candidates[candidates.length - 1];
    candidateCount = candidates.length;
  }
  const drawn = draws(rows);
  let checked = 0;
  for (let t = 0; t < trees.length; t++) {
    if (checked > 0 && Date.now() > deadline) break;
    const distinct = rootDistinct(forest, t);
    if (distinct === undefined) continue;
    const replayed = distinctDrawn(replayMultiplicities(trees[t].training.seed!, rows, drawn));
    if (replayed !== distinct) return { status: 'mismatch', tree: t, expected: distinct, replayed };
    checked++;
  }
  const ambiguity = rowsAtMost !== undefined ? { rowsAtMost, candidates: candidateCount } : {};
  // With several candidates the per-tree check above used the smallest; each candidate fit every tree in the search.
  return { status: 'replayed', rows, ...ambiguity, drawn, treesChecked: checked };
}

/**
 * Finds every training-set size N, in a window around the most likely one, whose replay gives
 * each tree its stored distinct count. Several N can fit a few small trees, so all trees are
 * checked and every fitting N is returned.
 * The expected number of distinct rows among m draws from N is N(1 - (1 - 1/N)^m); the window
 * starts at the N that inverts it for the first tree.
 */
function searchRows(forest: Forest, draws: (rows: number) => number, deadline: number): number[] {
  const distinct = forest.trees.map((_, t) => rootDistinct(forest, t));
  if (distinct.some((d) => d === undefined || d <= 0)) return [];
  // Every tree drawing N (max_samples None; N unknown when sample weights inflate the root): the
  // distinct rows, about 0.632 N, spread by about 0.5 sqrt(N), so a window of 8 sqrt(N) around the
  // estimate holds every fitting N; a fixed or fractional draw pins N far less, so the window is wide.
  // A fractional max_samples draws a share of N too, which pins N as narrowly (searched over N +- N
  // instead, a forest of 10,000 rows with max_samples=0.6 took 6-10 s of its fast findings and ran
  // past the read timeout as "unreadable": soundness sweep 16).
  const maxSamples = forest.hyperParameters['max_samples'];
  const fraction = typeof maxSamples === 'number' && !Number.isInteger(maxSamples) && maxSamples > 0 && maxSamples < 1 ? maxSamples : undefined;
  const seeds = forest.trees.map((tree) => tree.training.seed!);
  // The file states how many rows each tree drew (scikit-learn's _n_samples_bootstrap) and the
  // share they are of N: only the few N that round to that draw can be N, each checked by replay.
  const drawn = forest.training.bootstrapSize;
  if (fraction !== undefined && drawn !== undefined) {
    const fits: number[] = [];
    for (let n = Math.max(1, Math.floor((drawn - 0.5) / fraction)); n <= Math.ceil((drawn + 0.5) / fraction); n++) {
      if (draws(n) === drawn && seeds.every((seed, t) => distinctDrawn(replayMultiplicities(seed, n, drawn)) === distinct[t])) fits.push(n);
    }
    if (fits.length > 0) return fits;
  }
  const share = maxSamples === null || maxSamples === undefined || fraction !== undefined;
  return rowsReplayingSeeds(forest.trees.map((tree) => tree.training.seed!), distinct as number[], draws, deadline, share && forest.training.bootstrapSize === undefined);
}

/**
 * Every training-set size N (in the window searchRows describes) for which each seed's replayed
 * sample has its tree's stored distinct rows. `drawsGrowWithN`: every tree drew N or a share of it
 * (max_samples None or a fraction), which pins N within a narrow window: 8 standard deviations of
 * the first tree's distinct rows, taken back to N through the slope of their mean.
 */
/**
 * The standard deviation of N's estimate from one tree's distinct rows: that of the distinct count
 * among m draws of N rows (N(N-1)(1-2/N)^m + N(1-1/N)^m - N^2(1-1/N)^2m), over the slope of its
 * mean N(1 - (1-1/N)^m) in N, m following N. At least sqrt(N) / 2, the old window's scale.
 */
function distinctSpreadInRows(n: number, draws: (rows: number) => number): number {
  const m = draws(n);
  const q1 = Math.pow(1 - 1 / n, m);
  const variance = n * (n - 1) * Math.pow(1 - 2 / n, m) + n * q1 - n * n * q1 * q1;
  const mean = (k: number) => k * (1 - Math.pow(1 - 1 / k, draws(k)));
  const slope = (mean(n + 50) - mean(n - 50)) / 100;
  const sd = Math.sqrt(Math.max(0, variance)) / Math.max(slope, 1e-3);
  return Number.isFinite(sd) ? Math.max(sd, Math.sqrt(n) / 2) : n;
}

function rowsReplayingSeeds(seeds: readonly number[], distinct: readonly number[], draws: (rows: number) => number, deadline = Number.POSITIVE_INFINITY, drawsGrowWithN = false): number[] {
  const lowest = Math.max(...distinct);
  let estimate = lowest;
  while (estimate < lowest * 64 + 64 && estimate * (1 - Math.pow(1 - 1 / estimate, draws(estimate))) < distinct[0]) {
    estimate = Math.ceil(estimate * 1.01) + 1;
  }
  const fits = (n: number) =>
    seeds.every((seed, t) => {
      const m = draws(n);
      return m >= distinct[t] && distinctDrawn(replayMultiplicities(seed, n, m)) === distinct[t];
    });
  const found: number[] = [];
  // The window is wide enough for the sampling spread of small trees, and bounded in work.
  const radius = drawsGrowWithN ? Math.ceil(8 * distinctSpreadInRows(estimate, draws)) + 50 : Math.max(200, estimate);
  for (let offset = 0; offset <= radius; offset++) {
    if (Date.now() > deadline && offset > 0) break;
    for (const n of offset === 0 ? [estimate] : [estimate + offset, estimate - offset]) {
      if (n >= lowest && fits(n)) found.push(n);
    }
  }
  return found.sort((a, b) => a - b);
}
