// @vscode/test-electron runner for machines that have a local VS Code build (a laptop,
// hosted CI): VSCODE_EXECUTABLE=/path/to/code node out/test/e2e/run-test-electron.js
// Without VSCODE_EXECUTABLE it says so and exits 0 (these machines cannot download VS Code;
// the code-server test, problems-panel.test.ts, is the editor test that runs here).
// On Linux without a display, run it under xvfb-run.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

async function main(): Promise<number> {
  const exe = process.env.VSCODE_EXECUTABLE;
  if (!exe) {
    console.log('test-electron: no local VS Code build named (VSCODE_EXECUTABLE), not run');
    return 0;
  }
  if (!fs.existsSync(exe)) {
    console.error(`test-electron: VSCODE_EXECUTABLE=${exe} does not exist`);
    return 1;
  }
  const examples = path.resolve(process.env.E2E_EXAMPLES ?? path.join(REPO_ROOT, 'examples'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mpl-test-electron-'));
  const workspace = path.join(tmp, 'workspace');
  try {
    fs.cpSync(examples, workspace, { recursive: true, filter: (p) => !/(^|[\\/])(__pycache__|privacy-report\.[^\\/]*)$/.test(p) });
    // What the CLI finds is what the editor must show (file and rule id per finding).
    let expected: { file: string; rule: string }[] = [];
    const cli = path.join(REPO_ROOT, 'dist', 'cli.js');
    if (fs.existsSync(cli)) {
      let stdout: string;
      try {
        stdout = execFileSync(process.execPath, [cli, workspace, '--format', 'json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
      } catch (e) {
        stdout = String((e as { stdout?: string }).stdout ?? ''); // non-zero exit when it has findings
      }
      const report = JSON.parse(stdout) as { files: { path: string; findings: { rule: string }[] }[] };
      expected = report.files.flatMap((f) => f.findings.map((x) => ({ file: path.basename(f.path), rule: x.rule })));
    }
    await runTests({
      vscodeExecutablePath: exe,
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: path.join(__dirname, 'suite', 'index.js'),
      extensionTestsEnv: { MPL_E2E_EXPECTED: JSON.stringify(expected) },
      launchArgs: [
        workspace,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
        `--user-data-dir=${path.join(tmp, 'user-data')}`,
        `--extensions-dir=${path.join(tmp, 'extensions')}`,
      ],
    });
    console.log('test-electron: passed');
    return 0;
  } catch (e) {
    console.error(`test-electron: failed: ${(e as Error).message}`);
    return 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code));
