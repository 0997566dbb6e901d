/**
 * Names the readers give features a model stored no names for: `x0, x1, ...` (scikit-learn, as
 * its `n_features_in_` numbers them) and `f0, f1, ...` (XGBoost's own numbering).
 */

/** Whether feature i's name is the numbering a reader gave it, not a name the model stored. */
export function isNumberedName(name: string, i: number): boolean {
  return name === `x${i}` || name === `f${i}`;
}

/** Whether every feature carries its reader's numbering (the model stored no names). */
export function hasNumberedNames(features: readonly { name: string }[]): boolean {
  return features.every((feature, i) => isNumberedName(feature.name, i));
}
