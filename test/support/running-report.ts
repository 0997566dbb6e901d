/**
 * Reports of a reconstruction while it runs, from a real run of the engine on an example: by
 * default the diabetes forest without bagging (rows as boxes: cells, propagation, then the
 * completion, three phases in under a second); `diabetes_xgb.json` for a run of seconds (tree 0's
 * counts, then later trees matched through their hessians, a search that uses its whole budget). Its progress fed to the worker's
 * `TimelineRecorder`, the timeline taken at each phase change as the server would hold it mid-run,
 * and the reports built from them as the report service builds a running one.
 */
import { join } from 'node:path';
import { lintFile } from '../../server/src/linter/linter';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import { buildReport } from '../../server/src/report/build';
import type { PrivacyReport, TimelinePoint } from '../../server/src/report/model';
import { TimelineRecorder } from '../../server/src/report/timeline';
import { EXAMPLES } from './paths';

export interface RunningReports {
  /** One report per phase change of the run, status `running`, with the timeline so far. */
  running: PrivacyReport[];
  /** The report once the run ended. */
  final: PrivacyReport;
}

export async function runningReports(budgetMs = 2000, example = 'diabetes_no_bagging.joblib'): Promise<RunningReports> {
  const path = join(EXAMPLES, 'models', example);
  const lint = await lintFile(path, { keepForest: true });
  const recorder = new TimelineRecorder();
  const snapshots: TimelinePoint[][] = [];
  let phase = '';
  const { recoverability, result } = await assessRecoverability(path, lint.forest!, {
    budgetMs,
    onProgress: (progress) => {
      recorder.record(progress);
      if (progress.phase !== phase) snapshots.push(recorder.timeline());
      phase = progress.phase;
    },
  });
  const file = { ...lint, forest: undefined };
  const running = snapshots.map((timeline) => buildReport({ file, running: true, timeline, generatedAt: new Date() }));
  const final = buildReport({ file: { ...file, recoverability }, reconstruction: result, timeline: recorder.finish(result) });
  return { running, final };
}
