/**
 * Turns what a native reader built (ForestInput) into a Forest with every default filled in,
 * checking the structural invariants but not re-validating millions of numbers one by one.
 * The `*.forest.json` reader, whose input is untrusted text, runs the full schema instead.
 */
import { ForestSchema, treeShapeProblem, type Forest, type ForestInput } from './schema';

const ForestWithoutTrees = ForestSchema.omit({ trees: true });

export type Completed = { ok: true; forest: Forest } | { ok: false; problem: string };

export function completeForest(input: ForestInput): Completed {
  const { trees, ...rest } = input;
  const top = ForestWithoutTrees.safeParse(rest);
  if (!top.success) {
    const issue = top.error.issues[0];
    return { ok: false, problem: `${issue.path.join('.') || 'model'}: ${issue.message}` };
  }
  if (trees.length === 0) return { ok: false, problem: 'the model has no trees' };
  const classes = Math.max(1, top.data.classes.length);
  const completed = [];
  for (let t = 0; t < trees.length; t++) {
    const tree = trees[t];
    const problem = treeShapeProblem(tree);
    if (problem) return { ok: false, problem: `tree ${t}: ${problem}` };
    if (tree.classWeights.length !== tree.left.length * classes) {
      return { ok: false, problem: `tree ${t}: ${tree.classWeights.length} class weights for ${tree.left.length} nodes and ${classes} classes` };
    }
    completed.push({ ...tree, training: tree.training ?? {} });
  }
  return { ok: true, forest: { ...top.data, trees: completed } };
}
