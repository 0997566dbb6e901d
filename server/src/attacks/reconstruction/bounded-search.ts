/**
 * The bounded search (method `bounded-search`), for forests whose cells are too many to enumerate
 * within the budget (typically numeric features and deep trees). Anytime: it always holds a whole
 * reconstruction of N rows and improves it while time is left.
 *
 *  1. Greedy passes: N rows, each walked through the trees (row-walk.ts) with its sides drawn in
 *     proportion to the rows each leaf still needs; every row is a true cell of the forest (one
 *     leaf box per tree, intersected) but later trees may have to put it in a leaf that is full.
 *     The pass that misses the leaf counts by least is the first answer.
 *  2. A restricted MILP over the distinct (cell, class) columns all passes found: integer
 *     multiplicities, every (tree, leaf, class) count an equality with a deviation on each side,
 *     total deviation minimised, started from the best pass (HiGHS; only its incumbent is needed).
 *  3. While time is left and counts are missed: more walks forced through the leaves the current
 *     answer leaves short (column generation by sampling), then the MILP again.
 *
 * Nothing is certified: without every cell, no bound holds for all training sets that fit the
 * model (a cell never sampled could hold the rows), so `certifiedRows` is 0 and the reason says so.
 * The leaf-count error of the answer (sum over every tree, leaf and class of |count stored -
 * count reconstructed|) is reported; 0 means the reconstruction fits the model exactly (one of
 * possibly many training sets that do).
 */
import type { Highs } from 'highs';
import type { Forest } from '../../forest/schema';
import { seededRandom, shuffleInPlace } from '../../evaluate/seeded-random';
import { yieldToEventLoop, type RunContext } from './context';
import { solveMilpWithin, withHighs, type SparseProblem } from './highs';
import type { LeafTable } from './leaves';
import { freshRemaining, pathTo, walkForest, walkRow, type WalkForest, type WalkedRow } from './row-walk';
import { boxToRow } from './rows';
import type { ReconstructedRow, ReconstructionResult } from './types';

/** Share of the time left spent on greedy passes before the first MILP. */
const GREEDY_SHARE = 0.25;
/** Columns the first MILP may see; later rounds add at most COLUMNS_PER_ROUND each. */
const POOL_LIMIT = 4_000;
const COLUMNS_PER_ROUND = 1_500;
/** Forced walks per leaf left short, per round. */
const WALKS_PER_SHORT_LEAF = 4;
/** Time kept back for assembling the answer. */
const MARGIN_MS = 50;

interface Column extends WalkedRow {
  key: string;
}

/** An answer: multiplicity per pool column, and its leaf-count error. */
interface Answer {
  counts: Map<number, number>;
  error: number;
}

/** Longest synchronous MILP solve between two looks at the event loop (abort latency). */
const MILP_SLICE_MS = 3_000;

