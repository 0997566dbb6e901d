/**
 * Fills the feature values a reconstructed row's cell leaves undetermined (no tree's path for
 * that cell tests them) with the value most frequent among the reconstructed rows that do
 * determine it; for a declared categorical group, the member (or, for an at-most-one group,
 * "none") most frequent among rows that determine the whole group, among those the row still
 * allows. The forest says nothing about these values for this row; the rest of its own
 * reconstruction is the best guess available, and a guess is what a likelihood answer is anyway.
 * Without it the values stay null and count as wrong (evaluate/metrics.ts).
 */
import { UNSET } from '../groups';
import type { CategoricalGroup } from '../types';

export interface RowsToImpute {
  /** Per row: one value per feature (0, 1 or UNSET). */
  values: Int32Array[];
  /** How many training rows each stands for. */
  weights: number[];
}

/** Fills UNSET entries in place; returns how many values were imputed (weighted by rows). */
export function imputeUndetermined(rows: RowsToImpute, features: number, groups: readonly CategoricalGroup[]): number {
  const grouped = new Set(groups.flatMap((g) => g.features));
  const ones = new Float64Array(features);
  const known = new Float64Array(features);
  rows.values.forEach((values, i) => {
    for (let f = 0; f < features; f++) {
      if (values[f] === UNSET) continue;
      known[f] += rows.weights[i];
      ones[f] += values[f] * rows.weights[i];
    }
  });
  // Option frequencies per group: member index, or members.length for "none".
  const optionCounts = groups.map((group) => {
    const counts = new Float64Array(group.features.length + 1);
    rows.values.forEach((values, i) => {
      if (group.features.some((f) => values[f] === UNSET)) return;
      const member = group.features.findIndex((f) => values[f] === 1);
      counts[member < 0 ? group.features.length : member] += rows.weights[i];
    });
    return counts;
  });

  let imputed = 0;
  rows.values.forEach((values, i) => {
    const before = values.filter((v) => v === UNSET).length;
    groups.forEach((group, g) => {
      if (!group.features.some((f) => values[f] === UNSET)) return;
      const hasOne = group.features.some((f) => values[f] === 1);
      if (hasOne) {
        for (const f of group.features) if (values[f] === UNSET) values[f] = 0;
        return;
      }
      let bestOption = -1;
      let bestCount = -1;
      group.features.forEach((f, k) => {
        if (values[f] === UNSET && optionCounts[g][k] > bestCount) {
          bestOption = k;
          bestCount = optionCounts[g][k];
        }
      });
      // A one-hot group needs its 1 among the undetermined members; an at-most-one group may have none.
      if (group.kind === 'at-most-one' && optionCounts[g][group.features.length] > bestCount) bestOption = -1;
      group.features.forEach((f, k) => {
        if (values[f] === UNSET) values[f] = k === bestOption ? 1 : 0;
      });
    });
    for (let f = 0; f < features; f++) {
      if (values[f] !== UNSET || grouped.has(f)) continue;
      values[f] = known[f] > 0 && ones[f] * 2 > known[f] ? 1 : 0;
    }
    imputed += (before - values.filter((v) => v === UNSET).length) * rows.weights[i];
  });
  return imputed;
}
