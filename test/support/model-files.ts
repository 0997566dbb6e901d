/** A committed model fixture read by the readers and completed, as every engine test starts from it. */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';

/** The model in `dir/file`, read (asserting it is a model) and completed (asserting it completes). */
export function readFixtureForest(dir: string, file: string): Forest {
  const read = readModel(new Uint8Array(fs.readFileSync(path.join(dir, file))), file);
  assert.equal(read.kind, 'model', `${file}: ${JSON.stringify(read).slice(0, 300)}`);
  const completed = completeForest((read as { forest: Forest }).forest);
  assert.ok(completed.ok, `${file}: ${completed.ok ? '' : completed.problem}`);
  return completed.forest;
}
