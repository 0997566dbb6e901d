// Runs the whole test suite in one `node --test` run (one summary at the end):
// unit tests, language-server tests, and editor tests in a real VS Code (code-server + Chromium).
// Prepares what the editor tests need first: the packaged .vsix and the cached code-server.
// `--no-editor` skips the editor level (for a quick local loop); CI always runs all three.
// Integration tests (test/integration/: the pre-commit hook and the GitHub Action, each installing
// and building a copy of this tree, a few minutes) run too; `--no-integration` skips them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const withEditor = !process.argv.includes('--no-editor');
const withIntegration = !process.argv.includes('--no-integration');

function run(command, args, what) {
  console.log(`\n== ${what}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: process.env });
  if (result.status !== 0) {
    console.error(`${what} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
}

const suites = ['out/test/unit/', 'out/test/lsp/'];
if (withIntegration) suites.push('out/test/integration/');
if (withEditor) {
  run('npx', ['vsce', 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', 'model-privacy-lint.vsix'], 'package the extension');
  run('bash', ['scripts/setup-code-server.sh'], 'prepare code-server');
  suites.push('out/test/e2e/');
}
for (const suite of suites) if (!existsSync(suite)) throw new Error(`${suite} is missing: run npm run build first`);

// Editor tests that need a local VS Code build (say so and skip when none is named).
if (withEditor) run('node', ['out/test/e2e/run-test-electron.js'], 'test-electron runner');

const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...suites], { stdio: 'inherit' });
process.exit(result.status ?? 1);