export async function reconstructBySearch(forest: Forest, table: LeafTable, ctx: RunContext, why: string): Promise<ReconstructionResult> {
  ctx.method = 'bounded-search';
  const rows = table.rows;
  const walk = walkForest(forest, table);
  const random = seededRandom(0x5eed);
  const pool: Column[] = [];
  const poolIndex = new Map<string, number>();
  const addColumn = (row: WalkedRow): number => {
    const key = `${row.leaves.join(',')}:${row.classIndex}`;
    let j = poolIndex.get(key);
    if (j === undefined) {
      j = pool.length;
      pool.push({ ...row, key });
      poolIndex.set(key, j);
    }
    return j;
  };
  const classTotals = Array.from({ length: walk.classes }, (_, c) => walk.trees[0]?.counts[c] ?? 0);
  let best: Answer | undefined;
  let passes = 0;
  let milpRounds = 0;
  ctx.progress('search', { done: 0 });

  // 1. Greedy passes.
  const greedyEnd = Date.now() + Math.max(0, ctx.deadline - Date.now()) * GREEDY_SHARE;
  while (!ctx.stopped() && (passes === 0 || (Date.now() < greedyEnd && pool.length < POOL_LIMIT))) {
    const answer = greedyPass(walk, classTotals, random, addColumn);
    passes++;
    if (!best || answer.error < best.error) best = answer;
    if (best.error === 0) break;
    if (passes % 4 === 0) {
      ctx.progress('search', { done: passes });
      await yieldToEventLoop();
    }
  }
  if (!best) return timeoutAnswer();

  // 2-3. Restricted MILP, then columns through the leaves left short.
  if (best.error === 0 || ctx.stopped()) return finish('');
  return withHighs(improveByMilp, (reason) => finish(`; ${reason}, the best greedy pass is given`));

  /** MILP rounds from the best greedy pass (`best` is set: the greedy passes ran at least once). */
  async function improveByMilp(highs: Highs): Promise<ReconstructionResult> {
    while (best!.error > 0 && Date.now() < ctx.deadline - MARGIN_MS && !ctx.aborted) {
      ctx.progress('milp', { done: milpRounds });
      const milpStart = Date.now();
      // A small solve runs in this thread, where an abort (a timer, a message) is only seen
      // between slices (highs/milp-thread.ts), so each round gets at most MILP_SLICE_MS and the
      // next round starts from the best answer.
      const sliceEnd = Math.min(ctx.deadline - MARGIN_MS, milpStart + MILP_SLICE_MS);
      const solved = await solveRestricted(highs, walk, table, pool, best!, { deadline: sliceEnd, shouldStop: () => ctx.aborted, memoryCeilingMb: ctx.options.memoryCeilingMb });
      const cutBySlice = sliceEnd < ctx.deadline - MARGIN_MS && Date.now() >= sliceEnd;
      ctx.stats.milpMs += Date.now() - milpStart;
      milpRounds++;
      if (solved && solved.error < best!.error) best = solved;
      if (best!.error === 0 || ctx.stopped()) break;
      await yieldToEventLoop();
      const before = pool.length;
      generateThroughShortLeaves(walk, pool, best!, random, addColumn);
      if (pool.length === before && !cutBySlice) break;
    }
    return finish('');
  }

  function finish(note: string): ReconstructionResult {
    const answer = best!;
    ctx.stats.mergedCells = pool.length;
    ctx.stats.columns = pool.length;
    ctx.stats.leafCountError = answer.error;
    const reconstruction = rowsOf(answer);
    const fit =
      answer.error === 0
        ? 'the rows meet every leaf count exactly (one training set that fits the model, not proven to be the real one)'
        : `the rows miss the leaf counts by ${answer.error} in total over ${walk.trees.length} trees (sum of |stored - reconstructed| per tree, leaf and class)`;
    const cancelled = ctx.aborted ? ' (cancelled: the best answer found so far)' : '';
    const reason =
      `${why}; bounded search${cancelled}: ${passes} greedy passes and ${milpRounds} restricted MILP rounds over ${pool.length} sampled cells; ${fit}. ` +
      `Nothing is certified: without every cell no row can be proven to be in the training data${note}`;
    // Anytime: running out of budget still gives the best reconstruction found (`bounded`); a
    // cancellation reports it too, under `timeout` as every cancelled run does.
    return ctx.answer({ status: ctx.aborted ? 'timeout' : 'bounded', reason, rows, certifiedRows: 0, reconstruction });
  }

  function timeoutAnswer(): ReconstructionResult {
    return ctx.answer({ status: 'timeout', reason: `${why}; ${ctx.stopReason()} before the bounded search had a reconstruction`, rows, certifiedRows: 0 });
  }

  function rowsOf(answer: Answer): ReconstructedRow[] {
    const out: ReconstructedRow[] = [];
    for (const [j, count] of answer.counts) {
      const column = pool[j];
      const box = boxToRow(table.axes, column.low, column.high);
      for (let k = 0; k < count; k++) out.push({ values: box.values.slice(), intervals: box.intervals.slice(), label: forest.classes[column.classIndex], certified: false });
    }
    return out;
  }
}

