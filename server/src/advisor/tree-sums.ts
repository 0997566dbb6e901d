/**
 * Internal nodes' counts as the sums of their children's, which every simulation needs after it
 * changed leaf counts: the readers store per-node counts, and the engine reads internal nodes
 * through their leaves but the linter's rules read roots. Children come after their parent
 * (schema.ts), so one backward pass sees every child before its parent.
 */
import { LEAF } from '../forest/schema';

export function sumIntoInternalNodes(left: ArrayLike<number>, right: ArrayLike<number>, values: number[], width: number): void {
  for (let node = left.length - 1; node >= 0; node--) {
    const l = left[node];
    if (l === LEAF) continue;
    const r = right[node];
    for (let c = 0; c < width; c++) values[node * width + c] = values[l * width + c] + values[r * width + c];
  }
}

/** Leaf node ids of a tree, in node order. */
export function leavesOf(left: ArrayLike<number>): number[] {
  const leaves: number[] = [];
  for (let node = 0; node < left.length; node++) if (left[node] === LEAF) leaves.push(node);
  return leaves;
}
