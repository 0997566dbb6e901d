/**
 * The IR's entry check: every tree every reader builds passes here (completeForest calls it) before
 * any rule, walk or formulation sees it, so none of them has to defend itself against a damaged or
 * hostile file. One pass over each column, no allocation per node beyond a parent-count and a
 * depth array: linear in nodes and indifferent to whether a column is a plain or a typed array.
 *
 * What is checked, and why each check holds for every real model:
 *  - shape: equal column lengths, classWeights = nodes x classes, boosting columns per node
 *    (treeShapeProblem, reused), the output group within the model's groups;
 *  - structure: both children or none, children after their parent and inside the tree (so walks
 *    terminate: no cycle can exist), and every non-root node the child of exactly one parent (with
 *    children after parents this means every node is reached exactly once from the root);
 *  - splits: feature index in [0, features) and a finite threshold on every internal node (leaves
 *    carry placeholders: scikit-learn stores -2 there, XGBoost the leaf value);
 *  - numbers: classWeights, cover and leaf values finite (NaN or infinity would poison every sum);
 *    distinctRows whole and non-negative;
 *  - counts: an internal node's counts are its children's summed, per column:
 *      distinctRows (scikit-learn's n_node_samples, whole rows): exactly;
 *      classWeights (weighted class counts or draws, sums of doubles in any order): within
 *        COUNT_TOLERANCE relative, since sample weights make them non-integer sums;
 *      boosting.cover (hessian sums, float32 in XGBoost and printed to ~6 digits in dumps): within
 *        COVER_TOLERANCE relative.
 *    Exempt: classWeights of a model with `privacy` (a DP mechanism may noise each node's counts
 *    on their own, so parent and children need not add up), targetMean, targetMedian and targetVariance (a mean, a median and a variance, not counts),
 *    gain and baseWeight (not additive).
 *  - depth: at most MAX_TREE_DEPTH levels (reason too-large, not corrupt: see below).
 */
import { LEAF, treeShapeProblem, type TreeColumns } from './schema';

/** Relative slack on summed class weights: sums of doubles in different orders differ by ~1e-12. */
export const COUNT_TOLERANCE = 1e-6;
/** Relative slack on hessian sums: float32 storage (~6e-8 each) and dumps' 6 significant digits (~5e-6 each). */
export const COVER_TOLERANCE = 1e-4;

/** The columns the validator reads; plain or typed arrays. */
export interface CheckedTree extends Omit<TreeColumns, 'boosting'> {
  boosting?: NonNullable<TreeColumns['boosting']> & { group: number };
}

export interface CheckedForest {
  classes: readonly unknown[];
  features: readonly unknown[];
  trees: readonly CheckedTree[];
  privacy?: unknown;
  boosting?: { outputGroups?: number };
  countedClasses?: { classes: readonly unknown[]; trees: readonly { tree: number; rows: ArrayLike<number> }[] };
  logLoss?: { classes: readonly unknown[]; initialMargins: readonly unknown[]; stages?: readonly CheckedTree[] };
}

/** Why a forest is refused: `corrupt` (inconsistent) or `too-large` (sound, but beyond the analyses' limits). */
export interface Invalid {
  problem: string;
  reason: 'corrupt' | 'too-large';
}

/**
 * Deepest tree analysed. Rules and the report walk every leaf with its path, so a chain-shaped
 * tree costs depth^2: 5,000 levels lint in ~1.2 s, 10,000 in ~3 s, 20,000 in ~10 s (2 cores).
 * Genuine trees are far shallower (depth ~ log2 of the rows for balanced splits; XGBoost's
 * max_depth is rarely over 20). Found by the deep-nesting fuzz cases (fuzz-bombs.test.ts).
 */
export const MAX_TREE_DEPTH = 5_000;

