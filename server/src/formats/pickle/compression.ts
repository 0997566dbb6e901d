/**
 * joblib's compressed files: the whole pickle stream (arrays included) compressed by one codec,
 * recognised by its magic bytes as joblib itself does. Every codec joblib writes is decompressed,
 * each under one output limit checked while inflating, so a compression bomb stops after producing
 * at most the limit (node:zlib: the limit plus one 16 KiB chunk) instead of after inflating fully:
 *   zlib, gzip      node:zlib with maxOutputLength
 *   bz2             seek-bzip (./bzip2.ts)
 *   xz, lzma        our LZMA/LZMA2 decoder (./lzma.ts, ./xz.ts; why not a package: see lzma.ts)
 *   lz4             frames parsed here, blocks by lz4js (./lz4.ts)
 */
import { constants as bufferConstants } from 'node:buffer';
import * as zlib from 'node:zlib';
import { decodeBzip2 } from './bzip2';
import { CappedOutput, DecompressError, OutputLimitReached } from './capped-output';
import { decodeLz4 } from './lz4';
import { decodeLzmaAlone } from './lzma';
import { decodeXz } from './xz';

export { DecompressError } from './capped-output';

export type Compression = 'zlib' | 'gzip' | 'bz2' | 'xz' | 'lzma' | 'lz4';

/** 1 GiB: the same default as the linter's file-size limit (DEFAULT_MAX_FILE_BYTES), which callers pass. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 1024 ** 3;

/**
 * The ratio guard: past `floorBytes` of output, a stream may inflate at most `ratio[codec]` times
 * its compressed size. Measured on joblib dumps of 5-tree forests (scikit-learn 1.2.1, 5000 rows):
 * 2 classes compress 5x (zlib) / 8x (xz) / 9x (bz2); 100 classes 34x / 67x / 73x; 1000 classes
 * (sparse class counts) 99x / 428x / 492x. Zeros, as bombs are made, compress ~1030x with zlib
 * (its ceiling), ~7000x with xz and lzma, ~10^6x with bz2; lz4's ceiling (~255x) is within
 * genuine models' range, so lz4 has no ratio guard, only the size limit. A genuine model past the
 * guard can be saved uncompressed, where only the file-size limit applies.
 */
export const RATIO_GUARD: { floorBytes: number; ratio: Record<Compression, number> } = {
  floorBytes: 64 * 1024 ** 2,
  ratio: { zlib: 300, gzip: 300, bz2: 1500, xz: 1500, lzma: 1500, lz4: Infinity },
};

/**
 * joblib before 0.10 with `compress`: a "z-file", `ZF`, the data's length as `0x...` padded with
 * spaces to 19 characters (one more space from Python 2's joblib 0.8.4 and older), then one zlib
 * stream. The stream and its declared length, or undefined for any other bytes.
 */
export function zfileBody(b: Uint8Array): { body: Uint8Array; length: number } | undefined {
  if (b.length < 4 || b[0] !== 0x5a || b[1] !== 0x46 || b[2] !== 0x30 || b[3] !== 0x78) return undefined;
  const HEADER = 2 + 19;
  if (b.length < HEADER) return undefined;
  const text = String.fromCharCode(...b.subarray(2, HEADER)).trimEnd();
  if (!/^0x[0-9a-f]+$/i.test(text)) return undefined;
  const start = b[HEADER] === 0x20 ? HEADER + 1 : HEADER;
  return { body: b.subarray(start), length: Number.parseInt(text.slice(2), 16) };
}

/** The codec a file's first bytes announce, or undefined for none. Cheap: looks at 21 bytes. */
export function detectCompression(b: Uint8Array): Compression | undefined {
  if (zfileBody(b)) return 'zlib';
  if (b.length >= 2 && b[0] === 0x78 && ((b[0] << 8) | b[1]) % 31 === 0) return 'zlib';
  if (b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b) return 'gzip';
  if (b.length >= 3 && b[0] === 0x42 && b[1] === 0x5a && b[2] === 0x68) return 'bz2';
  if (b.length >= 6 && b[0] === 0xfd && b[1] === 0x37 && b[2] === 0x7a && b[3] === 0x58 && b[4] === 0x5a && b[5] === 0x00) return 'xz';
  if (b.length >= 3 && b[0] === 0x5d && b[1] === 0x00 && b[2] === 0x00) return 'lzma';
  if (b.length >= 4 && b[0] === 0x04 && b[1] === 0x22 && b[2] === 0x4d && b[3] === 0x18) return 'lz4';
  return undefined;
}

