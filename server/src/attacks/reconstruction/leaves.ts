/**
 * The forest as the reconstruction sees it: per tree, its leaves, each with the binary literals on
 * its path (`x[f] = 0` or `x[f] = 1`) and its integer per-class training counts. Also decides
 * whether this engine applies at all: forests without bootstrap, exact counts, binary splits.
 */
import type { Forest } from '../../forest/schema';
import { classCount, forEachLeaf, nodeWeight } from '../../forest/structure';

export interface TreeLeaves {
  /** Node id (in the tree) of each leaf, for messages. */
  nodes: Int32Array;
  /** Literals of leaf l are `literalFeature/literalValue[literalStart[l] .. literalStart[l + 1])`. */
  literalStart: Int32Array;
  literalFeature: Int32Array;
  literalValue: Uint8Array;
  /** Training rows of class c in leaf l: `counts[l * classes + c]` (draws, with bootstrap). */
  counts: Int32Array;
  /** Distinct training rows in leaf l (scikit-learn's `n_node_samples`), when stored; read with `bootstrap` only. */
  distinct?: Int32Array;
}

export interface LeafTable {
  features: number;
  classes: number;
  /** Training rows N: every tree saw each of them exactly once. */
  rows: number;
  trees: TreeLeaves[];
}

export type LeafTableResult = { ok: true; table: LeafTable } | { ok: false; reason: string };

/** Counts read back from floating point (scikit-learn stores them as doubles) must be this close to an integer. */
const INTEGER_TOLERANCE = 1e-6;

/**
 * `bootstrap`: read a forest trained with bootstrap (the bootstrap/ methods): its trees saw
 * different draws, so roots need not agree on N, and the distinct in-bag counts are kept.
 */
export function buildLeafTable(forest: Forest, { bootstrap = false }: { bootstrap?: boolean } = {}): LeafTableResult {
  const unsupported = unsupportedModel(forest, bootstrap) ?? nonBinarySplit(forest);
  if (unsupported) return { ok: false, reason: unsupported };
  const classes = classCount(forest);
  const trees: TreeLeaves[] = [];
  let rows: number | undefined = forest.training.rows;
  for (let t = 0; t < forest.trees.length; t++) {
    const tree = forest.trees[t];
    const rootRows = nodeWeight(tree, 0, classes);
    // Without bootstrap every tree is grown on all N rows: each root holds N.
    rows ??= bootstrap ? undefined : Math.round(rootRows);
    if (!bootstrap && Math.abs(rootRows - rows!) > INTEGER_TOLERANCE) {
      return { ok: false, reason: `tree ${t} was trained on ${rootRows} rows, not the model's ${rows}; the trees did not all see the same rows` };
    }
    const nodes: number[] = [];
    const literalStart: number[] = [0];
    const literalFeature: number[] = [];
    const literalValue: number[] = [];
    const counts: number[] = [];
    let problem: string | undefined;
    forEachLeaf(tree, (leaf, path) => {
      nodes.push(leaf);
      for (const step of path) {
        literalFeature.push(step.feature);
        // Thresholds lie strictly between 0 and 1 (checked above): the left branch holds x = 0.
        literalValue.push(step.goesLeft ? 0 : 1);
      }
      literalStart.push(literalFeature.length);
      for (let c = 0; c < classes; c++) {
        const weight = tree.classWeights[leaf * classes + c];
        const count = Math.round(weight);
        if (count < 0 || Math.abs(weight - count) > INTEGER_TOLERANCE) {
          problem ??= `tree ${t} node ${leaf} stores ${weight} rows of class ${String(forest.classes[c])}, not a whole number (sample or class weights)`;
        }
        counts.push(count);
      }
    });
    if (problem) return { ok: false, reason: problem };
    const distinct = bootstrap && tree.distinctRows ? { distinct: Int32Array.from(nodes, (node) => tree.distinctRows![node]) } : {};
    trees.push({
      ...distinct,
      nodes: Int32Array.from(nodes),
      literalStart: Int32Array.from(literalStart),
      literalFeature: Int32Array.from(literalFeature),
      literalValue: Uint8Array.from(literalValue),
      counts: Int32Array.from(counts),
    });
  }
  return { ok: true, table: { features: forest.features.length, classes, rows: rows ?? 0, trees } };
}

/** Why the engine does not apply to this kind of model yet, if it does not. */
function unsupportedModel(forest: Forest, bootstrap: boolean): string | undefined {
  if (forest.task !== 'classification') return 'regression forests are not reconstructed yet';
  if (forest.privacy) return 'differentially private forests (noised counts) are not reconstructed yet';
  if (forest.training.bootstrap && !bootstrap) return 'forests trained with bootstrap are not reconstructed yet';
  if (forest.training.weighted) return 'the counts are sample-weighted, so they do not count rows';
  return undefined;
}

/**
 * Binary features only: a feature is read as 0/1 when every split on it has a threshold strictly
 * between 0 and 1 and either all those thresholds are equal (scikit-learn puts 0.5 between 0 and 1)
 * or the feature is declared binary (ExtraTrees draws a random threshold per split). A feature
 * declared numeric, or split elsewhere, needs interval cells, a later step.
 */
function nonBinarySplit(forest: Forest): string | undefined {
  const thresholdOf = new Map<number, number>();
  for (let t = 0; t < forest.trees.length; t++) {
    const tree = forest.trees[t];
    for (let node = 0; node < tree.left.length; node++) {
      if (tree.left[node] === -1) continue;
      const feature = tree.feature[node];
      const threshold = tree.threshold[node];
      const name = forest.features[feature]?.name ?? `x${feature}`;
      if (feature < 0 || feature >= forest.features.length) return `tree ${t} node ${node} splits on feature ${feature}, which the model does not have`;
      const kind = forest.features[feature].kind;
      if (kind === 'numeric' || kind === 'categorical') return `feature ${name} is declared ${kind}; only binary features are reconstructed yet`;
      if (!(threshold > 0 && threshold < 1)) {
        return `feature ${name} is split at ${threshold} (tree ${t} node ${node}); only binary features (thresholds between 0 and 1) are reconstructed yet`;
      }
      const seen = thresholdOf.get(feature);
      if (seen === undefined) thresholdOf.set(feature, threshold);
      else if (seen !== threshold && kind !== 'binary') {
        return `feature ${name} is split at several thresholds (${seen}, ${threshold}), so it may be numeric; only binary features are reconstructed yet (declare it binary if it is)`;
      }
    }
  }
  return undefined;
}
