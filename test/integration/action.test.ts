/**
 * The composite GitHub Action (action.yml), its `run:` steps run with bash as a runner runs them:
 * action.yml parsed with Debian's python3-yaml (installed with pre-commit by
 * scripts/setup-pre-commit.sh), `${{ inputs.x }}` and `${{ github.action_path }}` substituted,
 * GITHUB_OUTPUT a file, the workspace a temporary folder with example models. The action's path is
 * a copy of this working tree, so the build step really installs and builds it (~1 min).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLES, REPO_ROOT } from '../support/paths';
import { copyWorkingTree, describe, run, setupPreCommit } from './tree';

interface Step { id?: string; name?: string; shell?: string; run?: string; uses?: string; env?: Record<string, string>; 'working-directory'?: string }
interface Action {
  inputs: Record<string, { default?: string; required?: boolean; description: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

function parseYaml(file: string): unknown {
  const script = 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1], encoding="utf-8")), sys.stdout)';
  const result = run('python3', ['-c', script, file]);
  if (result.code !== 0) throw new Error(`python3-yaml could not read ${file}: ${describe(result)}`);
  return JSON.parse(result.stdout);
}

/** The expressions the runner would fill in; any other expression fails the test (it would need a rule here). */
function substitute(text: string, inputs: Record<string, string>, actionPath: string): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
    if (expression === 'github.action_path') return actionPath;
    const input = /^inputs\.([A-Za-z0-9_-]+)$/.exec(expression);
    if (input && input[1] in inputs) return inputs[input[1]];
    throw new Error(`action.yml uses \${{ ${expression} }}, which this test does not substitute`);
  });
}

interface Outcome { code: number; outputs: Record<string, string>; log: string }

/** Runs the steps in order, stopping at the first that fails (as a runner does); `from` skips earlier ones. */
function runSteps(action: Action, actionPath: string, workspace: string, given: Record<string, string>, from = 0): Outcome {
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) inputs[name] = given[name] ?? input.default ?? '';
  const outputFile = join(workspace, `.github-output-${Date.now()}`);
  writeFileSync(outputFile, '');
  let log = '';
  let code = 0;
  for (const step of action.runs.steps.slice(from)) {
    assert.ok(step.run !== undefined, `step ${step.name}: a composite step this test runs needs run:`);
    assert.equal(step.shell, 'bash', `step ${step.name}: composite run steps must name their shell`);
    const env: NodeJS.ProcessEnv = { ...process.env, GITHUB_OUTPUT: outputFile, GITHUB_ACTION_PATH: actionPath, GITHUB_WORKSPACE: workspace, CI: 'true' };
    for (const [key, value] of Object.entries(step.env ?? {})) env[key] = substitute(String(value), inputs, actionPath);
    const cwd = step['working-directory'] ? substitute(step['working-directory'], inputs, actionPath) : workspace;
    // GitHub runs `shell: bash` as `bash --noprofile --norc -eo pipefail {0}`.
    const result = run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', substitute(step.run!, inputs, actionPath)], { cwd, env });
    log += `== ${step.name}\n${describe(result)}\n`;
    code = result.code ?? 1;
    if (code !== 0) break;
  }
  const outputs: Record<string, string> = {};
  for (const line of readFileSync(outputFile, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) outputs[line.slice(0, at)] = line.slice(at + 1);
  }
  return { code, outputs, log };
}

function sarifResults(path: string): Array<{ ruleId: string; level: string }> {
  const sarif = JSON.parse(readFileSync(path, 'utf8'));
  assert.equal(sarif.version, '2.1.0');
  return sarif.runs[0].results;
}

function sarifRules(path: string): string[] {
  return sarifResults(path).map((r) => r.ruleId);
}

