/**
 * A worker thread of the point search (point-search-thread.ts): it owns some of the movable rows
 * and, for each sweep the main thread asks for, tries to move each of them once (point-moves.ts),
 * over counts every thread shares. It stops early at the sweep's end time or when the main thread
 * raises the stop flag, always between two rows, so the shared counts stay whole.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { seededRandom, shuffleInPlace } from '../../../evaluate/seeded-random';
import { PointMover } from './point-moves';
import type { SweepReply, SweepRequest, SweepWorkerData } from './point-search-thread';

const port = parentPort;
if (port) {
  const data = workerData as SweepWorkerData;
  const mover = new PointMover(data.arrays, true);
  const random = seededRandom(data.seed);
  const rows = data.rows;
  port.on('message', (request: SweepRequest) => {
    shuffleInPlace(rows, random);
    let done = 0;
    for (; done < rows.length; done++) {
      // Checked per row: one row's moves take well under a millisecond.
      if (Atomics.load(data.stop, 0) !== 0 || Date.now() >= request.end) break;
      mover.moveRow(rows[done], request.temperature, random);
    }
    port.postMessage({ moves: mover.moves, done } satisfies SweepReply);
  });
}
