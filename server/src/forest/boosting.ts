/**
 * The part of the IR only boosted models have (XGBoost). Kept in its own module so that the
 * forest schema gains two optional fields and nothing else.
 *
 * A boosted tree stores no class counts. What it stores instead is, per node, the sum of the
 * training rows' hessians (XGBoost's `cover`) and the node's weight -G / (H + lambda); on the
 * first tree of a logistic model every row has the same hessian, so those two numbers are row and
 * label counts in disguise (attacks/first-tree-probe.ts). For boosted models `classWeights` is
 * all zeros (the file holds no counts) and the forest rules that read counts skip the model.
 */
import { z } from 'zod';

export const BoostedTreeSchema = z.object({
  /** Sum of the hessians of the training rows that reached each node (`sum_hessian`, dumps' `cover`). */
  cover: z.array(z.number()).optional(),
  /** The node's weight before the learning rate, -G / (H + lambda) (`base_weights`); models only, not dumps. */
  baseWeight: z.array(z.number()).optional(),
  /** What a leaf adds to the margin (learning rate x weight); ignored on internal nodes. */
  leafValue: z.array(z.number()),
  /** Loss reduction of each split (`loss_changes`, dumps' `gain`); 0 on leaves. */
  gain: z.array(z.number()).optional(),
  /** Output group (class, for multi-class models) the tree adds to (`tree_info`). */
  group: z.number().int().nonnegative(),
  /** The node's id in the file, when the reader renumbered nodes (unreachable nodes dropped). */
  nodeId: z.array(z.number().int()).optional(),
});

export const BoostingSchema = z.object({
  /** The objective, e.g. `binary:logistic`, `multi:softprob`, `reg:squarederror`; `unknown` for dumps. */
  objective: z.string(),
  /** The global bias as stored (a probability for logistic objectives), one per output group or one for all. */
  baseScore: z.array(z.number()).min(1),
  /** False when the file does not state the base score (dumps) and `baseScore` is XGBoost's default. */
  baseScoreStated: z.boolean().default(true),
  /** Output groups: the number of classes for multi-class models, 1 otherwise. */
  outputGroups: z.number().int().positive().default(1),
  /** `model` for save_model files, `dump` for dump_model output (which carries statistics only if asked). */
  source: z.enum(['model', 'dump']),
  /** Version of the library that wrote the file, when stated (`[2, 0, 3]`). */
  libraryVersion: z.array(z.number().int()).optional(),
  /**
   * `dart` when the trees were fitted with dropout (XGBoost's dart booster): each later tree was fitted
   * to predictions with some trees dropped, so only the first tree's gradients follow from the file.
   * Absent: gbtree (every tree fitted to the sum of the trees before it).
   */
  booster: z.enum(['gbtree', 'dart']).optional(),
});

export type BoostedTree = z.infer<typeof BoostedTreeSchema>;
export type Boosting = z.infer<typeof BoostingSchema>;

/** Length checks of a tree's boosting columns against its node count (see treeShapeProblem). */
export function boostedTreeProblem(boosting: { cover?: ArrayLike<number>; baseWeight?: ArrayLike<number>; leafValue: ArrayLike<number>; gain?: ArrayLike<number>; nodeId?: ArrayLike<number> }, nodes: number): string | undefined {
  for (const key of ['cover', 'baseWeight', 'leafValue', 'gain', 'nodeId'] as const) {
    const column = boosting[key];
    if (column && column.length !== nodes) return `boosting.${key} has ${column.length} entries for ${nodes} nodes`;
  }
  return undefined;
}

/** The id a node has in its file (what a dump shows before the colon). */
export function nativeNodeId(tree: { boosting?: { nodeId?: readonly number[] } }, node: number): number {
  return tree.boosting?.nodeId?.[node] ?? node;
}

/** Objectives whose trees are fitted with the logistic loss (hessian p (1 - p), gradient p - y on 0/1 labels). */
export const LOGISTIC_OBJECTIVES = ['binary:logistic', 'binary:logitraw', 'reg:logistic'] as const;

export function isLogistic(objective: string): boolean {
  return (LOGISTIC_OBJECTIVES as readonly string[]).includes(objective);
}

/**
 * The margin every row starts from, as XGBoost derives it from the stored base score (the
 * objective's ProbToMargin): binary:logistic and reg:logistic store a probability (the margin is its
 * logit); binary:logitraw stores the margin itself (measured: its first tree's root cover is
 * N sigmoid(0.5) (1 - sigmoid(0.5)) for base_score 0.5, not N / 4); squared error the margin itself.
 */
export function baseMargin(boosting: { objective: string; baseScore: readonly number[] }): number {
  const base = boosting.baseScore[0];
  if (boosting.objective === 'binary:logistic' || boosting.objective === 'reg:logistic') return Math.log(base / (1 - base));
  return base;
}

/**
 * XGBoost's `scale_pos_weight` (1 when not stated): its binary objectives multiply every positive
 * row's gradient and hessian by it, so a leaf's cover is h (n0 + s n1) over its rows.
 */
export function positiveWeight(forest: { hyperParameters: Record<string, unknown> }): number {
  const spw = forest.hyperParameters.scale_pos_weight;
  return typeof spw === 'number' && Number.isFinite(spw) && spw > 0 ? spw : 1;
}