/** The first thing wrong with the forest, naming tree and node, with its reason; undefined when sound. */
export function validateForest(forest: CheckedForest): Invalid | undefined {
  const classes = Math.max(1, forest.classes.length);
  const features = forest.features.length;
  // The forest's trees add to output groups when they are the log-loss stages themselves.
  const groups = forest.boosting?.outputGroups ?? (forest.logLoss && !forest.logLoss.stages ? forest.logLoss.initialMargins.length : 1);
  const noisedCounts = forest.privacy !== undefined;
  for (let t = 0; t < forest.trees.length; t++) {
    const problem = treeProblem(forest.trees[t], classes, features, groups, noisedCounts);
    if (problem) return { problem: `tree ${t}${problem.startsWith(':') ? '' : ' '}${problem}`, reason: 'corrupt' };
    const depth = depthProblem(forest.trees[t]);
    if (depth) return { problem: `tree ${t} ${depth}`, reason: 'too-large' };
  }
  const counted = forest.countedClasses ? countedClassesProblem(forest.countedClasses, forest.trees) : undefined;
  if (counted) return { problem: `countedClasses: ${counted}`, reason: 'corrupt' };
  const steps = forest.logLoss ? logLossProblem(forest.logLoss, forest, features) : undefined;
  if (steps) return { problem: `logLoss: ${steps}`, reason: 'corrupt' };
  return undefined;
}

/**
 * countedClasses: one tree per class, each a tree of the forest, with one count per node that is
 * at most the node's rows (its one count column) and whose children add up to it.
 */
function countedClassesProblem(counted: NonNullable<CheckedForest['countedClasses']>, trees: readonly CheckedTree[]): string | undefined {
  if (counted.trees.length !== counted.classes.length) return `${counted.trees.length} class trees for ${counted.classes.length} classes`;
  for (let k = 0; k < counted.trees.length; k++) {
    const { tree: t, rows } = counted.trees[k];
    const tree = trees[t];
    if (!tree) return `class ${k} names tree ${t}, the model has ${trees.length}`;
    const n = tree.left.length;
    if (rows.length !== n || tree.classWeights.length !== n) return `class ${k}'s tree ${t} has ${n} nodes, one count column each, and ${rows.length} class counts`;
    for (let i = 0; i < n; i++) {
      if (!(Number.isInteger(rows[i]) && rows[i] >= 0 && rows[i] <= tree.classWeights[i])) return `class ${k}'s tree ${t} node ${i} has ${rows[i]} rows of the class and ${tree.classWeights[i]} rows`;
      const l = tree.left[i];
      if (l !== LEAF && rows[i] !== rows[l] + rows[tree.right[i]]) return `class ${k}'s tree ${t} node ${i} has ${rows[i]} rows of the class, its children ${rows[l]} + ${rows[tree.right[i]]}`;
    }
  }
  return undefined;
}

/**
 * logLoss: a margin per class (one for two), and stages (its own, or the forest's trees) in whole
 * rounds, stage tree t adding leaf values to group t mod the groups; its own stages are count trees
 * (one column) checked as the forest's are.
 */
function logLossProblem(logLoss: NonNullable<CheckedForest['logLoss']>, forest: CheckedForest, features: number): string | undefined {
  const groups = logLoss.initialMargins.length;
  if (groups !== (logLoss.classes.length === 2 ? 1 : logLoss.classes.length)) return `${groups} initial margins for ${logLoss.classes.length} classes`;
  const stages = logLoss.stages ?? forest.trees;
  if (stages.length % groups !== 0) return `${stages.length} stage trees are not whole rounds of ${groups}`;
  for (let t = 0; t < stages.length; t++) {
    if (stages[t].boosting?.group !== t % groups) return `stage tree ${t} has no leaf values for group ${t % groups}`;
    const problem = logLoss.stages ? treeProblem(stages[t], 1, features, groups) : undefined;
    if (problem) return `stage tree ${t}${problem.startsWith(':') ? '' : ' '}${problem}`;
  }
  return undefined;
}

/** validateForest's problem alone. */
export function forestProblem(forest: CheckedForest): string | undefined {
  return validateForest(forest)?.problem;
}

/** Depths in one pass, since children come after their parent (checked by treeProblem first). */
function depthProblem(tree: CheckedTree): string | undefined {
  const n = tree.left.length;
  const depth = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const l = tree.left[i];
    if (l === LEAF) continue;
    const d = depth[i] + 1;
    if (d > MAX_TREE_DEPTH) return `is deeper than ${MAX_TREE_DEPTH} levels (node ${l}), more than this tool analyses`;
    depth[l] = d;
    depth[tree.right[i]] = d;
  }
  return undefined;
}

