/**
 * Rows of an outlier detector (scikit-learn's IsolationForest, task `outlier-detection`). Its
 * training rows have no label or target (the trees were fitted to random numbers), so the methods
 * that run on its count view (one class: "a row") are the whole answer: a row proven as a box is
 * certified whole, nothing is left to estimate, and the label column stays empty.
 */
import type { ReconstructionResult } from './types';

/** The count view's rows as an outlier detector's: no label, certified boxes kept as certified. */
export function withoutLabels(result: ReconstructionResult): ReconstructionResult {
  const note = 'an outlier detector: its training rows have no label, so a row proven as a box is certified whole';
  return {
    ...result,
    reason: [result.reason, note].filter((x) => x).join('; '),
    reconstruction: result.reconstruction.map((row) => ({ ...row, label: '' })),
  };
}
