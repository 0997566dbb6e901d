/**
 * Where a boosted model sends missing values. XGBoost learns, at every split, a default direction
 * (`default_left`) that rows missing the split's feature follow. A leaf's path box (pathBox) says
 * nothing about those rows, so a reconstruction that reads leaves as boxes must know whether a
 * missing value is one of the feature's intervals in disguise:
 *  - every split on the feature sends it the same way it sends values below its threshold (left,
 *    with XGBoost's `x < threshold`): a missing value reaches the leaves the lowest interval
 *    reaches, so that interval stands for "below the first threshold, or missing";
 *  - every split sends it right: likewise with the highest interval;
 *  - some splits send it left and others right: a missing value is a value of its own that no
 *    interval stands for. XGBoost's exact updater sets default_left at every split of a feature
 *    that had no missing values and hist clears it, so mixed directions show that the training data
 *    had missing values of that feature (uniform ones do not show that it had none).
 */
import { splitsOnMissingOnly } from '../forest/missing-split';
import { featureLabel } from '../forest/pipeline-input';
import type { Forest } from '../forest/schema';
import { largerChildIsLeft } from '../forest/structure';

export type MissingRoute = 'unused' | 'left' | 'right' | 'mixed';

export interface MissingValueRouting {
  /** Per feature: where its splits send a missing value ('unused' when no split tests it). */
  routes: MissingRoute[];
  /** Whether the file states the directions at all (dumps and scikit-learn do not always). */
  stated: boolean;
}

export function missingValueRouting(forest: Forest): MissingValueRouting {
  const routes: MissingRoute[] = forest.features.map(() => 'unused');
  let stated = true;
  for (const tree of forest.trees) {
    if (!tree.defaultLeft) {
      stated = false;
      continue;
    }
    for (let node = 0; node < tree.left.length; node++) {
      if (tree.left[node] === -1) continue;
      const f = tree.feature[node];
      if (f < 0 || f >= routes.length) continue;
      const route: MissingRoute = tree.defaultLeft[node] ? 'left' : 'right';
      routes[f] = routes[f] === 'unused' || routes[f] === route ? route : 'mixed';
    }
  }
  return { routes, stated };
}

/**
 * "the model was trained with missing values of x, y" for mixed directions, which prove it for
 * XGBoost; scikit-learn's histogram boosting sends a missing value to the larger child both when it
 * saw none and, often, when it saw some, so there they only say that it may have.
 */
export function mixedMissingWords(forest: Forest, names: readonly string[]): string {
  if (!/^HistGradientBoosting/.test(forest.estimator)) return `the model was trained with missing values of ${namesText(names)} (its splits send them left at some nodes and right at others)`;
  // Histogram boosting sends a missing value to a split's larger child when the node saw none, and
  // often when values were missing at random: only a split to the smaller child (or on missing
  // values alone) shows them. Listing every feature as "may have had" read as a statement about
  // the data (sweep 10: 26 columns, one-hot outputs among them, whose 18,441 splits all follow the rule).
  const shown = new Set(missingShownFeatures(forest).map((f) => featureLabel(forest, f)));
  const proven = names.filter((name) => shown.has(name));
  const rest = names.length - proven.length;
  const features = (n: number) => (n === 1 ? '1 feature' : `${n} features`);
  const rule = "as scikit-learn's histogram boosting does when it saw none, and often when values were missing at random";
  if (proven.length === 0) return `the training data may have had missing values: no split shows any, but the splits of ${features(rest)} send them left at some nodes and right at others, always to the larger child, ${rule}`;
  return (
    `the model was trained with missing values of ${namesText(proven)} (a split sends them to its smaller child, or splits on them alone, which histogram boosting does only for values it saw missing)` +
    (rest > 0 ? `; the splits of ${features(rest)} more send them to the larger child, ${rule}` : '')
  );
}

/**
 * Features some split of which sends a missing value to its smaller child, or splits on missing
 * values alone: scikit-learn's trees do either only where the node's training rows missed the
 * feature (a split without missing values sends them to the larger child, ties to the right).
 */
export function missingShownFeatures(forest: Forest): number[] {
  const shown = new Set<number>();
  for (const tree of forest.trees) {
    if (!tree.defaultLeft) continue;
    for (let node = 0; node < tree.left.length; node++) {
      if (tree.left[node] === -1) continue;
      if (splitsOnMissingOnly(tree.threshold[node]) || tree.defaultLeft[node] !== largerChildIsLeft(tree, node)) shown.add(tree.feature[node]);
    }
  }
  return [...shown].sort((a, b) => a - b);
}

/** Names of the features whose missing values follow mixed directions (the model saw them missing). */
export function mixedMissingFeatures(forest: Forest): string[] {
  return missingValueRouting(forest).routes.flatMap((r, f) => (r === 'mixed' ? [featureLabel(forest, f)] : []));
}

/**
 * For a reconstruction that reads boxes: why missing values make it unsound (mixed directions), or
 * a note saying which intervals also stand for a missing value (uniform directions).
 */
export function missingValueReading(forest: Forest): { ok: false; reason: string } | { ok: true; note?: string } {
  const mixed = mixedMissingFeatures(forest);
  if (mixed.length > 0) {
    return {
      ok: false,
      reason:
        `${mixedMissingWords(forest, mixed)}, so a missing value is not one of the intervals the reconstruction counts with, ` +
        'and its rows could be certified in cells they do not lie in',
    };
  }
  const note = uniformMissingNote(forest);
  return note ? { ok: true, note } : { ok: true };
}

