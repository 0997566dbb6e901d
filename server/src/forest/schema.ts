/**
 * The forest intermediate representation (IR): the one shape every reader produces and every
 * rule and analysis consumes. The zod schemas are the source of truth; the TypeScript types are
 * inferred from them. The same schema validates the `*.forest.json` interchange file, and
 * `npm run build` writes it out as a JSON Schema for VS Code (see scripts/bundle.mjs).
 *
 * Node arrays are stored column-wise (one array per attribute, indexed by node id) because
 * forests reach millions of nodes and an object per node costs several times the memory.
 */
import { z } from 'zod';
import { BoostedTreeSchema, BoostingSchema, boostedTreeProblem } from './boosting';
import { PipelineInputSchema } from './pipeline-input';

/** A value a hyper-parameter can take once it is out of its native format. */
export const HyperParameterValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** Marker for a leaf in `left` / `right`, as in scikit-learn (`TREE_LEAF`). */
export const LEAF = -1;

export const TreeSchema = z
  .object({
    /** Child taken when `x[feature] <= threshold` (scikit-learn) or `< threshold` (see `splitRule`); -1 on leaves. */
    left: z.array(z.number().int()),
    /** Child taken otherwise; -1 on leaves. */
    right: z.array(z.number().int()),
    /** Feature index tested at each node; -1 (or any value) on leaves. */
    feature: z.array(z.number().int()),
    /** Split threshold at each node; ignored on leaves. */
    threshold: z.array(z.number()),
    /**
     * Where a missing value goes at each node (true: left). Absent when the format has no notion of it
     * (scikit-learn before 1.3).
     */
    defaultLeft: z.array(z.boolean()).optional(),
    /**
     * Weighted per-class training counts, row-major: `classWeights[node * nClasses + c]`.
     * With bootstrap these count draws with multiplicity (scikit-learn's `weighted_n_node_samples`
     * split by class). For regression, nClasses is 1 and this holds the weighted row count.
     */
    classWeights: z.array(z.number()),
    /** Distinct training rows that reached each node (scikit-learn's `n_node_samples`), when stored. */
    distinctRows: z.array(z.number().int().nonnegative()).optional(),
    /**
     * Regression forests only: the mean target of the training rows (or draws, with bootstrap;
     * weighted by sample weights) that reached each node, what scikit-learn's regression trees
     * store in `value[:, 0, 0]` and predict at a leaf. Absent when the tree's values are not means
     * (`criterion='absolute_error'` stores medians) and for every other kind of model.
     */
    targetMean: z.array(z.number()).optional(),
    /**
     * Regression trees fitted with `criterion='absolute_error'`: the median target of each node's
     * rows (draws), what they store and predict instead of a mean. A leaf of one distinct row
     * states that row's target either way.
     */
    targetMedian: z.array(z.number()).optional(),
    /**
     * Regression forests fitted with `criterion='squared_error'` (or `friedman_mse`) only: the
     * variance of the target over each node's rows (draws), scikit-learn's `impurity`. Zero (up to
     * rounding) means every row in the node has the target `targetMean`.
     */
    targetVariance: z.array(z.number()).optional(),
    /** Per-tree training facts. */
    training: z
      .object({
        /** The integer seed stored with the tree that replays its bootstrap sample, if any. */
        seed: z.number().int().nonnegative().optional(),
      })
      .default({}),
    /** Boosted models only (XGBoost): hessian sums, weights and leaf values (forest/boosting.ts). */
    boosting: BoostedTreeSchema.optional(),
  })
  .superRefine((tree, ctx) => {
    const problem = treeShapeProblem(tree);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
  });

/** A tree's columns as the checks read them (plain or typed arrays; forest/validate.ts adds its own). */
export interface TreeColumns {
  left: ArrayLike<number>;
  right: ArrayLike<number>;
  feature: ArrayLike<number>;
  threshold: ArrayLike<number>;
  classWeights: ArrayLike<number>;
  distinctRows?: ArrayLike<number>;
  targetMean?: ArrayLike<number>;
  targetMedian?: ArrayLike<number>;
  targetVariance?: ArrayLike<number>;
  defaultLeft?: ArrayLike<boolean>;
  boosting?: Parameters<typeof boostedTreeProblem>[0];
}