/** One greedy pass: N rows of the classes in their totals, in random order, trees in random order per row. */
function greedyPass(walk: WalkForest, classTotals: readonly number[], random: () => number, addColumn: (row: WalkedRow) => number): Answer {
  const remaining = freshRemaining(walk);
  const labels: number[] = [];
  classTotals.forEach((total, c) => {
    for (let k = 0; k < total; k++) labels.push(c);
  });
  shuffleInPlace(labels, random);
  const order = Int32Array.from(walk.trees.keys());
  const counts = new Map<number, number>();
  for (const c of labels) {
    shuffleInPlace(order, random);
    const j = addColumn(walkRow(walk, c, order, random, remaining));
    counts.set(j, (counts.get(j) ?? 0) + 1);
  }
  return { counts, error: errorOfRemaining(walk, remaining) };
}

/** Sum over trees, leaves and classes of |rows still unplaced| (negative: placed beyond the count). */
function errorOfRemaining(walk: WalkForest, remaining: Int32Array[]): number {
  let error = 0;
  walk.trees.forEach((tree, t) => {
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] !== -1) continue;
      for (let c = 0; c < walk.classes; c++) error += Math.abs(remaining[t][n * walk.classes + c]);
    }
  });
  return error;
}

/** What the answer leaves unplaced per tree, node and class (as `freshRemaining` minus its rows). */
function remainingOf(walk: WalkForest, pool: readonly Column[], answer: Answer): Int32Array[] {
  const remaining = freshRemaining(walk);
  const leafNodes = walk.trees.map((tree) => {
    const nodes = new Int32Array(tree.left.length);
    tree.leafIndex.forEach((l, n) => {
      if (l >= 0) nodes[l] = n;
    });
    return nodes;
  });
  for (const [j, count] of answer.counts) {
    const column = pool[j];
    column.leaves.forEach((l, t) => (remaining[t][leafNodes[t][l] * walk.classes + column.classIndex] -= count));
  }
  return remaining;
}

/**
 * Column generation by sampling: for each (tree, leaf, class) the answer leaves short, walks of
 * that class forced through that leaf first (so its box constrains the other trees), drawn in
 * proportion to what the answer leaves unplaced elsewhere.
 */
function generateThroughShortLeaves(walk: WalkForest, pool: readonly Column[], answer: Answer, random: () => number, addColumn: (row: WalkedRow) => number): void {
  const remaining = remainingOf(walk, pool, answer);
  const short: [number, number, number][] = [];
  walk.trees.forEach((tree, t) => {
    for (let n = 0; n < tree.left.length; n++) {
      if (tree.left[n] !== -1) continue;
      for (let c = 0; c < walk.classes; c++) if (remaining[t][n * walk.classes + c] > 0) short.push([t, n, c]);
    }
  });
  shuffleInPlace(short, random);
  const start = pool.length;
  const order = Int32Array.from(walk.trees.keys());
  // The forced walks draw from (and use up) a copy, so that they spread over what is missing.
  const scratch = remaining.map((r) => r.slice());
  for (const [t, node, c] of short) {
    const path = pathTo(walk.trees[t], node);
    for (let k = 0; k < WALKS_PER_SHORT_LEAF; k++) {
      shuffleInPlace(order, random);
      // The forced tree first: its leaf box then narrows every later draw.
      const first = order.indexOf(t);
      [order[0], order[first]] = [order[first], order[0]];
      addColumn(walkRow(walk, c, order, random, scratch, { tree: t, path }));
      if (pool.length - start >= COLUMNS_PER_ROUND) return;
    }
  }
}

/**
 * The restricted MILP: x_j >= 0 integer per pool column, and per (tree, leaf, class) that a column
 * enters or that holds rows, sum x + under - over = count; sum x = N; minimise the total of the
 * deviations. Started from `start`; returns the answer it found, if any.
 */
