/**
 * What the linter reports about a model: its summary (the `model` of the CLI's JSON), a type of its
 * own so that the privacy report's model (report/model.ts) and the linter's FileReport can both
 * use it without importing each other.
 */
import type { ModelTask } from '../forest/task';

/** The model facts every consumer shows (part of the CLI's JSON contract, docs/cli.md). */
export interface ModelSummary {
  library: string;
  libraryVersion: string | null;
  estimator: string;
  /** What the model predicts: `outlier-detection` (IsolationForest) has rows without a label. */
  task: ModelTask;
  trees: number;
  classes: (string | number | boolean)[];
  /** The columns the model reads, as its user counts them (categorical splits' 0/1 features aside). */
  features: number;
  /** The 0/1 features standing for categorical splits of those columns (forest/set-splits.ts), when any. */
  categorySetFeatures?: number;
  trainingRows: number | null;
  /**
   * Where `trainingRows` comes from: `file` (the file states it: forests' root counts,
   * `*.forest.json`), `replay` (bootstrap replay established it), `probe` (first-tree probing of a
   * boosted model proves it from the hessian sums); null when N is unknown.
   */
  trainingRowsSource: TrainingRowsSource | null;
  bootstrap: boolean;
  /**
   * With `bootstrap`: each tree drew its rows without replacement (gradient boosting's `subsample`,
   * bagging's `max_samples` without bootstrap), so each drawn row counts once. Absent otherwise.
   */
  withoutReplacement?: true;
  maxDepth: number;
  /**
   * Where the model sits in the saved object (`model.named_steps["rf"]`), when the file holds it
   * inside a Pipeline, a search, a container...; null when the file is the model itself.
   */
  location: string | null;
  /**
   * Labels or targets per row: above 1 for a multi-output model, of which the first output's are
   * read (its `classes`, its reconstructed labels); the others are not.
   */
  outputs?: number;
  /**
   * Early stopping held out a validation split that no tree saw: its `validation_fraction`, and
   * the rows given to fit (`trainingRows` plus the held-out ones) when the split determines them.
   */
  heldOut?: { fraction: number; fitRows: number | null };
  /**
   * One of a CalibratedClassifierCV's fold models, each fitted on the rows outside its fold: how
   * many folds, and the rows given to fit when every fold model's N tells them (else null).
   */
  crossValidation?: { folds: number; fitRows: number | null };
}

/** A further tree model of the same file: its summary; its findings are among the file's. */
export interface EmbeddedSummary extends ModelSummary {
  location: string;
}

export type TrainingRowsSource = 'file' | 'replay' | 'probe';
