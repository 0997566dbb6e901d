/**
 * One XGBoost tree, indexed by the node ids of its file, into an IR tree. Shared by the model
 * reader (JSON, UBJSON) and the dump readers.
 *
 * XGBoost numbers children after their parent, but pruning leaves deleted nodes behind (unreachable,
 * still in the arrays) and a dump may skip ids. The IR needs every node reachable with children
 * after their parent, so such trees are renumbered in depth-first order and the file's ids are
 * kept in `boosting.nodeId` (messages and locations use them).
 */
import { BELOW_INFINITY_THRESHOLD } from '../../forest/missing-split';
import { LEAF, type Tree } from '../../forest/schema';

/** A tree as the file has it: columns indexed by the file's node ids (holes allowed in dumps). */
export interface NativeTree {
  /** Number of node ids (max id + 1). */
  size: number;
  left: ArrayLike<number>;
  right: ArrayLike<number>;
  feature: ArrayLike<number>;
  threshold: ArrayLike<number>;
  defaultLeft?: ArrayLike<boolean>;
  cover?: ArrayLike<number>;
  baseWeight?: ArrayLike<number>;
  leafValue: ArrayLike<number>;
  gain?: ArrayLike<number>;
  group: number;
}

/** Builds the IR tree, or says why the structure is not a tree. */
export function toIrTree(native: NativeTree, classes: number): { ok: true; tree: Tree } | { ok: false; problem: string } {
  const n = native.size;
  if (n === 0) return { ok: false, problem: 'a tree has no nodes' };
  // Depth-first order from the root; each id may be entered once (a cycle or shared child is corrupt).
  const order: number[] = [];
  const seen = new Uint8Array(n);
  const stack = [0];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id < 0 || id >= n || !Number.isInteger(id)) return { ok: false, problem: `a child id ${id} is outside 0..${n - 1}` };
    if (seen[id]) return { ok: false, problem: `node ${id} is reached twice` };
    seen[id] = 1;
    order.push(id);
    const l = native.left[id];
    const r = native.right[id];
    // A leaf is a node without a left child, whatever its right field holds: XGBoost's IsLeaf() reads
    // the left one alone, and boosters of the 0.8x era wrote leaves as (-1, 0) (sweep 12: 11,858 of
    // a public model's 11,882 trees, read as "corrupt" before).
    if (l !== LEAF && r === LEAF) return { ok: false, problem: `node ${id} has exactly one child` };
    if (l !== LEAF) stack.push(r, l);
  }
  let identity = order.length === n;
  for (let i = 0; identity && i < n; i++) {
    const l = native.left[i];
    if (l !== LEAF && (l <= i || native.right[i] <= i)) identity = false;
  }
  const newId = new Int32Array(n).fill(-1);
  const ids = identity ? Array.from({ length: n }, (_, i) => i) : order;
  ids.forEach((id, index) => (newId[id] = index));
  const m = ids.length;
  const pick = <T>(column: ArrayLike<T> | undefined): T[] | undefined => (column ? ids.map((id) => column[id]) : undefined);
  const left = ids.map((id) => (native.left[id] === LEAF ? LEAF : newId[native.left[id]]));
  const right = ids.map((id) => (native.left[id] === LEAF || native.right[id] === LEAF ? LEAF : newId[native.right[id]]));
  const isLeaf = (i: number) => left[i] === LEAF;
  const tree: Tree = {
    left,
    right,
    feature: ids.map((id, i) => (isLeaf(i) ? -1 : native.feature[id])),
    // XGBoost holds a split condition as a float32 and compares float32(x) < it; JSON and dumps
    // print it as a decimal (2.35) whose float64 is not that float32 (2.3499999...), and a value
    // between the two would be routed, and bounded in --emit-reconstruction, on the wrong side.
    // `x < inf` (+inf or missing beyond every value) gets a finite threshold (missing-split.ts).
    threshold: ids.map((id, i) => (isLeaf(i) ? 0 : asIrThreshold(Math.fround(native.threshold[id])))),
    ...(native.defaultLeft ? { defaultLeft: pick(native.defaultLeft)! } : {}),
    // A boosted model stores no class counts (see forest/boosting.ts).
    classWeights: new Array(m * classes).fill(0),
    training: {},
    boosting: {
      ...(native.cover ? { cover: pick(native.cover)! } : {}),
      ...(native.baseWeight ? { baseWeight: pick(native.baseWeight)! } : {}),
      leafValue: ids.map((id, i) => (isLeaf(i) ? native.leafValue[id] : 0)),
      ...(native.gain ? { gain: pick(native.gain)! } : {}),
      group: native.group,
      ...(identity ? {} : { nodeId: ids }),
    },
  };
  return { ok: true, tree };
}

/** A float32 split condition as the IR holds it: +inf (`x < inf`) as BELOW_INFINITY_THRESHOLD; others unchanged (validate.ts refuses -inf and NaN). */
function asIrThreshold(condition: number): number {
  return condition === Infinity ? BELOW_INFINITY_THRESHOLD : condition;
}
