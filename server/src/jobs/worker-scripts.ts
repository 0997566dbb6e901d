/**
 * Where the worker entry points are. This module sits beside them in the compiled tree
 * (out/server/src/jobs/), and is bundled into dist/cli.js and dist/server.js, which have the
 * workers beside them (dist/lint-worker.js, dist/reconstruction-worker.js): in both layouts the
 * workers are in this code's own directory.
 */
import { join } from 'node:path';

export type WorkerName = 'lint-worker' | 'reconstruction-worker';

export function workerScript(name: WorkerName): string {
  return join(__dirname, `${name}.js`);
}
