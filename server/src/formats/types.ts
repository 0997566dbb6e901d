/**
 * What a reader returns. Readers never throw into the caller: every failure is a value here,
 * so the linter can turn it into a finding and go on with other files.
 */
import type { ForestInput } from '../forest/schema';

/** A position in a text model file (0-based, as in LSP). Binary formats have none. */
export interface SourceRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

/** Where in the model a fact lives, so a finding can point at it. */
export interface ModelPath {
  tree?: number;
  node?: number;
}

/** Why a file could not be read; each value is explained in docs/rules/unreadable-model.md. */
export type UnreadableReason =
  | 'empty'
  | 'truncated'
  | 'not-a-model'
  | 'unsupported-estimator'
  | 'unsupported-compression'
  | 'unsupported-format'
  | 'too-large'
  | 'corrupt'
  /** The analysis itself failed (ran out of memory or time); the server restarted it and goes on. */
  | 'analysis-failed';

export interface ModelRead {
  kind: 'model';
  /** Format id, e.g. `sklearn-joblib`, `sklearn-pickle`, `forest-json`. */
  format: string;
  forest: ForestInput;
  /** Facts about the file worth telling the user that are not findings (e.g. `compression: zlib`). */
  notes: string[];
  /** Maps a place in the model to a range in a text file; absent for binary files. */
  locate?: (path: ModelPath) => SourceRange | undefined;
}

export interface UnsafeRead {
  kind: 'unsafe';
  format: string;
  /** Every global the file names outside the allowlist, as `module.name`, in order of first appearance. */
  globals: string[];
}

export interface UnreadableRead {
  kind: 'unreadable';
  format: string;
  reason: UnreadableReason;
  /** One sentence for a person: what is wrong and, where it helps, what to do. */
  detail: string;
}

export type ReadResult = ModelRead | UnsafeRead | UnreadableRead;

/** What the caller lets a reader spend. */
export interface ReadOptions {
  /** Largest model (after decompression) a reader may produce, in bytes: the linter's file-size limit. */
  maxBytes?: number;
}

/** One reader per format. `sniff` looks at content (not the extension) and must be cheap. */
export interface ModelReader {
  format: string;
  sniff(bytes: Uint8Array, fileName: string): boolean;
  read(bytes: Uint8Array, fileName: string, options?: ReadOptions): ReadResult;
}
