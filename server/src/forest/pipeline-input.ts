/**
 * How the columns a model was fitted on are computed from the columns its Pipeline was given.
 *
 * A forest at the end of `Pipeline([ColumnTransformer(...), RandomForestClassifier()])` splits on
 * scaled values and one-hot columns, while the data its user holds (a training CSV, the candidates
 * of `--membership`) is what went into `pipeline.fit`: raw ages, 'Male'/'Female', empty cells. The
 * readers record, per model feature, the one input column it comes from and the operations the
 * fitted steps apply to it, in the order numpy runs them (StandardScaler: `X -= mean_`, then
 * `X /= scale_`), so that a raw row is turned into the model's values as `pipeline[:-1].transform`
 * would, without running anything from the file. Every step these readers follow works column by
 * column, so one input column and a list of operations describe a feature fully.
 */
import { z } from 'zod';

/** A category or a value to compare with: a number, a string, a bool, or null for a missing value (NaN, None). */
const Category = z.union([z.number(), z.string(), z.boolean(), z.null()]);
export type Category = z.infer<typeof Category>;

export const ColumnOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('subtract'), value: z.number() }),
  z.object({ op: z.literal('divide'), value: z.number() }),
  z.object({ op: z.literal('multiply'), value: z.number() }),
  z.object({ op: z.literal('add'), value: z.number() }),
  z.object({ op: z.literal('clip'), low: z.number(), high: z.number() }),
  /** SimpleImputer: a value equal to `missing` becomes `value`. */
  z.object({ op: z.literal('impute'), missing: Category, value: Category }),
  /** MissingIndicator: 1 when the value equals `missing`, else 0. */
  z.object({ op: z.literal('is-missing'), missing: Category }),
  /** One OneHotEncoder column: 1 when the value is `category`, else 0 (unknown categories give 0). */
  z.object({ op: z.literal('equals'), category: Category }),
  /** OneHotEncoder's column for infrequent categories: 1 when the value is one of `categories`, else 0. */
  z.object({ op: z.literal('one-of'), categories: z.array(Category) }),
  /** The same with handle_unknown='infrequent_if_exist': 1 unless the value is one of the frequent `categories`. */
  z.object({ op: z.literal('none-of'), categories: z.array(Category) }),
  /** OrdinalEncoder: the category's position; `unknown` for one not listed (absent: the row is refused, as scikit-learn refuses it). */
  z.object({ op: z.literal('ordinal'), categories: z.array(Category), unknown: z.number().optional() }),
  /** Binarizer: 1 when the value is above `threshold`, else 0. */
  z.object({ op: z.literal('greater'), threshold: z.number() }),
]);
export type ColumnOp = z.infer<typeof ColumnOpSchema>;

export const PipelineInputSchema = z.object({
  /** The columns the Pipeline was fitted on (`feature_names_in_`, or `x0..` for an array), in order. */
  columns: z.array(z.string()),
  /** One per model feature: the input column it comes from (an index into `columns`) and the operations applied to it. */
  features: z.array(z.object({ input: z.number().int().nonnegative(), ops: z.array(ColumnOpSchema) })),
  /**
   * Every category an encoder knows for an input column (OneHotEncoder's `categories_[i]`, a
   * dropped one included; OrdinalEncoder's), so that what a box excludes can be said as what it
   * allows. Absent for columns no encoder reads.
   */
  categories: z.array(z.object({ column: z.number().int().nonnegative(), values: z.array(Category) })).optional(),
});
export type PipelineInput = z.infer<typeof PipelineInputSchema>;

/**
 * The model's `pipelineInput` when it describes every feature from existing columns, else
 * undefined (a hand-written *.forest.json may not). Every consumer asks through this.
 */
export function usablePipelineInput(forest: { features: readonly unknown[]; pipelineInput?: PipelineInput }): PipelineInput | undefined {
  const input = forest.pipelineInput;
  if (!input || input.features.length !== forest.features.length) return undefined;
  return input.features.every((f) => f.input < input.columns.length) ? input : undefined;
}

/**
 * The Pipeline input column a model feature is, up to scaling and imputing (an affine map keeps a
 * width's share of the range), for naming it as the user's data does (`udp.stream`, not
 * `pass__udp.stream`); undefined for a feature encoded from a column (one-hot, a missing-value
 * indicator), whose own name says more.
 */
export function inputColumnOf(forest: { features: readonly unknown[]; pipelineInput?: PipelineInput }, feature: number): string | undefined {
  const input = usablePipelineInput(forest);
  const spec = input?.features[feature];
  if (!input || !spec) return undefined;
  const affine = spec.ops.every((op) => op.op === 'subtract' || op.op === 'add' || op.op === 'multiply' || op.op === 'divide' || op.op === 'impute' || op.op === 'clip' || op.op === 'ordinal');
  return affine ? input.columns[spec.input] : undefined;
}

/**
 * How reports name a model feature: its Pipeline input column where it is one up to scaling
 * (inputColumnOf), else its own name, else `x<i>`. One name per column across a report: sweep 11
 * read "narrowest on age" in a finding and "num__age" in the reason beside it.
 */
