/**
 * The XGBoost models of test/fixtures/xgboost-counts (generate.py) and their true training rows,
 * for the tests of the count-based boosted reconstructions.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { completeForest } from '../../server/src/forest/complete';
import type { Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import { FIXTURES } from './paths';

const DIR = path.join(FIXTURES, 'xgboost-counts');

/** A fixture model read and completed as the linter reads it. */
export function countsForest(file: string): Forest {
  const result = readModel(new Uint8Array(fs.readFileSync(path.join(DIR, file))), file);
  assert.equal(result.kind, 'model', JSON.stringify(result));
  const completed = completeForest((result as { forest: Forest }).forest);
  assert.ok(completed.ok);
  return completed.forest;
}

/** `<name>.train.csv`: the features as float32 values XGBoost saw (x), then the label (y). */
export function countsTruth(name: string): { x: number[]; y: number }[] {
  return fs
    .readFileSync(path.join(DIR, `${name}.train.csv`), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const cells = line.split(',').map(Number);
      return { x: cells.slice(0, -1), y: cells[cells.length - 1] };
    });
}

/** XGBoost: an interval [low, high] holds low <= x < high (x as float32). */
export const insideXgb = (intervals: readonly ([number, number] | null)[], x: readonly number[]) =>
  intervals.every((b, f) => !b || (Math.fround(x[f]) >= (b[0] ?? -Infinity) && Math.fround(x[f]) < (b[1] ?? Infinity)));
