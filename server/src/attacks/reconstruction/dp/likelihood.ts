/**
 * Method `dp-likelihood`: the training set most likely to have produced a differentially private
 * forest's noisy counts (the DRAFT-DP attack, ../shared/papers/draft-dp-satml2026.txt section III),
 * over the aggregated unknowns of aggregated.ts instead of one variable set per row:
 *
 *   noisy-leaves.ts  the forest's leaves and released counts; which mechanisms are modelled
 *   noise.ts         the truncated Laplace noise: its cost, the paper's range, the interval on N
 *   ../cells.ts      cells of binary feature space, enumerated with counts that prune nothing
 *   formulation.ts   the likelihood as a mixed-integer linear program (plain data)
 *   solve.ts         column generation, rounding (first reconstruction), MILP (anytime)
 *   impute.ts        values no tree tests for a row, guessed from the rest of the reconstruction
 *
 * It is an estimate: noise makes every count uncertain, so no row is ever certified.
 */
import type { Forest } from '../../../forest/schema';
import { createCellEnumerator, enumerateInSlices } from '../cells';
import { yieldToEventLoop, type RunContext } from '../context';
import { UNSET } from '../groups';
import { withHighs } from '../highs';
import { mergeBySignature, type MergedCell } from '../merge';
import type { ReconstructedRow, ReconstructionResult } from '../types';
import { buildLikelihood, negativeLogLikelihood, rowCounts, type LikelihoodFormulation } from './formulation';
import { imputeUndetermined } from './impute';
import { rowsInterval, type RowsInterval } from './noise';
import { buildNoisyLeafTable, type NoisyLeafTable } from './noisy-leaves';
import { solveLikelihood, type LikelihoodSolution, type SolveControl } from './solve';

/** The inner workings behind a result, for tests and benchmarks. */
export interface DpReconstructionDetails {
  table: NoisyLeafTable;
  interval: RowsInterval;
  cells: MergedCell[];
  formulation: LikelihoodFormulation;
  solution?: LikelihoodSolution;
  /** -log likelihood of the released counts under the reconstruction (constants included). */
  negativeLogLikelihood?: number;
  /** Values filled by impute.ts (counted per training row). */
  imputedValues: number;
}

/**
 * Milliseconds per count row to build the solver's model (its rows, five auxiliary columns each,
 * handed to HiGHS): 0.75 s for 34k rows on the 7,206-row COMPAS forest on a loaded 2-core machine.
 */
const MODEL_BUILD_MS_PER_ROW = 0.02;

