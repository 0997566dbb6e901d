/**
 * Wide models whose trees split on few of their features: a HistGradientBoostingClassifier behind
 * a vectoriser with 10,020 columns, 100 trees splitting on a few dozen of them. Every method keeps
 * per-feature arrays per cell, group or row (a cell's box: 3 x 10,020 integers), so such a model
 * ran out of 1 GB after 7,000 of its 20,000 cells, on 8,000 rows, though a feature no tree splits
 * on is never determined by anything the model says. Above COMPACT_FROM features the engine runs on
 * the features some tree splits on, renumbered, and the rows are put back in the model's columns
 * (a feature no tree splits on: value and interval null, as every method leaves it).
 */
import type { Forest } from '../../forest/schema';
import type { CategoricalGroup, ReconstructedRow, ReconstructionResult } from './types';

/** Models with more features than this, some of them never split on, are compacted. */
export const COMPACT_FROM = 256;

export interface CompactedForest {
  forest: Forest;
  /** Per compact feature, the model's feature index. */
  used: number[];
  /** The declared groups over the features split on (a one-hot group missing some becomes at-most-one). */
  groups: CategoricalGroup[];
}

/** The forest on the features some tree splits on, when it has more than COMPACT_FROM and some are never split; else undefined. */
export function compactFeatures(forest: Forest, groups: readonly CategoricalGroup[]): CompactedForest | undefined {
  const features = forest.features.length;
  if (features <= COMPACT_FROM) return undefined;
  const split = new Uint8Array(features);
  for (const tree of forest.trees) {
    for (let n = 0; n < tree.left.length; n++) if (tree.left[n] !== -1 && tree.feature[n] >= 0 && tree.feature[n] < features) split[tree.feature[n]] = 1;
  }
  const used: number[] = [];
  split.forEach((s, f) => s && used.push(f));
  if (used.length === features || used.length === 0) return undefined;
  const compact = new Int32Array(features).fill(-1);
  used.forEach((f, k) => (compact[f] = k));
  const trees = forest.trees.map((tree) => ({
    ...tree,
    // Leaves keep no feature (sklearn stores -2 there); internal nodes name their compact feature.
    feature: Array.from(tree.feature, (f, n) => (tree.left[n] === -1 ? (f < 0 ? f : 0) : compact[f])),
  }));
  const remapped = groups.flatMap((group): CategoricalGroup[] => {
    const members = group.features.filter((f) => compact[f] >= 0).map((f) => compact[f]);
    if (members.length < 2) return [];
    // Exactly one of all the members is 1; if the 1 is a member no tree splits on, the others are all 0.
    const kind = group.kind === 'one-hot' && members.length < group.features.length ? 'at-most-one' : group.kind;
    return [{ kind, features: members }];
  });
  const { pipelineInput: _input, featureGroups: _groups, ...rest } = forest;
  return { forest: { ...rest, features: used.map((f) => forest.features[f]), trees } as Forest, used, groups: remapped };
}

/**
 * Cells (rows x the model's columns) the rows are put back in at most: each row holds a value and
 * an interval array of the model's width (8 bytes a slot each), so 12M cells are about 200 MB. A
 * public RandomForestClassifier over 6,559 columns (a vectoriser's) on 5,634 rows needed 590 MB
 * for them on top of the engine and ran out of the 1 GB ceiling with nothing reported.
 */
export const EXPANDED_CELL_CAP = 12_000_000;

/**
 * The result in the model's columns: every per-feature array put back, null (or false) where no
 * tree splits. Past EXPANDED_CELL_CAP only the rows that fit are listed, certified ones first
 * (their order kept); the counts (`certifiedRows`, `reconstructedRows`) stay those of every row,
 * and `listedRows` and the reason say how many are listed.
 */
export function expandResult(result: ReconstructionResult, used: readonly number[], features: number, cellCap = EXPANDED_CELL_CAP): ReconstructionResult {
  // Rows that share an array (a group's rows standing at its box, a leaf region's proven values)
  // share its spread copy too: a public HistGradientBoostingRegressor's 3,018 listed rows of 3,975
  // columns took the worker past its 1 GB ceiling with a copy of each per row (and a message to the
  // main process copies what it is given, shared arrays once).
  const copies = new WeakMap<object, unknown[]>();
  const spread = <T>(values: readonly T[], empty: T): T[] => {
    const known = copies.get(values);
    if (known) return known as T[];
    const out = new Array<T>(features).fill(empty);
    used.forEach((f, k) => (out[f] = values[k]));
    copies.set(values, out);
    return out;
  };
  const kept = rowsThatFit(result.reconstruction, features, cellCap);
  const reconstruction = kept.map((row): ReconstructedRow => ({
    ...row,
    values: spread(row.values, null),
    ...(row.intervals ? { intervals: spread(row.intervals, null) } : {}),
    ...(row.certifiedValues ? { certifiedValues: spread(row.certifiedValues, false) } : {}),
    ...(row.missing ? { missing: spread(row.missing, false) } : {}),
  }));
  const boxes = result.boxes ? { ...result.boxes, featureWidths: result.boxes.featureWidths.map((w) => ({ ...w, feature: used[w.feature] })) } : undefined;
  const listed = reconstruction.length < result.reconstruction.length ? { listedRows: reconstruction.length } : {};
  return { ...result, reconstruction, ...(boxes ? { boxes } : {}), ...listed };
}

/** The rows listed within `cellCap` cells of `features` columns: certified ones first, their order kept. */
function rowsThatFit(rows: readonly ReconstructedRow[], features: number, cellCap: number): readonly ReconstructedRow[] {
  const fit = Math.max(1, Math.floor(cellCap / Math.max(1, features)));
  if (rows.length <= fit) return rows;
  const certified = rows.filter((row) => row.certified);
  const chosen = new Set(certified.length >= fit ? certified.slice(0, fit) : [...certified, ...rows.filter((row) => !row.certified).slice(0, fit - certified.length)]);
  return rows.filter((row) => chosen.has(row));
}

/**
 * The same cap for a model that was not compacted: the rows go to the report (and, from a worker
 * process, through a message) each with its own value and interval arrays. A public
 * HistGradientBoostingClassifier of 212,215 rows x 506 features, every feature split on, ran out of
 * the worker's 1 GB after its reconstruction had finished in 200 MB.
 */
export function listWithinCap(result: ReconstructionResult, features: number, cellCap = EXPANDED_CELL_CAP, columns = features): ReconstructionResult {
  const kept = rowsThatFit(result.reconstruction, features, cellCap);
  if (kept.length === result.reconstruction.length) {
    // The method listed fewer rows itself (certified rows past the walk cap, boxes/estimate.ts).
    if (result.listedRows === undefined) return result;
    const note = listedNote(result, columns)!;
    return { ...result, reason: result.reason ? `${result.reason}; ${note}` : note };
  }
  const listed = { ...result, reconstruction: [...kept], listedRows: kept.length };
  const note = listedNote(listed, columns)!;
  return { ...listed, reason: result.reason ? `${result.reason}; ${note}` : note };
}

/** What the reason adds when not every row is listed (expandResult); `columns` as the user counts them (set-splits.ts inputColumnCount). */
export function listedNote(result: ReconstructionResult, columns: number): string | undefined {
  if (result.listedRows === undefined) return undefined;
  return `${result.listedRows.toLocaleString('en-US')} of the ${result.reconstructedRows.toLocaleString('en-US')} rows are listed in the model's ${columns.toLocaleString('en-US')} columns (certified ones first; all of them would take more memory than the reconstruction may use), the others are counted only`;
}
