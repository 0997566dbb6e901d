/**
 * A model file written by an attacker: a random binary forest (no bootstrap, so the engine
 * certifies its rows) whose feature names, class labels and path are markup, read through the
 * real forest.json reader, linted, reconstructed and built into a privacy report. For the tests
 * of the HTML report (unit: the markup; e2e: a real browser).
 */
import { strict as assert } from 'node:assert';
import { lintBytes, type FileReport } from '../../server/src/linter/linter';
import type { Forest } from '../../server/src/forest/schema';
import type { ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import { buildReport, featureUse, revealRows } from '../../server/src/report/build';
import type { PrivacyReport, RevealedRows } from '../../server/src/report/model';
import { TimelineRecorder } from '../../server/src/report/timeline';
import { randomForest } from './random-forests';

export const HOSTILE_FEATURES = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '</script><script>x()</script>', '&amp;', 'plain\u2028line', "it's <b>bold</b>"];
export const HOSTILE_CLASSES = ['<svg onload=alert(3)>', '</script>'];

/** A random binary forest (no bootstrap, so the engine certifies it) with hostile names, as a forest.json file. */
export function hostileForestBytes(): Uint8Array {
  const { forest } = randomForest({ features: HOSTILE_FEATURES.length, rows: 30, classes: 2, trees: 6, maxDepth: 4, groups: [] }, 7);
  const named: Forest = { ...forest, classes: HOSTILE_CLASSES, features: HOSTILE_FEATURES.map((name) => ({ name, kind: 'binary' as const })) };
  return new TextEncoder().encode(JSON.stringify(named));
}

export async function hostileReport(): Promise<{ report: PrivacyReport; revealed: RevealedRows; file: FileReport; result: ReconstructionResult }> {
  const path = '/tmp/<img src=x onerror=alert(4)>.forest.json';
  const file = lintBytes(hostileForestBytes(), path, { keepForest: true });
  const forest = file.forest!;
  assert.ok(forest, `the hostile forest reads: ${JSON.stringify(file.findings)}`);
  delete file.forest;
  const recorder = new TimelineRecorder();
  const assessment = await assessRecoverability(path, forest, { budgetMs: 30_000, onProgress: (p) => recorder.record(p) });
  file.recoverability = assessment.recoverability;
  file.findings.push(...assessment.findings);
  const report = buildReport({ file, features: featureUse(forest), reconstruction: assessment.result, timeline: recorder.finish(assessment.result) });
  return { report, revealed: revealRows(forest.features, assessment.result), file, result: assessment.result };
}