export function featureLabel(forest: { features: readonly { name: string }[]; pipelineInput?: PipelineInput }, feature: number): string {
  return inputColumnOf(forest, feature) ?? forest.features[feature]?.name ?? `x${feature}`;
}

/**
 * Texts pandas' read_csv reads as a missing value by default (so a CSV written by `to_csv` or by
 * hand with `N/A` reads back as the NaN the Pipeline's imputer was fitted to replace).
 */
const MISSING_TEXTS = new Set(['', '#N/A', '#N/A N/A', '#NA', '-1.#IND', '-1.#QNAN', '-NaN', '-nan', '1.#IND', '1.#QNAN', '<NA>', 'N/A', 'NA', 'NULL', 'NaN', 'None', 'n/a', 'nan', 'null']);

/** A cell on its way through the steps: the CSV's text until an operation needs a number. */
type Cell = string | number;

/**
 * The model's values for one CSV row (`cells[i]` is the text of input column i), or the first
 * problem: a text a numeric step cannot read, a category an OrdinalEncoder refuses. A value still
 * missing when it reaches the model is null.
 */
export function applyPipelineInput(input: PipelineInput, cells: readonly string[]): { ok: true; values: (number | null)[] } | { ok: false; feature: number; problem: string } {
  const values: (number | null)[] = [];
  for (let f = 0; f < input.features.length; f++) {
    const { input: column, ops } = input.features[f];
    let cell: Cell = cells[column].trim();
    for (const op of ops) {
      const next = applyOp(op, cell);
      if (next === undefined) return { ok: false, feature: f, problem: `'${cells[column].trim()}' is not a category the Pipeline's encoder knows` };
      cell = next;
    }
    const value = toNumber(cell);
    // A value still missing reaches the model as one (models trained with missing values take them;
    // the walks follow each split's direction for it).
    if (Number.isNaN(value) && !isMissing(cell, null)) return { ok: false, feature: f, problem: `'${cells[column].trim()}' is not a number` };
    values.push(Number.isNaN(value) ? null : value);
  }
  return { ok: true, values };
}

function applyOp(op: ColumnOp, cell: Cell): Cell | undefined {
  switch (op.op) {
    case 'subtract':
      return toNumber(cell) - op.value;
    case 'divide':
      return toNumber(cell) / op.value;
    case 'multiply':
      return toNumber(cell) * op.value;
    case 'add':
      return toNumber(cell) + op.value;
    case 'clip':
      return Math.min(Math.max(toNumber(cell), op.low), op.high);
    case 'impute':
      return isMissing(cell, op.missing) ? (op.value === null ? NaN : typeof op.value === 'boolean' ? Number(op.value) : op.value) : cell;
    case 'is-missing':
      return isMissing(cell, op.missing) ? 1 : 0;
    case 'equals':
      return sameCategory(cell, op.category) ? 1 : 0;
    case 'one-of':
      return op.categories.some((category) => sameCategory(cell, category)) ? 1 : 0;
    case 'none-of':
      return op.categories.some((category) => sameCategory(cell, category)) ? 0 : 1;
    case 'ordinal': {
      const at = op.categories.findIndex((category) => sameCategory(cell, category));
      return at >= 0 ? at : op.unknown;
    }
    case 'greater':
      return toNumber(cell) > op.threshold ? 1 : 0;
  }
}

/** The number a cell holds: NaN for a missing or non-numeric text (`True`/`False` read as 1/0, as pandas reads a bool column). */
function toNumber(cell: Cell): number {
  if (typeof cell === 'number') return cell;
  if (MISSING_TEXTS.has(cell)) return NaN;
  if (/^true$/i.test(cell)) return 1;
  if (/^false$/i.test(cell)) return 0;
  const value = Number(cell);
  return Number.isFinite(value) ? value : NaN;
}

function isMissing(cell: Cell, missing: Category): boolean {
  if (missing === null) return typeof cell === 'number' ? Number.isNaN(cell) : MISSING_TEXTS.has(cell);
  return sameCategory(cell, missing);
}

/** Whether a cell is a category: numbers by value (`1` and `1.0` are the category 1.0), texts by text. */
function sameCategory(cell: Cell, category: Category): boolean {
  if (category === null) return isMissing(cell, null);
  if (typeof category === 'number') return toNumber(cell) === category;
  if (typeof category === 'boolean') return typeof cell === 'number' ? cell === Number(category) : /^(true|false)$/i.test(cell) && /^true$/i.test(cell) === category;
  return typeof cell === 'string' ? cell === category : false;
}

/** How a Pipeline's input column reaches the model. */
export type ColumnKind = 'numeric' | 'encoded' | 'unread';

/** A column is encoded when an encoder reads it, numeric when only scalers, imputers and indicators do, unread when no model feature comes from it. */
export function columnKind(input: PipelineInput, column: number): ColumnKind {
  const chains = input.features.filter((f) => f.input === column).map((f) => f.ops);
  if (chains.length === 0) return 'unread';
  const encoded = chains.some((ops) => ops.some((op) => op.op === 'equals' || op.op === 'ordinal' || op.op === 'one-of' || op.op === 'none-of'));
  return encoded ? 'encoded' : 'numeric';
}
