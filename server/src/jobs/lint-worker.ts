/**
 * Worker-process entry (worker-queue.ts): runs the linter off the server's main thread, so a huge or hostile file
 * can exhaust this worker's time or memory without stalling or killing the language server.
 * Results are cached by content hash and the options that change them (severities, size limit,
 * budget), with the tool's version: saving an unchanged model costs one hash. `fresh` skips the
 * lookup (the "Re-run analysis" command) and stores the new answer.
 */
import { lintFile, type FileReport } from '../linter/linter';
import type { LintRequest } from './lint-pool';
import { LruCache, estimatedBytes } from './lru-cache';
import { packageVersion } from '../util/package-info';
import { jobPort } from './job-port';

export interface LintJob {
  id: number;
  path: string;
  options: LintRequest;
}

// Reports hold findings and summaries, no forest: small, but bounded all the same.
const cache = new LruCache<string, FileReport>({ maxEntries: 256, maxBytes: 64 * 1024 * 1024, size: estimatedBytes });
const VERSION = packageVersion();

jobPort?.onJob(async (job: LintJob) => {
  const { fresh, ...rest } = job.options;
  const options = { ...rest, keepForest: false };
  const settingsKey = JSON.stringify([VERSION, options]);
  const report = await lintFile(job.path, {
    ...options,
    cached: (hash) => {
      if (fresh) return undefined;
      const hit = cache.get(`${hash}\u0000${settingsKey}`);
      return hit && { ...hit, path: job.path };
    },
  });
  if (report.contentHash) cache.set(`${report.contentHash}\u0000${settingsKey}`, report);
  jobPort!.post({ id: job.id, report });
});
