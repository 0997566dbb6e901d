/**
 * The true training data given with `--training-data FILE.csv --label COLUMN`, read and lined up
 * with a model's features so that a reconstruction can be scored against it. Columns are matched
 * to the model's features by name; a model that stored no names (scikit-learn fitted on an array:
 * `x0, x1, ...`) is matched by position, the columns other than the label in order.
 * Every problem is a message, never an exception the caller has to guess at: the file's own
 * problems (unreadable, no such label column, ragged rows) are `TrainingDataError`s, raised before
 * any model is read; a file that does not fit one model is a `problem` for that model.
 */
import { hasNumberedNames } from '../forest/feature-names';
import { promises as fs } from 'node:fs';
import type { Forest } from '../forest/schema';
import { parseCsv } from '../util/csv';
import type { EvaluatedRow } from './metrics';

export class TrainingDataError extends Error {}

export interface TrainingData {
  path: string;
  header: string[];
  labelColumn: string;
  /** Data rows as text, each as long as the header. */
  rows: string[][];
}

export async function readTrainingData(path: string, labelColumn: string): Promise<TrainingData> {
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (error) {
    throw new TrainingDataError(`--training-data: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let table: string[][];
  try {
    table = parseCsv(text);
  } catch (error) {
    throw new TrainingDataError(`--training-data: ${path} is not CSV: ${(error as Error).message}`);
  }
  if (table.length < 2) throw new TrainingDataError(`--training-data: ${path} needs a header line and at least one row`);
  const header = table[0].map((name) => name.trim());
  if (!header.includes(labelColumn)) {
    throw new TrainingDataError(`--label: ${path} has no column '${labelColumn}' (columns: ${abbreviate(header)})`);
  }
  const rows = table.slice(1);
  const ragged = rows.findIndex((row) => row.length !== header.length);
  if (ragged >= 0) {
    throw new TrainingDataError(`--training-data: ${path}, row ${ragged + 1} has ${rows[ragged].length} fields, the header ${header.length}`);
  }
  return { path, header, labelColumn, rows };
}

export interface AlignedTrainingData {
  /** The true rows: one value per model feature, in the model's order, and the label. */
  rows: EvaluatedRow[];
  /** The column used for each model feature. */
  featureColumns: string[];
  matchedBy: 'name' | 'position';
}

/**
 * True when the model stored no feature names: the reader numbered them (`x0, x1, ...`, XGBoost's
 * `f0, f1, ...`), or named them after its Pipeline's earlier steps (a CSV of those steps' output
 * may carry other headers).
 */
export function hasDefaultFeatureNames(forest: Pick<Forest, 'features' | 'featureNamesFrom'>): boolean {
  return forest.featureNamesFrom === 'pipeline' || hasNumberedNames(forest.features);
}

export function alignTrainingData(data: TrainingData, forest: Pick<Forest, 'features' | 'featureNamesFrom' | 'classes' | 'countedClasses' | 'logLoss'>): { ok: true; aligned: AlignedTrainingData } | { ok: false; problem: string } {
  const names = forest.features.map((feature) => feature.name);
  const columnOf = new Map(data.header.map((name, i) => [name, i]));
  const labelIndex = columnOf.get(data.labelColumn)!;
  let columns: number[];
  let matchedBy: AlignedTrainingData['matchedBy'];
  const missing = names.filter((name) => !columnOf.has(name) || name === data.labelColumn);
  if (missing.length === 0) {
    columns = names.map((name) => columnOf.get(name)!);
    matchedBy = 'name';
  } else if (hasDefaultFeatureNames(forest)) {
    columns = data.header.map((_, i) => i).filter((i) => i !== labelIndex);
    if (columns.length !== names.length) {
      return {
        ok: false,
        problem: `the model stores no feature names and has ${names.length} features; ${data.path} has ${columns.length} columns besides '${data.labelColumn}', so they cannot be matched by position`,
      };
    }
    matchedBy = 'position';
  } else {
    return { ok: false, problem: `${data.path} has no column for the model's feature${missing.length === 1 ? '' : 's'} ${abbreviate(missing)}` };
  }

  const rows: EvaluatedRow[] = [];
  for (let r = 0; r < data.rows.length; r++) {
    const values: number[] = [];
    for (const c of columns) {
      const value = parseValue(data.rows[r][c]);
      if (value === undefined) return { ok: false, problem: `${data.path}, row ${r + 1}, column '${data.header[c]}': '${data.rows[r][c]}' is not a number` };
      values.push(value);
    }
    rows.push({ values, label: labelOf(data.rows[r][labelIndex], forest.countedClasses?.classes ?? forest.logLoss?.classes ?? forest.classes) });
  }
  return { ok: true, aligned: { rows, featureColumns: columns.map((c) => data.header[c]), matchedBy } };
}

function parseValue(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^true$/i.test(trimmed)) return 1;
  if (/^false$/i.test(trimmed)) return 0;
  if (trimmed === '') return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : undefined;
}

/** The model's class the text names (`1`, `1.0` and `True` name the class 1 or true), else the text. */
function labelOf(text: string, classes: readonly (string | number | boolean)[]): string | number | boolean {
  const trimmed = text.trim();
  const number = trimmed === '' ? NaN : Number(trimmed);
  for (const cls of classes) {
    if (String(cls) === trimmed) return cls;
    if (typeof cls === 'number' && cls === number) return cls;
    if (typeof cls === 'boolean' && ((cls && /^(true|1(\.0*)?)$/i.test(trimmed)) || (!cls && /^(false|0(\.0*)?)$/i.test(trimmed)))) return cls;
  }
  return trimmed;
}

function abbreviate(names: readonly string[]): string {
  return names.length <= 8 ? names.join(', ') : `${names.slice(0, 8).join(', ')}, ... (${names.length} in all)`;
}
