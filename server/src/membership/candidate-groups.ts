/**
 * What both fits across candidates share (assignment.ts with a replayed bootstrap, row-count-mass.ts
 * without): every leaf's stored count of each label as one flat array, and the candidates grouped
 * by label and leaves (the model cannot tell a group's candidates apart), each group with the ids of
 * the counts its rows add to, one per tree.
 */
import type { Forest } from '../forest/schema';
import { classCount } from '../forest/structure';

export interface CandidateGroup {
  /** Candidates in the group. */
  size: number;
  /** Their indices in the candidate list. */
  members: number[];
  /** Per tree, the id (an index into `targets`) of the leaf-and-label count the group adds to. */
  keys: Int32Array;
}

export class CandidateGroups<G extends CandidateGroup> {
  /** Every tree's leaf-and-label counts, side by side (negative counts read as 0). */
  readonly targets: Float64Array;
  readonly groups: G[] = [];
  private readonly offsets: number[] = [];
  private readonly classes: number;
  private readonly byKey = new Map<string, number>();

  constructor(forest: Forest) {
    this.classes = classCount(forest);
    let total = 0;
    for (const tree of forest.trees) {
      this.offsets.push(total);
      total += tree.classWeights.length;
    }
    this.targets = new Float64Array(total);
    forest.trees.forEach((tree, t) => this.targets.set(Array.from(tree.classWeights, (w) => Math.max(0, w)), this.offsets[t]));
  }

  /**
   * Files the candidate under its group; a new group is made by `create` from its keys. Returns
   * true when the group is new.
   */
  add(candidate: number, leaves: Int32Array, y: number, create: (keys: Int32Array) => Omit<G, 'size' | 'members' | 'keys'>): boolean {
    const key = `${y}|${leaves.join(',')}`;
    const known = this.byKey.get(key);
    if (known !== undefined) {
      this.groups[known].size++;
      this.groups[known].members.push(candidate);
      return false;
    }
    const keys = Int32Array.from(leaves, (leaf, t) => this.offsets[t] + leaf * this.classes + y);
    this.byKey.set(key, this.groups.length);
    this.groups.push({ ...create(keys), size: 1, members: [candidate], keys } as G);
    return true;
  }
}
