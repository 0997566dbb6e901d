/**
 * The order in which the server's workers take queued work (issue 16): what the user just changed
 * first, the folder's start-up analysis after it. Lower runs sooner; equal priorities keep their
 * arrival order. The lint worker and the reconstruction worker each have a queue, so fast findings
 * never wait behind a solve at all; within the reconstruction worker, a changed file's
 * reconstruction comes before its advisor run, and both before any start-up work of other files.
 * Start-up reconstructions of all files come before start-up advisor runs, so every model's
 * diagnostics are complete before the long simulations begin. A running job is never preempted
 * (only a change of its own file stops it).
 */
export const PRIORITY = {
  /** Fast findings of a file the user saved, opened, rewrote or asked for. */
  changedFindings: 0,
  changedReconstruction: 1,
  changedAdvisor: 2,
  /** Fast findings of the files of a folder scan (start-up, "Analyse Workspace"). */
  startupFindings: 3,
  startupReconstruction: 4,
  startupAdvisor: 5,
} as const;

export type Priority = (typeof PRIORITY)[keyof typeof PRIORITY];

/** Where a file's analysis came from: the user's change, or a scan of the folder. */
export type Origin = 'changed' | 'startup';

export const priorities = (origin: Origin) =>
  origin === 'changed'
    ? { findings: PRIORITY.changedFindings, reconstruction: PRIORITY.changedReconstruction, advisor: PRIORITY.changedAdvisor }
    : { findings: PRIORITY.startupFindings, reconstruction: PRIORITY.startupReconstruction, advisor: PRIORITY.startupAdvisor };

/** A queue ordered by priority, then arrival. Small (a few dozen files): a sorted array is enough. */
export class PriorityList<T> {
  private items: { item: T; priority: number; seq: number }[] = [];
  private seq = 0;

  push(item: T, priority: number): void {
    const entry = { item, priority, seq: this.seq++ };
    const at = this.items.findIndex((e) => e.priority > priority);
    if (at < 0) this.items.push(entry);
    else this.items.splice(at, 0, entry);
  }

  shift(): T | undefined {
    return this.items.shift()?.item;
  }

  /** Removes and returns the items that match. */
  remove(match: (item: T) => boolean): T[] {
    const removed = this.items.filter((e) => match(e.item)).map((e) => e.item);
    this.items = this.items.filter((e) => !match(e.item));
    return removed;
  }

  /**
   * Moves matching items up to `priority` (never down), behind the items already there: the user's
   * touch is the item's new arrival. True if any moved.
   */
  promote(match: (item: T) => boolean, priority: number): boolean {
    let moved = false;
    for (const entry of this.items) {
      if (match(entry.item) && entry.priority > priority) {
        entry.priority = priority;
        entry.seq = this.seq++;
        moved = true;
      }
    }
    if (moved) this.items.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
    return moved;
  }

  all(): T[] {
    return this.items.map((e) => e.item);
  }

  get length(): number {
    return this.items.length;
  }

  clear(): T[] {
    const items = this.all();
    this.items = [];
    return items;
  }
}
