/**
 * no-training-counts: a model whose trees store no per-node statistics says that nothing was
 * measured, instead of ending with no findings (sweep 16: a public XGBoost dump without stats read
 * "no findings, 0 error(s), 0 warning(s)"). The dumps are XGBoost 1.7.4's
 * (test/fixtures/xgboost/dump_fixtures.py).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { lintFile } from '../../server/src/linter/linter';

const DIR = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'xgboost');

describe('no-training-counts', () => {
  it('a dump without statistics gets the note, at information, naming the dump and its trees', async () => {
    const report = await lintFile(path.join(DIR, 'nostats_credit.dump.txt'), { budgetMs: 2000 });
    const notes = report.findings.filter((f) => f.rule === 'no-training-counts');
    assert.equal(notes.length, 1, JSON.stringify(report.findings.map((f) => f.rule)));
    assert.equal(notes[0].severity, 'information');
    assert.match(notes[0].message, /XGBoost text dump written without with_stats=True: its 6 trees/);
    assert.notEqual(report.recoverability?.status, 'exact');
  });
  it('the same booster dumped with statistics does not get it (its covers are counts)', async () => {
    for (const name of ['multi_credit.dump.txt', 'weighted_credit.dump.txt', 'bin_pima.dump.txt']) {
      const report = await lintFile(path.join(DIR, name), { budgetMs: 2000 });
      assert.ok(report.findings.length > 0, name);
      assert.ok(!report.findings.some((f) => f.rule === 'no-training-counts'), name);
    }
  });
});
