/**
 * In which precision a model compares a feature value with its thresholds. scikit-learn's trees,
 * forests and GradientBoosting* cast X to float32 (their DTYPE) and compare it with float64
 * thresholds; XGBoost compares float32 values with float32 thresholds. HistGradientBoosting* keeps
 * X in float64 (its X_DTYPE) and bins at float64 thresholds, which often equal a training value
 * exactly (quantile bins past 255 distinct values): cast to float32, such a value can land on the
 * other side (a diabetes row at x5 = -0.0010007289644291908, a threshold's exact value).
 */
import type { Forest } from './schema';

export function comparesAsFloat32(forest: Pick<Forest, 'estimator'>): boolean {
  return !/^HistGradientBoosting/.test(forest.estimator);
}

/** The cast a value goes through before it meets the thresholds: float32, or none. */
export function valueCast(forest: Pick<Forest, 'estimator'>): (value: number) => number {
  return comparesAsFloat32(forest) ? Math.fround : asFloat64;
}

const asFloat64 = (value: number) => value;
