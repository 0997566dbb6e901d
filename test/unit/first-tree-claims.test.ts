/**
 * boosting-hessians certifies tree 0's claims: a leaf with n rows and p positives holds p distinct
 * positive training rows and n - p negative ones in its region. Which placed rows carry the claims
 * must not decide how many are certified: the later trees' matching moves the points, and a public
 * 59,187-row booster certified 1,422 or 1,804 rows depending on how far the clock let it get
 * (sweep 8). XGBoost 1.7.4's model of the soundness fixtures, with its true rows.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { certifyFirstTreeLeaves } from '../../server/src/attacks/reconstruction/first-tree-claims';
import type { ReconstructedRow } from '../../server/src/attacks/reconstruction/types';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import { maximumMatching } from '../support/bipartite-matching';
import { FIXTURES } from '../support/paths';
import { readTrainingRows, type TrainingRow } from '../support/reconstruction-truth';

const DIR = path.join(FIXTURES, 'soundness');

function forestOf(file: string): Forest {
  const read = readModel(fs.readFileSync(path.join(DIR, file)), file);
  if (read.kind !== 'model') throw new Error(read.kind);
  const done = completeForest(read.forest);
  if (!done.ok) throw new Error(done.problem);
  return done.forest;
}

/** XGBoost's rule: `x < threshold` goes left, so a value lies in [low, high), compared as float32. */
function holds(row: ReconstructedRow, truth: TrainingRow, forest: Forest): boolean {
  if (String(row.label) !== String(forest.classes[truth.label] ?? truth.label) || !row.intervals) return false;
  return row.intervals.every((b, f) => b === null || (Math.fround(truth.values[f]) >= b[0] && Math.fround(truth.values[f]) < b[1]));
}

test("every leaf's stated rows are certified however the placed rows fall, each box holding a distinct true row", () => {
  const forest = forestOf('xgb_pima_binary.json');
  const truth = readTrainingRows(path.join(DIR, 'xgb_pima_binary.train.csv')).rows;
  const probe = probeFirstTrees(forest);
  assert.equal(probe.status, 'exact');
  // Every placed row at one true row's point: all in one leaf of tree 0, as a matching gone astray.
  const point = truth[0].values;
  const placed: ReconstructedRow[] = truth.map(() => ({ values: [...point], label: forest.classes[0] ?? 0, certified: false }));
  const claims = certifyFirstTreeLeaves(forest, probe, placed);
  // Before the second pass: only the one leaf's rows.
  assert.equal(claims.certified, truth.length);
  const certified = claims.rows.filter((r) => r.certified);
  // Each certified point lies in its box (moved there), and the boxes take distinct true rows.
  for (const row of certified) assert.ok(row.intervals!.every((b, f) => b === null || (row.values[f]! >= b[0] && row.values[f]! < b[1])), JSON.stringify(row));
  const adjacency = certified.map((row) => truth.flatMap((t, i) => (holds(row, t, forest) ? [i] : [])));
  assert.equal(maximumMatching(adjacency, truth.length).size, certified.length);
});
