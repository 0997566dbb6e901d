/**
 * The per-tree transportation problem of the row-boxes propagation
 * (server/src/attacks/reconstruction/boxes/transport.ts) against brute force: on many small random
 * problems (groups with supplies, leaves with demands, random edges) every feasible integer flow
 * is enumerated, and
 *  - `ok` is false exactly when no flow meets every supply and demand;
 *  - the flow returned is one of them (every group sends its supply, every leaf gets its demand,
 *    only along edges);
 *  - `fixed[e]` is 1 exactly when edge e carries the same flow in every feasible flow (the proof
 *    the propagation rests on: a fixed edge at f > 0 sends f members there in every training set).
 * Demands come from a random flow drawn first (feasible), or are spread at random over the leaves
 * with the same total (sometimes infeasible): the propagation's problems always balance, since the
 * rows left to place of a class are the same number on both sides.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { solveTransport, type TransportInput } from '../../server/src/attacks/reconstruction/boxes/transport';
import { seededRandom } from '../../server/src/evaluate/seeded-random';

interface Problem {
  input: TransportInput;
  /** Whether the demands were made from a flow (then one is known to exist). */
  drawnFeasible: boolean;
}

function randomProblem(seed: number): Problem {
  const random = seededRandom(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const groups = int(2, 5);
  const leaves = int(2, 5);
  const supply = Int32Array.from({ length: groups }, () => int(1, 3));
  const density = 0.3 + 0.4 * random();
  const pairs: [number, number][] = [];
  for (let g = 0; g < groups; g++) {
    const own: [number, number][] = [];
    for (let l = 0; l < leaves; l++) if (random() < density) own.push([g, l]);
    // Every group reaches some leaf (a group reaching none is infeasible at once: not interesting).
    if (own.length === 0) own.push([g, int(0, leaves - 1)]);
    pairs.push(...own);
  }
  // Edges in random order: the solver must not depend on the propagation's grouped order.
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pairs[i], pairs[j]] = [pairs[j], pairs[i]];
  }
  const demand = new Int32Array(leaves);
  const drawnFeasible = random() < 0.75;
  if (drawnFeasible) {
    // A random flow: each unit of each group's supply along one of its edges.
    for (let g = 0; g < groups; g++) {
      const own = pairs.filter(([h]) => h === g);
      for (let unit = 0; unit < supply[g]; unit++) demand[own[int(0, own.length - 1)][1]]++;
    }
  } else {
    const total = supply.reduce((a, b) => a + b, 0);
    for (let unit = 0; unit < total; unit++) demand[int(0, leaves - 1)]++;
  }
  return {
    input: { supply, demand, edgeGroup: Int32Array.from(pairs, ([g]) => g), edgeLeaf: Int32Array.from(pairs, ([, l]) => l) },
    drawnFeasible,
  };
}

/** Every feasible integer flow, summarised: how many, and per edge the least and most flow seen. */
function bruteForce(input: TransportInput): { flows: number; min: Int32Array; max: Int32Array } {
  const E = input.edgeGroup.length;
  // Edges sorted by group, so that a group's last edge takes what its supply has left.
  const order = Array.from({ length: E }, (_, e) => e).sort((a, b) => input.edgeGroup[a] - input.edgeGroup[b]);
  const lastOfGroup = order.map((e, i) => i === E - 1 || input.edgeGroup[order[i + 1]] !== input.edgeGroup[e]);
  const restSupply = Int32Array.from(input.supply);
  const restDemand = Int32Array.from(input.demand);
  const flow = new Int32Array(E);
  const min = new Int32Array(E).fill(0x7fffffff);
  const max = new Int32Array(E).fill(-1);
  let flows = 0;
  // Groups with no edge at all can send nothing.
  const hasEdge = new Uint8Array(input.supply.length);
  for (const g of input.edgeGroup) hasEdge[g] = 1;
  if (input.supply.some((s, g) => s > 0 && !hasEdge[g])) return { flows: 0, min, max };
  const visit = (i: number): void => {
    if (i === E) {
      if (restDemand.some((d) => d !== 0)) return;
      flows++;
      for (let e = 0; e < E; e++) {
        if (flow[e] < min[e]) min[e] = flow[e];
        if (flow[e] > max[e]) max[e] = flow[e];
      }
      return;
    }
    const e = order[i];
    const g = input.edgeGroup[e];
    const l = input.edgeLeaf[e];
    const top = Math.min(restSupply[g], restDemand[l]);
    const bottom = lastOfGroup[i] ? restSupply[g] : 0;
    for (let x = bottom; x <= top; x++) {
      flow[e] = x;
      restSupply[g] -= x;
      restDemand[l] -= x;
      visit(i + 1);
      restSupply[g] += x;
      restDemand[l] += x;
    }
    flow[e] = 0;
  };
  visit(0);
  return { flows, min, max };
}

