/**
 * Files beside a model that its format keeps apart: old joblib's arrays (`clf.pkl_01.npy`, ...,
 * formats/sklearn/old-joblib.ts). joblib opens the name the pickle stores, in the pickle's folder;
 * so does this, but only a bare file name of that form (no folder, no `..`), only a regular file,
 * and only up to the reader's size limit over all of them. The bytes are parsed as numpy data,
 * never run.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

const SIDE_FILE = /^[\w.-]+_\d+\.npy(\.z)?$/;

export function sideFilesBeside(modelPath: string, limitBytes: number): (name: string) => Uint8Array | string {
  const folder = dirname(modelPath);
  let total = 0;
  return (name) => {
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
}
