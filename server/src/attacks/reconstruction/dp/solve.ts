/**
 * Maximises the DRAFT-DP likelihood (formulation.ts) with HiGHS, anytime:
 *  1. column generation on the LP relaxation: start from the columns that enter the largest
 *     released counts, price every (cell, class) with the row duals, add the most negative, repeat;
 *  2. the LP optimum rounded to integers (the total kept) is the first reconstruction;
 *  3. a MILP over the generated columns (all columns when there are few enough: then the optimum
 *     is the exact maximum-likelihood training set) started from it, keeping HiGHS's best
 *     incumbent when the budget runs out.
 *
 * HiGHS model (rows / columns):
 *   count rows r:   sum_j x_j + plus_r - minus_r + over_r - under_r = n*_r
 *   total row:      rowsLow <= sum_j x_j <= rowsHigh
 *   zero rows:      plus_r <= deltaHigh_r (1 - zero_r),  minus_r <= -deltaLow_r (1 - zero_r)
 *   costs:          eps (plus + minus) - log 2 zero + BIG (over + under)
 * `over`/`under` carry noise outside the paper's domain |Delta| <= gamma. They keep every
 * restricted model feasible (column generation needs that from its first round); a solution
 * that uses them is not one the paper's model admits, and the first reconstruction is the first
 * solution that does not.
 */
import type { Highs } from 'highs';
import { GrowingModel, type ColumnBlock } from '../highs';
import type { LikelihoodFormulation } from './formulation';

/** Cost of one unit of noise outside the paper's domain: far above any likelihood difference. */
const OUTSIDE_DOMAIN_COST = 1000;
/** Columns added per pricing round. */
const COLUMNS_PER_ROUND = 300;
/** Columns in the first restricted LP. */
const INITIAL_COLUMNS = 400;
/** Up to this many (cell, class) columns the MILP gets them all: the exact maximum likelihood. */
const ALL_COLUMNS_UP_TO = 12_000;
/** Otherwise the MILP gets the generated columns plus this many of the best-priced others. */
const EXTRA_COLUMNS = 4_000;
const PRICING_TOLERANCE = 1e-9;
/** Share of the remaining budget column generation may use before the MILP starts regardless. */
const GENERATION_SHARE = 0.3;

/** Milliseconds kept from the MILP for building the answer. */
const ANSWER_MARGIN_MS = 300;

const AUX_PER_ROW = 5;
const PLUS = 0;
const MINUS = 1;
const ZERO = 2;
const OVER = 3;
const UNDER = 4;

export interface LikelihoodSolution {
  /** Columns (formulation indices) with a positive multiplicity, and the multiplicities. */
  columns: Int32Array;
  counts: Int32Array;
  /** HiGHS proved the maximum likelihood over the columns it had (within its default gap). */
  proven: boolean;
  /** Whether the MILP had every column (then `proven` means the exact maximum likelihood). */
  allColumns: boolean;
  gap?: number;
  /** Milliseconds (since `started`) when the first solution inside the paper's noise domain was known. */
  firstInDomainMs?: number;
  generatedColumns: number;
  pricingRounds: number;
  milpColumns: number;
}

export interface SolveControl {
  started: number;
  deadline: number;
  stopped: () => boolean;
  onPhase?: (phase: 'relaxation' | 'milp') => void;
}

