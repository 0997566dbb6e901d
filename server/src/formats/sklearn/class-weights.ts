/**
 * Class weights divided back out of the stored counts. With `class_weight` ("balanced" or a dict)
 * every training row of class c weighs the same w_c, so a node stores w_c x (its rows of class c).
 * Without bootstrap, `n_node_samples` counts those rows, so any node that holds class c alone
 * (a pure leaf: there is one in nearly every tree) gives w_c = stored / n_node_samples exactly.
 * The factors are then checked on every node of every tree: the divided counts must be whole
 * numbers that add up to `n_node_samples`. A class never alone in a node takes its factor from a
 * node where every other class's is known. Anything else (bootstrap draws, an arbitrary
 * `sample_weight`, no such node) leaves the counts weighted, as before.
 */
import type { RawTree } from './tree-arrays';

/** Relative tolerance of the checks: scikit-learn sums float64 weights, so exact up to rounding. */
const TOLERANCE = 1e-6;

/**
 * The per-class weights, when the stored weighted counts (`weightedOf(tree, node, class)`) are
 * class-weighted row counts of a model trained without bootstrap; undefined otherwise.
 */
export function classWeightFactors(
  raws: readonly RawTree[],
  nClasses: number,
  weightedOf: (tree: RawTree, node: number, c: number) => number,
): number[] | undefined {
  const factors: (number | undefined)[] = new Array(nClasses).fill(undefined);
  // A node whose classes but one have known factors gives the last one: its rows of that class are
  // the node's rows less the others' (a pure node is the case of no others). Passes repeat while
  // they find factors: a class never alone in a node (34 of 754 rows behind min_samples_leaf=10 in
  // a public forest) is found beside one whose factor a pure node gave.
  for (let found = true; found && factors.includes(undefined); ) {
    found = false;
    for (const t of raws) {
      for (let i = 0; i < t.nodeCount && factors.includes(undefined); i++) {
        const rows = t.nodeSamples[i];
        if (!(rows > 0)) continue;
        let unknown = -1;
        let knownRows = 0;
        for (let c = 0; c < nClasses; c++) {
          const stored = weightedOf(t, i, c);
          if (!(stored > 0)) continue;
          if (factors[c] === undefined) unknown = unknown === -1 ? c : -2;
          else knownRows += stored / factors[c]!;
        }
        if (unknown < 0) continue;
        const rest = Math.round(knownRows);
        if (Math.abs(knownRows - rest) > TOLERANCE * Math.max(1, knownRows) || rows - rest < 1) continue;
        factors[unknown] = weightedOf(t, i, unknown) / (rows - rest);
        found = true;
      }
    }
  }
  if (factors.some((f) => f === undefined || !(f > 0) || !Number.isFinite(f))) return undefined;
  const w = factors as number[];
  for (const t of raws) {
    for (let i = 0; i < t.nodeCount; i++) {
      let rows = 0;
      for (let c = 0; c < nClasses; c++) {
        const x = weightedOf(t, i, c) / w[c];
        if (Math.abs(x - Math.round(x)) > TOLERANCE * Math.max(1, x)) return undefined;
        rows += Math.round(x);
      }
      if (rows !== t.nodeSamples[i]) return undefined;
    }
  }
  return w;
}
