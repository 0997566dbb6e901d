/**
 * What a model predicts, as every layer asks it. One predicate, so that rules, reconstruction,
 * evaluation, membership and the reports agree on which models have rows without a label.
 */
import type { Forest } from './schema';

/** The IR's task: `classification`, `regression`, or `outlier-detection` (scikit-learn's IsolationForest). */
export type ModelTask = Forest['task'];

/**
 * Whether the model's training rows have no label or target at all (not even an estimated one):
 * an outlier detector's trees were fitted to random numbers, so its rows are the features alone.
 * Takes the IR or the CLI's model summary (absent when the file could not be read: labelled).
 */
export function hasNoLabels(model: { task?: ModelTask } | null | undefined): boolean {
  return model?.task === 'outlier-detection';
}
