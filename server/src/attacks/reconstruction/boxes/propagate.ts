/**
 * Sound propagation over row groups (row-groups.ts) without bootstrap. Every training row lies in
 * exactly one leaf per tree, and each leaf holds exactly its stored rows of each class. Tree by
 * tree and class by class, a round:
 *
 *   1. lists each unplaced group's candidates: the leaves its box reaches that still need rows of
 *      its class (a member can be nowhere else);
 *   2. solves the tree's counts as a transportation problem from groups to leaves (transport.ts)
 *      and keeps what holds in every solution: an edge fixed at 0 is dropped; an edge fixed at
 *      f > 0 sends exactly f members there, which are split off into a group placed in that leaf
 *      (the members are interchangeable, so which ones is ours to choose);
 *   3. narrows each group's box to the smallest box holding its remaining candidates' parts.
 *
 * Rounds repeat until nothing changes or the budget ends. Each step only removes what no training
 * set fitting the counts allows, so every box is proven: a group's members are `size` distinct
 * training rows inside it, with its class. A contradiction (no flow meets the counts) means the
 * model is not what the reading assumed; the caller fails rather than prove anything from it.
 */
import { yieldToEventLoop } from '../context';
import { Candidates, place, type BoxForest } from './box-forest';
import { splitOff, type RowGroup } from './row-groups';
import { solveTransport } from './transport';

/** treeStep's answer when the stop signal cut it (what it proved before stays proven). */
const STOPPED = Symbol('stopped');

export interface PropagationResult {
  ok: boolean;
  /** Why the counts contradict each other (ok false). */
  contradiction?: string;
  /** False when the deadline, the stop signal or the group cap ended it before a fixpoint. */
  complete: boolean;
  rounds: number;
  /** Set when a group was left unsplit at `maxGroups` (memory.ts GROUP_BYTES_CAP): the proofs stop there. */
  capped?: number;
}

/**
 * `maxGroups`: past it no group is split (each holds a box of its own); a split left out keeps the
 * fixed leaf among the group's candidates, so nothing unproven is claimed, and the propagation ends.
 */
