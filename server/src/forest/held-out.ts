/**
 * Early stopping's held-out rows (training.heldOut, read by formats/sklearn/validation-split.ts),
 * as every finding that states N words them.
 */
import type { Forest } from './schema';

/**
 * The rows early stopping held out (a validation split no tree saw), as a sentence: N counts the
 * rows the trees grew on, not every row given to fit. Empty when the model held none out.
 */
export function heldOutSentence(forest: Forest): string {
  const held = forest.training.heldOut;
  if (!held) return '';
  const rows = forest.training.rows;
  const share = held.fraction < 1 ? `validation_fraction=${String(Number(held.fraction.toPrecision(6)))}` : `${held.fraction.toLocaleString('en-US')} rows`;
  let counted = '';
  if (held.fitRows !== undefined && rows !== undefined) counted = ` (${(held.fitRows - rows).toLocaleString('en-US')} of the ${held.fitRows.toLocaleString('en-US')} rows)`;
  // Two sizes can leave the same training split (train_test_split rounds the held-out part up).
  else if (rows !== undefined && held.fraction < 1) counted = ` (about ${Math.round(rows / (1 - held.fraction)).toLocaleString('en-US')} rows in all)`;
  return ` Early stopping held out ${share} of the rows given to fit${counted} as a validation split that no tree saw; the counts are of the ${rows !== undefined ? `${rows.toLocaleString('en-US')} ` : ''}rows the trees grew on.`;
}
