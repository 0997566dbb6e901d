/**
 * The papers' solvers always output a value for every attribute, even where the forest says
 * nothing (a feasible solution picks something). Our engine leaves such values null, which the
 * strict error counts as wrong. To compare with the papers on equal terms, the benchmark also
 * reports the error after filling every null the way the papers' random baseline guesses:
 * uniformly, consistent with the declared one-hot groups and with the values already determined.
 */
import type { BaselineGroup } from '../../../server/src/evaluate/metrics';

export function fillUndetermined<R extends { values: readonly (number | null)[] }>(rows: readonly R[], groups: readonly BaselineGroup[], random: () => number): (R & { values: number[] })[] {
  return rows.map((row) => {
    const values = [...row.values];
    for (const group of groups) {
      const open = group.features.filter((f) => values[f] === null);
      if (open.length === 0) continue;
      const hasOne = group.features.some((f) => values[f] === 1);
      for (const f of open) values[f] = 0;
      if (hasOne) continue;
      // No member is known to be 1: one of the open ones is (one-hot), or one or none (at-most-one).
      const choices = open.length + (group.kind === 'at-most-one' ? 1 : 0);
      const pick = Math.floor(random() * choices);
      if (pick < open.length) values[open[pick]] = 1;
    }
    for (let f = 0; f < values.length; f++) if (values[f] === null) values[f] = random() < 0.5 ? 0 : 1;
    return { ...row, values: values as number[] };
  });
}