export async function propagateGroups(forest: BoxForest, groups: RowGroup[], stopped: () => boolean, onRound?: (round: number, placed: number) => void, maxGroups = Infinity): Promise<PropagationResult> {
  const { classes, features } = forest;
  const trees = forest.trees.length;
  const candidates = new Candidates(features);
  let rounds = 0;
  let lastYield = Date.now();
  let capped = false;
  // Per tree node: local index of a leaf in the current problem (-1 when not in it).
  const leafSlot = forest.trees.map((tree) => new Int32Array(tree.left.length).fill(-1));
  for (;;) {
    rounds++;
    let changed = false;
    for (let t = 0; t < trees; t++) {
      for (let c = 0; c < classes; c++) {
        const step = treeStep(t, c);
        if (step === STOPPED) return { ok: true, complete: false, rounds };
        if (capped) return { ok: true, complete: false, rounds, capped: groups.length };
        if (typeof step === 'string') return { ok: false, contradiction: step, complete: false, rounds };
        if (step) changed = true;
        if (Date.now() - lastYield > 25) {
          if (stopped()) return { ok: true, complete: false, rounds };
          await yieldToEventLoop();
          lastYield = Date.now();
        }
      }
    }
    onRound?.(rounds, groups.reduce((n, g) => n + (g.unplaced === 0 ? g.size : 0), 0));
    if (!changed) return { ok: true, complete: true, rounds };
    if (stopped()) return { ok: true, complete: false, rounds };
  }

  /** One tree and class: true when something changed, a string on a contradiction, STOPPED when the stop signal cut it. */
  function treeStep(t: number, c: number): boolean | string | typeof STOPPED {
    const tree = forest.trees[t];
    const open = forest.open[t];
    const slot = leafSlot[t];
    const members: number[] = [];
    for (let g = 0; g < groups.length; g++) if (groups[g].classIndex === c && groups[g].leaf[t] === -1) members.push(g);
    if (members.length === 0) return false;
    // Leaves that still need rows of class c.
    const leaves: number[] = [];
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] === -1 && open[n * classes + c] > 0) {
        slot[n] = leaves.length;
        leaves.push(n);
      }
    }
    const edgeGroup: number[] = [];
    const edgeLeaf: number[] = [];
    const supply = new Int32Array(members.length);
    try {
      members.forEach((g, i) => {
        const group = groups[g];
        supply[i] = group.size;
        const found = candidates.find(tree, open, classes, c, group.low, group.high);
        for (let k = 0; k < found; k++) {
          edgeGroup.push(i);
          edgeLeaf.push(slot[candidates.leaves[k]]);
        }
      });
      const demand = Int32Array.from(leaves, (n) => open[n * classes + c]);
      const solved = solveTransport({ supply, demand, edgeGroup: Int32Array.from(edgeGroup), edgeLeaf: Int32Array.from(edgeLeaf), stopped });
      if (!solved.ok && 'stopped' in solved) return STOPPED;
      if (!solved.ok) return `tree ${t}: ${solved.shortfall} row(s) of class ${c} fit no leaf with room (the counts contradict the boxes)`;
      let changed = false;
      // Per group, its edges are contiguous in edge order.
      let e = 0;
      for (let i = 0; i < members.length; i++) {
        const group = groups[members[i]];
        const start = e;
        while (e < edgeGroup.length && edgeGroup[e] === i) e++;
        let free = 0;
        for (let k = start; k < e; k++) if (!solved.fixed[k]) free++;
        if (free === e - start) {
          // Nothing fixed: only the hull can narrow (the candidates' parts of the box).
          if (narrowToHull(group, tree, open, c, undefined)) changed = true;
          continue;
        }
        const allowed = new Set<number>();
        for (let k = start; k < e; k++) {
          const node = leaves[edgeLeaf[k]];
          if (!solved.fixed[k]) allowed.add(node);
          else if (solved.flow[k] > 0) {
            const size = solved.flow[k];
            changed = true;
            if (size === group.size) {
              // The whole group goes there.
              placeIn(group, t, tree, open, c, node);
              allowed.clear();
              break;
            }
            if (groups.length >= maxGroups) {
              // At the cap: the split is left out, and the leaf stays a candidate of the whole group.
              capped = true;
              allowed.add(node);
              continue;
            }
            const part = splitOff(group, size);
            group.size -= size;
            placeIn(part, t, tree, open, c, node);
            groups.push(part);
          }
        }
        if (group.leaf[t] === -1 && allowed.size > 0 && narrowToHull(group, tree, open, c, allowed)) changed = true;
      }
      return changed;
    } finally {
      for (const n of leaves) slot[n] = -1;
    }
  }

  /** Places every member of `group` in leaf `node` of tree t; its box becomes that leaf's part. */
  function placeIn(group: RowGroup, t: number, tree: BoxForest['trees'][number], open: Int32Array, c: number, node: number): void {
    // The leaf's part of the box: walk again and take that candidate (the box reaches it).
    const found = candidates.find(tree, open, classes, c, group.low, group.high, true);
    for (let k = 0; k < found; k++) {
      if (candidates.leaves[k] !== node) continue;
      candidates.copyBox(k, group.low, group.high);
      break;
    }
    group.leaf[t] = node;
    group.unplaced--;
    place(forest, t, node, c, group.size);
  }

  /** Narrows the box to the hull of its candidates (restricted to `allowed` leaves); true when it changed. */
  function narrowToHull(group: RowGroup, tree: BoxForest['trees'][number], open: Int32Array, c: number, allowed: Set<number> | undefined): boolean {
    const found = candidates.find(tree, open, classes, c, group.low, group.high);
    if (allowed) {
      for (let k = found - 1; k >= 0; k--) if (!allowed.has(candidates.leaves[k])) candidates.remove(k);
      candidates.rehull();
    }
    if (candidates.count === 0) return false;
    let changed = false;
    for (let f = 0; f < features; f++) {
      if (candidates.hullLow[f] > group.low[f]) {
        group.low[f] = candidates.hullLow[f];
        changed = true;
      }
      if (candidates.hullHigh[f] < group.high[f]) {
        group.high[f] = candidates.hullHigh[f];
        changed = true;
      }
    }
    return changed;
  }
}
