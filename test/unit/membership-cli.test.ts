/**
 * The command line's membership flags (issue 14), run as a user runs them: the compiled CLI in a
 * child process on the membership fixtures (test/fixtures/membership), checked against the engine
 * called directly and against the truth columns the generator wrote (not figures written here):
 * `--membership --label` fills the JSON `membership` (counts per verdict, histogram) and the text
 * report; `--members-column` adds the metrics and the paper's attack side by side;
 * `--emit-membership` writes one row per candidate in input order; usage errors exit 2.
 * Also: proven members from the reconstruction's certified rows are checked against the truth.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { lintFile } from '../../server/src/linter/linter';
import { alignCandidates, readCandidates } from '../../server/src/membership/candidates';
import { assessMembership } from '../../server/src/membership/engine';
import { parseCsv, csvLine } from '../../server/src/util/csv';
import { FIXTURES, REPO_ROOT } from '../support/paths';

const DIR = join(FIXTURES, 'membership');
const CLI = join(REPO_ROOT, 'out', 'server', 'src', 'cli.js');
const tmp = mkdtempSync(join(tmpdir(), 'mpl-membership-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The fixture's candidate file without `cell_member` (a model without names is matched by position). */
function candidatesFile(name: string): { path: string; cell: boolean[]; member: boolean[] } {
  const table = parseCsv(readFileSync(join(DIR, `${name}.candidates.csv`), 'utf8'));
  const path = join(tmp, `${name}.csv`);
  writeFileSync(path, table.map((row) => csvLine(row.slice(0, -1))).join(''));
  return { path, cell: table.slice(1).map((r) => r[r.length - 1] === '1'), member: table.slice(1).map((r) => r[r.length - 2] === '1') };
}

describe('CLI --membership', () => {
  it('JSON counts, metrics and the emitted CSV agree with the engine and the truth', async () => {
    const name = 'pima_rows_t10';
    const model = join(DIR, `${name}.joblib`);
    const { path, member } = candidatesFile(name);
    const emit = join(tmp, 'scores.csv');
    const out = run([model, '--membership', path, '--label', 'label', '--members-column', 'member', '--emit-membership', emit, '--budget', '0', '--format', 'json', '--fail-on', 'never']);
    assert.equal(out.code, 0, out.stderr);
    const m = JSON.parse(out.stdout).files[0].membership;
    // The engine called directly on the same rows (the truth column set aside).
    const report = await lintFile(model, { keepForest: true });
    const file = await readCandidates(path, 'label', 'member');
    const aligned = alignCandidates(file, report.forest!);
    assert.ok(aligned.ok);
    const direct = assessMembership(report.forest!, aligned.candidates);
    const count = (v: string) => direct.candidates.filter((c) => c.verdict === v).length;
    assert.deepEqual(m.verdicts, { member: count('member'), nonMember: count('non-member'), likelyMember: count('likely-member'), likelyNonMember: count('likely-non-member'), unknown: count('unknown') });
    assert.equal(m.basis, 'row-counts');
    assert.equal(m.rows, 200);
    assert.equal(m.histogram.reduce((a: number, b: number) => a + b, 0), 200);
    assert.equal(m.metrics.members, member.filter(Boolean).length);
    assert.equal(m.metrics.provenWrong, 0);
    const right = direct.candidates.filter((c, i) => (c.verdict === 'member' || c.verdict === 'likely-member') === member[i]).length;
    assert.equal(m.metrics.accuracy, right / 200);
    assert.ok(m.metrics.auc > 0.5 && m.metrics.auc <= 1);
    assert.equal(m.comparison.heldOut, 60);
    assert.ok('auc' in m.comparison.paper, JSON.stringify(m.comparison.paper));
    // One line per candidate, in input order, with the engine's score and verdict; no feature values.
    const rows = parseCsv(readFileSync(emit, 'utf8'));
    assert.deepEqual(rows[0], ['row', 'score', 'verdict']);
    assert.equal(rows.length, 201);
    rows.slice(1).forEach((row, i) => {
      assert.equal(row[0], String(i + 1));
      assert.equal(Number(row[1]), direct.candidates[i].score);
      assert.equal(row[2], direct.candidates[i].verdict);
    });
    // Personal data stays out of the report: no candidate's score appears in it.
    assert.ok(!out.stdout.includes(String(direct.candidates.find((c) => c.score > 0.5 && c.score < 1)!.score)));
  });

  it('a membership-exposure finding states the proven counts; --severity turns it off', () => {
    const name = 'compas_rows_t10';
    const { path } = candidatesFile(name);
    const args = [join(DIR, `${name}.joblib`), '--membership', path, '--label', 'label', '--members-column', 'member', '--budget', '0', '--format', 'json', '--fail-on', 'never'];
    const file = JSON.parse(run(args).stdout).files[0];
    const finding = file.findings.find((f: { rule: string }) => f.rule === 'membership-exposure');
    assert.ok(finding, 'no membership-exposure finding');
    assert.equal(finding.severity, 'warning');
    assert.deepEqual([finding.data.member, finding.data.nonMember], [file.membership.verdicts.member, file.membership.verdicts.nonMember]);
    assert.ok(finding.data.member > 0);
    assert.match(finding.message, new RegExp(`^${finding.data.member} of 200 candidates are proven members`));
    const off = JSON.parse(run([...args, '--severity', 'membership-exposure=off']).stdout).files[0];
    assert.ok(!off.findings.some((f: { rule: string }) => f.rule === 'membership-exposure'));
  });

  it('text report lines, and the paper attack marked n/a on binary features', () => {
    const name = 'compas_rows_t10';
    const { path } = candidatesFile(name);
    const out = run([join(DIR, `${name}.joblib`), '--membership', path, '--label', 'label', '--members-column', 'member', '--budget', '10', '--fail-on', 'never']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /membership of 200 candidates .*row-counts\): proven \d+ member, \d+ non-member/);
    assert.match(out.stdout, /membership against member: AUC [\d.]+, accuracy [\d.]+%, TPR at 1% FPR [\d.]+%, proven verdicts contradicted by the truth 0 /);
    assert.match(out.stdout, /the paper's range attack n\/a \(the model has no numeric features/);
  });

  it('the HTML report gets a membership section with the counts and the histogram, never a row', () => {
    const name = 'pima_rows_t10';
    const { path } = candidatesFile(name);
    const html = join(tmp, 'report.html');
    const emit = join(tmp, 'for-html.csv');
    const out = run([join(DIR, `${name}.joblib`), '--membership', path, '--label', 'label', '--members-column', 'member', '--emit-membership', emit, '--budget', '0', '--out', html, '--fail-on', 'never']);
    assert.equal(out.code, 0, out.stderr);
    const page = readFileSync(html, 'utf8');
    const section = /<section id="membership"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
    assert.match(section, /Non-member \(proven\)<\/th><td class="num">\d+</);
    assert.equal((section.match(/<meter /g) ?? []).length, 10);
    // No candidate's score (written to the CSV) appears anywhere in the page.
    const scores = parseCsv(readFileSync(emit, 'utf8')).slice(1).map((r) => r[1]).filter((s) => s.length > 6);
    assert.ok(scores.length > 0);
    for (const score of scores) assert.ok(!page.includes(score), `score ${score} in the page`);
  });

  it('usage and input errors exit 2 with a message', () => {
    const model = join(DIR, 'pima_rows_t10.joblib');
    const { path } = candidatesFile('pima_rows_t10');
    let out = run([model, '--membership', path]);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /--label/);
    out = run([model, '--members-column', 'member', '--label', 'label', '--training-data', path]);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /--members-column and --emit-membership apply to --membership/);
    out = run([model, '--membership', path, '--label', 'label', '--members-column', 'nope', '--budget', '0']);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /no column 'nope'/);
    // A file that fits no model: the cell_member column makes position matching impossible.
    out = run([model, '--membership', join(DIR, 'pima_rows_t10.candidates.csv'), '--label', 'label', '--budget', '0', '--format', 'json']);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /fits none of the models read/);
    assert.match(JSON.parse(out.stdout).files[0].membership.problem, /cannot be matched by position/);
  });
});

