/**
 * Files beside a model that its format keeps apart: old joblib's arrays (`clf.pkl_01.npy`, ...,
 * formats/sklearn/old-joblib.ts). joblib opens the name the pickle stores, in the pickle's folder;
 * so does this, but only a bare file name of that form (no folder, no `..`), only a regular file,
 * and only up to the reader's size limit over all of them. The bytes are parsed as numpy data,
 * never run.
 *
 * The files read are part of the model: old joblib rewrites them without changing the pickle
 * (it stores only their names), so the report's content hash covers them (`withSideFiles`), and the
 * caches keyed by it, and the editor's re-analysis, follow a change of any of them.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const SIDE_FILE = /^[\w.-]+_\d+\.npy(\.z)?$/;

export interface SideFiles {
  /** The named file's bytes, or why it is not read. */
  (name: string): Uint8Array | string;
  /**
   * Each file asked for so far, by name, with the SHA-256 of its bytes or why it was not read (a
   * missing side file is part of the answer too: the report must not be reused once it appears).
   */
  readonly read: { name: string; sha256?: string; problem?: string }[];
}

export function sideFilesBeside(modelPath: string, limitBytes: number): SideFiles {
  const folder = dirname(modelPath);
  let total = 0;
  const read: { name: string; sha256?: string; problem?: string }[] = [];
  const open = (name: string): Uint8Array | string => {
    const result = bytesOf(name);
    read.push(typeof result === 'string' ? { name, problem: result } : { name, sha256: createHash('sha256').update(result).digest('hex') });
    return result;
  };
  const bytesOf = (name: string): Uint8Array | string => {
    if (!SIDE_FILE.test(name) || name.startsWith('.')) return 'not a side file name joblib writes (<model>_NN.npy)';
    const path = join(folder, name);
    try {
      const stat = statSync(path);
      if (!stat.isFile()) return 'not a file';
      total += stat.size;
      if (total > limitBytes) return `the side files together are larger than the reader's limit of ${limitBytes} bytes`;
      return new Uint8Array(readFileSync(path));
    } catch {
      return 'not found beside the model';
    }
  };
  return Object.assign(open, { read });
}

/** The model's content hash, extended by the side files asked for with it (unchanged when none). */
export function withSideFiles(contentHash: string, side: SideFiles): string {
  if (side.read.length === 0) return contentHash;
  return createHash('sha256').update(JSON.stringify([contentHash, side.read])).digest('hex');
}

/**
 * The model a side file belongs to (`clf.pkl_01.npy` -> `clf.pkl`, in the same folder), or
 * undefined for a name joblib would not write.
 */
export function modelOfSideFile(path: string): string | undefined {
  const name = basename(path);
  if (!SIDE_FILE.test(name) || name.startsWith('.')) return undefined;
  return join(dirname(path), name.replace(/_\d+\.npy(\.z)?$/, ''));
}
