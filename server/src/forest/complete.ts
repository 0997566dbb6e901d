/**
 * Turns what a native reader built (ForestInput) into a Forest with every default filled in.
 * This is where every reader's IR enters the linter, so it is where the IR is validated
 * (forest/validate.ts: structure, splits, finite numbers, parent = children counts), without
 * re-validating millions of numbers through zod one by one. The `*.forest.json` reader, whose input
 * is untrusted text, runs the full schema before this too.
 */
import { FeatureSchema, ForestSchema, type Feature, type Forest, type ForestInput } from './schema';
import { validateForest } from './validate';

const ForestWithoutTrees = ForestSchema.omit({ trees: true, features: true });
const KINDS: ReadonlySet<string> = new Set(FeatureSchema.shape.kind.removeDefault().options);

export type Completed = { ok: true; forest: Forest } | { ok: false; problem: string; reason?: 'corrupt' | 'too-large' };

export function completeForest(input: ForestInput): Completed {
  const { trees, features: rawFeatures, ...rest } = input;
  const top = ForestWithoutTrees.safeParse(rest);
  if (!top.success) {
    const issue = top.error.issues[0];
    return { ok: false, problem: `${issue.path.join('.') || 'model'}: ${issue.message}` };
  }
  const features = completeFeatures(rawFeatures);
  if (typeof features === 'string') return { ok: false, problem: features };
  if (trees.length === 0) return { ok: false, problem: 'the model has no trees' };
  const forest = { ...top.data, features };
  const invalid = validateForest({ ...forest, trees });
  if (invalid) return { ok: false, ...invalid };
  return { ok: true, forest: { ...forest, trees: trees.map((tree) => ({ ...tree, training: tree.training ?? {} })) } };
}

/**
 * FeatureSchema's parse, by hand: zod spends ~2 us per feature object, seconds on the 2^20
 * features of a hashed-text model (formats/limits.ts), for two fields.
 */
function completeFeatures(features: ForestInput['features']): Feature[] | string {
  if (!Array.isArray(features)) return 'features: Expected array';
  const out: Feature[] = new Array(features.length);
  // Set-split features (forest/set-splits.ts) come after the model's own columns and name one of them.
  let own = -1;
  for (let i = 0; i < features.length; i++) {
    const f = features[i] as { name?: unknown; kind?: unknown; setOf?: unknown } | null;
    if (typeof f !== 'object' || f === null || typeof f.name !== 'string') return `features.${i}.name: Expected string`;
    const kind = f.kind ?? 'unknown';
    if (typeof kind !== 'string' || !KINDS.has(kind)) return `features.${i}.kind: Invalid enum value ${JSON.stringify(kind)}`;
    if (f.setOf === undefined) {
      if (own >= 0) return `features.${i}: a feature of the model's own after a categorical split's 0/1 feature`;
      out[i] = { name: f.name, kind: kind as Feature['kind'] };
      continue;
    }
    if (own < 0) own = i;
    const set = f.setOf as { feature?: unknown; categories?: unknown; side?: unknown; missingLeft?: unknown } | null;
    const valid =
      typeof set === 'object' && set !== null && Number.isInteger(set.feature) && (set.feature as number) >= 0 && (set.feature as number) < own &&
      Array.isArray(set.categories) && set.categories.every((c) => Number.isFinite(c)) && (set.side === 'left' || set.side === 'right') && typeof set.missingLeft === 'boolean';
    if (!valid) return `features.${i}.setOf: expected { feature: one of the model's own columns, categories: [codes], side: 'left' or 'right', missingLeft: boolean }`;
    out[i] = { name: f.name, kind: 'binary', setOf: { feature: set!.feature as number, categories: [...(set!.categories as number[])], side: set!.side as 'left' | 'right', missingLeft: set!.missingLeft as boolean } };
  }
  return out;
}