/** The output limit for `compressedBytes` of `kind`: the caller's maximum, lowered by the ratio guard. */
export function outputLimit(compressedBytes: number, maxBytes: number, kind: Compression): number {
  const ratio = RATIO_GUARD.ratio[kind] ?? Infinity;
  return Math.max(1, Math.min(maxBytes, Math.max(RATIO_GUARD.floorBytes, ratio * compressedBytes)));
}

const NAMES: Record<Compression, string> = { zlib: 'zlib', gzip: 'gzip', bz2: 'bz2', xz: 'xz', lzma: 'lzma (legacy .lzma)', lz4: 'lz4' };

const DECODERS: Record<'bz2' | 'xz' | 'lzma' | 'lz4', (input: Uint8Array, out: CappedOutput) => void> = {
  bz2: decodeBzip2,
  xz: decodeXz,
  lzma: decodeLzmaAlone,
  lz4: decodeLz4,
};

/** Decompresses a joblib stream. Throws DecompressError. */
export function decompress(b: Uint8Array, kind: Compression, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Uint8Array {
  const limit = outputLimit(b.length, maxBytes, kind);
  const zfile = kind === 'zlib' ? zfileBody(b) : undefined;
  if (zfile) {
    if (zfile.length > maxBytes) throw tooLarge('zlib', b.length, maxBytes, maxBytes);
    const data = inflate(zfile.body, 'zlib', limit, maxBytes);
    if (data.length !== zfile.length) throw new DecompressError(data.length < zfile.length ? 'truncated' : 'corrupt', `the old joblib z-file states ${zfile.length} bytes and holds ${data.length}`);
    return data;
  }
  if (kind === 'zlib' || kind === 'gzip') return inflate(b, kind, limit, maxBytes);
  const decoder = DECODERS[kind];
  if (!decoder) throw new DecompressError('unsupported', `the model is ${NAMES[kind] ?? String(kind)}-compressed, which this reader does not decompress; re-save it with joblib.dump(model, path, compress=('zlib', 3)) or without compression`);
  const out = new CappedOutput(limit, Math.min(limit, Math.max(64 * 1024, b.length * 4)));
  try {
    decoder(b, out);
  } catch (e) {
    if (e instanceof OutputLimitReached) throw tooLarge(kind, b.length, limit, maxBytes, e.produced);
    if (e instanceof DecompressError) throw new DecompressError(e.kind, e.message, out.len);
    if (e instanceof RangeError) throw new DecompressError('too-large', `decompressing the ${kind} stream ran out of memory (${e.message})`, out.len);
    throw new DecompressError('corrupt', `the ${kind} stream is damaged (${(e as Error).message})`, out.len);
  }
  return out.result();
}

function inflate(b: Uint8Array, kind: 'zlib' | 'gzip', limit: number, maxBytes: number): Uint8Array {
  const opts: zlib.ZlibOptions = { maxOutputLength: Math.min(limit, bufferConstants.MAX_LENGTH) };
  try {
    const out = kind === 'zlib' ? zlib.inflateSync(b, opts) : zlib.gunzipSync(b, opts);
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge(kind, b.length, limit, maxBytes);
    if (err.code === 'Z_BUF_ERROR' || /unexpected end/i.test(err.message)) {
      throw new DecompressError('truncated', `the ${kind} stream ends early: the file was cut short`);
    }
    throw new DecompressError('corrupt', `the ${kind} stream is damaged (${err.message})`);
  }
}

function tooLarge(kind: Compression, compressed: number, limit: number, maxBytes: number, produced?: number): DecompressError {
  const message =
    limit < maxBytes
      ? `the ${kind} stream inflates more than ${RATIO_GUARD.ratio[kind]} times its ${formatBytes(compressed)} past ${formatBytes(limit)}, as compression bombs do; if the model is genuine, save it without compression`
      : `the ${kind} stream decompresses to more than ${formatBytes(limit)}, the reader's limit (setting modelPrivacyLint.maxFileSizeMB, CLI --max-file-mb)`;
  return new DecompressError('too-large', message, produced);
}

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${+(n / 1024 ** 3).toFixed(2)} GiB`;
  if (n >= 1024 ** 2) return `${+(n / 1024 ** 2).toFixed(2)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(2)} KiB`;
  return `${n} bytes`;
}
