/**
 * One tree's leaf counts as a transportation problem: groups of rows (supply: their size) must be
 * sent to the leaves they can reach (demand: the rows of their class each leaf still needs), every
 * group and every leaf exactly. A feasible integer flow is found by max-flow (Dinic); then an
 * edge's flow is the same in every feasible flow exactly when no cycle of the residual graph runs
 * through it (flow could be pushed around such a cycle), i.e. when its two ends lie in different
 * strongly connected components (Régin's filtering of the global cardinality constraint); an edge
 * whose flow lies strictly between 0 and its capacity has arcs both ways, a cycle of its own, so
 * for it the test is reachability without its own arcs.
 *
 * What that proves: an edge fixed at 0 is a leaf the group never reaches; an edge fixed at f > 0
 * sends exactly f of the group's members to that leaf in every training set that fits the counts.
 */

export interface TransportInput {
  supply: Int32Array;
  demand: Int32Array;
  /** Edges as (group, leaf) pairs. */
  edgeGroup: Int32Array;
  edgeLeaf: Int32Array;
  /**
   * The run's stop signal (deadline or cancel), polled inside the max-flow and the per-edge tests,
   * which grow with rows x leaves: at 30,000 rows one tree's problem can take minutes.
   */
  stopped?: () => boolean;
}

export type TransportResult =
  | { ok: true; flow: Int32Array; fixed: Uint8Array }
  | { ok: false; shortfall: number }
  /** The stop signal came before the flow was complete: nothing is known. */
  | { ok: false; stopped: true };

export function solveTransport(input: TransportInput): TransportResult {
  const G = input.supply.length;
  const L = input.demand.length;
  const E = input.edgeGroup.length;
  // Nodes: source 0, groups 1..G, leaves G+1..G+L, sink G+L+1.
  const source = 0;
  const sink = G + L + 1;
  const nodes = G + L + 2;
  const arcs = 2 * (G + L + E);
  const head = new Int32Array(nodes).fill(-1);
  const next = new Int32Array(arcs);
  const to = new Int32Array(arcs);
  const cap = new Int32Array(arcs);
  let m = 0;
  const add = (u: number, v: number, c: number) => {
    to[m] = v; cap[m] = c; next[m] = head[u]; head[u] = m++;
    to[m] = u; cap[m] = 0; next[m] = head[v]; head[v] = m++;
  };
  let total = 0;
  for (let g = 0; g < G; g++) {
    add(source, 1 + g, input.supply[g]);
    total += input.supply[g];
  }
  for (let l = 0; l < L; l++) add(1 + G + l, sink, input.demand[l]);
  const edgeArc = new Int32Array(E);
  for (let e = 0; e < E; e++) {
    const g = input.edgeGroup[e];
    edgeArc[e] = m;
    add(1 + g, 1 + G + input.edgeLeaf[e], Math.min(input.supply[g], input.demand[input.edgeLeaf[e]]));
  }
  const stopped = input.stopped ?? (() => false);
  const flowed = dinic(nodes, head, next, to, cap, source, sink, stopped);
  if (flowed === STOPPED) return { ok: false, stopped: true };
  if (flowed < total) return { ok: false, shortfall: total - flowed };

  // Residual graph between groups and leaves only (source and sink arcs are saturated both ways).
  const flow = new Int32Array(E);
  for (let e = 0; e < E; e++) flow[e] = cap[edgeArc[e] ^ 1];
  const component = strongComponents(nodes, head, next, to, cap, (node) => node !== source && node !== sink);
  const fixed = new Uint8Array(E);
  const inner = (node: number) => node !== source && node !== sink;
  for (let e = 0; e < E; e++) {
    // Stopped: the edges not yet tested stay unfixed, which claims nothing (sound, only weaker).
    if ((e & 63) === 0 && stopped()) break;
    const g = 1 + input.edgeGroup[e];
    const l = 1 + G + input.edgeLeaf[e];
    if (component[g] !== component[l]) {
      fixed[e] = 1;
      continue;
    }
    // Flow strictly between 0 and the capacity: the edge's own two arcs make a cycle of their own,
    // which moves nothing. The flow can rise only if l reaches g without the edge's backward arc,
    // and fall only if g reaches l without its forward arc.
    const arc = edgeArc[e];
    if (flow[e] > 0 && cap[arc] > 0) {
      const rises = reaches(nodes, head, next, to, cap, l, g, arc ^ 1, inner);
      const falls = rises || reaches(nodes, head, next, to, cap, g, l, arc, inner);
      if (!rises && !falls) fixed[e] = 1;
    }
  }
  return { ok: true, flow, fixed };
}

