/**
 * Merges cells that every tree sends to the same leaves. Such cells are indistinguishable to the
 * model (the same leaf counts constrain them), so as unknowns they are interchangeable: keeping
 * them apart only multiplies equivalent solutions and weakens every per-cell bound. The merged
 * cell keeps a feature's value where all its members agree and leaves it undetermined elsewhere;
 * its box is the smallest one holding every member's box (each true row of the merged cell lies in
 * one member, hence in that box).
 */
import type { Cell } from './cells';
import { UNSET } from './groups';

export interface MergedCell extends Cell {
  /** How many enumerated cells it stands for. */
  members: number;
}

export function mergeBySignature(cells: readonly Cell[]): MergedCell[] {
  const bySignature = new Map<string, MergedCell>();
  for (const cell of cells) {
    const key = cell.leaves.join(',');
    const merged = bySignature.get(key);
    if (!merged) {
      bySignature.set(key, { values: cell.values.slice(), low: cell.low.slice(), high: cell.high.slice(), leaves: cell.leaves, classes: cell.classes, members: 1 });
      continue;
    }
    merged.members++;
    for (let f = 0; f < merged.values.length; f++) {
      if (merged.values[f] !== cell.values[f]) merged.values[f] = UNSET;
      if (cell.low[f] < merged.low[f]) merged.low[f] = cell.low[f];
      if (cell.high[f] > merged.high[f]) merged.high[f] = cell.high[f];
    }
  }
  return [...bySignature.values()];
}
