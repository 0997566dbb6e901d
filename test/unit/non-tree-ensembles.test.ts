/**
 * An AdaBoost or Bagging ensemble of other models than trees is no tree model: it is walked like
 * any object, so that its members' stored rows are found (find-models.ts). Sweep 15: a public
 * AdaBoost of 50 SVCs read "A tree model here is not read by this tool yet", and its SVCs' 117
 * support-vector rows were not said.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';

describe('an ensemble of other models than trees', () => {
  it('adaboost_svc (scikit-learn, 8 SVCs): saved data from its members, no tree model, no "not read" note', async () => {
    const report = await lintFile(join(FIXTURES, 'containers', 'adaboost_svc.joblib'));
    assert.deepEqual(report.findings.map((f) => [f.rule, f.severity]), [['saved-data', 'warning'], ['no-tree-model', 'information']]);
    const saved = report.findings[0];
    const tables = (saved.data as { tables: { location: string; rows: number }[] }).tables;
    assert.equal(tables.length, 8);
    assert.ok(tables.every((t) => /^model\.estimators_\[\d\]\.support_vectors_$/.test(t.location)));
    // Past five tables the message names the largest four and counts the rest.
    assert.match(saved.message, /; and 4 more \(JSON data\.tables lists them all\)/);
    const largest = Math.max(...tables.map((t) => t.rows));
    assert.match(saved.message, new RegExp(`An SVC stores ${largest} training rows verbatim`));
  });
});
