/**
 * The published attack, as a baseline measured in the same run (Akbarian & Aminifar, "Membership
 * Inference Attack in Random Forests"; ../shared/papers/membership-inference-rf.txt):
 *  1. per candidate, the range of each numeric feature is the intersection over all trees of the
 *     intervals on its path, started at the feature's global minimum and maximum (here: over the
 *     candidate file);
 *  2. per numeric feature the two distances of the value to the range's bounds, the smaller and
 *     the larger (equation 1): 2m features for m numeric features;
 *  3. an inference model trained on a known part of the members and non-members (the paper: 70% of
 *     a balanced set) and tested on the rest.
 * The paper's inference model is a 100-tree random forest; here it is a logistic regression
 * (inference-model.ts) on the standardised distances and their logarithms, small enough to keep in
 * this file's neighbour and deterministic. The paper uses numeric features only; a model without
 * any (binarised data) gets no baseline, with the reason.
 */
import type { Forest } from '../forest/schema';
import { cellBox } from './cell';
import { fitLogistic, predictLogistic } from './inference-model';
import { auc, tprAtFpr } from './metrics';
import type { Candidate } from './types';
import { maxOf, minOf } from '../util/numbers';

export interface BaselineSplit {
  /** Candidate indices the inference model is trained on, and those it is tested on. */
  train: number[];
  test: number[];
}

/** A seeded, stratified split: `share` of the members and of the non-members to train on. */
export function splitKnown(truth: readonly boolean[], share = 0.7, seed = 14): BaselineSplit {
  let state = seed >>> 0 || 1;
  const random = () => {
    // xorshift32: deterministic across platforms, good enough to shuffle.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  const train: number[] = [];
  const test: number[] = [];
  for (const side of [true, false]) {
    const idx = truth.map((t, i) => (t === side ? i : -1)).filter((i) => i >= 0);
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [idx[i], idx[j]] = [idx[j], idx[i]];
    }
    const cut = Math.round(idx.length * share);
    // One at a time: a spread of 100,000+ candidates overflows the call stack.
    for (const i of idx.slice(0, cut)) train.push(i);
    for (const i of idx.slice(cut)) test.push(i);
  }
  return { train: train.sort((a, b) => a - b), test: test.sort((a, b) => a - b) };
}

/** Features the paper's attack uses: declared numeric, or undeclared with values other than 0 and 1. */
export function numericFeatures(forest: Forest, candidates: readonly Candidate[]): number[] {
  return forest.features
    .map((feature, f) => ({ feature, f }))
    .filter(({ feature, f }) => feature.kind === 'numeric' || (feature.kind === 'unknown' && candidates.some((c) => c.values[f] !== 0 && c.values[f] !== 1 && !Number.isNaN(c.values[f]))))
    .map(({ f }) => f);
}

/** Equation 1's distances for every candidate: [d_low, d_high] per numeric feature. */
export function rangeDistances(forest: Forest, candidates: readonly Candidate[], features: readonly number[]): number[][] {
  // The paper's data has no missing values. Here the range is walked as the model walks a missing
  // value (its leaves' boxes on that side), and the distances are measured from the feature's median
  // over the candidates, the usual stand-in; the bounds are over the values present.
  const present = features.map((f) => candidates.map((c) => c.values[f]).filter((v) => !Number.isNaN(v)));
  const min = present.map((values) => minOf(values));
  const max = present.map((values) => maxOf(values));
  const median = present.map((values) => medianOf(values));
  return candidates.map((candidate) => {
    const cell = cellBox(forest, candidate.values);
    const out: number[] = [];
    features.forEach((f, k) => {
      const low = Math.max(cell.lower[f], min[k]);
      const high = Math.min(cell.upper[f], max[k]);
      if (present[k].length === 0) return void out.push(0, 0);
      const s = Number.isNaN(candidate.values[f]) ? median[k] : candidate.values[f];
      const a = Math.abs(s - low);
      const b = Math.abs(s - high);
      out.push(Math.min(a, b), Math.max(a, b));
    });
    return out;
  });
}

function medianOf(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export type BaselineResult =
  | {
      applies: true;
      numericFeatures: number;
      trainedOn: number;
      testedOn: number;
      /** On the held-out candidates. */
      accuracy: number;
      auc: number | null;
      tprAt1Fpr: number | null;
      /** Per candidate: the inference model's probability of membership (held-out and training ones alike). */
      scores: number[];
      seconds: number;
    }
  | { applies: false; reason: string };

export function runBaseline(forest: Forest, candidates: readonly Candidate[], truth: readonly boolean[], split: BaselineSplit): BaselineResult {
  const started = Date.now();
  const features = numericFeatures(forest, candidates);
  if (features.length === 0) return { applies: false, reason: 'the model has no numeric features, and the attack measures distances on numeric features only' };
  if (split.train.length < 4 || !split.train.some((i) => truth[i]) || split.train.every((i) => truth[i])) {
    return { applies: false, reason: 'too few known members and non-members to train the inference model' };
  }
  const distances = rangeDistances(forest, candidates, features);
  // Distances span orders of magnitude; the logarithm lets a linear model see "close to an edge".
  const rows = distances.map((d) => [...d, ...d.map((v) => Math.log(v + 1e-6))]);
  const model = fitLogistic(split.train.map((i) => rows[i]), split.train.map((i) => truth[i]));
  const scores = rows.map((row) => predictLogistic(model, row));
  const s = split.test.map((i) => scores[i]);
  const t = split.test.map((i) => truth[i]);
  const right = split.test.filter((i) => scores[i] >= 0.5 === truth[i]).length;
  return {
    applies: true,
    numericFeatures: features.length,
    trainedOn: split.train.length,
    testedOn: split.test.length,
    accuracy: split.test.length ? right / split.test.length : 0,
    auc: auc(s, t),
    tprAt1Fpr: tprAtFpr(s, t),
    scores,
    seconds: (Date.now() - started) / 1000,
  };
}
