/**
 * The benchmark's baseline: a per-row formulation in the spirit of DRAFT (ICML 2024), solved by
 * the same HiGHS WebAssembly build as our engine, so that the speed-up of the aggregated model is
 * measured on equal terms rather than against the paper's CP-SAT on 16 threads.
 *
 * Forests without bootstrap on binary features (the setting both formulations handle exactly).
 * For every training row k (N rows, interchangeable, hence N! symmetric solutions):
 *   x[k,f] in {0,1}   value of each feature the forest splits on
 *   z[k,c] in {0,1}   class of row k;                 sum_c z[k,c] = 1
 *   w[k,t,v,c]        row k reaches leaf v of tree t with class c, only where that count > 0;
 *                     sum_{v,c} w[k,t,v,c] = 1 per tree;  w[k,t,v,c] <= z[k,c]
 *   path literals     sum_c w[k,t,v,c] <= x[k,f] (x = 1 on the path) or <= 1 - x[k,f] (x = 0)
 *   leaf counts       sum_k w[k,t,v,c] = n[t,v,c]
 *   one-hot groups    sum_{f in g} x[k,f] = 1 (or <= 1)
 * DRAFT also models leaves with zero counts and uses CP-SAT; dropping them only helps HiGHS.
 * This module is benchmark code, not part of the extension, so it builds its own HiGHS model
 * instead of going through server/src/attacks/reconstruction/highs.ts.
 */
import type { Highs } from 'highs';
import type { CategoricalGroup } from '../../../server/src/attacks/reconstruction/types';
import type { LeafTable } from '../../../server/src/attacks/reconstruction/leaves';

export interface PerRowResult {
  status: 'solved' | 'timeout' | 'too-large' | 'infeasible' | 'error';
  seconds: number;
  variables: number;
  constraints: number;
  nonzeros: number;
  /** Reconstructed rows (features not split on are null), when solved. */
  rows?: { values: (number | null)[]; label: number }[];
  detail?: string;
}

/** Above this many nonzeros the model is not built: HiGHS in WebAssembly (2 GB heap) runs out of memory (measured on Adult, 10 trees of depth 10). */
const MAX_NONZEROS = 6_000_000;

