/**
 * A differentially private model's trees filled again with the true training rows: exact counts on
 * the same, data-independent structure. This is what the mechanism starts from before it adds its
 * noise, so the scenarios at other epsilons are the mechanism itself, not a simulation on top of
 * the noise already released (which the stored counts carry and which cannot be taken out).
 */
import { LEAF, type Forest } from '../forest/schema';
import type { EvaluatedRow } from '../evaluate/metrics';

/** Null when a row cannot be routed (an undetermined value the trees test, or a label the model does not know). */
export function refillWithRows(forest: Forest, rows: readonly EvaluatedRow[]): Forest | null {
  const classes = forest.classes.length;
  const less = forest.splitRule === 'less';
  const classOf = rows.map((row) => forest.classes.findIndex((c) => c === row.label));
  if (classOf.some((c) => c < 0)) return null;
  const trees = [];
  for (const tree of forest.trees) {
    const weights = new Array<number>(tree.left.length * classes).fill(0);
    for (let r = 0; r < rows.length; r++) {
      const values = rows[r].values;
      let node = 0;
      weights[classOf[r]]++;
      while (tree.left[node] !== LEAF) {
        const value = values[tree.feature[node]];
        if (value === null || value === undefined) return null;
        const goesLeft = less ? value < tree.threshold[node] : value <= tree.threshold[node];
        node = goesLeft ? tree.left[node] : tree.right[node];
        weights[node * classes + classOf[r]]++;
      }
    }
    const refilled = { ...tree, classWeights: weights, training: {} };
    delete refilled.distinctRows;
    trees.push(refilled);
  }
  const { privacy: _privacy, ...rest } = forest;
  return { ...rest, training: { ...forest.training, rows: rows.length, bootstrap: false, withoutReplacement: false }, trees };
}
