/**
 * Enumerates the cells of feature space that the forest tells apart: assignments of the binary
 * features that send a training row to one leaf per tree, with the classes such a row can have.
 *
 * Depth-first over features, with the set of leaves still reachable in every tree (leaf-masks.ts).
 * A branch is dropped, soundly, when
 *  - for every class some tree reaches only leaves holding no row of that class (without
 *    bootstrap every training row sits in one leaf of every tree, with its class counted there);
 *  - or it breaks a declared categorical group.
 * A feature is branched on only while some reachable leaf still tests it. When none does, the
 * remaining features cannot change any leaf, the reachable leaf of each tree is unique, and the
 * cell is emitted with those features undetermined (UNSET): this merges up to 2^k equivalent cells
 * into one without losing anything the forest says.
 *
 * The search is resumable (`step`) so that callers can keep to a time budget and stay responsive.
 */
import { compileGroups, groupImplications, UNSET, type CompiledGroups } from './groups';
import { andSparse, buildLeafMasks, intersectsSparse, type LeafMasks } from './leaf-masks';
import type { LeafTable } from './leaves';
import type { CategoricalGroup } from './types';

export interface Cell {
  /** Per feature: 0, 1, or UNSET when the forest does not determine it in this cell. */
  values: Int8Array;
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
  /** Per search level: leaves still reachable, and classes still possible. */
  private readonly reach: Uint32Array[];
  private readonly alive: Uint8Array[];
  /** The current partial assignment, and the features assigned in order (undone on backtrack). */
  private readonly value: Int8Array;
  private readonly trail: Int32Array;
  private trailLength = 0;
  /** Per level: the feature branched on, the next value to try (2 = both tried), and the trail length before it. */
  private readonly frameFeature: Int32Array;
  private readonly frameNext: Int8Array;
  private readonly frameTrail: Int32Array;
  private top = -1;

  constructor(
    private readonly table: LeafTable,
    private readonly groups: CompiledGroups,
  ) {
    this.masks = buildLeafMasks(table);
    this.order = branchingOrder(table);
    const levels = table.features + 2;
    this.reach = Array.from({ length: levels }, () => new Uint32Array(this.masks.words));
    this.alive = Array.from({ length: levels }, () => new Uint8Array(table.classes));
    this.value = new Int8Array(table.features).fill(UNSET);
    this.trail = new Int32Array(table.features);
    this.frameFeature = new Int32Array(levels);
    this.frameNext = new Int8Array(levels);
    this.frameTrail = new Int32Array(levels);
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
      const value = this.frameNext[level]++;
      budget--;
      this.searchNodes++;
      const child = level + 1;
      this.reach[child].set(this.reach[level]);
      this.alive[child].set(this.alive[level]);
      if (!this.assign(this.frameFeature[level], value, this.reach[child])) continue;
      if (!this.keepLiveLeaves(this.reach[child], this.alive[child])) continue;
      this.expand(child);
    }
    if (this.top < 0) this.finished = true;
    return this.finished;
  }

  private start(): void {
    const root = this.reach[0];
    root.set(this.masks.all);
    this.alive[0].fill(1);
    // Groups can force values before any branching (a one-hot group of one feature).
    for (let g = 0; g < this.groups.groups.length; g++) {
      const { broken, forced } = groupImplications(this.groups.groups[g], this.value);
      if (broken) return this.finish();
      for (const [f, v] of forced) if (!this.assign(f, v, root)) return this.finish();
    }
    if (!this.keepLiveLeaves(root, this.alive[0])) return this.finish();
    this.expand(0);
    if (this.top < 0) this.finished = true;
  }

  private finish(): void {
    this.top = -1;
    this.finished = true;
  }

  /** Emits a cell at `level` when no reachable leaf tests an unassigned feature, else opens a branch there. */
  private expand(level: number): void {
    const feature = this.pickFeature(this.reach[level]);
    if (feature < 0) {
      this.emit(level);
      return;
    }
    this.frameFeature[level] = feature;
    this.frameNext[level] = 0;
    this.frameTrail[level] = this.trailLength;
    this.top = level;
  }

  private pickFeature(reach: Uint32Array): number {
    for (const f of this.order) {
      if (this.value[f] === UNSET && intersectsSparse(reach, this.masks.tests[f])) return f;
    }
    return -1;
  }

  /** Assigns x[feature] = value and everything the groups then force; false when that breaks a group. */
  private assign(feature: number, value: number, reach: Uint32Array): boolean {
    const pending: [number, number][] = [[feature, value]];
    while (pending.length > 0) {
      const [f, v] = pending.pop()!;
      if (this.value[f] !== UNSET) {
        if (this.value[f] !== v) return false;
        continue;
      }
      this.value[f] = v;
      this.trail[this.trailLength++] = f;
      andSparse(reach, this.masks.keep[f * 2 + v]);
      for (const g of this.groups.ofFeature[f]) {
        const { broken, forced } = groupImplications(this.groups.groups[g], this.value);
        if (broken) return false;
        pending.push(...forced);
      }
    }
    return true;
  }

  private undoTo(length: number): void {
    while (this.trailLength > length) this.value[this.trail[--this.trailLength]] = UNSET;
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
    this.cells.push({ values: this.value.slice(), leaves, classes: this.alive[level].slice() });
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
  return { ok: true, enumerator: new CellEnumerator(table, compiled.compiled) };
}