describe('membership proven by certified reconstruction rows', () => {
  it('compas_rows_t10: the reconstruction proves members, each true at the model\'s resolution', async () => {
    const report = await lintFile(join(DIR, 'compas_rows_t10.joblib'), { keepForest: true });
    const forest = report.forest!;
    const result = await reconstruct(forest, { budgetMs: 20_000 });
    assert.ok(result.certifiedRows > 0);
    const { path, cell, member } = candidatesFile('compas_rows_t10');
    const aligned = alignCandidates(await readCandidates(path, 'label', 'member'), forest);
    assert.ok(aligned.ok);
    const without = assessMembership(forest, aligned.candidates);
    const withRows = assessMembership(forest, aligned.candidates, { certifiedRows: result.reconstruction });
    const proven = (r: typeof without) => r.candidates.filter((c) => c.verdict === 'member').length;
    assert.ok(proven(withRows) > proven(without), `${proven(withRows)} proven with the certified rows, ${proven(without)} without`);
    withRows.candidates.forEach((c, i) => {
      if (c.verdict === 'member') assert.ok(cell[i], `candidate ${i + 1}: proven member without a training row of its label in its cell`);
      if (c.verdict === 'non-member') assert.ok(!member[i]);
    });
  });
});

describe('--membership without --label', () => {
  it('an outlier detector is scored on its features alone (basis outlier-rows, labelColumn null); a classifier is refused for want of its label column', () => {
    const iso = join(FIXTURES, 'estimators', 'iso_forest_all');
    const out = run([`${iso}.joblib`, '--budget', '0', '--membership', `${iso}.candidates.csv`, '--members-column', 'member', '--format', 'json', '--fail-on', 'never']);
    assert.equal(out.code, 0, out.stderr);
    const membership = JSON.parse(out.stdout).files[0].membership;
    assert.equal(membership.basis, 'outlier-rows');
    assert.equal(membership.labelColumn, null);
    assert.equal(membership.verdicts.member + membership.verdicts.nonMember, 0, 'nothing proven');
    assert.ok(membership.metrics.auc > 0.85, JSON.stringify(membership.metrics));
    const labelled = run([join(DIR, 'pima_rows_t10.joblib'), '--budget', '0', '--membership', join(DIR, 'pima_rows_t10.candidates.csv')]);
    assert.equal(labelled.code, 2);
    assert.match(labelled.stderr, /label column with --label/);
  });
});