async function solveRestricted(highs: Highs, walk: WalkForest, table: LeafTable, pool: readonly Column[], start: Answer, limits: { deadline: number; shouldStop: () => boolean; memoryCeilingMb?: number }): Promise<Answer | undefined> {
  const { classes } = walk;
  const trees = table.trees.length;
  const leafBase = new Int32Array(trees + 1);
  for (let t = 0; t < trees; t++) leafBase[t + 1] = leafBase[t] + table.trees[t].nodes.length;
  const rowOf = new Int32Array(leafBase[trees] * classes).fill(-1);
  const rhs: number[] = [];
  const touch = (t: number, l: number, c: number): number => {
    const key = (leafBase[t] + l) * classes + c;
    if (rowOf[key] < 0) {
      rowOf[key] = rhs.length;
      rhs.push(table.trees[t].counts[l * classes + c]);
    }
    return rowOf[key];
  };
  for (let t = 0; t < trees; t++) {
    for (let l = 0; l < table.trees[t].nodes.length; l++) for (let c = 0; c < classes; c++) if (table.trees[t].counts[l * classes + c] > 0) touch(t, l, c);
  }
  const columnRows = pool.map((column) => Array.from(column.leaves, (l, t) => touch(t, l, column.classIndex)));
  const leafRows = rhs.length;
  const totalRow = leafRows;
  const numRows = leafRows + 1;
  const numCols = pool.length + 2 * leafRows;
  const starts = new Int32Array(numCols + 1);
  const indices: number[] = [];
  const values: number[] = [];
  pool.forEach((_, j) => {
    // HiGHS wants each column's rows without duplicates: one per tree, trees differ.
    for (const r of columnRows[j]) {
      indices.push(r);
      values.push(1);
    }
    indices.push(totalRow);
    values.push(1);
    starts[j + 1] = indices.length;
  });
  for (let r = 0; r < leafRows; r++) {
    for (const sign of [1, -1]) {
      indices.push(r);
      values.push(sign);
      const col = pool.length + 2 * r + (sign === 1 ? 0 : 1);
      starts[col + 1] = indices.length;
    }
  }
  const problem: SparseProblem = {
    numCols,
    numRows,
    rowRhs: Float64Array.from([...rhs, table.rows]),
    colStart: starts,
    colRow: Int32Array.from(indices),
    colCoef: Float64Array.from(values),
    cost: Float64Array.from({ length: numCols }, (_, j) => (j < pool.length ? 0 : 1)),
    integer: Uint8Array.from({ length: numCols }, (_, j) => (j < pool.length ? 1 : 0)),
  };
  const bounds = { lower: new Float64Array(numCols), upper: new Float64Array(numCols).fill(table.rows) };
  // The start: the answer's multiplicities and the deviations they leave.
  const x = new Float64Array(numCols);
  const activity = new Float64Array(leafRows);
  for (const [j, count] of start.counts) {
    x[j] = count;
    for (const r of columnRows[j]) activity[r] += count;
  }
  for (let r = 0; r < leafRows; r++) {
    const gap = rhs[r] - activity[r];
    x[pool.length + 2 * r + (gap > 0 ? 0 : 1)] = Math.abs(gap);
  }
  const outcome = (await solveMilpWithin(highs, problem, bounds, { deadline: limits.deadline, shouldStop: limits.shouldStop, start: x }, { memoryCeilingMb: limits.memoryCeilingMb })).colValue;
  if (!outcome) return undefined;
  const counts = new Map<number, number>();
  let placed = 0;
  for (let j = 0; j < pool.length; j++) {
    const v = Math.round(outcome[j]);
    if (v > 0) {
      counts.set(j, v);
      placed += v;
    }
  }
  if (placed !== table.rows) return undefined;
  // The error recomputed from the integer counts, not taken from the solver's objective.
  const placedPerRow = new Float64Array(leafRows);
  for (const [j, count] of counts) for (const r of columnRows[j]) placedPerRow[r] += count;
  let error = 0;
  for (let r = 0; r < leafRows; r++) error += Math.abs(rhs[r] - placedPerRow[r]);
  return { counts, error };
}

