/**
 * Turns what a native reader built (ForestInput) into a Forest with every default filled in.
 * This is where every reader's IR enters the linter, so it is where the IR is validated
 * (forest/validate.ts: structure, splits, finite numbers, parent = children counts), without
 * re-validating millions of numbers through zod one by one. The `*.forest.json` reader, whose input
 * is untrusted text, runs the full schema before this too.
 */
import { ForestSchema, type Forest, type ForestInput } from './schema';
import { forestProblem } from './validate';

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
  const problem = forestProblem({ ...top.data, trees });
  if (problem) return { ok: false, problem };
  return { ok: true, forest: { ...top.data, trees: trees.map((tree) => ({ ...tree, training: tree.training ?? {} })) } };
}
