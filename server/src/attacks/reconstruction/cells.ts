/**
 * Enumerates the cells of feature space that the forest tells apart: boxes of feature values (one
 * range of interval indices per feature, see feature-axes.ts) that send a training row to one
 * leaf per tree, with the classes such a row can have. On binary features a range is a value, 0
 * or 1, or both (undetermined).
 *
 * Depth-first, with the set of leaves still reachable in every tree (leaf-masks.ts). A branch
 * splits one feature's current range at a cut some reachable leaf's path uses: on a binary
 * feature into x = 0 and x = 1; on a numeric one into the intervals below the cut and those at or
 * above it (bisection over the cuts that matter, so a feature with many thresholds costs a few
 * levels, not one branch per interval). A branch is dropped, soundly, when
 *  - for every class some tree reaches only leaves holding no row of that class (without
 *    bootstrap every training row sits in one leaf of every tree, with its class counted there);
 *  - or it breaks a declared categorical group.
 * A feature is branched on only while some reachable leaf's path does not settle it (allows only
 * part of its current range). When none is left, every reachable leaf contains the whole box, the
 * reachable leaf of each tree is unique (a tree's leaves are disjoint), and the cell is emitted
 * with the ranges it has: this merges many equivalent boxes into one without losing anything the
 * forest says.
 *
 * The search is resumable (`step`) so that callers can keep to a time budget and stay responsive.
 */
import { compileGroups, groupImplications, UNSET, type CompiledGroups } from './groups';
import { andSparse, buildLeafMasks, intersectsSparse, type LeafMasks } from './leaf-masks';
import type { LeafTable } from './leaves';
import type { CategoricalGroup } from './types';

export interface Cell {
  /** Per feature: the interval index when the box holds one interval (0 or 1 on a binary feature), else UNSET. */
  values: Int32Array;
  /** Per feature: the box, as interval indices low..high (all of them when the forest does not determine it). */
  low: Int32Array;
  high: Int32Array;
  /** The leaf (index into `LeafTable.trees[t]`) of every tree t. */
  leaves: Int32Array;
  /** Per class: 1 when no tree rules the class out for this cell. */
  classes: Uint8Array;
}

export class CellEnumerator {
  readonly cells: Cell[] = [];
  /** Assignments tried (one per branch taken). */
  searchNodes = 0;
  private finished = false;

  private readonly masks: LeafMasks;
  /** Features in the order they are branched on (those tested near many roots first). */
  private readonly order: Int32Array;
  /** Per search level: leaves still reachable, and classes still possible (allocated as the search gets deeper). */
  private readonly reach: Uint32Array[] = [];
  private readonly alive: Uint8Array[] = [];
  /** The current box, its single-interval view, and the narrowings made in order (undone on backtrack). */
  private readonly low: Int32Array;
  private readonly high: Int32Array;
  private readonly value: Int32Array;
  private trailFeature: number[] = [];
  private trailLow: number[] = [];
  private trailHigh: number[] = [];
  /** Per level: the feature branched on, its cut, the next side to try (0 below, 1 at or above, 2 both tried), and the trail length before it. */
  private readonly frameFeature: number[] = [];
  private readonly frameCut: number[] = [];
  private readonly frameNext: number[] = [];
  private readonly frameTrail: number[] = [];
  private top = -1;
  /** Scratch space for the candidate cuts of one feature. */
  private cutScratch = new Int32Array(64);

  constructor(
    private readonly table: LeafTable,
    private readonly groups: CompiledGroups,
  ) {
    this.masks = buildLeafMasks(table);
    this.order = branchingOrder(table);
    this.low = new Int32Array(table.features);
    this.high = Int32Array.from(table.axes.intervals, (k) => k - 1);
    this.value = new Int32Array(table.features).fill(UNSET);
    this.start();
  }

  get done(): boolean {
    return this.finished;
  }

  /** Tries at most `nodeBudget` assignments; returns true once every cell has been found. */
  step(nodeBudget: number): boolean {
    let budget = nodeBudget;
    while (this.top >= 0 && budget > 0) {
      const level = this.top;
      this.undoTo(this.frameTrail[level]);
      if (this.frameNext[level] === 2) {
        this.top--;
        continue;
      }
      const side = this.frameNext[level]++;
      budget--;
      this.searchNodes++;
      const child = level + 1;
      const reach = this.levelReach(child);
      const alive = this.levelAlive(child);
      reach.set(this.reach[level]);
      alive.set(this.alive[level]);
      const f = this.frameFeature[level];
      const cut = this.frameCut[level];
      const narrowed = side === 0 ? this.assign(f, this.low[f], cut - 1, reach) : this.assign(f, cut, this.high[f], reach);
      if (!narrowed) continue;
      if (!this.keepLiveLeaves(reach, alive)) continue;
      this.expand(child);
    }
    if (this.top < 0) this.finished = true;
    return this.finished;
  }

  private levelReach(level: number): Uint32Array {
    return (this.reach[level] ??= new Uint32Array(this.masks.words));
  }

