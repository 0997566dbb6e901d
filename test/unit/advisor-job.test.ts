/**
 * The reconstruction worker's advisor job (the editor's what-if advisor, issue 5): the real worker
 * (compiled, unbundled, from out/) given a request with `advise: { current }` skips the
 * reconstruction and runs `advise()` on that result with the file's sidecar groups, posting
 * progress as phase `advisor`; its answer is never cached, and cancelling stops it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { advise } from '../../server/src/advisor';
import { lintFile } from '../../server/src/linter/linter';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import { declaredGroupsFor } from '../../server/src/recoverability/declared-groups';
import type { JobProgress, ReconstructionRequest } from '../../server/src/jobs/reconstruction-job';
import { ReconstructionPool } from '../../server/src/jobs/reconstruction-pool';
import { EXAMPLES, REPO_ROOT } from '../support/paths';

const MODEL = join(EXAMPLES, 'models', 'compas_no_bagging.joblib');
const REQUEST: ReconstructionRequest = { budgetMs: 8_000, maxFileBytes: 1e9, groups: [], thresholds: { errorShare: 0.1, warningRows: 1 }, severities: {} };

function realPool(t: { after: (fn: () => void) => void }) {
  const pool = new ReconstructionPool({ workerScript: join(REPO_ROOT, 'out/server/src/jobs/reconstruction-worker.js'), memoryMb: 1024 });
  t.after(() => pool.dispose());
  return pool;
}

test('an advisor job runs advise() on the given reconstruction, with the sidecar\'s groups and phase-"advisor" progress', async (t) => {
  const report = await lintFile(MODEL, { keepForest: true });
  const forest = report.forest!;
  const direct = await assessRecoverability(MODEL, forest, { budgetMs: 120_000 });
  assert.equal(direct.result.status, 'exact');
  const pool = realPool(t);
  const progress: JobProgress[] = [];
  const outcome = await pool.run(MODEL, { ...REQUEST, advise: { current: direct.result } }, undefined, { onProgress: (p) => progress.push(p) });
  assert.ok(outcome?.advisor, `an advisor answer (${outcome?.recoverability.reason})`);
  assert.equal(outcome.contentHash, report.contentHash);
  assert.equal(outcome.key, '', 'not cacheable');
  assert.equal(outcome.result, null, 'no reconstruction ran');
  assert.deepEqual(outcome.findings, [], 'no reconstruction finding from an advisor job');

  // The model as it is, scored as advise() in this process scores it with the sidecar's groups
  // (no scenario needed for that: epsilons and leaf sizes left out).
  const { groups } = await declaredGroupsFor(MODEL, forest);
  assert.equal(groups.length, 2, 'the sidecar\'s two one-hot groups');
  const here = await advise(forest, direct.result, { groups, epsilons: [], leafSizes: [], budgetMs: 20_000 });
  const { advisor } = outcome;
  assert.equal(advisor.truth, 'certified-reconstruction');
  assert.equal(advisor.current.error, here.current.error);
  assert.equal(advisor.baselineError, here.baselineError, 'the baseline knows the groups');
  assert.ok(advisor.current.error! < advisor.baselineError!, 'the exact model is far better than guessing');
  assert.ok(advisor.seconds <= REQUEST.budgetMs / 1000 + 5, `within its budget (${advisor.seconds} s)`);
  assert.ok(advisor.scenarios.length > 0);
  assert.ok(advisor.scenarios.every((s) => s.simulation));

  assert.ok(progress.length > 0);
  assert.ok(progress.every((p) => p.phase === 'advisor'), 'only advisor progress: no reconstruction ran');
  const last = progress.at(-1)!;
  assert.ok(last.phase === 'advisor' && last.total > 0 && last.done <= last.total);

  // Not cached: the same request runs the worker again (progress again), and can be cancelled.
  let started = false;
  const again = pool.run(MODEL, { ...REQUEST, advise: { current: direct.result } }, undefined, { onProgress: () => (started = true) });
  while (!started) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(pool.cancel(MODEL), true, 'it was running');
  assert.equal(await again, undefined, 'a cancelled advisor job has no answer');
});
