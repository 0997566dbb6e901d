/**
 * Every pickle a file holds, one after another. `pickle.load` stops at the first STOP, but a
 * loader that calls it again on the same stream runs the next pickle: a hostile file can hide its
 * payload behind a valid model. After the first pickle (for joblib, after the raw arrays its
 * NumpyArrayWrapper records are followed by, which the VM reads in joblib mode), the rest of the
 * bytes are read as further pickles while they begin like one, up to MAX_FURTHER_PICKLES. Their
 * globals join the first pickle's: dangerous ones make the file unsafe, unknown ones are reported.
 */
import type { UnknownGlobal } from '../types';
import { unpickle, type BytecodeFunctions, type PickleLimits, type UnpickleResult } from './vm';

/** At most this many pickles after the first; bytes still left beyond them are not checked. */
export const MAX_FURTHER_PICKLES = 64;

/**
 * Opcodes a pickle can begin with: PROTO (followed by a protocol 0-5), FRAME, MARK, and every
 * opcode that pushes a value on an empty stack without the memo, of any protocol (Python does not
 * hold a stream to its declared protocol, so `N0cos\nsystem...` is as good as `cos\nsystem...`).
 */
const START_OPCODES = new Set([
  ...'(FIJKLMNPSTUVXcG])}BC'.split('').map((c) => c.charCodeAt(0)),
  0x95, // FRAME
  0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x96, 0x97, // protocol 2-5 pushers
  0x82, 0x83, 0x84, // EXT1/2/4 (refused by the VM, but a pickle can begin with them)
]);

/** Whether the bytes at `at` can begin a pickle. */
export function canStartPickle(data: Uint8Array, at: number): boolean {
  if (at >= data.length) return false;
  const op = data[at];
  if (op === 0x80) return at + 1 < data.length && data[at + 1] <= 5;
  return START_OPCODES.has(op);
}

export interface StreamResult {
  /** The first pickle: the one `pickle.load` and `joblib.load` return. */
  first: UnpickleResult;
  /** Dangerous globals of every pickle in the file, in order of first appearance. */
  unsafe: string[];
  /** Every distinct global of every pickle, whatever its tier, in order of first appearance. */
  globals: string[];
  /** Globals any pickle calls (UnpickleResult.called), and those any applies as functions or to arguments (UnpickleResult.applied). */
  called: string[];
  applied: string[];
  /** Unknown globals of every pickle, called in any of them = called. */
  unknown: UnknownGlobal[];
  /** Whole pickles read after the first. */
  further: number;
  /** Bytes after the last whole pickle that do not form one (their globals, if any, are counted). */
  ignored: number;
  /** True when MAX_FURTHER_PICKLES was reached and pickle-like bytes were left unchecked. */
  unchecked: boolean;
  /** Functions cloudpickle rebuilt from bytecode in every pickle (UnpickleResult.bytecode), summed. */
  bytecode?: BytecodeFunctions;
}

export interface StreamOptions {
  joblib?: boolean;
  limits?: Partial<PickleLimits>;
}

/** Reads the first pickle and scans the ones after it. Never throws. */
export function unpickleStream(data: Uint8Array, options: StreamOptions = {}): StreamResult {
  const first = unpickle(data, { joblib: options.joblib, limits: options.limits });
  const unsafe = [...first.unsafe];
  const unknown = first.unknown.map((u) => ({ ...u }));
  const result: StreamResult = { first, unsafe, globals: [...first.globals], called: [...first.called], applied: [...first.applied], unknown, further: 0, ignored: 0, unchecked: false };
  const read = [first];
  // A loader stops at the first pickle's error; nothing after it would run.
  if (first.error) return result;
  let pos = first.end;
  while (pos < data.length && canStartPickle(data, pos)) {
    if (result.further >= MAX_FURTHER_PICKLES) {
      result.unchecked = true;
      break;
    }
    // A second pickle.load on the stream reads plain pickle: no joblib array hook.
    const next = unpickle(data, { offset: pos, limits: options.limits });
    merge(result, next);
    read.push(next);
    // Globals named before a break still count (Python imports, and may call, them before it fails).
    if (next.error) break;
    result.further++;
    pos = next.end;
  }
  result.ignored = result.unchecked ? 0 : data.length - pos;
  const bytecode = bytecodeOf(read);
  if (bytecode) result.bytecode = bytecode;
  return result;
}

/**
 * The functions rebuilt from bytecode over every pickle read; none when a pickle used one of those
 * names otherwise (in its `unsafe`, not its `bytecode`: it calls what it rebuilt, say), since then
 * the whole file runs code while loading.
 */
function bytecodeOf(read: UnpickleResult[]): BytecodeFunctions | undefined {
  const names: string[] = [];
  const otherwise = new Set<string>();
  let functions = 0;
  for (const r of read) {
    const mine = r.bytecode?.names ?? [];
    for (const q of r.unsafe) if (!mine.includes(q)) otherwise.add(q);
    for (const q of mine) if (!names.includes(q)) names.push(q);
    functions += r.bytecode?.functions ?? 0;
  }
  if (names.length === 0 || names.some((q) => otherwise.has(q))) return undefined;
  return { functions, names };
}

function merge(into: StreamResult, r: UnpickleResult): void {
  for (const q of r.unsafe) if (!into.unsafe.includes(q)) into.unsafe.push(q);
  for (const q of r.globals) if (!into.globals.includes(q)) into.globals.push(q);
  for (const q of r.called) if (!into.called.includes(q)) into.called.push(q);
  for (const q of r.applied) if (!into.applied.includes(q)) into.applied.push(q);
  for (const u of r.unknown) {
    const seen = into.unknown.find((x) => x.name === u.name);
    if (seen) seen.called ||= u.called;
    else into.unknown.push({ ...u });
  }
}