  private levelAlive(level: number): Uint8Array {
    return (this.alive[level] ??= new Uint8Array(this.table.classes));
  }

  private start(): void {
    const root = this.levelReach(0);
    root.set(this.masks.all);
    this.levelAlive(0).fill(1);
    // Groups can force values before any branching (a one-hot group of one feature).
    for (let g = 0; g < this.groups.groups.length; g++) {
      const { broken, forced } = groupImplications(this.groups.groups[g], this.value);
      if (broken) return this.finish();
      for (const [f, v] of forced) if (!this.assign(f, v, v, root)) return this.finish();
    }
    if (!this.keepLiveLeaves(root, this.alive[0])) return this.finish();
    this.expand(0);
    if (this.top < 0) this.finished = true;
  }

  private finish(): void {
    this.top = -1;
    this.finished = true;
  }

  /** Emits a cell at `level` when every reachable leaf settles every feature, else opens a branch there. */
  private expand(level: number): void {
    const reach = this.reach[level];
    for (const f of this.order) {
      const cut = this.cutToSplit(f, reach);
      if (cut < 0) continue;
      this.frameFeature[level] = f;
      this.frameCut[level] = cut;
      this.frameNext[level] = 0;
      this.frameTrail[level] = this.trailFeature.length;
      this.top = level;
      return;
    }
    this.emit(level);
  }

  /**
   * A cut c (low < c <= high) that splits feature f's current range where some reachable leaf's
   * path needs it split, or -1 when every reachable leaf settles f. Among several, the middle one,
   * so that a feature with many thresholds is bisected.
   */
  private cutToSplit(f: number, reach: Uint32Array): number {
    if (!intersectsSparse(reach, this.masks.tests[f])) return -1;
    const low = this.low[f];
    const high = this.high[f];
    if (low === high) {
      // One interval left: a reachable leaf testing f allows it entirely or had been cleared.
      return -1;
    }
    if (this.table.axes.binary[f]) return 1;
    const { word, bit, low: leafLow, high: leafHigh } = this.masks.testing[f];
    let found = 0;
    for (let i = 0; i < word.length; i++) {
      if ((reach[word[i]] & bit[i]) === 0) continue;
      if (leafLow[i] > low && leafLow[i] <= high) found = this.pushCut(found, leafLow[i]);
      if (leafHigh[i] < high && leafHigh[i] >= low) found = this.pushCut(found, leafHigh[i] + 1);
      // A path that contradicts itself (low > high) is cleared by either side of any cut.
      if (leafLow[i] > leafHigh[i] && found === 0) found = this.pushCut(found, low + 1);
    }
    if (found === 0) return -1;
    const cuts = this.cutScratch.subarray(0, found).sort();
    return cuts[found >>> 1];
  }

  private pushCut(found: number, cut: number): number {
    if (found === this.cutScratch.length) {
      const larger = new Int32Array(found * 2);
      larger.set(this.cutScratch);
      this.cutScratch = larger;
    }
    this.cutScratch[found] = cut;
    return found + 1;
  }

  /**
   * Narrows x[feature] to the interval indices lo..hi, and assigns everything the groups then
   * force; false when the box becomes empty or a group is broken.
   */
  private assign(feature: number, lo: number, hi: number, reach: Uint32Array): boolean {
    const pending: [number, number, number][] = [[feature, lo, hi]];
    const { cuts } = this.masks;
    while (pending.length > 0) {
      const [f, a, b] = pending.pop()!;
      const low = this.low[f];
      const high = this.high[f];
      const newLow = Math.max(low, a);
      const newHigh = Math.min(high, b);
      if (newLow > newHigh) return false;
      if (newLow === low && newHigh === high) continue;
      this.trailFeature.push(f);
      this.trailLow.push(low);
      this.trailHigh.push(high);
      this.low[f] = newLow;
      this.high[f] = newHigh;
      this.value[f] = newLow === newHigh ? newLow : UNSET;
      if (newLow > low) andSparse(reach, cuts.atOrAbove(f, newLow));
      if (newHigh < high) andSparse(reach, cuts.below(f, newHigh + 1));
      for (const g of this.groups.ofFeature[f]) {
        const { broken, forced } = groupImplications(this.groups.groups[g], this.value);
        if (broken) return false;
        for (const [forcedFeature, v] of forced) pending.push([forcedFeature, v, v]);
      }
    }
    return true;
  }

  private undoTo(length: number): void {
    while (this.trailFeature.length > length) {
      const f = this.trailFeature.pop()!;
      this.low[f] = this.trailLow.pop()!;
      this.high[f] = this.trailHigh.pop()!;
      this.value[f] = this.low[f] === this.high[f] ? this.low[f] : UNSET;
    }
  }

