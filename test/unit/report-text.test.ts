/**
 * The text report's shape where real files made it hard to read: a wrapped model's header names
 * where it sits and the file's other tree models, and a long recoverability reason is one clause a
 * line (it ran to 600-1,100 characters in one parenthesis on public models).
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lintFile } from '../../server/src/linter/linter';
import type { Recoverability } from '../../server/src/recoverability/summary';
import { reasonClauses, recoverabilityLine, writeText } from '../../server/src/report/text';
import { FIXTURES } from '../support/paths';

const summary = (reason: string): Recoverability => ({
  status: 'bounded',
  method: 'box-estimate',
  rows: 10,
  certifiedRows: 4,
  reconstructedRows: 10,
  seconds: 1,
  reason,
  determinedFeatures: {},
  groups: { declared: 0, sources: [], problems: [] },
});

describe('text report', () => {
  it('splits a reason at "; " outside parentheses only', () => {
    assert.deepEqual(reasonClauses('a (b; c); d;e; f'), ['a (b; c)', 'd;e', 'f']);
    assert.deepEqual(reasonClauses('one clause'), ['one clause']);
  });

  it('keeps a one-clause reason on the line, and puts a longer one a clause a line', () => {
    assert.equal(recoverabilityLine(summary('why')), 'recoverability: bounded, 4 of 10 training rows certified (40%), 6 more reconstructed as an estimate; box-estimate, 1.00 s (why)');
    const lines = recoverabilityLine(summary('first (x; y); second')).split('\n');
    assert.deepEqual(lines, ['recoverability: bounded, 4 of 10 training rows certified (40%), 6 more reconstructed as an estimate; box-estimate, 1.00 s:', '  - first (x; y)', '  - second']);
  });

  it("a wrapped model's header names where it sits and the file's other tree models", async () => {
    // MultiOutputClassifier: one forest per output, the first analysed, the others embedded.
    const file = await lintFile(join(FIXTURES, 'containers', 'multi_output.joblib'));
    assert.ok(file.model?.location && file.embedded?.length, JSON.stringify(file.model));
    const header = writeText([file]).split('\n')[0];
    assert.ok(header.includes(`${file.model.estimator} at ${file.model.location}`), header);
    const more = file.embedded.length === 1 ? 'one more tree model' : `${file.embedded.length} more tree models`;
    assert.ok(header.includes(`; ${more}: ${file.embedded[0].estimator} at ${file.embedded[0].location}`), header);
  });
});