/** Whether `to` is reachable from `from` over arcs with residual capacity, without arc `skip`. */
function reaches(nodes: number, head: Int32Array, next: Int32Array, to: Int32Array, cap: Int32Array, from: number, target: number, skip: number, keep: (node: number) => boolean): boolean {
  const seen = new Uint8Array(nodes);
  const stack = [from];
  seen[from] = 1;
  while (stack.length > 0) {
    const u = stack.pop()!;
    for (let a = head[u]; a !== -1; a = next[a]) {
      if (a === skip || cap[a] <= 0) continue;
      const v = to[a];
      if (v === target) return true;
      if (seen[v] || !keep(v)) continue;
      seen[v] = 1;
      stack.push(v);
    }
  }
  return false;
}

/** What dinic() returns when the stop signal ended it. */
const STOPPED = -1;

function dinic(nodes: number, head: Int32Array, next: Int32Array, to: Int32Array, cap: Int32Array, s: number, t: number, stopped: () => boolean): number {
  let paths = 0;
  const level = new Int32Array(nodes);
  const it = new Int32Array(nodes);
  const queue = new Int32Array(nodes);
  let total = 0;
  // Iterative DFS stacks.
  const stackNode = new Int32Array(nodes);
  const stackArc = new Int32Array(nodes);
  for (;;) {
    if (stopped()) return STOPPED;
    level.fill(-1);
    level[s] = 0;
    let qh = 0;
    let qt = 0;
    queue[qt++] = s;
    while (qh < qt) {
      const u = queue[qh++];
      for (let a = head[u]; a !== -1; a = next[a]) {
        if (cap[a] > 0 && level[to[a]] < 0) {
          level[to[a]] = level[u] + 1;
          queue[qt++] = to[a];
        }
      }
    }
    if (level[t] < 0) return total;
    it.set(head);
    for (;;) {
      // One augmenting path in the level graph.
      let depth = 0;
      stackNode[0] = s;
      let found = false;
      while (depth >= 0) {
        const u = stackNode[depth];
        if (u === t) {
          found = true;
          break;
        }
        let advanced = false;
        for (; it[u] !== -1; it[u] = next[it[u]]) {
          const a = it[u];
          if (cap[a] > 0 && level[to[a]] === level[u] + 1) {
            stackArc[depth] = a;
            stackNode[++depth] = to[a];
            advanced = true;
            break;
          }
        }
        if (!advanced) {
          level[u] = -1;
          depth--;
          if (depth >= 0) it[stackNode[depth]] = next[it[stackNode[depth]]];
        }
      }
      if (!found) break;
      if ((++paths & 1023) === 0 && stopped()) return STOPPED;
      let push = 0x7fffffff;
      for (let d = 0; d < depth; d++) push = Math.min(push, cap[stackArc[d]]);
      for (let d = 0; d < depth; d++) {
        cap[stackArc[d]] -= push;
        cap[stackArc[d] ^ 1] += push;
      }
      total += push;
    }
  }
}

/** Tarjan's strongly connected components over arcs with residual capacity, iteratively. */
function strongComponents(nodes: number, head: Int32Array, next: Int32Array, to: Int32Array, cap: Int32Array, keep: (node: number) => boolean): Int32Array {
  const index = new Int32Array(nodes).fill(-1);
  const low = new Int32Array(nodes);
  const component = new Int32Array(nodes).fill(-1);
  const onStack = new Uint8Array(nodes);
  const stack = new Int32Array(nodes);
  let sp = 0;
  const callNode = new Int32Array(nodes);
  const callArc = new Int32Array(nodes);
  let counter = 0;
  let components = 0;
  for (let root = 0; root < nodes; root++) {
    if (!keep(root) || index[root] >= 0) continue;
    let depth = 0;
    callNode[0] = root;
    callArc[0] = head[root];
    index[root] = low[root] = counter++;
    stack[sp++] = root;
    onStack[root] = 1;
    while (depth >= 0) {
      const u = callNode[depth];
      const a = callArc[depth];
      if (a !== -1) {
        callArc[depth] = next[a];
        const v = to[a];
        if (cap[a] <= 0 || !keep(v)) continue;
        if (index[v] < 0) {
          index[v] = low[v] = counter++;
          stack[sp++] = v;
          onStack[v] = 1;
          callNode[++depth] = v;
          callArc[depth] = head[v];
        } else if (onStack[v] && index[v] < low[u]) low[u] = index[v];
        continue;
      }
      if (low[u] === index[u]) {
        for (;;) {
          const w = stack[--sp];
          onStack[w] = 0;
          component[w] = components;
          if (w === u) break;
        }
        components++;
      }
      depth--;
      if (depth >= 0) {
        const parent = callNode[depth];
        if (low[u] < low[parent]) low[parent] = low[u];
      }
    }
  }
  return component;
}
