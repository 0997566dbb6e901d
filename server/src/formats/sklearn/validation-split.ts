/**
 * scikit-learn's early stopping (HistGradientBoosting's `early_stopping`, GradientBoosting's
 * `n_iter_no_change`) splits the rows given to fit with `train_test_split(test_size=
 * validation_fraction)` and grows every tree on the training part only: the root counts N of the
 * trees are then not every row the user gave. train_test_split holds out ceil(fraction x n) rows
 * of n (an integer fraction, as HistGradientBoosting allows, is that many rows).
 */
export interface HeldOutSplit {
  fraction: number;
  /** The rows given to fit, when exactly one n leaves `trainRows` after the split. */
  fitRows?: number;
}

export function heldOutSplit(validationFraction: number | undefined, trainRows: number | undefined): HeldOutSplit | undefined {
  if (validationFraction === undefined || !(validationFraction > 0)) return undefined;
  if (trainRows === undefined) return { fraction: validationFraction };
  if (validationFraction >= 1) return Number.isInteger(validationFraction) ? { fraction: validationFraction, fitRows: trainRows + validationFraction } : { fraction: validationFraction };
  const fits: number[] = [];
  const guess = Math.floor(trainRows / (1 - validationFraction));
  for (let n = Math.max(trainRows, guess - 3); n <= guess + 3; n++) if (n - Math.ceil(validationFraction * n) === trainRows) fits.push(n);
  return fits.length === 1 ? { fraction: validationFraction, fitRows: fits[0] } : { fraction: validationFraction };
}