interface Checked {
  label: string;
  input: TransportInput;
  truth: ReturnType<typeof bruteForce>;
  solved: ReturnType<typeof solveTransport>;
}

/** The random problems, each solved both ways (shared by the tests below). */
function checkedProblems(): Checked[] {
  return Array.from({ length: 600 }, (_, i) => {
    const seed = (i + 1) * 7919;
    const { input, drawnFeasible } = randomProblem(seed);
    const label = `seed ${seed}: supply [${input.supply}], demand [${input.demand}], edges ${Array.from(input.edgeGroup, (g, e) => `${g}->${input.edgeLeaf[e]}`).join(' ')}`;
    const truth = bruteForce(input);
    if (drawnFeasible) assert.ok(truth.flows > 0, `${label}: the brute force missed the flow the demands were drawn from`);
    return { label, input, truth, solved: solveTransport(input) };
  });
}

/** An edge's capacity in the solver's network: no edge can carry more than its group or its leaf has. */
const capacity = (input: TransportInput, e: number) => Math.min(input.supply[input.edgeGroup[e]], input.demand[input.edgeLeaf[e]]);

const describeEdge = (c: Checked, e: number) =>
  `edge ${e} (${c.input.edgeGroup[e]}->${c.input.edgeLeaf[e]}, flows ${c.truth.min[e]}..${c.truth.max[e]} over ${c.truth.flows} feasible flows, capacity ${capacity(c.input, e)})`;