export function solvePerRow(highs: Highs, table: LeafTable, groups: readonly CategoricalGroup[], timeLimitSeconds: number): PerRowResult {
  const started = Date.now();
  const N = table.rows;
  const C = table.classes;
  const used = new Set<number>();
  for (const tree of table.trees) for (const f of tree.literalFeature) used.add(f);
  const features = [...used].sort((a, b) => a - b);
  const featureSlot = new Map(features.map((f, i) => [f, i]));
  // Leaf-class pairs with a positive count, per tree.
  const pairs = table.trees.map((tree) => {
    const list: { leaf: number; cls: number; count: number }[] = [];
    for (let l = 0; l < tree.nodes.length; l++) for (let c = 0; c < C; c++) if (tree.counts[l * C + c] > 0) list.push({ leaf: l, cls: c, count: tree.counts[l * C + c] });
    return list;
  });
  const pairsPerRow = pairs.reduce((s, p) => s + p.length, 0);
  const xCount = features.length;
  const perRow = xCount + C + pairsPerRow;
  const variables = N * perRow;
  // Estimate the nonzeros before building anything large.
  let pathNonzeros = 0;
  table.trees.forEach((tree, t) => {
    const leavesUsed = new Set(pairs[t].map((p) => p.leaf));
    for (const l of leavesUsed) {
      const literals = tree.literalStart[l + 1] - tree.literalStart[l];
      const classes = pairs[t].filter((p) => p.leaf === l).length;
      pathNonzeros += literals * (classes + 1);
    }
  });
  const nonzerosEstimate = N * (C + 2 * pairsPerRow + 2 * pairsPerRow + pathNonzeros) + N * pairsPerRow;
  const base = { variables, constraints: 0, nonzeros: nonzerosEstimate };
  if (nonzerosEstimate > MAX_NONZEROS) {
    return { status: 'too-large', seconds: (Date.now() - started) / 1000, ...base, detail: `about ${(nonzerosEstimate / 1e6).toFixed(1)} M nonzeros` };
  }
  const xVar = (k: number, slot: number) => k * perRow + slot;
  const zVar = (k: number, c: number) => k * perRow + xCount + c;
  const pairBase: number[] = [];
  let offset = xCount + C;
  for (const p of pairs) {
    pairBase.push(offset);
    offset += p.length;
  }
  const wVar = (k: number, t: number, i: number) => k * perRow + pairBase[t] + i;

  const rowLower: number[] = [];
  const rowUpper: number[] = [];
  const starts: number[] = [0];
  const indices: number[] = [];
  const values: number[] = [];
  const addRow = (lower: number, upper: number, entries: [number, number][]) => {
    for (const [j, a] of entries) {
      indices.push(j);
      values.push(a);
    }
    starts.push(indices.length);
    rowLower.push(lower);
    rowUpper.push(upper);
  };
  for (let k = 0; k < N; k++) {
    addRow(1, 1, Array.from({ length: C }, (_, c) => [zVar(k, c), 1] as [number, number]));
    for (const group of groups) {
      const slots = group.features.filter((f) => featureSlot.has(f)).map((f) => featureSlot.get(f)!);
      if (slots.length === 0) continue;
      // A group whose members are not all split on cannot force "exactly one" among the split ones.
      const exact = group.kind === 'one-hot' && slots.length === group.features.length;
      addRow(exact ? 1 : 0, 1, slots.map((s) => [xVar(k, s), 1]));
    }
    table.trees.forEach((tree, t) => {
      addRow(1, 1, pairs[t].map((_, i) => [wVar(k, t, i), 1]));
      pairs[t].forEach((p, i) => addRow(-Infinity, 0, [[wVar(k, t, i), 1], [zVar(k, p.cls), -1]]));
      const byLeaf = new Map<number, number[]>();
      pairs[t].forEach((p, i) => byLeaf.set(p.leaf, [...(byLeaf.get(p.leaf) ?? []), i]));
      for (const [leaf, members] of byLeaf) {
        for (let q = tree.literalStart[leaf]; q < tree.literalStart[leaf + 1]; q++) {
          const x = xVar(k, featureSlot.get(tree.literalFeature[q])!);
          const ws: [number, number][] = members.map((i) => [wVar(k, t, i), 1]);
          // value 1: sum w - x <= 0;  value 0: sum w + x <= 1
          if (tree.literalValue[q] === 1) addRow(-Infinity, 0, [...ws, [x, -1]]);
          else addRow(-Infinity, 1, [...ws, [x, 1]]);
        }
      }
    });
  }
  table.trees.forEach((_, t) => pairs[t].forEach((p, i) => addRow(p.count, p.count, Array.from({ length: N }, (_, k) => [wVar(k, t, i), 1] as [number, number]))));

  const numRows = rowLower.length;
  const sized = { variables, constraints: numRows, nonzeros: indices.length };
  let model: ReturnType<Highs['createModel']>;
  try {
    model = highs.createModel({
    numCols: variables,
    numRows,
    colCost: new Float64Array(variables),
    colLower: new Float64Array(variables),
    colUpper: new Float64Array(variables).fill(1),
    rowLower: Float64Array.from(rowLower),
    rowUpper: Float64Array.from(rowUpper),
    matrix: { format: 'csr', numRows, numCols: variables, starts: Int32Array.from(starts), indices: Int32Array.from(indices), values: Float64Array.from(values) },
    integrality: new Int32Array(variables).fill(highs.constants.variableType.integer),
    });
  } catch (error) {
    return { status: 'error', seconds: (Date.now() - started) / 1000, ...sized, detail: `HiGHS could not build the model: ${(error as Error).message}` };
  }
  try {
    model.options.set({ output_flag: false, time_limit: Math.max(0.001, timeLimitSeconds - (Date.now() - started) / 1000) });
    const { modelStatus } = model.run();
    const status = highs.constants.modelStatus;
    const seconds = (Date.now() - started) / 1000;
    if (modelStatus === status.infeasible) return { status: 'infeasible', seconds, ...sized };
    if (modelStatus !== status.optimal) return { status: modelStatus === status.timeLimit ? 'timeout' : 'error', seconds, ...sized, detail: `model status ${modelStatus}` };
    const colValue = model.getSolution().colValue;
    const rows = Array.from({ length: N }, (_, k) => {
      const row: (number | null)[] = new Array(table.features).fill(null);
      features.forEach((f, s) => (row[f] = Math.round(colValue[xVar(k, s)])));
      let label = 0;
      for (let c = 0; c < C; c++) if (colValue[zVar(k, c)] > 0.5) label = c;
      return { values: row, label };
    });
    return { status: 'solved', seconds, ...sized, rows };
  } catch (error) {
    return { status: 'error', seconds: (Date.now() - started) / 1000, ...sized, detail: (error as Error).message };
  } finally {
    model.dispose();
  }
}
