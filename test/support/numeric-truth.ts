/**
 * Ground truth for the numeric reconstruction tests and benchmark (test/fixtures/numeric, written
 * by generate.py): the manifest entries with their population statistics, the training rows as
 * scikit-learn saw them (cast to float32), how a reconstruction's rows fit the leaf counts, and
 * small random forests over integer-valued features for brute-force checks.
 */
import type { Forest, Tree } from '../../server/src/forest/schema';
import { seededRandom } from '../../server/src/evaluate/seeded-random';
import type { ReconstructedRow } from '../../server/src/attacks/reconstruction/types';
import { leafOf, readTrainingRows, type FixtureEntry, type TrainingRow } from './reconstruction-truth';
import { growRandomTree, syntheticForest } from './random-forests';

export interface NumericFixtureEntry extends FixtureEntry {
  population: { rows: number; mean: number[]; std: number[]; min: number[]; max: number[] };
}

/** Training rows with every feature cast to float32: scikit-learn's trees compare X as float32. */
export function readFloat32Rows(path: string): TrainingRow[] {
  return readTrainingRows(path).rows.map((row) => ({ values: row.values.map(Math.fround), label: row.label }));
}

/**
 * Sum over every tree, leaf and class of |rows stored - reconstructed rows routed there|. A null
 * value is routed as 0: the engine gives null only where no leaf its row reaches tests the feature.
 */
export function routedLeafCountError(forest: Forest, rows: readonly ReconstructedRow[]): number {
  const classes = forest.classes.length;
  let error = 0;
  for (const tree of forest.trees) {
    const placed = new Float64Array(tree.left.length * classes);
    for (const row of rows) {
      const leaf = leafOf(tree, row.values.map((v) => v ?? 0));
      placed[leaf * classes + forest.classes.indexOf(row.label)]++;
    }
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] !== -1) continue;
      for (let c = 0; c < classes; c++) error += Math.abs(Math.round(tree.classWeights[n * classes + c]) - placed[n * classes + c]);
    }
  }
  return error;
}

/** Whether a true row lies in a reconstructed row's intervals (null: unconstrained) with its label. */
export function containsRow(row: ReconstructedRow, truth: TrainingRow): boolean {
  if (row.label !== truth.label || !row.intervals) return false;
  return row.intervals.every((interval, f) => interval === null || (truth.values[f] > interval[0] && truth.values[f] <= interval[1]));
}

export interface IntegerSetup {
  features: number;
  /** Values are integers 0 .. levels - 1. */
  levels: number;
  rows: number;
  classes: number;
  trees: number;
  maxDepth: number;
}

/**
 * Rows of small integers, and trees with random splits at half-integer thresholds that separate the
 * node's rows (as scikit-learn puts them), each node storing its exact per-class counts.
 */
export function randomIntegerForest(setup: IntegerSetup, seed: number): { forest: Forest; rows: TrainingRow[] } {
  const random = seededRandom(seed);
  const rows: TrainingRow[] = Array.from({ length: setup.rows }, () => ({
    values: Array.from({ length: setup.features }, () => Math.floor(random() * setup.levels)),
    label: Math.floor(random() * setup.classes),
  }));
  const trees = Array.from({ length: setup.trees }, () => growTree(rows, setup, random));
  const forest = syntheticForest(setup, trees);
  return { forest, rows };
}

/** Random splits at midpoints between the node's distinct values of any feature. */
function growTree(rows: readonly TrainingRow[], setup: IntegerSetup, random: () => number): Tree {
  return growRandomTree(rows, setup, random, (subset) => {
    const splits: [number, number][] = [];
    for (let f = 0; f < setup.features; f++) {
      const values = [...new Set(subset.map((r) => r.values[f]))].sort((a, b) => a - b);
      for (let k = 1; k < values.length; k++) splits.push([f, (values[k - 1] + values[k]) / 2]);
    }
    return splits;
  });
}
