/**
 * The worker thread behind milp-thread.ts: one integer solve per thread. It loads its own HiGHS,
 * solves the problem it is sent within the deadline (HiGHS's time limit and its interrupt
 * checkpoints, as in the main thread), posts every incumbent as HiGHS finds it, then the result.
 * The main thread terminates it when HiGHS runs past the deadline in a phase that checks neither
 * (presolve, a root LP), keeping the last incumbent it was sent.
 */
import { parentPort } from 'node:worker_threads';
import { loadHighs } from './load';
import { createMilpModel, runMilpModel } from './milp';
import type { MilpThreadMessage, MilpThreadRequest } from './milp-thread';

const port = parentPort;
if (port) {
  port.once('message', (request: MilpThreadRequest) => {
    void solve(request).then(
      (message) => port.postMessage(message),
      (error: unknown) => port.postMessage({ kind: 'failed', detail: (error as Error).message } satisfies MilpThreadMessage),
    );
  });
}

async function solve(request: Partial<MilpThreadRequest> & Pick<MilpThreadRequest, 'deadline'>): Promise<MilpThreadMessage> {
  const highs = await loadHighs();
  const model = createMilpModel(highs, request.problem!, request.bounds!, request);
  // HiGHS holds its own copy now: the problem's arrays (tens of MB on millions of entries) go to
  // the collector before the solve rather than sit beside it (the thread added 65 MB to a
  // 150-tree model's peak, past a 1 GB worker's ceiling: sweep 18).
  delete request.problem;
  delete request.bounds;
  delete request.start;
  const result = runMilpModel(highs, model, {
    deadline: request.deadline,
    // The checkpoints stop at the deadline; cancellation is the main thread's terminate().
    shouldStop: () => false,
    onIncumbent: (colValue) => port?.postMessage({ kind: 'incumbent', colValue } satisfies MilpThreadMessage, [colValue.buffer as ArrayBuffer]),
  });
  return { kind: 'done', result };
}
