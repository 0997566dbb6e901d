/**
 * The what-if advisor's membership AUC per remedy (issue 14, item 5), on a real scikit-learn
 * forest without bootstrap (test/fixtures/membership/compas_rows_t10) and its candidates with the
 * generator's truth: the model as trained scores the AUC the membership step reports; each
 * simulated remedy is scored on its own simulated forest (heavy noise and large leaves bring the
 * AUC down towards 0.5); without a members column no outcome has one. And through the CLI:
 * `--advise --membership --members-column` puts it in the JSON and the text report.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { advise } from '../../server/src/advisor';
import { advisorLines } from '../../server/src/advisor/text';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { membershipTruth } from '../../server/src/cli/advisor';
import { scoreMembership } from '../../server/src/cli/membership';
import { lintFile } from '../../server/src/linter/linter';
import { readCandidates } from '../../server/src/membership/candidates';
import { csvLine, parseCsv } from '../../server/src/util/csv';
import { FIXTURES, REPO_ROOT } from '../support/paths';

const DIR = join(FIXTURES, 'membership');
const NAME = 'compas_rows_t10';
const CLI = join(REPO_ROOT, 'out', 'server', 'src', 'cli.js');

/** The fixture's candidates without `cell_member` (truth too; the model has no names, so columns go by position). */
function candidatesCsv(dir: string): string {
  const table = parseCsv(readFileSync(join(DIR, `${NAME}.candidates.csv`), 'utf8'));
  const path = join(dir, 'candidates.csv');
  writeFileSync(path, table.map((row) => csvLine(row.slice(0, -1))).join(''));
  return path;
}

test('each remedy gets the membership AUC of its simulated model; the model as trained, the membership step\'s', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-advisor-membership-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const forest = (await lintFile(join(DIR, `${NAME}.joblib`), { keepForest: true })).forest!;
  const current = await reconstruct(forest, { budgetMs: 60_000 });
  const file = await readCandidates(candidatesCsv(dir), 'label', 'member');
  const membership = membershipTruth(forest, file);
  assert.ok(membership, 'the candidates fit the model and carry the truth');

  const options = { budgetMs: 20_000, epsilons: [0.1, 30], leafSizes: [20], dpRepeats: 1 };
  const report = await advise(forest, current, { ...options, membership });
  const step = scoreMembership(forest, file, { reconstruction: current.reconstruction, trainingRows: current.rows, severities: {} });
  const expected = step.summary.metrics!.auc!;
  assert.ok(expected > 0.7, `the model as trained gives membership away (AUC ${expected})`);
  assert.ok(Math.abs(report.current.membershipAuc! - expected) < 1e-3, `as trained: ${report.current.membershipAuc} vs the membership step's ${expected}`);

  const byLabel = new Map(report.scenarios.map((s) => [s.label, s]));
  const noisy = byLabel.get('ε = 0.1')!;
  const leaves = byLabel.get('min_samples_leaf = 20')!;
  const bootstrap = byLabel.get('bootstrap, no seeds')!;
  for (const s of [noisy, leaves, bootstrap, byLabel.get('ε = 30')!]) {
    assert.equal(typeof s.membershipAuc, 'number', `${s.label} has an AUC`);
    assert.ok(s.membershipAuc! >= 0 && s.membershipAuc! <= 1);
  }
  // Scored on the simulated forests, not the model: heavy noise and large leaves hide membership.
  assert.ok(noisy.membershipAuc! < expected - 0.1, `ε = 0.1: ${noisy.membershipAuc} vs ${expected}`);
  assert.ok(leaves.membershipAuc! < expected - 0.1, `min_samples_leaf = 20: ${leaves.membershipAuc} vs ${expected}`);
  assert.ok(byLabel.get('ε = 30')!.membershipAuc! > noisy.membershipAuc!, 'less noise, more exposure');
  assert.ok(advisorLines(report).some((line) => line.includes(`membership AUC ${report.current.membershipAuc!.toFixed(3)}`)));

  // Without the truth column: no AUC anywhere.
  const unlabelled = await readCandidates(join(dir, 'candidates.csv'), 'label');
  assert.equal(membershipTruth(forest, unlabelled), undefined);
  const plain = await advise(forest, current, { ...options, epsilons: [1], leafSizes: [] });
  for (const s of [plain.current, ...plain.scenarios]) assert.equal(s.membershipAuc, undefined);
});

test('CLI --advise with --membership and --members-column: the JSON and the text carry the AUC per remedy', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-advisor-membership-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const candidates = candidatesCsv(dir);
  const args = [CLI, join(DIR, `${NAME}.joblib`), '--membership', candidates, '--label', 'label', '--members-column', 'member', '--advise', '--budget', '5', '--fail-on', 'never'];
  const json = spawnSync(process.execPath, [...args, '--format', 'json'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 });
  assert.equal(json.status, 0, json.stderr);
  const file = JSON.parse(json.stdout).files[0];
  assert.ok(Math.abs(file.advisor.current.membershipAuc - file.membership.metrics.auc) < 1e-3, 'as trained: the membership section\'s AUC');
  assert.ok(file.advisor.scenarios.length > 0);
  for (const s of file.advisor.scenarios) if (s.status !== 'skipped') assert.equal(typeof s.membershipAuc, 'number', s.label);
});
