/**
 * The format registry: picks a reader by content and shields callers from reader bugs.
 * A new format is one new reader in this folder and one line in READERS.
 */
import type { ModelReader, ReadOptions, ReadResult } from './types';
import { foreignReader } from './foreign';
import { forestJsonReader } from './forest-json';
import { sklearnReader } from './sklearn';
import { skopsReader } from './skops';
import { xgboostReader } from './xgboost';

// Last: it only names other libraries' models and Git LFS pointers (foreign.ts).
export const READERS: readonly ModelReader[] = [sklearnReader, forestJsonReader, xgboostReader, skopsReader, foreignReader];

export function readModel(bytes: Uint8Array, fileName: string, options?: ReadOptions): ReadResult {
  if (bytes.length === 0) return { kind: 'unreadable', format: 'unknown', reason: 'empty', detail: 'the file is empty.' };
  const reader = READERS.find((candidate) => safeSniff(candidate, bytes, fileName));
  if (!reader) {
    return {
      kind: 'unreadable',
      format: 'unknown',
      reason: 'not-a-model',
      detail: 'the content is not a format this tool reads (scikit-learn pickle or joblib, XGBoost model or dump, *.forest.json, skops archive).',
    };
  }
  try {
    return reader.read(bytes, fileName, options);
  } catch (error) {
    // A reader bug must not take the server down: report it as a finding on the file.
    return {
      kind: 'unreadable',
      format: reader.format,
      reason: 'corrupt',
      detail: `the ${reader.format} reader failed: ${(error as Error).message ?? String(error)}`,
    };
  }
}

function safeSniff(reader: ModelReader, bytes: Uint8Array, fileName: string): boolean {
  try {
    return reader.sniff(bytes, fileName);
  } catch {
    return false;
  }
}