/**
 * For a boosted model: which end intervals also stand for a missing value, over the features whose
 * splits all send it one way (mixed features are left out: see boosting-hessians.ts, which models
 * their missing value as a value of its own). Undefined when no feature's splits state a direction.
 */
export function uniformMissingNote(forest: Forest): string | undefined {
  if (!forest.boosting) return undefined;
  // A categorical split's 0/1 feature already says where a missing value goes (its value for one,
  // set-splits.ts): only the model's own columns are listed (sweep 12: 120 set names in one note).
  const routes = columnRoutes(forest);
  const lowest = routes.flatMap((r, f) => (r === 'left' ? [featureLabel(forest, f)] : []));
  const highest = routes.flatMap((r, f) => (r === 'right' ? [featureLabel(forest, f)] : []));
  if (lowest.length + highest.length === 0) return undefined;
  const mixed = routes.some((r) => r === 'mixed');
  // Every used feature the same way (the common case: exact sets default_left everywhere, hist nowhere).
  if (highest.length === 0 && !mixed) return 'every split sends a missing value left, with the values below its threshold: the lowest interval of a feature also stands for a missing value';
  if (lowest.length === 0 && !mixed) return 'every split sends a missing value right, with the values above its threshold: the highest interval of a feature also stands for a missing value';
  const parts = [...(lowest.length ? [`the lowest interval of ${namesText(lowest)}`] : []), ...(highest.length ? [`the highest interval of ${namesText(highest)}`] : [])];
  return `the model sends a missing value along each split's stated direction, so ${parts.join(' and ')} also stand for a missing value`;
}

/**
 * The missing-value routes of the model's own columns: a categorical split's 0/1 feature is
 * 'unused' here, its missing side being part of its value, and XGBoost sends a missing category one
 * way of its own (sweep 12: left on every categorical split, right on every numeric one, which read
 * as "the training data had missing values").
 */
export function columnRoutes(forest: Forest): MissingRoute[] {
  return missingValueRouting(forest).routes.map((r, f) => (forest.features[f]?.setOf ? 'unused' : r));
}

/** Up to eight names, then how many more. */
function namesText(names: readonly string[]): string {
  return names.length <= 8 ? names.join(', ') : `${names.slice(0, 8).join(', ')} and ${names.length - 8} more`;
}

const routings = new WeakMap<Forest, MissingValueRouting>();

/** Per tree: each node's parent (-1 at the root), built once (a million rows, a few hundred leaves). */
const parents = new WeakMap<object, Int32Array>();

function parentsOf(tree: Forest['trees'][number]): Int32Array {
  let p = parents.get(tree);
  if (!p) {
    p = new Int32Array(tree.left.length).fill(-1);
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] === -1) continue;
      p[tree.left[n]] = n;
      p[tree.right[n]] = n;
    }
    parents.set(tree, p);
  }
  return p;
}

/**
 * The features a row missing its value could reach `leaf` through, among those whose splits send a
 * missing value both ways ('mixed'): every split on the feature along the leaf's path sends a
 * missing value the path's way. Such a leaf holds rows of its region or missing that feature, so
 * what it proves about their values leaves the feature unbounded; a path with one split the other
 * way keeps a missing row out, and the leaf's interval stands. (Features whose splits all send it
 * one way are read as their end interval, uniformMissingNote.)
 */
export function missingReachable(forest: Forest, treeIndex: number, leaf: number): number[] {
  const tree = forest.trees[treeIndex];
  if (!tree.defaultLeft) return [];
  // Asked once per leaf: the routing (a pass over every node of every tree) once per forest.
  let routing = routings.get(forest);
  if (!routing) {
    routing = missingValueRouting(forest);
    routings.set(forest, routing);
  }
  const { routes } = routing;
  if (!routes.includes('mixed')) return [];
  const up = parentsOf(tree);
  const seen = new Map<number, boolean>();
  for (let child = leaf, node = up[leaf]; node >= 0; child = node, node = up[node]) {
    const f = tree.feature[node];
    if (routes[f] !== 'mixed') continue;
    const wentLeft = tree.left[node] === child;
    const reachable = tree.defaultLeft[node] === wentLeft;
    seen.set(f, (seen.get(f) ?? true) && reachable);
  }
  return [...seen].flatMap(([f, reachable]) => (reachable ? [f] : []));
}

/**
 * Whether every split of every tree sends a missing value to its larger child (by distinct rows,
 * ties to the right): what scikit-learn does for a feature it saw no missing value of, and what its
 * histogram boosting often does for one it saw missing at random. Such a model may or may not have
 * had missing values: its counts over every tree still make a good estimate of the rows, which one
 * tree's leaf regions then certify (first-tree-regions.ts).
 */
export function largerChildDirections(forest: Forest): boolean {
  let any = false;
  for (const tree of forest.trees) {
    if (!tree.defaultLeft) continue;
    if (!tree.distinctRows) return false;
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] === -1) continue;
      any = true;
      if (tree.defaultLeft[n] !== tree.distinctRows[tree.left[n]] > tree.distinctRows[tree.right[n]]) return false;
    }
  }
  return any;
}
