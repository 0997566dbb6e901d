/**
 * Declared categorical groups as constraints on a partial assignment of binary features: which
 * values they force and when they are broken. Used by the cell enumeration to prune.
 */
import type { FeatureAxes } from './feature-axes';
import type { CategoricalGroup } from './types';

/** Unassigned value in an assignment vector. */
export const UNSET = -1;

export interface CompiledGroups {
  groups: readonly CategoricalGroup[];
  /** Indices (into `groups`) of the groups each feature belongs to. */
  ofFeature: readonly (readonly number[])[];
}

export function compileGroups(groups: readonly CategoricalGroup[], features: number): { ok: true; compiled: CompiledGroups } | { ok: false; reason: string } {
  const ofFeature: number[][] = Array.from({ length: features }, () => []);
  for (let g = 0; g < groups.length; g++) {
    const members = groups[g].features;
    if (members.length === 0) return { ok: false, reason: `categorical group ${g} has no features` };
    if (new Set(members).size !== members.length) return { ok: false, reason: `categorical group ${g} lists a feature twice` };
    for (const f of members) {
      if (!Number.isInteger(f) || f < 0 || f >= features) return { ok: false, reason: `categorical group ${g} names feature ${f}, but the model has ${features} features` };
      ofFeature[f].push(g);
    }
  }
  return { ok: true, compiled: { groups, ofFeature } };
}

/**
 * What a group implies for an assignment (values 0, 1 or UNSET per feature):
 * `broken` when no completion satisfies it, otherwise the (feature, value) pairs it forces.
 * Two ones break both kinds; a 1 forces the others to 0; a one-hot group with no 1 and one
 * unassigned member forces that member to 1, and with none unassigned it is broken.
 */
export function groupImplications(group: CategoricalGroup, value: ArrayLike<number>): { broken: boolean; forced: [number, number][] } {
  let ones = 0;
  let unassigned = 0;
  let lastUnassigned = -1;
  for (const f of group.features) {
    if (value[f] === 1) ones++;
    else if (value[f] === UNSET) {
      unassigned++;
      lastUnassigned = f;
    }
  }
  if (ones > 1) return { broken: true, forced: [] };
  if (ones === 1) {
    return { broken: false, forced: group.features.filter((f) => value[f] === UNSET).map((f) => [f, 0]) };
  }
  if (group.kind === 'one-hot') {
    if (unassigned === 0) return { broken: true, forced: [] };
    if (unassigned === 1) return { broken: false, forced: [[lastUnassigned, 1]] };
  }
  return { broken: false, forced: [] };
}

/**
 * The declared groups whose members the forest all splits as 0/1 (feature-axes.ts), and a note
 * naming the others. A group speaks of 0/1 values, so one naming a feature split elsewhere is left
 * out and the reconstruction runs without it (a weaker constraint, never a wrong one): before, the
 * whole reconstruction failed for it.
 */
export function groupsSplitAsBinary(groups: readonly CategoricalGroup[], axes: FeatureAxes, nameOf: (feature: number) => string): { groups: CategoricalGroup[]; note?: string } {
  const kept: CategoricalGroup[] = [];
  const dropped: string[] = [];
  for (const group of groups) {
    const numeric = group.features.find((f) => f >= 0 && f < axes.binary.length && !axes.binary[f]);
    if (numeric === undefined) kept.push(group);
    else dropped.push(`${nameOf(numeric)} (split at ${Array.from(axes.thresholds[numeric].slice(0, 3)).join(', ')}${axes.thresholds[numeric].length > 3 ? ', ...' : ''})`);
  }
  if (dropped.length === 0) return { groups: kept };
  const which = dropped.slice(0, 3).join('; ') + (dropped.length > 3 ? `; and ${dropped.length - 3} more` : '');
  return { groups: kept, note: `${dropped.length === 1 ? 'a declared group was' : `${dropped.length} declared groups were`} left out: each names a feature the forest splits as a number, not as 0/1: ${which}` };
}
