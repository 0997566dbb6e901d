/**
 * Helpers of the integration tests of the pre-commit hook and the GitHub Action: a copy of this
 * working tree as a user's tools get it (the files git would commit, built by nobody yet), and
 * the Debian packages those tools need.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../support/paths';

/** Runs a command; its output is returned, and reported in full when it fails unexpectedly. */
export function run(command: string, args: string[], options: SpawnSyncOptions = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  return { code: result.status, stdout: String(result.stdout ?? ''), stderr: String(result.stderr ?? ''), error: result.error };
}

export function describe(result: ReturnType<typeof run>): string {
  return `exit ${result.code}${result.error ? ` (${result.error.message})` : ''}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** Installs Debian's pre-commit (and python3-yaml) when missing, as CI needs it: see the script. */
export function setupPreCommit(): void {
  const result = run('bash', [join(REPO_ROOT, 'scripts/setup-pre-commit.sh')]);
  if (result.code !== 0) throw new Error(`scripts/setup-pre-commit.sh failed: ${describe(result)}`);
}

/**
 * Copies what `git add -A` would commit (tracked and untracked files that .gitignore keeps), so
 * uncommitted work is tested too; node_modules (a symbolic link in worktrees), out/ and dist/ are
 * left behind: the copy must install and build itself as a user's pre-commit or runner does.
 */
export function copyWorkingTree(dest: string): void {
  const listed = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT });
  if (listed.code !== 0) throw new Error(`git ls-files failed: ${describe(listed)}`);
  for (const file of new Set(listed.stdout.split('\0').filter(Boolean))) {
    if (file === 'node_modules' || file.startsWith('node_modules/')) continue;
    const from = join(REPO_ROOT, file);
    if (!existsSync(from) || lstatSync(from).isDirectory()) continue; // deleted but not yet staged
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    cpSync(from, join(dest, file), { verbatimSymlinks: true });
  }
}

const GIT_IDENTITY = { GIT_AUTHOR_NAME: 'test', GIT_AUTHOR_EMAIL: 'test@example.invalid', GIT_COMMITTER_NAME: 'test', GIT_COMMITTER_EMAIL: 'test@example.invalid' };

/** `git init` + add everything + commit in `dir`; returns the commit's hash. */
export function commitAll(dir: string, message: string): string {
  const env = { ...process.env, ...GIT_IDENTITY };
  for (const args of [['init', '-q'], ['add', '-A'], ['-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '-m', message]]) {
    const result = run('git', args, { cwd: dir, env });
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed: ${describe(result)}`);
  }
  return run('git', ['rev-parse', 'HEAD'], { cwd: dir }).stdout.trim();
}

/** `git init` + `git add -A` without a commit: `pre-commit run --all-files` lints what is staged. */
export function stageAll(dir: string): void {
  for (const args of [['init', '-q'], ['add', '-A']]) {
    const result = run('git', args, { cwd: dir });
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed: ${describe(result)}`);
  }
}
