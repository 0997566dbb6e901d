/**
 * What the fits across candidates share (assignment.ts with a replayed bootstrap, row-count-mass.ts
 * without, class-trees.ts for boosted classifiers): every leaf's stored count of each label as one
 * flat array (plus any further blocks of counts the caller adds, such as class trees' rows of their
 * class), and the candidates grouped by label and leaves (the model cannot tell a group's
 * candidates apart), each group with the ids of the counts its rows add to, one per tree and block.
 */
import type { Forest } from '../forest/schema';
import { classCount } from '../forest/structure';

export interface CandidateGroup {
  /** Candidates in the group. */
  size: number;
  /** Their indices in the candidate list. */
  members: number[];
  /** Per tree, then per extra block, the id (an index into `targets`) of the count the group adds to. */
  keys: Int32Array;
}

export class CandidateGroups<G extends CandidateGroup> {
  /** Every tree's leaf-and-label counts, side by side (negative counts read as 0), then the extra blocks. */
  readonly targets: Float64Array;
  readonly groups: G[] = [];
  private readonly offsets: number[] = [];
  private readonly extraOffsets: number[] = [];
  private readonly classes: number;
  private readonly byKey = new Map<string, number>();

  /** `extra`: further blocks of counts (per node) a group may add to (`add`'s `extra` names which, and where). */
  constructor(forest: Forest, extra: readonly ArrayLike<number>[] = []) {
    this.classes = classCount(forest);
    let total = 0;
    for (const tree of forest.trees) {
      this.offsets.push(total);
      total += tree.classWeights.length;
    }
    for (const block of extra) {
      this.extraOffsets.push(total);
      total += block.length;
    }
    this.targets = new Float64Array(total);
    forest.trees.forEach((tree, t) => this.targets.set(Array.from(tree.classWeights, (w) => Math.max(0, w)), this.offsets[t]));
    extra.forEach((block, j) => this.targets.set(Array.from(block, (w) => Math.max(0, w)), this.extraOffsets[j]));
  }

  /**
   * Files the candidate under its group; a new group is made by `create` from its keys. `extra`:
   * the [block, node] pairs of the extra blocks' counts the candidate adds to. Returns true when
   * the group is new.
   */
  add(candidate: number, leaves: Int32Array, y: number, create: (keys: Int32Array) => Omit<G, 'size' | 'members' | 'keys'>, extra: readonly (readonly [number, number])[] = []): boolean {
    const key = `${y}|${leaves.join(',')}|${extra.map(([block, node]) => `${block}:${node}`).join(',')}`;
    const known = this.byKey.get(key);
    if (known !== undefined) {
      this.groups[known].size++;
      this.groups[known].members.push(candidate);
      return false;
    }
    const keys = new Int32Array(leaves.length + extra.length);
    leaves.forEach((leaf, t) => (keys[t] = this.offsets[t] + leaf * this.classes + y));
    extra.forEach(([block, node], j) => (keys[leaves.length + j] = this.extraOffsets[block] + node));
    this.byKey.set(key, this.groups.length);
    this.groups.push({ ...create(keys), size: 1, members: [candidate], keys } as G);
    return true;
  }
}