export async function reconstructDp(forest: Forest, ctx: RunContext, expose: (details: DpReconstructionDetails) => void = () => {}): Promise<ReconstructionResult> {
  const { options, stats } = ctx;
  const built = buildNoisyLeafTable(forest);
  const stated = forest.training.rows ?? null;
  if (!built.ok) return ctx.answer({ status: built.status, reason: built.reason, rows: stated, certifiedRows: 0 });
  const table = built.table;

  // N: stated, or the paper's confidence interval from the noisy totals.
  const classes = table.structure.classes;
  const totals = table.noisy.map((counts) => counts.reduce((a, b) => a + b, 0));
  const countsPerTree = table.noisy.reduce((a, counts) => a + counts.length, 0) / Math.max(1, table.noisy.length);
  const interval = rowsInterval(totals, countsPerTree, table.epsLeaf);
  stats.rowsInterval = interval;
  const [rowsLow, rowsHigh] = table.statedRows !== undefined ? [table.statedRows, table.statedRows] : [interval.low, interval.high];

  // Cells: every assignment the forest tells apart (and the declared groups allow), no count pruning.
  const created = createCellEnumerator(table.structure, options.groups ?? []);
  if (!created.ok) return ctx.answer({ status: 'failed', reason: created.reason, rows: stated, certifiedRows: 0 });
  const enumerationStart = Date.now();
  const enumerated = await enumerateInSlices(created.enumerator, () => ctx.stopped(), () => {
    stats.cells = created.enumerator.cells.length;
    stats.searchNodes = created.enumerator.searchNodes;
    stats.enumerationMs = Date.now() - enumerationStart;
    ctx.progress('cells', { cells: stats.cells });
  });
  if (!enumerated) {
    return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason()} while enumerating cells (${stats.cells} found so far), before any reconstruction`, rows: stated, certifiedRows: 0 });
  }
  const cells = mergeBySignature(created.enumerator.cells);
  stats.mergedCells = cells.length;
  if (cells.length === 0) return ctx.answer({ status: 'failed', reason: 'no assignment of binary features satisfies the declared categorical groups', rows: stated, certifiedRows: 0 });

  ctx.progress('formulation');
  const formulation = buildLikelihood(table, cells, rowsLow, rowsHigh);
  stats.columns = formulation.numCols;
  stats.constraints = formulation.numRows;
  const details: DpReconstructionDetails = { table, interval, cells, formulation, imputedValues: 0 };
  expose(details);
  await yieldToEventLoop();
  if (ctx.stopped()) return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason()} before the solver started`, rows: stated, certifiedRows: 0 });
  // Handing the model to HiGHS is one synchronous step that grows with the count rows and cannot be
  // interrupted: not begun when it would end past the deadline (issue 13: short advisor shares).
  const buildMs = formulation.numRows * MODEL_BUILD_MS_PER_ROW;
  if (Date.now() + buildMs > ctx.deadline) {
    return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason(true)}: too little to build the solver's model (${formulation.numRows} count rows, about ${(buildMs / 1000).toFixed(1)} s)`, rows: stated, certifiedRows: 0 });
  }

  const milpStart = Date.now();
  const control: SolveControl = { started: ctx.started, deadline: ctx.deadline, stopped: () => ctx.stopped(), onPhase: (phase) => ctx.progress(phase === 'milp' ? 'milp' : 'search') };
  const solved = await withHighs<LikelihoodSolution | { error: string }>((highs) => solveLikelihood(highs, formulation, control), (reason) => ({ error: reason }));
  stats.milpMs = Date.now() - milpStart;
  if ('error' in solved) return ctx.answer({ status: 'failed', reason: solved.error, rows: stated, certifiedRows: 0 });
  const solution = solved;
  details.solution = solution;
  if (solution.firstInDomainMs !== undefined) stats.firstReconstructionMs = solution.firstInDomainMs;

  const likelihood = negativeLogLikelihood(formulation, rowCounts(formulation, solution.columns, solution.counts));
  details.negativeLogLikelihood = likelihood.cost;
  const { rows: reconstruction, imputed } = toRows(solution, cells, classes, forest.classes, forest.features.length, options.groups ?? []);
  details.imputedValues = imputed;

  const reconstructed = reconstruction.length;
  const nText = table.statedRows !== undefined ? `N = ${table.statedRows} as the model states` : `N estimated at ${reconstructed} within the 95% interval [${interval.low}, ${interval.high}] from the noisy totals`;
  const estimate =
    `estimate: the training set ${solution.proven ? (solution.allColumns ? 'most likely' : 'most likely among the cells column generation priced in') : 'most likely found so far'} ` +
    `to have produced the noisy counts (DRAFT-DP likelihood, epsilon ${forest.privacy!.epsilon} over ${formulation.trees} trees, ${nText}); ` +
    `no row is certified, since noise makes every count uncertain` +
    (imputed > 0 ? `; ${imputed} values no tree tests for their row were guessed from the other reconstructed rows` : '') +
    (likelihood.inDomain ? '' : `; some noise lies outside the paper's range |noise| <= ${formulation.gamma}`);
  // Not proven maximal: HiGHS stopped at the budget (or the abort) with its best incumbent.
  if (!solution.proven) {
    return ctx.answer({ status: 'timeout', reason: `${ctx.stopReason()}; ${estimate}`, rows: stated, certifiedRows: 0, reconstruction });
  }
  return ctx.answer({ status: 'bounded', reason: estimate, rows: stated, certifiedRows: 0, reconstruction });
}

/** Multiplicities to rows: `count` copies of the cell's values (undetermined ones imputed) with the column's class. */
function toRows(
  solution: LikelihoodSolution,
  cells: readonly MergedCell[],
  classes: number,
  labels: readonly (string | number | boolean)[],
  features: number,
  groups: NonNullable<RunContext['options']['groups']>,
): { rows: ReconstructedRow[]; imputed: number } {
  const values: Int32Array[] = [];
  const weights: number[] = [];
  const labelOf: (string | number | boolean)[] = [];
  solution.columns.forEach((j, k) => {
    values.push(cells[Math.floor(j / classes)].values.slice());
    weights.push(solution.counts[k]);
    labelOf.push(labels[j % classes]);
  });
  const imputed = imputeUndetermined({ values, weights }, features, groups);
  const rows: ReconstructedRow[] = [];
  values.forEach((v, k) => {
    for (let copy = 0; copy < weights[k]; copy++) {
      rows.push({ values: Array.from(v, (x) => (x === UNSET ? null : x)), label: labelOf[k], certified: false });
    }
  });
  return { rows, imputed };
}

