/**
 * The row-boxes method's first steps as a test sees them (row-boxes.test.ts, point-search.test.ts).
 */
import { strict as assert } from 'node:assert';
import { boxForest, leafBoxReader, type BoxForest } from '../../server/src/attacks/reconstruction/boxes/box-forest';
import { propagateGroups, type PropagationResult } from '../../server/src/attacks/reconstruction/boxes/propagate';
import { anchorGroups, type RowGroup } from '../../server/src/attacks/reconstruction/boxes/row-groups';
import { buildLeafTable, type LeafTable } from '../../server/src/attacks/reconstruction/leaves';
import type { Forest } from '../../server/src/forest/schema';

/** The engine's pieces run as reconstructByBoxes runs them: anchor groups, then propagation to a fixpoint. */
export async function propagatedGroups(forest: Forest, budgetMs: number, maxGroups = Infinity): Promise<{ table: LeafTable; walk: BoxForest; groups: RowGroup[]; propagation: PropagationResult }> {
  const prepared = buildLeafTable(forest);
  assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
  const { table } = prepared;
  const walk = boxForest(forest, table);
  // The anchor as the engine picks it: the tree with most leaves (first on a tie).
  let anchor = 0;
  table.trees.forEach((tree, t) => {
    if (tree.nodes.length > table.trees[anchor].nodes.length) anchor = t;
  });
  const leafBox = leafBoxReader(walk, table);
  const groups = anchorGroups(walk, anchor, leafBox);
  const deadline = Date.now() + budgetMs;
  const propagation = await propagateGroups(walk, groups, () => Date.now() > deadline, undefined, maxGroups);
  return { table, walk, groups, propagation };
}

