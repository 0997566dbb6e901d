// Extension-test entry for @vscode/test-electron (test/e2e/run-test-electron.ts): runs
// inside VS Code with the examples workspace open and waits until the extension has
// published model-privacy-lint diagnostics (and, when the runner passes the CLI's
// findings, one for every finding's file and rule id).
import type * as vscodeApi from 'vscode';

const SOURCE = 'model-privacy-lint';

export async function run(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const vscode = require('vscode') as typeof vscodeApi;
  const timeoutMs = Number(process.env.MPL_E2E_TIMEOUT_MS ?? 90_000);
  const expected: { file: string; rule: string }[] = JSON.parse(process.env.MPL_E2E_EXPECTED ?? '[]');

  if (!vscode.workspace.workspaceFolders?.length) throw new Error('no workspace folder open (the runner passes the examples copy)');
  const ext = vscode.extensions.getExtension('model-privacy-lint.model-privacy-lint');
  if (!ext) throw new Error('extension model-privacy-lint.model-privacy-lint is not loaded');
  await ext.activate();

  const codeOf = (d: vscodeApi.Diagnostic): string =>
    typeof d.code === 'object' && d.code !== null ? String(d.code.value) : String(d.code ?? '');
  const missing = (): string[] => {
    const ours = vscode.languages
      .getDiagnostics()
      .flatMap(([uri, ds]) => ds.filter((d) => d.source === SOURCE).map((d) => ({ file: uri.path.split('/').pop() ?? '', rule: codeOf(d) })));
    if (ours.length === 0) return [`any ${SOURCE} diagnostic`];
    return expected.filter((e) => !ours.some((o) => o.file === e.file && o.rule === e.rule)).map((e) => `${e.file}: ${e.rule}`);
  };

  const t0 = Date.now();
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      const left = missing();
      if (left.length === 0) {
        sub.dispose();
        clearInterval(timer);
        resolve();
      } else if (Date.now() - t0 > timeoutMs) {
        sub.dispose();
        clearInterval(timer);
        reject(new Error(`after ${timeoutMs} ms, no ${SOURCE} diagnostic for:\n${left.join('\n')}`));
      }
    };
    const sub = vscode.languages.onDidChangeDiagnostics(check);
    const timer = setInterval(check, 500);
    check();
  });
  const count = vscode.languages.getDiagnostics().reduce((n, [, ds]) => n + ds.filter((d) => d.source === SOURCE).length, 0);
  console.log(`test-electron: ${count} ${SOURCE} diagnostics after ${Date.now() - t0} ms (${expected.length} CLI findings checked)`);
}
