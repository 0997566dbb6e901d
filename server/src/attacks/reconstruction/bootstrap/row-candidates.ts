/**
 * The candidates of one training row index when its draws are known: the (cell, class) pairs it
 * can occupy. Only the trees that drew the row say anything about it (a row left out of a tree's
 * sample does not reach that tree's counts), and each of them says: the row's leaf holds at least
 * as many draws of the row's class as the row itself contributes there. So the cells are those of
 * the trees that drew it, enumerated by the aggregated method's enumerator (../cells.ts) on those
 * trees with every (leaf, class) count below the row's multiplicity read as zero. That pruning is
 * sound: the row's true (cell, class) always survives it. Cells that those trees send to the same
 * leaves are merged (../merge.ts): nothing in the model tells them apart for this row.
 */
import { CellEnumerator, createCellEnumerator, NODES_PER_SLICE } from '../cells';
import { yieldToEventLoop } from '../context';
import type { LeafTable } from '../leaves';
import { mergeBySignature, type MergedCell } from '../merge';
import type { CategoricalGroup } from '../types';

export interface RowCandidates {
  /** Trees that drew the row, and how many times each did. */
  trees: Int32Array;
  draws: Int32Array;
  /** The row's possible cells over those trees (`leaves[k]` is the leaf in `trees[k]`). */
  cells: MergedCell[];
}


/**
 * Enumerates the candidates of row `row`, or returns undefined when `stopped()` ended it first.
 * `perTree[t][row]` is the row's multiplicity in tree t.
 */
export async function rowCandidates(
  table: LeafTable,
  perTree: readonly Uint16Array[],
  row: number,
  groups: readonly CategoricalGroup[],
  stopped: () => boolean,
): Promise<{ ok: true; candidates: RowCandidates } | { ok: false; reason: string } | undefined> {
  const { trees, draws } = drawnIn(perTree, row);
  const restricted: LeafTable = {
    features: table.features,
    classes: table.classes,
    rows: table.rows,
    axes: table.axes,
    trees: trees.map((t, k) => {
      const tree = table.trees[t];
      const counts = tree.counts.map((count) => (count >= draws[k] ? count : 0));
      return { ...tree, counts };
    }),
  };
  const created = createCellEnumerator(restricted, groups);
  if (!created.ok) return created;
  const enumerator: CellEnumerator = created.enumerator;
  let lastYield = Date.now();
  while (!enumerator.step(NODES_PER_SLICE)) {
    if (stopped()) return undefined;
    if (Date.now() - lastYield > 25) {
      await yieldToEventLoop();
      lastYield = Date.now();
    }
  }
  return { ok: true, candidates: { trees: Int32Array.from(trees), draws: Int32Array.from(draws), cells: mergeBySignature(enumerator.cells) } };
}

/** The trees that drew row `row` (`perTree[t][row]`: its multiplicity in tree t), and how often each did. */
export function drawnIn(perTree: readonly Uint16Array[], row: number): { trees: number[]; draws: number[] } {
  const trees: number[] = [];
  const draws: number[] = [];
  perTree.forEach((multiplicity, t) => {
    if (multiplicity[row] > 0) {
      trees.push(t);
      draws.push(multiplicity[row]);
    }
  });
  return { trees, draws };
}
