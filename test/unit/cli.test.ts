/** The command line, run as a user runs it: the bundled dist/cli.js in a child process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST, EXAMPLES, REPO_ROOT } from '../support/paths';

/** A short budget: these tests read the findings, not how far a 30 s reconstruction gets (COMPAS's is exact in 0.1 s). */
const BUDGET = ['--budget', '3'];

function cli(args: string[]) {
  const result = spawnSync(process.execPath, [join(DIST, 'cli.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('--format json follows the documented contract', () => {
  const { code, stdout } = cli(['examples', ...BUDGET, '--format', 'json', '--fail-on', 'never']);
  assert.equal(code, 0);
  const report = JSON.parse(stdout);
  assert.equal(report.version, 1);
  assert.ok(report.files.length >= 3);
  for (const file of report.files) {
    for (const key of ['path', 'format', 'model', 'findings']) assert.ok(key in file, `files[].${key}`);
    assert.ok(file.model, `${file.path} was read`);
    for (const key of ['library', 'estimator', 'trees', 'classes', 'features', 'trainingRows', 'trainingRowsSource', 'bootstrap', 'maxDepth']) {
      assert.ok(key in file.model, `model.${key}`);
    }
    for (const finding of file.findings) {
      for (const key of ['rule', 'severity', 'message', 'location']) assert.ok(key in finding, `findings[].${key}`);
    }
  }
  const forest = report.files.find((f: { path: string }) => f.path.endsWith('diabetes_forest.joblib'));
  assert.equal(forest.model.library, 'scikit-learn');
  assert.equal(forest.model.bootstrap, true);
  assert.equal(forest.model.trainingRows, 200);
  assert.equal(forest.model.trainingRowsSource, 'file');
  const xgb = report.files.find((f: { path: string }) => f.path.endsWith('diabetes_xgb.json'));
  assert.deepEqual([xgb.model.trainingRows, xgb.model.trainingRowsSource], [200, 'probe']);
});

test('--fail-on decides the exit code', () => {
  // --budget 0: the model rules alone (the reconstruction's own finding is tested in cli-reconstruction.test.ts).
  assert.equal(cli(['examples', '--budget', '0', '--fail-on', 'warning']).code, 1, 'the examples have warnings');
  assert.equal(cli(['examples', '--budget', '0', '--fail-on', 'error']).code, 0, 'and no errors');
  assert.equal(cli(['examples', '--budget', '0', '--fail-on', 'error', '--severity', 'singleton-leaf=error']).code, 1);
  assert.equal(cli(['examples', '--budget', '0', '--fail-on', 'never', '--severity', 'singleton-leaf=error']).code, 0);
  // The COMPAS example's training set is certified from the model: an error by default.
  assert.equal(cli(['examples', ...BUDGET, '--fail-on', 'error']).code, 1);
  assert.equal(cli(['examples', ...BUDGET, '--fail-on', 'error', '--severity', 'reconstructable-training-set=warning']).code, 0);
});

test('--format sarif lists rules with help and results with file locations', () => {
  const { stdout } = cli(['examples', ...BUDGET, '--format', 'sarif', '--fail-on', 'never']);
  const sarif = JSON.parse(stdout);
  assert.equal(sarif.version, '2.1.0');
  const run = sarif.runs[0];
  const ruleIds = run.tool.driver.rules.map((r: { id: string }) => r.id);
  assert.ok(ruleIds.includes('no-bootstrap') && ruleIds.includes('unsafe-pickle'));
  for (const rule of run.tool.driver.rules) {
    assert.ok(existsSync(fileURLToPath(rule.helpUri)), `${rule.id} help page`);
    assert.match(rule.help.markdown, new RegExp(`^# ${rule.id}`));
  }
  assert.ok(run.results.length > 0);
  for (const result of run.results) {
    assert.equal(run.tool.driver.rules[result.ruleIndex].id, result.ruleId);
    assert.match(result.locations[0].physicalLocation.artifactLocation.uri, /^examples\/models\//);
    assert.ok(['error', 'warning', 'note'].includes(result.level));
  }
});

test('--out writes a report in the format of its extension; usage errors exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-cli-'));
  try {
    const out = join(dir, 'report.json');
    const { code, stdout } = cli([join(EXAMPLES, 'models'), ...BUDGET, '--out', out, '--fail-on', 'never']);
    assert.equal(code, 0);
    assert.match(stdout, /replayable-bootstrap/, 'text on stdout');
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).version, 1, 'JSON in the file');
    assert.equal(cli(['--format', 'xml']).code, 2);
    assert.equal(cli(['--severity', 'no-such-rule=error']).code, 2);
    assert.equal(cli([join(dir, 'missing.joblib')]).code, 2);
    writeFileSync(join(dir, 'noise.pkl'), Buffer.from([0x80, 0x04, 0x95, 0xff]));
    const bad = cli([dir, '--format', 'json', '--fail-on', 'never']);
    const files = JSON.parse(bad.stdout).files;
    assert.equal(files.length, 1);
    assert.deepEqual(files[0].findings.map((f: { rule: string }) => f.rule), ['unreadable-model']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the JSON numbers match what scikit-learn holds, whatever the container', () => {
  const dir = join(REPO_ROOT, 'test/fixtures/sklearn');
  for (const name of ['rf_compas', 'rf_nobootstrap', 'dt_compas']) {
    const truth = JSON.parse(readFileSync(join(dir, `${name}.truth.json`), 'utf8'));
    let singletons = 0;
    let leaves = 0;
    for (const tree of truth.trees) {
      tree.children_left.forEach((child: number, node: number) => {
        if (child !== -1) return;
        leaves++;
        if (tree.n_node_samples[node] === 1) singletons++;
      });
    }
    const files = [`${name}.joblib`, `${name}.zlib.joblib`, `${name}.p4.pkl`].map((f) => join(dir, f));
    const report = JSON.parse(cli([...files, '--format', 'json', '--fail-on', 'never']).stdout);
    assert.equal(report.files.length, 3);
    for (const file of report.files) {
      assert.equal(file.model.trees, truth.trees.length, file.path);
      assert.equal(file.model.trainingRows, truth.n_samples, file.path);
      assert.equal(file.model.bootstrap, truth.bootstrap, file.path);
      const rules = file.findings.map((f: { rule: string }) => f.rule);
      assert.ok(rules.includes(truth.bootstrap ? 'replayable-bootstrap' : 'no-bootstrap'), `${file.path}: ${rules}`);
      const singleton = file.findings.find((f: { rule: string }) => f.rule === 'singleton-leaf');
      assert.equal(singleton?.data.singletonLeaves ?? 0, singletons, file.path);
      assert.equal(singleton?.data.leaves ?? leaves, leaves, file.path);
    }
  }
});
