/**
 * The least-squares fit of candidate masses that boosted-hessians.ts and newton-steps.ts share.
 * Every candidate adds, in each tree, to one leaf's two sums with two coefficients of its own (its
 * hessian and gradient there; or 1 and its Newton residual). Each candidate gets a mass in [0, 1]
 * (its chance of being a training row), fitted so that the masses times the coefficients add up
 * to every leaf's two stored sums, each residual times the leaf's weight, by diagonally scaled
 * projected gradient steps. Deterministic: a fixed number of rounds for the input's size.
 */

/** What the candidates add: `perCandidate` entries each, candidate-major (entry e is candidate floor(e / perCandidate)'s). */
export interface MassEntries {
  candidates: number;
  perCandidate: number;
  /** The sum (an index into LeafSums' columns) each entry adds to. */
  keys: Int32Array;
  /** The entry's coefficient in the first sum, and in the second. */
  first: Float32Array;
  second: Float32Array;
}

/** The entries a fit collects, filled candidate by candidate (`next` gives where the next one's start). */
export class EntryTable implements MassEntries {
  candidates = 0;
  readonly keys: Int32Array;
  readonly first: Float32Array;
  readonly second: Float32Array;

  constructor(
    /** Candidates to be added, at most. */
    capacity: number,
    readonly perCandidate: number,
  ) {
    this.keys = new Int32Array(capacity * perCandidate);
    this.first = new Float32Array(capacity * perCandidate);
    this.second = new Float32Array(capacity * perCandidate);
  }

  /** The index of the next candidate's first entry; the candidate is counted. */
  next(): number {
    return this.candidates++ * this.perCandidate;
  }
}

/** Where each tree's nodes start in one array of every tree's nodes (a sum per node), and how many nodes there are. */
export function nodeOffsets(trees: readonly { left: ArrayLike<number> }[]): { offsets: number[]; total: number } {
  const offsets: number[] = [];
  let total = 0;
  for (const tree of trees) {
    offsets.push(total);
    total += tree.left.length;
  }
  return { offsets, total };
}

/** Per sum's index: the stored first and second sums, and how much its residuals weigh. */
export interface LeafSums {
  first: Float64Array;
  second: Float64Array;
  weight: Float64Array;
}

/**
 * Candidate-tree entries held at most (key and two coefficients: 12 bytes each, 240 MB): past it
 * only the first rounds are fitted (each tree's sums are equations of their own, so a prefix of
 * rounds is a smaller fit of the same kind).
 */
const MAX_ENTRIES = 20_000_000;

/** The trees fitted for `capacity` candidates: every round's (of `groups` trees each), or the first rounds' that MAX_ENTRIES holds. */
export function treesWithinCap(trees: number, groups: number, capacity: number): number {
  const rounds = Math.floor(trees / groups);
  return Math.min(rounds, Math.max(1, Math.floor(MAX_ENTRIES / Math.max(1, capacity * groups)))) * groups;
}

/** Rounds of the fit (at most), and the candidate-tree visits all rounds together may take (about a second here). */
const ROUNDS = 2_000;
const WORK = 3e8;
/** Step along the scaled gradient (measured: 0.5 converges on the bench models without oscillating). */
const STEP = 0.5;

/** Each candidate's mass, in entry order. `useSecond` false fits the first sums alone. */
export function leastSquaresMass(entries: MassEntries, sums: LeafSums, useSecond: boolean): Float64Array {
  const { candidates: n, perCandidate: trees, keys, first: h, second: g } = entries;
  const { first: targetFirst, second: targetSecond, weight } = sums;
  const mass = new Float64Array(n).fill(0.5);
  if (n === 0) return mass;
  const size = targetFirst.length;
  // The diagonal of the least-squares system, per candidate (it does not change with the masses).
  const inLeaf = new Float64Array(size);
  for (let e = 0; e < n * trees; e++) inLeaf[keys[e]]++;
  const diagonal = new Float64Array(n);
  for (let c = 0, e = 0; c < n; c++) {
    let d = 0;
    for (let t = 0; t < trees; t++, e++) d += (h[e] * h[e] + (useSecond ? g[e] * g[e] : 0)) * weight[keys[e]] * inLeaf[keys[e]];
    diagonal[c] = Math.max(d, 1e-12);
  }
  const rounds = Math.max(1, Math.min(ROUNDS, Math.floor(WORK / Math.max(1, n * trees))));
  const sumFirst = new Float64Array(size);
  const sumSecond = new Float64Array(size);
  for (let round = 0; round < rounds; round++) {
    sumFirst.fill(0);
    sumSecond.fill(0);
    for (let c = 0, e = 0; c < n; c++) {
      for (let t = 0; t < trees; t++, e++) {
        sumFirst[keys[e]] += h[e] * mass[c];
        if (useSecond) sumSecond[keys[e]] += g[e] * mass[c];
      }
    }
    for (let q = 0; q < size; q++) {
      sumFirst[q] = (sumFirst[q] - targetFirst[q]) * weight[q];
      if (useSecond) sumSecond[q] = (sumSecond[q] - targetSecond[q]) * weight[q];
    }
    for (let c = 0, e = 0; c < n; c++) {
      let step = 0;
      for (let t = 0; t < trees; t++, e++) step += h[e] * sumFirst[keys[e]] + (useSecond ? g[e] * sumSecond[keys[e]] : 0);
      const next = mass[c] - (STEP * step) / diagonal[c];
      if (Number.isFinite(next)) mass[c] = Math.min(1, Math.max(0, next));
    }
  }
  return mass;
}
