/**
 * The budget's two mechanisms for work whose cost grows with the forest:
 *  - enumerateInSlices (cells.ts) sizes its steps by what a node costs, so a slice stays short on a
 *    forest of a million leaves (a fixed step of 2,000 nodes once ran 41 s past a 30 s budget);
 *  - RunContext.reserve keeps time back from a method for the work after it (regression targets).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { enumerateInSlices, NODES_PER_SLICE, type CellEnumerator } from '../../server/src/attacks/reconstruction/cells';
import { RunContext } from '../../server/src/attacks/reconstruction/context';

/** An enumeration that never finishes, each node taking `msPerNode` of busy time; it records the steps asked of it. */
function slowEnumerator(msPerNode: number): { enumerator: CellEnumerator; steps: number[] } {
  const steps: number[] = [];
  const enumerator = {
    step(nodes: number): boolean {
      steps.push(nodes);
      const until = Date.now() + nodes * msPerNode;
      while (Date.now() < until) {
        // busy, as a node's mask work is
      }
      return false;
    },
  } as unknown as CellEnumerator;
  return { enumerator, steps };
}

describe('enumerateInSlices: steps sized by what a node costs', () => {
  it('expensive nodes (1 ms each): a slice asks for tens of nodes, not thousands, and shrinks its steps', async () => {
    const { enumerator, steps } = slowEnumerator(1);
    let slices = 0;
    const finished = await enumerateInSlices(enumerator, () => slices >= 1, () => slices++);
    assert.equal(finished, false);
    const asked = steps.reduce((a, b) => a + b, 0);
    assert.ok(asked < 100, `one slice asked for ${asked} nodes (${steps.join(', ')})`);
    // A step over a fifth of a slice halves the next one.
    assert.ok(steps.length >= 2 && steps[1] < steps[0], steps.join(', '));
  });

  it('cheap nodes: the steps grow to NODES_PER_SLICE and never past it', async () => {
    const { enumerator, steps } = slowEnumerator(0);
    let slices = 0;
    await enumerateInSlices(enumerator, () => slices >= 3, () => slices++);
    assert.equal(steps.reduce((a, b) => Math.max(a, b), 0), NODES_PER_SLICE);
    assert.ok(steps[0] < NODES_PER_SLICE);
  });
});

describe('RunContext.reserve', () => {
  it('moves the methods\' deadline earlier by what is reserved, at most half of what is left; the reason still names the whole budget', () => {
    const ctx = new RunContext({ budgetMs: 10_000 });
    const end = ctx.deadline;
    ctx.reserve(2_000);
    assert.equal(ctx.deadline, end - 2_000);
    ctx.reserve(60_000);
    assert.ok(ctx.deadline >= end - 5_001 && ctx.deadline <= end - 4_900, `${end - ctx.deadline} ms reserved`);
    assert.match(ctx.stopReason(), /time budget of 10\.0 s/);
  });
});