export function solveLikelihood(highs: Highs, f: LikelihoodFormulation, control: SolveControl): LikelihoodSolution | { error: string } {
  const R = f.numRows;
  const totalRow = R;
  // Zero-linking rows come after the total row.
  const rowLower: number[] = [...f.released, f.rowsLow];
  const rowUpper: number[] = [...f.released, f.rowsHigh];
  const aux = auxColumns(f, rowLower, rowUpper);
  const model = new GrowingModel(highs, Float64Array.from(rowLower), Float64Array.from(rowUpper));
  try {
    model.addColumns(aux);
    const auxCount = aux.cost.length;
    /** Model column of each formulation column (-1: not generated yet). */
    const position = new Int32Array(f.numCols).fill(-1);
    const generated: number[] = [];
    const add = (columns: readonly number[]) => {
      const fresh = columns.filter((j) => position[j] < 0);
      if (fresh.length === 0) return;
      const first = model.addColumns(xColumns(f, fresh, totalRow));
      fresh.forEach((j, k) => (position[j] = first + k));
      for (const j of fresh) generated.push(j);
    };

    // 1. Column generation; every relaxation rounded is a candidate reconstruction.
    control.onPhase?.('relaxation');
    add(initialColumns(f));
    const generationDeadline = Date.now() + (control.deadline - Date.now()) * GENERATION_SHARE;
    let rounds = 0;
    let duals: Float64Array | undefined;
    let best: Candidate | undefined;
    let firstInDomainMs: number | undefined;
    const consider = (candidate: Candidate) => {
      if (firstInDomainMs === undefined && candidate.outside === 0) firstInDomainMs = Date.now() - control.started;
      if (!best || candidate.objective < best.objective - 1e-9) best = candidate;
    };
    for (;;) {
      const lp = model.solveRelaxation({ deadline: Math.min(control.deadline, Math.max(generationDeadline, Date.now() + 1000)) });
      if (lp.status === 'error') return { error: lp.detail };
      if (lp.status !== 'optimal') break;
      rounds++;
      duals = lp.rowDual;
      const values = lp.colValue;
      consider(evaluate(f, generated, roundTotal(generated.map((j) => Math.max(0, values[position[j]])), f.rowsLow, f.rowsHigh)));
      const priced = price(f, duals, totalRow, position, COLUMNS_PER_ROUND);
      if (priced.length === 0 || Date.now() > generationDeadline || control.stopped()) break;
      add(priced);
    }
    const generatedColumns = generated.length;
    best ??= evaluate(f, generated, roundTotal(generated.map(() => 0), f.rowsLow, f.rowsHigh));

    // 2. The MILP over the generated columns, plus all others when there are few enough (then
    // its optimum is the exact maximum likelihood), or the best-priced others; started from the
    // best rounded relaxation.
    if (!control.stopped()) {
      if (f.numCols <= ALL_COLUMNS_UP_TO) add(Array.from({ length: f.numCols }, (_, j) => j));
      else if (duals) add(price(f, duals, totalRow, position, EXTRA_COLUMNS, Number.POSITIVE_INFINITY));
      control.onPhase?.('milp');
      const integer = new Int32Array(generated.length + R);
      generated.forEach((_, k) => (integer[k] = auxCount + k));
      for (let r = 0; r < R; r++) integer[generated.length + r] = r * AUX_PER_ROW + ZERO;
      integer.sort();
      const outsideOf = (values: ArrayLike<number>) => {
        let outside = 0;
        for (let r = 0; r < R; r++) outside += values[r * AUX_PER_ROW + OVER] + values[r * AUX_PER_ROW + UNDER];
        return outside;
      };
      // HiGHS overruns its time limit a little; the margin leaves time to turn the answer into rows.
      const milp = model.solveInteger(integer, { deadline: control.deadline - ANSWER_MARGIN_MS }, {
        start: startVector(f, best, position, model.numCols),
        shouldStop: control.stopped,
        onImproving: (values) => {
          if (firstInDomainMs === undefined && outsideOf(values) < 0.5) firstInDomainMs = Date.now() - control.started;
        },
      });
      if (milp.status === 'error') return { error: milp.detail ?? 'HiGHS failed' };
      if (milp.colValue) {
        const values = milp.colValue;
        consider(evaluate(f, generated, generated.map((j) => Math.max(0, Math.round(values[position[j]])))));
      }
      return finish(best, milp.status === 'optimal', milp.gap, rounds, generatedColumns, firstInDomainMs);
    }
    return finish(best, false, undefined, rounds, generatedColumns, firstInDomainMs);

    function finish(candidate: Candidate, proven: boolean, gap: number | undefined, pricingRounds: number, generatedCount: number, first: number | undefined): LikelihoodSolution {
      return {
        columns: candidate.columns,
        counts: candidate.counts,
        proven,
        allColumns: generated.length === f.numCols,
        ...(gap !== undefined ? { gap } : {}),
        ...(first !== undefined ? { firstInDomainMs: first } : {}),
        generatedColumns: generatedCount,
        pricingRounds,
        milpColumns: generated.length,
      };
    }
  } finally {
    model.dispose();
  }
}