test('action.yml builds the linter, writes the SARIF file and fails by --fail-on', { timeout: 20 * 60_000 }, () => {
  setupPreCommit();
  const action = parseYaml(join(REPO_ROOT, 'action.yml')) as Action;
  assert.equal(action.runs.using, 'composite');
  for (const name of ['paths', 'budget', 'fail-on', 'sarif', 'args']) assert.ok(name in action.inputs, `input ${name}`);
  assert.match(action.outputs.sarif.value, /^\$\{\{ steps\.lint\.outputs\.sarif \}\}$/);
  const buildStep = action.runs.steps.findIndex((step) => step.id === 'build');
  assert.equal(buildStep, 0, 'the build comes first');

  const root = mkdtempSync(join(tmpdir(), 'mpl-action-'));
  try {
    const actionPath = join(root, 'action');
    mkdirSync(actionPath);
    copyWorkingTree(actionPath);
    const workspace = join(root, 'workspace');
    mkdirSync(join(workspace, 'models'), { recursive: true });
    mkdirSync(join(workspace, 'clean'), { recursive: true });
    // COMPAS with its sidecar (one-hot groups): an exact reconstruction in well under a second.
    for (const file of ['compas_no_bagging.joblib', 'compas_no_bagging.privacy.json']) copyFileSync(join(EXAMPLES, 'models', file), join(workspace, 'models', file));
    copyFileSync(join(EXAMPLES, 'models/diabetes_xgb.json'), join(workspace, 'clean/diabetes_xgb.json'));

    // Every step, all inputs at their defaults: the whole workspace; COMPAS's certified rows are an error.
    const full = runSteps(action, actionPath, workspace, {});
    assert.equal(full.code, 1, full.log);
    assert.ok(existsSync(join(actionPath, 'dist/cli.js')), 'the build step built the CLI');
    assert.equal(full.outputs.sarif, 'model-privacy-lint.sarif', full.log);
    const rules = sarifRules(join(workspace, 'model-privacy-lint.sarif'));
    assert.ok(rules.includes('reconstructable-training-set'), rules.join(', '));
    assert.ok(rules.includes('first-tree-exposes-counts'), 'the XGBoost model in clean/ was linted too');

    // The steps after the build (built once above): fail-on never passes, SARIF still written, in a new folder.
    const never = runSteps(action, actionPath, workspace, { budget: '3', 'fail-on': 'never', sarif: 'reports/out/mpl.sarif', paths: 'models' }, buildStep + 1);
    assert.equal(never.code, 0, never.log);
    assert.equal(never.outputs.sarif, 'reports/out/mpl.sarif');
    assert.ok(sarifRules(join(workspace, 'reports/out/mpl.sarif')).includes('no-bootstrap'));

    // A clean model passes at the default fail-on (error) and fails at warning; paths one per line.
    mkdirSync(join(workspace, 'with space'));
    copyFileSync(join(EXAMPLES, 'models/diabetes_xgb.json'), join(workspace, 'with space/diabetes_xgb.json'));
    const clean = runSteps(action, actionPath, workspace, { budget: '3', paths: '  clean\n  with space  \n', sarif: 'clean.sarif' }, buildStep + 1);
    assert.equal(clean.code, 0, clean.log);
    const cleanResults = sarifResults(join(workspace, 'clean.sarif'));
    assert.ok(cleanResults.some((r) => r.ruleId === 'first-tree-exposes-counts' && r.level === 'warning'), JSON.stringify(cleanResults));
    assert.ok(!cleanResults.some((r) => r.level === 'error'), 'nothing at error level');
    const cleanFiles = new Set(cleanResults.map((r) => (r as unknown as { locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }).locations[0].physicalLocation.artifactLocation.uri));
    assert.deepEqual([...cleanFiles].sort(), ['clean/diabetes_xgb.json', 'with%20space/diabetes_xgb.json'], 'both lines were linted, the one with a space as one path');
    const strict = runSteps(action, actionPath, workspace, { budget: '3', paths: 'clean', 'fail-on': 'warning', sarif: 'strict.sarif' }, buildStep + 1);
    assert.equal(strict.code, 1, strict.log);
    assert.ok(existsSync(join(workspace, 'strict.sarif')), 'the report is written when the step fails');

    // Two paths on one line, extra CLI options through `args`: the rule turned off leaves the SARIF.
    const args = runSteps(action, actionPath, workspace, { budget: '0', paths: 'models clean', 'fail-on': 'never', sarif: 'args.sarif', args: '--severity first-tree-exposes-counts=off' }, buildStep + 1);
    assert.equal(args.code, 0, args.log);
    const argRules = sarifRules(join(workspace, 'args.sarif'));
    assert.ok(!argRules.includes('first-tree-exposes-counts') && argRules.includes('singleton-leaf'), argRules.join(', '));

    // A usage error is exit 2, not a pass.
    const usage = runSteps(action, actionPath, workspace, { 'fail-on': 'sometimes' }, buildStep + 1);
    assert.equal(usage.code, 2, usage.log);

    // The documented workflow passes only inputs the action declares, and uploads the output it sets.
    const workflow = parseYaml(join(EXAMPLES, 'github/model-privacy-lint.yml')) as { jobs: Record<string, { steps: Array<{ id?: string; uses?: string; with?: Record<string, unknown>; if?: string }> }> };
    const steps = Object.values(workflow.jobs)[0].steps;
    const lint = steps.find((step) => step.uses?.includes('model-privacy-lint'))!;
    for (const key of Object.keys(lint.with ?? {})) assert.ok(key in action.inputs, `the workflow's with: ${key} is an input`);
    const upload = steps.find((step) => step.uses?.startsWith('github/codeql-action/upload-sarif'))!;
    assert.equal(upload.with?.sarif_file, `\${{ steps.${lint.id}.outputs.sarif }}`);
    assert.match(String(upload.if), /failure\(\)/, 'the upload runs after the lint step failed on findings');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
