/**
 * The seed-stripping quick fix for real: a tiny training script, fixed by the quick fix, run with
 * Debian's scikit-learn 1.2.1; the model it saves predicts exactly as the unfixed one, and the
 * linter no longer finds seeds that replay the bootstrap (while it does on the unfixed model).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeScript } from '../../server/src/scripts/analyze';
import { applyEdits } from '../../server/src/scripts/edits';
import { checkScript } from '../../server/src/scripts/rules';
import { lintFile } from '../../server/src/linter/linter';
import { EXAMPLES } from '../support/paths';

const PYTHON = '/usr/bin/python3';

const SCRIPT = `import csv, os, sys
import joblib
import numpy as np
from sklearn.ensemble import RandomForestClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
rows = list(csv.reader(open(sys.argv[1])))[1:]
X = np.array([[float(v) for v in r[:-1]] for r in rows])
y = np.array([int(r[-1]) for r in rows])

forest = RandomForestClassifier(n_estimators=8, random_state=3).fit(X, y)
np.save(os.path.join(HERE, "proba.npy"), forest.predict_proba(X))
joblib.dump(forest, os.path.join(HERE, "forest.joblib"))
`;

test('the seed-stripping snippet runs with scikit-learn 1.2.1, keeps predictions, and removes the replayable seeds', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-strip-'));
  try {
    const data = join(EXAMPLES, 'data', 'diabetes.csv');
    const finding = checkScript(SCRIPT, analyzeScript(SCRIPT)).find((f) => f.rule === 'script-stored-seeds');
    assert.ok(finding?.fix, 'the script gets script-stored-seeds with a fix');
    const fixed = applyEdits(SCRIPT, finding.fix.edits);
    assert.ok(!checkScript(fixed, analyzeScript(fixed)).some((f) => f.rule === 'script-stored-seeds'));

    const runs: Record<string, { proba: Buffer; report: Awaited<ReturnType<typeof lintFile>> }> = {};
    for (const [name, text] of [['original', SCRIPT], ['fixed', fixed]] as const) {
      const sub = join(dir, name);
      execFileSync('mkdir', ['-p', sub]);
      writeFileSync(join(sub, 'train.py'), text);
      execFileSync(PYTHON, [join(sub, 'train.py'), data], { stdio: 'pipe', timeout: 100_000 });
      runs[name] = { proba: readFileSync(join(sub, 'proba.npy')), report: await lintFile(join(sub, 'forest.joblib')) };
    }
    const rulesOf = (name: string) => runs[name].report.findings.map((f) => f.rule);
    assert.ok(rulesOf('original').includes('replayable-bootstrap'), 'the unfixed model\'s seeds replay its samples');
    assert.ok(!rulesOf('fixed').includes('replayable-bootstrap'), `no replayable seeds after the fix: ${rulesOf('fixed')}`);
    assert.deepEqual(runs.fixed.proba, runs.original.proba, 'the saved model predicts exactly as before');
    // the same forest otherwise: same trees and nodes
    assert.equal(runs.fixed.report.model?.trees, runs.original.report.model?.trees);
    assert.equal(runs.fixed.report.model?.trainingRows, runs.original.report.model?.trainingRows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