/** The five auxiliary columns of every count row (see the module comment), and the zero-linking rows. */
function auxColumns(f: LikelihoodFormulation, rowLower: number[], rowUpper: number[]): ColumnBlock {
  const R = f.numRows;
  const n = R * AUX_PER_ROW;
  const cost = new Float64Array(n);
  const lower = new Float64Array(n);
  const upper = new Float64Array(n);
  // Entries per column: plus/minus/over/under enter their count row (+ a zero row), zero enters up
  // to two zero rows. At most 2 entries a column, so fixed slots of 2 (typed arrays: one small
  // array per column cost about a second on 170k columns), compacted below.
  const slotRow = new Int32Array(n * 2);
  const slotValue = new Float64Array(n * 2);
  const used = new Uint8Array(n);
  const put = (column: number, row: number, value: number) => {
    const at = column * 2 + used[column]++;
    slotRow[at] = row;
    slotValue[at] = value;
  };
  for (let r = 0; r < R; r++) {
    const base = r * AUX_PER_ROW;
    const low = f.deltaLow[r];
    const high = f.deltaHigh[r];
    cost[base + PLUS] = f.epsLeaf;
    cost[base + MINUS] = f.epsLeaf;
    cost[base + ZERO] = -Math.LN2;
    cost[base + OVER] = OUTSIDE_DOMAIN_COST;
    cost[base + UNDER] = OUTSIDE_DOMAIN_COST;
    // Delta = plus - minus within [low, high]; plus = Delta when positive, minus = -Delta when negative.
    lower[base + PLUS] = Math.max(0, low);
    upper[base + PLUS] = Math.max(0, high);
    lower[base + MINUS] = Math.max(0, -high);
    upper[base + MINUS] = Math.max(0, -low);
    const zeroAllowed = low <= 0 && high >= 0;
    upper[base + ZERO] = zeroAllowed ? 1 : 0;
    upper[base + OVER] = Number.POSITIVE_INFINITY;
    upper[base + UNDER] = Number.POSITIVE_INFINITY;
    // Count row: n + Delta = n*, Delta = plus - minus + over - under.
    put(base + PLUS, r, 1);
    put(base + MINUS, r, -1);
    put(base + OVER, r, 1);
    put(base + UNDER, r, -1);
    if (zeroAllowed && high > 0) {
      const row = rowLower.length;
      rowLower.push(Number.NEGATIVE_INFINITY);
      rowUpper.push(high);
      put(base + PLUS, row, 1);
      put(base + ZERO, row, high);
    }
    if (zeroAllowed && low < 0) {
      const row = rowLower.length;
      rowLower.push(Number.NEGATIVE_INFINITY);
      rowUpper.push(-low);
      put(base + MINUS, row, 1);
      put(base + ZERO, row, -low);
    }
  }
  const starts = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) starts[k + 1] = starts[k] + used[k];
  const indices = new Int32Array(starts[n]);
  const values = new Float64Array(starts[n]);
  for (let k = 0; k < n; k++) {
    for (let i = 0; i < used[k]; i++) {
      indices[starts[k] + i] = slotRow[k * 2 + i];
      values[starts[k] + i] = slotValue[k * 2 + i];
    }
  }
  return { cost, lower, upper, starts, indices, values };
}

/** Multiplicity columns: one entry per tree (its count row) and one in the total row. */
function xColumns(f: LikelihoodFormulation, columns: readonly number[], totalRow: number): ColumnBlock {
  const { trees, colRows } = f;
  const n = columns.length;
  const starts = new Int32Array(n + 1);
  const indices = new Int32Array(n * (trees + 1));
  columns.forEach((j, k) => {
    starts[k + 1] = (k + 1) * (trees + 1);
    for (let t = 0; t < trees; t++) indices[k * (trees + 1) + t] = colRows[j * trees + t];
    indices[k * (trees + 1) + trees] = totalRow;
  });
  return {
    cost: new Float64Array(n),
    lower: new Float64Array(n),
    upper: new Float64Array(n).fill(f.rowsHigh),
    starts,
    indices,
    values: new Float64Array(indices.length).fill(1),
  };
}

/** Columns entering the largest released counts: where the rows most likely are. */
function initialColumns(f: LikelihoodFormulation): number[] {
  const { trees, colRows, released } = f;
  const score = new Float64Array(f.numCols);
  for (let j = 0; j < f.numCols; j++) {
    let s = 0;
    for (let t = 0; t < trees; t++) s += released[colRows[j * trees + t]];
    score[j] = s;
  }
  if (f.numCols <= INITIAL_COLUMNS) return Array.from({ length: f.numCols }, (_, j) => j);
  const cut = Float64Array.from(score).sort()[f.numCols - INITIAL_COLUMNS];
  const chosen: number[] = [];
  for (let j = 0; j < f.numCols && chosen.length < INITIAL_COLUMNS; j++) if (score[j] > cut) chosen.push(j);
  for (let j = 0; j < f.numCols && chosen.length < INITIAL_COLUMNS; j++) if (score[j] === cut) chosen.push(j);
  return chosen;
}

/**
 * Columns outside the model by reduced cost -(sum of their count rows' duals + the total row's
 * dual), most negative first: those below -tolerance (or below `threshold` when given).
 */
