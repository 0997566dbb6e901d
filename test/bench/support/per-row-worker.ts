/**
 * Runs the per-row baseline (draft-per-row.ts) for one model in a worker thread of its own: the
 * per-row models are large, WebAssembly memory only grows, and a fresh HiGHS instance per model
 * (freed with the worker) keeps one model's peak from starving the next or the engine's figures.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadHighs } from '../../../server/src/attacks/reconstruction/highs';
import { buildLeafTable } from '../../../server/src/attacks/reconstruction/leaves';
import type { CategoricalGroup } from '../../../server/src/attacks/reconstruction/types';
import { lintFile } from '../../../server/src/linter/linter';
import { solvePerRow, type PerRowResult } from './draft-per-row';

export interface PerRowJob {
  modelPath: string;
  groups: CategoricalGroup[];
  timeLimitSeconds: number;
}

async function run(job: PerRowJob): Promise<PerRowResult> {
  const report = await lintFile(job.modelPath, { keepForest: true });
  if (!report.forest) return { status: 'error', seconds: 0, variables: 0, constraints: 0, nonzeros: 0, detail: 'unreadable model' };
  const table = buildLeafTable(report.forest);
  if (!table.ok) return { status: 'error', seconds: 0, variables: 0, constraints: 0, nonzeros: 0, detail: table.reason };
  return solvePerRow(await loadHighs(), table.table, job.groups, job.timeLimitSeconds);
}

run(workerData as PerRowJob).then(
  (result) => parentPort!.postMessage(result),
  (error: unknown) => parentPort!.postMessage({ status: 'error', seconds: 0, variables: 0, constraints: 0, nonzeros: 0, detail: (error as Error).message } satisfies PerRowResult),
);
