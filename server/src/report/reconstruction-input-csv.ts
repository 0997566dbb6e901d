/**
 * `--emit-reconstruction` for a model at the end of a Pipeline whose steps the reader followed
 * (`forest.pipelineInput`): the rows in the columns the Pipeline was fitted on, in their own units
 * and categories, so they line up with the data the user holds, not in the model's scaled and
 * one-hot columns.
 *
 * Per input column, in the Pipeline's order:
 * - a numeric column: `F` (the row's point carried back through the scalers, empty when the row
 *   is missing there), then `F.low` and `F.high`, the proven box carried back
 *   (forest/pipeline-conditions.ts), widened by the float32 rounding the trees compare with and
 *   rounded outward to 7 significant digits, so a certified row's true value lies inside (or is
 *   missing, where an imputer fills the column with a value inside them);
 * - an encoded column: `F` (the row's category: the one-hot column it has, or its ordinal code),
 *   then `F.categories`, the categories the proven box allows, joined by `|` (empty where the box
 *   allows them all);
 * - a column the model never reads (dropped by a ColumnTransformer): `F`, empty.
 * Then the label and `certified`, as in reconstruction-csv.ts. Rows without intervals (the exact
 * methods on 0/1 features) write the points only.
 */
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import { allowedCategories, conditionsOnInput, rowBox, type ColumnCondition } from '../forest/pipeline-conditions';
import { columnKind, type Category, type ColumnOp, type PipelineInput } from '../forest/pipeline-input';
import type { Forest } from '../forest/schema';
import { csvLine } from '../util/csv';

export function inputReconstructionCsv(rows: readonly ReconstructedRow[], forest: Pick<Forest, 'splitRule'> & { pipelineInput: PipelineInput }, label: string): string {
  const input = forest.pipelineInput;
  const kinds = input.columns.map((_, c) => columnKind(input, c));
  const categories = new Map((input.categories ?? []).map((entry) => [entry.column, entry.values]));
  const withBounds = rows.some((row) => row.intervals);
  const header = input.columns.flatMap((name, c) => (!withBounds || kinds[c] === 'unread' ? [name] : kinds[c] === 'numeric' ? [name, `${name}.low`, `${name}.high`] : [name, `${name}.categories`]));
  const lines = [csvLine([...header, label, 'certified'])];
  for (const row of rows) {
    const conditions = new Map(conditionsOnInput(input, rowBox(row.intervals), forest.splitRule).columns.map((c) => [c.column, c]));
    const cells: string[] = [];
    input.columns.forEach((_, c) => {
      const condition = conditions.get(c);
      if (kinds[c] === 'unread') cells.push('');
      else if (kinds[c] === 'numeric') {
        cells.push(numericPoint(input, row, c, condition));
        if (withBounds) cells.push(...boundCells(condition));
      } else {
        const allowed = allowedCategories(condition, categories.get(c));
        cells.push(categoryPoint(input, row, c, allowed));
        if (withBounds) cells.push(allowed && allowed.length < (categories.get(c)?.length ?? Infinity) ? allowed.map(categoryText).join('|') : '');
      }
    });
    lines.push(csvLine([...cells, String(row.label), row.certified ? 'true' : 'false']));
  }
  return lines.join('');
}

/** The row's value carried back through the first feature that is the column scaled; empty when missing or none is. */
function numericPoint(input: PipelineInput, row: ReconstructedRow, column: number, condition: ColumnCondition | undefined): string {
  if (condition?.missing === true) return '';
  const indicator = input.features.findIndex((f) => f.input === column && f.ops.some((op) => op.op === 'is-missing'));
  if (indicator >= 0) {
    const flag = carriedBack(input.features[indicator].ops, row.values[indicator], 'is-missing');
    if (flag !== undefined && flag > 0.5) return '';
  }
  for (let f = 0; f < input.features.length; f++) {
    const source = input.features[f];
    if (source.input !== column || source.ops.some((op) => op.op === 'is-missing' || op.op === 'greater')) continue;
    const value = carriedBack(source.ops, row.values[f]);
    // Carrying back through a scaler leaves float noise (62.2500000021457, 50.000002): 7 digits are plenty for an estimate.
    if (value !== undefined) return String(Number(value.toPrecision(7)));
  }
  return '';
}

/**
 * A model value carried back through the arithmetic after the column's first non-arithmetic
 * operation (`until`), or through all of it: undefined when a value is missing or an operation
 * cannot be undone (a category test, a Binarizer).
 */
function carriedBack(ops: readonly ColumnOp[], value: number | null | undefined, until?: ColumnOp['op']): number | undefined {
  if (value === null || value === undefined) return undefined;
  let v = value;
  for (let k = ops.length - 1; k >= 0; k--) {
    const op = ops[k];
    if (op.op === until) return v;
    if (op.op === 'add') v -= op.value;
    else if (op.op === 'subtract') v += op.value;
    else if (op.op === 'multiply') v /= op.value;
    else if (op.op === 'divide') v *= op.value;
    else if (op.op !== 'clip' && op.op !== 'impute') return undefined;
  }
  return until ? undefined : v;
}

/** `F.low`, `F.high`: the proven bounds widened by their slack and rounded outward. */
function boundCells(condition: ColumnCondition | undefined): [string, string] {
  if (!condition || condition.missing === true) return ['', ''];
  const slack = condition.slack ?? 0;
  return [condition.lower === undefined ? '' : String(outward(condition.lower - slack, -1)), condition.upper === undefined ? '' : String(outward(condition.upper + slack, 1))];
}

/** Rounded to 7 significant digits, down (-1) or up (1). */
function outward(value: number, direction: -1 | 1): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  const step = 10 ** (Math.floor(Math.log10(Math.abs(value))) - 6);
  const rounded = (direction < 0 ? Math.floor(value / step) : Math.ceil(value / step)) * step;
  // Strip the float noise of the multiplication while keeping the direction.
  const tidy = Number(rounded.toPrecision(7));
  return direction < 0 ? (tidy <= value ? tidy : rounded) : tidy >= value ? tidy : rounded;
}

/**
 * The row's category: the one-hot column it has (1), its ordinal code, else the only one allowed.
 * A box method guesses a 0/1 column its box leaves open, so a guess the box excludes is passed over.
 */
function categoryPoint(input: PipelineInput, row: ReconstructedRow, column: number, allowed: Category[] | undefined): string {
  const fits = (category: Category) => !allowed || allowed.includes(category);
  for (let f = 0; f < input.features.length; f++) {
    const source = input.features[f];
    if (source.input !== column) continue;
    const test = source.ops.find((op) => op.op === 'equals' || op.op === 'ordinal');
    if (!test) continue;
    const value = carriedBack(source.ops, row.values[f], test.op);
    if (value === undefined) continue;
    if (test.op === 'equals' && value > 0.5 && fits(test.category)) return categoryText(test.category);
    if (test.op === 'ordinal' && test.categories.length) {
      const category = test.categories[Math.min(test.categories.length - 1, Math.max(0, Math.round(value)))];
      if (fits(category)) return categoryText(category);
    }
  }
  return allowed?.length === 1 ? categoryText(allowed[0]) : '';
}

function categoryText(category: Category): string {
  return category === null ? '' : String(category);
}
