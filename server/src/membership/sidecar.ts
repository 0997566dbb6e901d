/**
 * The editor's candidate file (issue 14, item 4): the model's sidecar `<model>.privacy.json` may
 * name one, `"membership": {"candidates": "data/holdout.csv", "label": "y", "membersColumn": "member"}`,
 * the path relative to the sidecar. Read here for the background job (jobs/reconstruction-worker.ts);
 * a missing or malformed file is a `problem` for the report, never an exception.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readSidecar, type MembershipDeclaration } from '../recoverability/declared-groups';
import { readCandidates, type CandidateFile } from './candidates';

export type SidecarCandidates =
  | { declared: false }
  | { declared: true; path: string; declaration: MembershipDeclaration; file: CandidateFile }
  | { declared: true; path: string; declaration: MembershipDeclaration; problem: string };

/** The sidecar's `membership` entry, resolved against the sidecar's folder. */
export async function sidecarMembership(modelPath: string): Promise<{ path: string; declaration: MembershipDeclaration } | undefined> {
  const sidecar = await readSidecar(modelPath);
  if (!sidecar.path || !sidecar.membership) return undefined;
  return { path: resolve(dirname(sidecar.path), sidecar.membership.candidates), declaration: sidecar.membership };
}

/** The candidates the sidecar names, read and checked (columns, truth values); problems as text. */
export async function readSidecarCandidates(modelPath: string): Promise<SidecarCandidates> {
  const entry = await sidecarMembership(modelPath);
  if (!entry) return { declared: false };
  const { path, declaration } = entry;
  try {
    const file = await readCandidates(path, declaration.label, declaration.membersColumn);
    // The report names the file as the sidecar does, not by this machine's absolute path.
    return { declared: true, path, declaration, file: { ...file, data: { ...file.data, path: declaration.candidates } } };
  } catch (error) {
    // The reader's messages speak of the CLI's flags and this machine's path: say it as the sidecar does.
    const message = (error as Error).message.replace(/^--[a-z-]+:\s*/, '').split(path).join(declaration.candidates);
    return { declared: true, path, declaration, problem: `${message} (the sidecar's "membership" entry)` };
  }
}

/**
 * The candidate file's bytes by hash, for the background job's cache key: a changed candidate file
 * must not answer from the cache. '' when the sidecar names none or it cannot be read.
 */
export async function sidecarCandidatesHash(modelPath: string): Promise<string> {
  const entry = await sidecarMembership(modelPath).catch(() => undefined);
  if (!entry) return '';
  try {
    return createHash('sha256').update(await fs.readFile(entry.path)).digest('hex');
  } catch (error) {
    return `unreadable:${(error as NodeJS.ErrnoException).code ?? ''}`;
  }
}
