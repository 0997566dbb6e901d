/**
 * Worker-thread entry: runs the linter off the server's main thread, so a huge or hostile file
 * can exhaust this worker's time or memory without stalling or killing the language server.
 * Results are cached by content hash: saving an unchanged model costs one hash.
 */
import { parentPort } from 'node:worker_threads';
import { lintFile, type FileReport, type LintOptions } from './linter';

export interface LintJob {
  id: number;
  path: string;
  options: LintOptions;
}

const CACHE_ENTRIES = 64;
const cache = new Map<string, FileReport>();

function remember(key: string, report: FileReport): void {
  cache.delete(key);
  cache.set(key, report);
  while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
}

parentPort?.on('message', async (job: LintJob) => {
  const options = { ...job.options, keepForest: false };
  const settingsKey = JSON.stringify(options);
  const report = await lintFile(job.path, {
    ...options,
    cached: (hash) => {
      const hit = cache.get(`${hash}\u0000${settingsKey}`);
      return hit && { ...hit, path: job.path };
    },
  });
  if (report.contentHash) remember(`${report.contentHash}\u0000${settingsKey}`, report);
  parentPort!.postMessage({ id: job.id, report });
});