describe('row-boxes transportation problem (transport.ts) against brute force', () => {
  const problems = checkedProblems();

  it('finds a feasible flow exactly when one exists, and every edge it fixes carries the same flow in every feasible flow (600 random problems)', () => {
    let feasible = 0;
    let infeasible = 0;
    let fixedPositive = 0;
    let fixedZero = 0;
    let free = 0;
    let atBound = 0;
    for (const c of problems) {
      const { label, input, truth, solved } = c;
      if (truth.flows === 0) {
        infeasible++;
        assert.equal(solved.ok, false, `${label}: no feasible flow exists, yet the solver answered ok`);
        if (!solved.ok) assert.ok('shortfall' in solved && solved.shortfall > 0, `${label}: infeasible with a shortfall of ${'shortfall' in solved ? solved.shortfall : 'none'}`);
        continue;
      }
      feasible++;
      assert.ok(solved.ok, `${label}: ${truth.flows} feasible flows exist, yet the solver found none`);
      // The flow returned is feasible.
      const sent = new Int32Array(input.supply.length);
      const received = new Int32Array(input.demand.length);
      solved.flow.forEach((f, e) => {
        assert.ok(f >= 0, `${label}: negative flow ${f} on edge ${e}`);
        sent[input.edgeGroup[e]] += f;
        received[input.edgeLeaf[e]] += f;
      });
      assert.deepEqual(Array.from(sent), Array.from(input.supply), `${label}: the flow does not send every group's supply`);
      assert.deepEqual(Array.from(received), Array.from(input.demand), `${label}: the flow does not meet every leaf's demand`);
      for (let e = 0; e < input.edgeGroup.length; e++) {
        const same = truth.min[e] === truth.max[e];
        assert.ok(solved.flow[e] >= truth.min[e] && solved.flow[e] <= truth.max[e], `${label}: ${describeEdge(c, e)} carries ${solved.flow[e]}`);
        // Soundness: what the propagation splits off and drops must hold in every training set.
        if (solved.fixed[e]) assert.ok(same, `${label}: ${describeEdge(c, e)} varies but is marked fixed`);
        // Completeness: an edge all flows agree on is fixed (at 0 or at its capacity the components
        // decide it; in between, reachability without the edge's own arcs).
        if (solved.flow[e] === 0 || solved.flow[e] === capacity(input, e)) atBound++;
        assert.equal(solved.fixed[e], same ? 1 : 0, `${label}: ${describeEdge(c, e)} ${same ? 'is the same in every flow but not fixed' : 'varies but is marked fixed'}`);
        if (!same) free++;
        else if (truth.min[e] > 0) fixedPositive++;
        else fixedZero++;
      }
    }
    // The random problems cover every case the propagation acts on.
    assert.ok(feasible >= 400 && infeasible >= 30, `${feasible} feasible, ${infeasible} infeasible problems`);
    assert.ok(fixedPositive >= 200 && fixedZero >= 200 && free >= 200 && atBound >= 1000, `edges fixed > 0: ${fixedPositive}, fixed at 0: ${fixedZero}, free: ${free}, at 0 or capacity: ${atBound}`);
  });

  it(
    'fixes every edge all feasible flows agree on, also one carrying strictly between 0 and its capacity',
    () => {
      // Group 0 (2 rows) reaches leaves 0 and 1; group 1 (1 row) only leaf 1; leaf 0 needs 1, leaf 1 needs 2: one flow.
      const forced: TransportInput = { supply: Int32Array.of(2, 1), demand: Int32Array.of(1, 2), edgeGroup: Int32Array.of(0, 0, 1), edgeLeaf: Int32Array.of(0, 1, 1) };
      const solved = solveTransport(forced);
      assert.ok(solved.ok);
      assert.deepEqual(Array.from(solved.flow), [1, 1, 1], 'the only feasible flow');
      assert.deepEqual(Array.from(solved.fixed), [1, 1, 1], 'a unique flow fixes every edge (group 0 splits 1 + 1)');
      for (const c of problems) {
        if (!c.solved.ok) continue;
        for (let e = 0; e < c.input.edgeGroup.length; e++) {
          const same = c.truth.min[e] === c.truth.max[e];
          assert.equal(c.solved.fixed[e], same ? 1 : 0, `${c.label}: ${describeEdge(c, e)} ${same ? 'is the same in every flow but not fixed' : 'varies but is marked fixed'}`);
        }
      }
    },
  );

  it('leaves nothing fixed where two groups can trade leaves', () => {
    // Group 0 (2 rows) and group 1 (1 row) both reach leaves 0 (needs 1) and 1 (needs 2): two flows.
    const open: TransportInput = { supply: Int32Array.of(2, 1), demand: Int32Array.of(1, 2), edgeGroup: Int32Array.of(0, 0, 1, 1), edgeLeaf: Int32Array.of(0, 1, 1, 0) };
    const loose = solveTransport(open);
    assert.ok(loose.ok);
    assert.deepEqual(Array.from(loose.fixed), [0, 0, 0, 0], 'group 1 may go to leaf 0 or 1, so every edge varies');
    // Unit supplies and demands: a perfect matching, fixed where it is unique.
    const unit: TransportInput = { supply: Int32Array.of(1, 1), demand: Int32Array.of(1, 1), edgeGroup: Int32Array.of(0, 1, 1), edgeLeaf: Int32Array.of(0, 0, 1) };
    const matched = solveTransport(unit);
    assert.ok(matched.ok);
    assert.deepEqual(Array.from(matched.flow), [1, 0, 1]);
    assert.deepEqual(Array.from(matched.fixed), [1, 1, 1], 'group 0 only reaches leaf 0, which forces group 1 into leaf 1');
  });
  it('keeps the stop signal: stopped before the flow, nothing is claimed; stopped in the edge tests, only fixed edges that hold', () => {
    const stoppedAtOnce = solveTransport({ ...problems[0].input, stopped: () => true });
    assert.ok(!stoppedAtOnce.ok && 'stopped' in stoppedAtOnce, 'a stop signal already up ends the max-flow');
    // A stop that comes after the flow: every edge it still marks fixed is fixed in every flow.
    for (const c of problems) {
      if (!c.solved.ok) continue;
      let polls = 0;
      const cut = solveTransport({ ...c.input, stopped: () => ++polls > 3 });
      if (!cut.ok) continue;
      for (let e = 0; e < c.input.edgeGroup.length; e++) {
        if (cut.fixed[e]) assert.equal(c.truth.min[e], c.truth.max[e], `${c.label}: ${describeEdge(c, e)} varies but a cut run marks it fixed`);
      }
    }
  });
});
