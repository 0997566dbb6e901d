/**
 * What the certified rows prove per input column of a Pipeline (`forest.pipelineInput`): the
 * report's figures per feature are in the model's columns (`num__age`, `cat__gender_Female`),
 * which are not the data its user holds. Here each certified row's box is carried back to the
 * Pipeline's input (forest/pipeline-conditions.ts, as `--emit-reconstruction` does) and summed per
 * column: a numeric column is proven when the box bounds it on both sides (the median width of
 * those intervals is in the column's own units) or proves it missing; an encoded column when the
 * box allows one category. Aggregates only: no row's values.
 */
import type { ReconstructionResult } from '../attacks/reconstruction/types';
import { allowedCategories, conditionsOnInput, rowBox } from '../forest/pipeline-conditions';
import { columnKind, usablePipelineInput } from '../forest/pipeline-input';
import type { Forest } from '../forest/schema';
import type { InputColumnRecovery } from './model';

/** Per input column, what the certified rows prove; undefined when the model has no Pipeline input the reader followed, or no row has a box. */
export function inputColumnRecovery(forest: Pick<Forest, 'features' | 'pipelineInput' | 'splitRule'>, result: Pick<ReconstructionResult, 'reconstruction'>): InputColumnRecovery[] | undefined {
  const input = usablePipelineInput(forest);
  const certified = result.reconstruction.filter((row) => row.certified && row.intervals);
  if (!input || certified.length === 0) return undefined;
  const categories = new Map((input.categories ?? []).map((entry) => [entry.column, entry.values]));
  const columns = input.columns.map((name, c): InputColumnRecovery & { widths: number[] } => ({ name, kind: columnKind(input, c), provenRows: 0, narrowedRows: 0, widths: [] }));
  for (const row of certified) {
    const conditions = conditionsOnInput(input, rowBox(row.intervals), forest.splitRule).columns;
    for (const condition of conditions) {
      const column = columns[condition.column];
      if (column.kind === 'numeric') {
        if (condition.missing === true) {
          column.missingRows = (column.missingRows ?? 0) + 1;
          column.provenRows++;
          column.narrowedRows++;
          continue;
        }
        const bounded = condition.lower !== undefined && condition.upper !== undefined;
        if (bounded) {
          column.provenRows++;
          column.widths.push(condition.upper! - condition.lower!);
        }
        if (bounded || condition.lower !== undefined || condition.upper !== undefined || condition.missing === false) column.narrowedRows++;
      } else if (column.kind === 'encoded') {
        const all = categories.get(condition.column);
        const allowed = allowedCategories(condition, all);
        if (!allowed) continue;
        if (allowed.length === 1) column.provenRows++;
        if (!all || allowed.length < all.length) column.narrowedRows++;
      }
    }
  }
  return columns.map(({ widths, ...column }, c) => {
    const known = column.kind === 'encoded' ? categories.get(c) : undefined;
    return { ...column, ...(known ? { categories: known.length } : {}), ...(widths.length > 0 ? { medianWidth: median(widths) } : {}) };
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