/**
 * The structural invariants every analysis relies on (equal column lengths, children after their
 * parent so walks terminate, both children or none). Cheap enough to run on every tree a native
 * reader builds, which the full zod parse of millions of numbers would not be.
 */
export function treeShapeProblem(tree: TreeColumns): string | undefined {
  const n = tree.left.length;
  if (n === 0) return 'a tree needs at least one node';
  for (const key of ['right', 'feature', 'threshold', 'distinctRows', 'targetMean', 'targetMedian', 'targetVariance', 'defaultLeft'] as const) {
    const column = tree[key];
    if (column && column.length !== n) return `${key} has ${column.length} entries, left has ${n}`;
  }
  if (tree.boosting) {
    const problem = boostedTreeProblem(tree.boosting, n);
    if (problem) return problem;
  }
  if (tree.classWeights.length % n !== 0) return `classWeights has ${tree.classWeights.length} entries, not a multiple of ${n} nodes`;
  for (let i = 0; i < n; i++) {
    const left = tree.left[i];
    const right = tree.right[i];
    if ((left === LEAF) !== (right === LEAF)) return `node ${i} has exactly one child`;
    if (left !== LEAF && (left <= i || left >= n || right <= i || right >= n)) {
      return `node ${i} has children ${left} and ${right}; children must come after their parent and exist`;
    }
  }
  return undefined;
}

export const FeatureSchema = z.object({
  name: z.string(),
  /** What values the feature takes, when known (from a sidecar, settings or the format). */
  kind: z.enum(['numeric', 'binary', 'categorical', 'unknown']).default('unknown'),
  /**
   * A 0/1 feature standing for a categorical split (forest/set-splits.ts): 1 for a row the split
   * sends right (feature `feature`'s category listed in `categories` when `side` is 'right', not
   * listed when 'left'; a missing value right unless `missingLeft`), else 0. Computed from that
   * column; no data file holds it.
   */
  setOf: z.object({ feature: z.number().int().nonnegative(), categories: z.array(z.number()), side: z.enum(['left', 'right']), missingLeft: z.boolean() }).optional(),
});

export const PrivacySchema = z.object({
  /** The mechanism that noised the stored counts. */
  mechanism: z.enum(['laplace-leaf-counts']),
  /** Total privacy budget of the model. */
  epsilon: z.number().positive(),
  /** How the budget is split: `per-tree` gives each tree epsilon / trees (DRAFT-DP, Jagannathan et al.). */
  split: z.enum(['per-tree', 'per-level', 'other']).default('per-tree'),
  /** How noisy counts were rounded: `truncate` is `int(count + noise)`. */
  rounding: z.enum(['truncate', 'round', 'none']).default('truncate'),
});

