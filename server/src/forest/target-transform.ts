/**
 * A TransformedTargetRegressor fits its regressor on func(y): the trees' targets are in that
 * scale. The functions the file names (numpy's ufuncs) are applied here, each with its inverse, so
 * that a candidate's or a true row's target can be compared with the trees' and a reconstructed
 * target written back in the user's scale. A transformer (StandardScaler, a custom function) is
 * named but not applied: `targetFunction` is then undefined and callers say so.
 */
import type { Forest } from './schema';

const FUNCTIONS: Record<string, { forward: (y: number) => number; inverse: (y: number) => number }> = {
  'numpy.log': { forward: Math.log, inverse: Math.exp },
  'numpy.log1p': { forward: Math.log1p, inverse: Math.expm1 },
  'numpy.log2': { forward: Math.log2, inverse: (y) => 2 ** y },
  'numpy.log10': { forward: Math.log10, inverse: (y) => 10 ** y },
  'numpy.sqrt': { forward: Math.sqrt, inverse: (y) => y * y },
  'numpy.cbrt': { forward: Math.cbrt, inverse: (y) => y * y * y },
  'numpy.exp': { forward: Math.exp, inverse: Math.log },
  'numpy.expm1': { forward: Math.expm1, inverse: Math.log1p },
  'numpy.arcsinh': { forward: Math.asinh, inverse: Math.sinh },
};

/** The function the targets went through before fitting, when the file names one this tool applies. */
export function targetFunction(forest: Pick<Forest, 'targetTransform'>): ((y: number) => number) | undefined {
  return forest.targetTransform === undefined ? undefined : FUNCTIONS[forest.targetTransform]?.forward;
}

/** Its inverse: a target in the trees' scale back in the user's (what the regressor's predict returns). */
export function targetInverse(forest: Pick<Forest, 'targetTransform'>): ((y: number) => number) | undefined {
  return forest.targetTransform === undefined ? undefined : FUNCTIONS[forest.targetTransform]?.inverse;
}
