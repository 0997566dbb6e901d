/**
 * Ground truth for the reconstruction tests and benchmark: the training rows a fixture's forest
 * was fitted on (`<name>.train.csv`, written by test/fixtures/reconstruction/generate.py), and how
 * many of them fall in each column (merged cell, class) of the engine's formulation, found by
 * routing every row down every tree.
 */
import { readFileSync } from 'node:fs';
import type { Forest, Tree } from '../../server/src/forest/schema';
import type { ReconstructionDetails } from '../../server/src/attacks/reconstruction';
import type { CategoricalGroup } from '../../server/src/attacks/reconstruction/types';

export interface FixtureEntry {
  name: string;
  model: string;
  truth: string;
  dataset: string;
  estimator: string;
  trees: number;
  max_depth: number | null;
  seed: number;
  rows: number;
  groups: CategoricalGroup[];
}

export interface TrainingRow {
  values: number[];
  label: number;
}

/** Rows of a `<name>.train.csv`: features, then the label in the last column. */
export function readTrainingRows(path: string): { header: string[]; rows: TrainingRow[] } {
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  const header = lines[0].split(',');
  const rows = lines.slice(1).map((line) => {
    const cells = line.split(',').map(Number);
    return { values: cells.slice(0, -1), label: cells[cells.length - 1] };
  });
  return { header, rows };
}

/** The leaf (node id) a row reaches in a tree, by scikit-learn's rule `x <= threshold` goes left. */
export function leafOf(tree: Tree, values: readonly number[]): number {
  let node = 0;
  while (tree.left[node] !== -1) node = values[tree.feature[node]] <= tree.threshold[node] ? tree.left[node] : tree.right[node];
  return node;
}

export interface TrueMultiplicities {
  /** True rows per column of the formulation. */
  perColumn: Int32Array;
  /** Rows whose (leaf signature, class) is not a column: the enumeration lost them (must be 0). */
  missing: TrainingRow[];
  /** Column of each true row (-1 when missing). */
  columnOfRow: number[];
}

export function trueMultiplicities(forest: Forest, details: ReconstructionDetails, rows: readonly TrainingRow[]): TrueMultiplicities {
  const { table, cells, formulation } = details;
  // Leaf index (as in the engine's leaf table) of each node id, per tree.
  const leafIndex = table.trees.map((tree, t) => {
    const index = new Map<number, number>();
    tree.nodes.forEach((node, l) => index.set(node, l));
    return { index, tree: forest.trees[t] };
  });
  const cellOf = new Map<string, number>();
  cells.forEach((cell, m) => cellOf.set(cell.leaves.join(','), m));
  const columnOf = new Map<string, number>();
  for (let j = 0; j < formulation.numCols; j++) columnOf.set(`${formulation.colCell[j]}:${formulation.colClass[j]}`, j);
  const perColumn = new Int32Array(formulation.numCols);
  const missing: TrainingRow[] = [];
  const columnOfRow: number[] = [];
  for (const row of rows) {
    const signature = leafIndex.map(({ index, tree }) => index.get(leafOf(tree, row.values))).join(',');
    const cell = cellOf.get(signature);
    const classIndex = forest.classes.indexOf(row.label);
    const column = cell === undefined ? undefined : columnOf.get(`${cell}:${classIndex}`);
    columnOfRow.push(column ?? -1);
    if (column === undefined) missing.push(row);
    else perColumn[column]++;
  }
  return { perColumn, missing, columnOfRow };
}