export const ForestSchema = z.object({
  /** Interchange format tag; readers of native formats set it too. */
  format: z.literal('model-privacy-lint/forest').default('model-privacy-lint/forest'),
  formatVersion: z.literal(1).default(1),
  library: z.object({
    name: z.string(),
    version: z.string().optional(),
  }),
  /** The estimator's class name, e.g. `RandomForestClassifier`. */
  estimator: z.string(),
  /**
   * `outlier-detection`: an unsupervised model (scikit-learn's IsolationForest). Its trees count
   * training rows like a regressor's, but the rows have no label or target: the node values were
   * fitted to random numbers and are not read.
   */
  task: z.enum(['classification', 'regression', 'outlier-detection']).default('classification'),
  /**
   * A multi-output model (scikit-learn's `n_outputs_` above 1: several labels or targets per
   * row): how many outputs it has. The trees hold the first output's class counts (or mean
   * targets), which count the same rows as any output's; `classes` are the first output's, and the
   * other outputs' labels are not read. Absent: one output.
   */
  outputs: z.number().int().min(2).optional(),
  /** Class labels in the order of `classWeights`. */
  classes: z.array(z.union([z.string(), z.number(), z.boolean()])),
  /** Features in the order of `Tree.feature`; names are `x0..` when the model stored none. */
  features: z.array(FeatureSchema),
  /**
   * `pipeline`: the model stored no names and these are the names its Pipeline's earlier steps
   * give (scikit-learn's get_feature_names_out); a CSV may still be matched to them by position.
   */
  featureNamesFrom: z.enum(['pipeline']).optional(),
  /**
   * Groups of 0/1 features the file itself proves, by feature index: the columns a Pipeline's
   * OneHotEncoder wrote for one input (`one-hot`: exactly one is 1 in every training row;
   * `at-most-one` when the encoder drops a category or encodes unknown ones as zeros). The
   * reconstruction uses them as it uses declared groups (recoverability/declared-groups.ts).
   */
  featureGroups: z
    .array(z.object({ kind: z.enum(['one-hot', 'at-most-one']), features: z.array(z.number().int().nonnegative()).min(2) }))
    .optional(),
  /**
   * For a model at the end of a Pipeline: how each of its features is computed from the columns
   * the Pipeline was given (./pipeline-input.ts), so a CSV of those columns (raw ages, category
   * names, empty cells) can be lined up with the model. Absent when a step cannot be followed.
   */
  pipelineInput: PipelineInputSchema.optional(),
  /** Whether a node sends `x <= threshold` left (scikit-learn) or `x < threshold` left (XGBoost). */
  splitRule: z.enum(['less-or-equal', 'less']).default('less-or-equal'),
  hyperParameters: z.record(HyperParameterValue).default({}),
  training: z.object({
    /** Training rows N, when the model states it (for forests without bootstrap: the root count). */
    rows: z.number().int().nonnegative().optional(),
    bootstrap: z.boolean(),
    /** Rows drawn per tree when bootstrapping (scikit-learn's `max_samples` resolved against N). */
    bootstrapSize: z.number().int().nonnegative().optional(),
    /**
     * With `bootstrap`: each tree drew its rows without replacement (gradient boosting's
     * `subsample`), so every drawn row counts once and the counts are distinct rows per class.
     */
    withoutReplacement: z.boolean().optional(),
    /** Whether counts are sample-weighted (non-integer weights found), which defeats exact counting. */
    weighted: z.boolean().default(false),
    /**
     * How many seeds the ensemble stores from which its library regenerates every tree's sample
     * (scikit-learn's BaggingClassifier `_seeds`: `estimators_samples_` gives each tree's row
     * indices to whoever loads the file). Not replayed by this tool; the rule warns.
     */
    samplerSeeds: z.number().int().nonnegative().optional(),
    /**
     * Early stopping held out part of the rows given to fit as a validation split that no tree saw
     * (scikit-learn's `validation_fraction`): `rows` counts the rows the trees grew on. `fitRows`,
     * the rows given to fit, when exactly one number fits the split (formats/sklearn/validation-split.ts).
     */
    heldOut: z.object({ fraction: z.number().positive(), fitRows: z.number().int().nonnegative().optional() }).optional(),
    /**
     * One of a CalibratedClassifierCV's fold models (formats/sklearn/calibration-folds.ts): fitted on
     * the rows outside its fold. `group` names its siblings (their shared location prefix);
     * `partition`: the folds' test parts partition the rows, so the rows given to fit follow from
     * every fold model's N.
     */
    crossValidationFold: z.object({ group: z.string(), folds: z.number().int().min(2), partition: z.boolean() }).optional(),
    /**
     * Samplers a Pipeline runs before the model (imbalanced-learn's SMOTE, RandomUnderSampler):
     * the model was fitted on their output, so its training rows include the synthetic rows an
     * over-sampler made and lack the rows an under-sampler dropped.
     */
    resampledBy: z.array(z.string()).optional(),
  }),
  trees: z.array(TreeSchema).min(1),
  privacy: PrivacySchema.optional(),
  /** Boosted models only (XGBoost): objective, base score, output groups (forest/boosting.ts). */
  boosting: BoostingSchema.optional(),
  /**
   * A classifier read as row counts only, whose classes no tree's counts give (scikit-learn's
   * gradient boosting with another loss or sample weights): its class labels, for what the model
   * is (the summary's task and classes); nothing is reconstructed from them.
   */
  countViewClasses: z.array(z.union([z.string(), z.number(), z.boolean()])).optional(),
  /**
   * A member of scikit-learn's OneVsRestClassifier: a binary model of "this class or not", whose
   * classes 0 and 1 are "not `positive`" and `positive` (formats/sklearn/member-roles.ts).
   */
  oneVsRest: z.object({ positive: z.union([z.string(), z.number(), z.boolean()]) }).optional(),
  /**
   * A member of scikit-learn's OneVsOneClassifier or OutputCodeClassifier (formats/sklearn/
   * member-roles.ts): fitted on recoded labels (its `classes` are then what they stand for) and,
   * one vs one, on the rows of two classes only, so it says nothing of the file's other rows.
   */
  recoded: z.object({ by: z.enum(['OneVsOneClassifier', 'OutputCodeClassifier']), classes: z.array(z.union([z.string(), z.number(), z.boolean()])) }).optional(),
  /**
   * A model behind Pipeline steps the reader does not follow (a FunctionTransformer, a
   * KBinsDiscretizer): which, in words. Its features are the steps' output, which a CSV of the
   * Pipeline's input does not hold, whatever its column count.
   */
  stepsNotFollowed: z.string().optional(),
  /** A member of a MultiOutputClassifier or MultiOutputRegressor: the model of output `output` of `outputs`. */
  multiOutput: z.object({ output: z.number().int().nonnegative(), outputs: z.number().int().positive() }).optional(),
  /**
   * A regressor inside a TransformedTargetRegressor: it was fitted on the transformed target (its
   * leaves' values are in that scale): how (`numpy.log1p`, `StandardScaler`).
   */
  targetTransform: z.string().optional(),
  /**
   * Classifiers whose trees are read as row counts only (scikit-learn's multi-class gradient
   * boosting: `task` regression, one count column per node, `classes` empty): the class labels,
   * and per class the tree whose stored values give that class's training rows at every node,
   * exactly (stage 0's tree of the class). attacks/reconstruction/counted-class-labels.ts reads
   * the rows' classes from them.
   */
  countedClasses: z
    .object({
      classes: z.array(z.union([z.string(), z.number(), z.boolean()])).min(2),
      /** `trees[k]`: the tree counting class k, and class k's rows at each of its nodes. */
      trees: z.array(z.object({ tree: z.number().int().nonnegative(), rows: z.array(z.number().int().nonnegative()) })),
    })
    .optional(),
  /**
   * scikit-learn's log-loss gradient boosting (GradientBoostingClassifier,
   * HistGradientBoostingClassifier): how every stage's trees were fitted, so that any row's class
   * probabilities before each stage follow, and with them each leaf's Newton step as an equation on
   * its rows (membership/newton-steps.ts). The stages are count trees (one column: the rows the
   * stage grew on), each with `boosting.leafValue` (what a leaf adds to its class's margin) and
   * `boosting.group` (the class it scores, 0 for a binary model; stage tree t scores group t mod the
   * groups; checked).
   */
  logLoss: z
    .object({
      /** The class labels, in the order of the groups (a binary model: the negative class, then the positive). */
      classes: z.array(z.union([z.string(), z.number(), z.boolean()])).min(2),
      /** The margin every row starts from, per group: one for a binary model (class 1's log-odds), else one per class. */
      initialMargins: z.array(z.number()).min(1),
      learningRate: z.number().positive(),
      /**
       * A leaf's weight w = leafValue / learningRate solves, over the rows its stage grew on,
       * gradientScale x sum(y - p) = w x (sum p (1 - p) + lambda): scikit-learn's multinomial
       * gradient boosting steps by (K - 1) / K, everything else by 1.
       */
      gradientScale: z.number().positive(),
      lambda: z.number().nonnegative(),
      /** Below 1: each stage grew on its own draw of int(subsample x N) rows, without replacement. */
      subsample: z.number().gt(0).lte(1).default(1),
      /**
       * The stages' trees when they are not the forest's own (a binary model with subsample is read
       * as its stage 0 alone, a classification tree); absent: the forest's trees are the stages.
       */
      stages: z.array(TreeSchema).optional(),
    })
    .optional(),
});

export type Tree = z.infer<typeof TreeSchema>;
export type Feature = z.infer<typeof FeatureSchema>;
export type Privacy = z.infer<typeof PrivacySchema>;
export type Forest = z.infer<typeof ForestSchema>;
/** What readers build: defaults may be left out, the linter parses nothing again. */
export type ForestInput = z.input<typeof ForestSchema>;
