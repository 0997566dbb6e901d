/**
 * The pre-commit hook (.pre-commit-hooks.yaml) as users run it: Debian's pre-commit, a
 * .pre-commit-config.yaml naming this repository with `repo:` (a file:// URL of a commit of the
 * current tree) and `rev:`, and `pre-commit run --all-files` in a throwaway git repository.
 * pre-commit clones that commit, installs it with npm (the `prepare` script builds dist/) and
 * runs the package's bin on the staged model files. Slow (one npm install and build, ~1-2 min).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLES } from '../support/paths';
import { commitAll, copyWorkingTree, describe, run, setupPreCommit, stageAll } from './tree';

test('pre-commit installs the hook from this repository, fails on a leaking model and passes a clean one', { timeout: 20 * 60_000 }, () => {
  setupPreCommit();
  const root = mkdtempSync(join(tmpdir(), 'mpl-pre-commit-'));
  try {
    const hookRepo = join(root, 'hook-repo');
    mkdirSync(hookRepo);
    copyWorkingTree(hookRepo);
    const rev = commitAll(hookRepo, 'the tree under test');
    // A fresh pre-commit home: the hook is installed from scratch, as on a user's first commit.
    const env: NodeJS.ProcessEnv = { ...process.env, PRE_COMMIT_HOME: join(root, 'pre-commit-home') };
    delete env.PRE_COMMIT;

    const userRepo = (name: string, models: string[], args: string[], verbose: boolean) => {
      const dir = join(root, name);
      mkdirSync(dir);
      for (const model of models) copyFileSync(join(EXAMPLES, 'models', model), join(dir, model));
      // Not a model: the hook's `files` pattern must keep it from the CLI (named, it would be read).
      writeFileSync(join(dir, 'settings.json'), '{"learning_rate": 0.1}\n');
      writeFileSync(
        join(dir, '.pre-commit-config.yaml'),
        [
          'repos:',
          `  - repo: file://${hookRepo}`,
          `    rev: ${rev}`,
          '    hooks:',
          '      - id: model-privacy-lint',
          ...(args.length ? [`        args: [${args.map((a) => `'${a}'`).join(', ')}]`] : []),
          ...(verbose ? ['        verbose: true'] : []),
          '',
        ].join('\n'),
      );
      stageAll(dir);
      return run('pre-commit', ['run', '--all-files', '--color', 'never'], { cwd: dir, env });
    };

    // The CLI's defaults (as a user's hook runs). With its sidecar (the one-hot groups of COMPAS's
    // features) the reconstruction is exact in well under a second, so certified rows, an error,
    // refuse the commit even on a loaded machine (without it the certified share grows with time).
    const leaking = userRepo('leaking', ['compas_no_bagging.joblib', 'compas_no_bagging.privacy.json'], [], false);
    assert.equal(leaking.code, 1, describe(leaking));
    assert.match(leaking.stdout, /model privacy lint\.+Failed/);
    assert.match(leaking.stdout, /- exit code: 1/);
    assert.match(leaking.stdout, /compas_no_bagging\.joblib/);
    assert.match(leaking.stdout, /error\s+reconstructable-training-set\s+All 100 training rows are rebuilt from the model alone/);
    assert.match(leaking.stdout, /warning\s+no-bootstrap/);
    assert.doesNotMatch(leaking.stdout, /settings\.json/);

    // XGBoost's JSON model of the diabetes data has no finding at error level (the CLI's default --fail-on).
    // A short budget: XGBoost's reconstruction would use all of its 30 s, and it is not what is tested.
    const clean = userRepo('clean', ['diabetes_xgb.json'], ['--budget', '3'], true);
    assert.equal(clean.code, 0, describe(clean));
    assert.match(clean.stdout, /model privacy lint\.+Passed/);
    assert.match(clean.stdout, /diabetes_xgb\.json\s+\(xgboost/, 'the hook ran on the model (verbose output)');
    assert.doesNotMatch(clean.stdout, /settings\.json/);

    const none = userRepo('no-model', [], [], false);
    assert.equal(none.code, 0, describe(none));
    assert.match(none.stdout, /model privacy lint\.+\(no files to check\)Skipped/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