/** One tree's first problem, worded to follow "tree t" ("node 3 has ..."); undefined when sound. */
export function treeProblem(tree: CheckedTree, classes: number, features: number, groups = 1, noisedCounts = false): string | undefined {
  const shape = treeShapeProblem(tree);
  if (shape) return shape.startsWith('node ') ? shape : `: ${shape}`;
  const n = tree.left.length;
  if (tree.classWeights.length !== n * classes) return `: ${tree.classWeights.length} class weights for ${n} nodes and ${classes} classes`;
  const boosting = tree.boosting;
  if (boosting && !(Number.isInteger(boosting.group) && boosting.group >= 0 && boosting.group < groups)) {
    return `: adds to output group ${boosting.group}, the model has ${groups}`;
  }
  const { left, right, feature, threshold, classWeights, distinctRows } = tree;
  const cover = boosting?.cover;
  const leafValue = boosting?.leafValue;
  // Pass 1: every number a count check below adds is finite (NaN would fail a sum, not say why).
  for (let k = 0; k < classWeights.length; k++) {
    if (!Number.isFinite(classWeights[k])) return `node ${Math.floor(k / classes)} has class weight ${classWeights[k]}${classes > 1 ? ` (class ${k % classes})` : ''}; counts must be finite`;
  }
  for (let i = 0; i < n; i++) {
    if (distinctRows && !(Number.isInteger(distinctRows[i]) && distinctRows[i] >= 0)) return `node ${i} has ${distinctRows[i]} distinct rows; a row count must be a whole number >= 0`;
    if (cover && !Number.isFinite(cover[i])) return `node ${i} has cover ${cover[i]}; hessian sums must be finite`;
    if (leafValue && left[i] === LEAF && !Number.isFinite(leafValue[i])) return `node ${i} (a leaf) has value ${leafValue[i]}; leaf values must be finite`;
  }
  // Pass 2: structure, splits and counts. Parents per node: with children after their parent,
  // exactly one each (the root: none) makes a tree.
  const parents = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const l = left[i];
    if (l === LEAF) continue;
    const r = right[i];
    if (l === r || parents[l]++ > 0 || parents[r]++ > 0) return `node ${i} has child ${l === r || parents[l] > 1 ? l : r} twice or shared with another node; every node needs exactly one parent`;
    const f = feature[i];
    if (!(Number.isInteger(f) && f >= 0 && f < features)) return `node ${i} splits on feature ${f}, the model has ${features} feature${features === 1 ? '' : 's'}`;
    if (!Number.isFinite(threshold[i])) return `node ${i} splits at threshold ${threshold[i]}; a threshold must be finite`;
    if (distinctRows && distinctRows[i] !== distinctRows[l] + distinctRows[r]) {
      return `node ${i} has ${distinctRows[i]} distinct rows, its children ${distinctRows[l]} + ${distinctRows[r]}; a parent's rows are its children's`;
    }
    if (!noisedCounts) {
      for (let c = 0; c < classes; c++) {
        const p = classWeights[i * classes + c];
        const sum = classWeights[l * classes + c] + classWeights[r * classes + c];
        if (!near(p, sum, COUNT_TOLERANCE)) {
          return `node ${i} has class weight ${p}${classes > 1 ? ` (class ${c})` : ''}, its children ${sum} together; a parent's counts are its children's`;
        }
      }
    }
    if (cover && !near(cover[i], cover[l] + cover[r], COVER_TOLERANCE)) {
      return `node ${i} has cover ${cover[i]}, its children ${cover[l] + cover[r]} together; a parent's hessian sum is its children's`;
    }
  }
  // Children after parents and one parent each leaves no node unreached but the root; check anyway
  // in case a node was never named as a child (it then has no parent).
  for (let i = 1; i < n; i++) if (parents[i] === 0) return `node ${i} is not reached from the root (no node has it as a child)`;
  return undefined;
}

function near(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}