  /**
   * Rules out every class some tree can no longer hold, and drops the leaves that hold none of the
   * remaining classes (no training row of this branch can end there). False when no class is left.
   */
  private keepLiveLeaves(reach: Uint32Array, alive: Uint8Array): boolean {
    const { treeWord, nonzero } = this.masks;
    const trees = this.table.trees.length;
    let anyAlive = false;
    for (let c = 0; c < alive.length; c++) {
      if (!alive[c]) continue;
      const holds = nonzero[c];
      for (let t = 0; t < trees && alive[c]; t++) {
        let reached = 0;
        for (let w = treeWord[t]; w < treeWord[t + 1] && reached === 0; w++) reached = reach[w] & holds[w];
        if (reached === 0) alive[c] = 0;
      }
      if (alive[c]) anyAlive = true;
    }
    if (!anyAlive) return false;
    for (let w = 0; w < reach.length; w++) {
      let live = 0;
      for (let c = 0; c < alive.length; c++) if (alive[c]) live |= nonzero[c][w];
      reach[w] &= live;
    }
    return true;
  }

  private emit(level: number): void {
    const reach = this.reach[level];
    const { treeWord } = this.masks;
    const trees = this.table.trees.length;
    const leaves = new Int32Array(trees);
    for (let t = 0; t < trees; t++) {
      let found = -1;
      for (let w = treeWord[t]; w < treeWord[t + 1]; w++) {
        let word = reach[w];
        while (word !== 0) {
          const low = word & -word;
          // A second leaf would mean an unassigned feature still separates them (a bug, not a data problem).
          if (found >= 0) throw new Error(`cell enumeration: tree ${t} reaches two leaves in a finished cell`);
          found = (w - treeWord[t]) * 32 + (31 - Math.clz32(low));
          word = (word ^ low) >>> 0;
        }
      }
      leaves[t] = found;
    }
    this.cells.push({ values: this.value.slice(), low: this.low.slice(), high: this.high.slice(), leaves, classes: this.alive[level].slice() });
  }
}

/**
 * Branching order: features that many training rows meet near the roots first, so that early
 * branches split many trees at once and dead ends show early. Score = sum over leaves and their
 * path literals of rows in the leaf / (depth + 1).
 */
function branchingOrder(table: LeafTable): Int32Array {
  const score = new Float64Array(table.features);
  for (const tree of table.trees) {
    for (let l = 0; l < tree.nodes.length; l++) {
      let rows = 0;
      for (let c = 0; c < table.classes; c++) rows += tree.counts[l * table.classes + c];
      for (let k = tree.literalStart[l]; k < tree.literalStart[l + 1]; k++) {
        score[tree.literalFeature[k]] += rows / (k - tree.literalStart[l] + 1);
      }
    }
  }
  return Int32Array.from(score.keys()).sort((a, b) => score[b] - score[a] || a - b);
}

export function createCellEnumerator(table: LeafTable, groups: readonly CategoricalGroup[]): { ok: true; enumerator: CellEnumerator } | { ok: false; reason: string } {
  const compiled = compileGroups(groups, table.features);
  if (!compiled.ok) return compiled;
  for (let g = 0; g < groups.length; g++) {
    // Groups speak of 0/1 values; a member split elsewhere than between 0 and 1 is not one.
    const numeric = groups[g].features.find((f) => !table.axes.binary[f]);
    if (numeric !== undefined) return { ok: false, reason: `categorical group ${g} names feature ${numeric}, which the forest splits as a numeric feature` };
  }
  return { ok: true, enumerator: new CellEnumerator(table, compiled.compiled) };
}

/** Search nodes per enumeration slice; a slice takes a few milliseconds on forests of 100 trees. */
export const NODES_PER_SLICE = 2_000;
/** Longest stretch of enumeration between two looks at the event loop (abort, progress). */
const SLICE_MS = 25;

/**
 * Runs the enumeration in slices of about SLICE_MS, yielding to the event loop between them so that
 * an abort, a deadline or a progress report gets through. False when `stopped` ended it before
 * completion.
 *
 * The nodes per step adapt to what a node costs: they start at FIRST_STEP_NODES, double while a
 * step takes under a fifth of a slice, halve when it takes more, and never exceed NODES_PER_SLICE.
 * Why: a node copies and narrows a reach mask over every leaf of every tree, so its cost grows with
 * the forest. On 100 fully grown extra trees over 10,000 rows (about a million leaves) one node
 * took 20 ms, and a fixed step of 2,000 nodes ran 41 s past a 30 s budget.
 */
export async function enumerateInSlices(enumerator: CellEnumerator, stopped: () => boolean, afterSlice: () => void): Promise<boolean> {
  let nodes = FIRST_STEP_NODES;
  for (;;) {
    if (stopped()) return false;
    const sliceStart = Date.now();
    let done = false;
    while (!done && Date.now() - sliceStart < SLICE_MS) {
      const stepStart = Date.now();
      done = enumerator.step(nodes);
      nodes = Date.now() - stepStart < SLICE_MS / 5 ? Math.min(NODES_PER_SLICE, nodes * 2) : Math.max(1, nodes >> 1);
    }
    afterSlice();
    if (done) return true;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Nodes of the first step of a slice run (enumerateInSlices doubles them while steps are quick). */
const FIRST_STEP_NODES = 16;