function price(f: LikelihoodFormulation, rowDual: Float64Array, totalRow: number, position: Int32Array, limit: number, threshold = -PRICING_TOLERANCE): number[] {
  const { trees, colRows } = f;
  // Typed arrays and one numeric sort of the candidates' costs: the first rounds of a forest with
  // a hundred thousand cells price most of them negative, and sorting objects took seconds.
  const reduced = new Float64Array(f.numCols);
  const candidates: number[] = [];
  for (let j = 0; j < f.numCols; j++) {
    if (position[j] >= 0) continue;
    let aty = rowDual[totalRow];
    for (let t = 0; t < trees; t++) aty += rowDual[colRows[j * trees + t]];
    reduced[j] = -aty;
    if (-aty < threshold) candidates.push(j);
  }
  if (candidates.length <= limit) return candidates.sort((a, b) => reduced[a] - reduced[b]);
  const costs = Float64Array.from(candidates, (j) => reduced[j]).sort();
  const cut = costs[limit - 1];
  const chosen = candidates.filter((j) => reduced[j] < cut);
  for (const j of candidates) {
    if (chosen.length >= limit) break;
    if (reduced[j] === cut) chosen.push(j);
  }
  return chosen.sort((a, b) => reduced[a] - reduced[b]);
}

/** Integers with the same total (rounded, within the allowed range) by largest remainders. */
function roundTotal(values: readonly number[], low: number, high: number): number[] {
  const total = Math.min(high, Math.max(low, Math.round(values.reduce((a, b) => a + b, 0))));
  const floors = values.map((v) => Math.floor(v + 1e-9));
  let missing = total - floors.reduce((a, b) => a + b, 0);
  const order = values.map((_, k) => k).sort((a, b) => values[b] - floors[b] - (values[a] - floors[a]) || values[b] - values[a]);
  for (let i = 0; missing > 0; i = (i + 1) % Math.max(1, order.length)) {
    if (order.length === 0) break;
    floors[order[i]]++;
    missing--;
  }
  for (let i = order.length - 1; missing < 0 && i >= 0; i--) {
    const k = order[i];
    const take = Math.min(floors[k], -missing);
    floors[k] -= take;
    missing += take;
  }
  return floors;
}

/** A reconstruction: multiplicities of some columns, its objective, and its noise outside the paper's domain. */
interface Candidate {
  columns: Int32Array;
  counts: Int32Array;
  objective: number;
  outside: number;
}

/** Noise per count row of multiplicities `x` of `columns`, split into the part inside the row's domain and the rest. */
function noiseParts(f: LikelihoodFormulation, columns: ArrayLike<number>, x: ArrayLike<number>, visit: (row: number, inside: number, rest: number, zero: number) => void): void {
  const counts = new Int32Array(f.numRows);
  for (let k = 0; k < columns.length; k++) {
    if (x[k] === 0) continue;
    for (let t = 0; t < f.trees; t++) counts[f.colRows[columns[k] * f.trees + t]] += x[k];
  }
  for (let r = 0; r < f.numRows; r++) {
    const delta = f.released[r] - counts[r];
    const inside = Math.min(f.deltaHigh[r], Math.max(f.deltaLow[r], delta));
    const zero = inside === 0 && f.deltaLow[r] <= 0 && f.deltaHigh[r] >= 0 ? 1 : 0;
    visit(r, inside, delta - inside, zero);
  }
}

/** The model's objective for multiplicities `x` of `columns` (the cheapest auxiliary values for them). */
function evaluate(f: LikelihoodFormulation, columns: readonly number[], x: readonly number[]): Candidate {
  let objective = 0;
  let outside = 0;
  noiseParts(f, columns, x, (_r, inside, rest, zero) => {
    objective += f.epsLeaf * Math.abs(inside) - Math.LN2 * zero + OUTSIDE_DOMAIN_COST * Math.abs(rest);
    outside += Math.abs(rest);
  });
  const kept = columns.map((_, k) => k).filter((k) => x[k] > 0);
  return { columns: Int32Array.from(kept, (k) => columns[k]), counts: Int32Array.from(kept, (k) => x[k]), objective, outside };
}

/** The full column vector of the HiGHS model for a candidate. */
function startVector(f: LikelihoodFormulation, candidate: Candidate, position: Int32Array, numCols: number): Float64Array {
  const vector = new Float64Array(numCols);
  candidate.columns.forEach((j, k) => (vector[position[j]] = candidate.counts[k]));
  noiseParts(f, candidate.columns, candidate.counts, (r, inside, rest, zero) => {
    const base = r * AUX_PER_ROW;
    vector[base + PLUS] = Math.max(0, inside);
    vector[base + MINUS] = Math.max(0, -inside);
    vector[base + ZERO] = zero;
    vector[base + OVER] = Math.max(0, rest);
    vector[base + UNDER] = Math.max(0, -rest);
  });
  return vector;
}
