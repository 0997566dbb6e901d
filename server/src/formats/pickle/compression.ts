/**
 * joblib's compressed files: the whole pickle stream (arrays included) compressed by one codec,
 * recognised by its magic bytes as joblib itself does. zlib and gzip are decompressed with
 * node:zlib under an output cap; the others are named so the user can re-save the model.
 */
import { constants as bufferConstants } from 'node:buffer';
import * as zlib from 'node:zlib';

export type Compression = 'zlib' | 'gzip' | 'bz2' | 'xz' | 'lzma' | 'lz4';

/** 2 GiB: more than any model this tool can analyse in memory anyway. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 2 * 1024 ** 3;

export class DecompressError extends Error {
  constructor(
    readonly kind: 'truncated' | 'corrupt' | 'too-large' | 'unsupported',
    message: string,
  ) {
    super(message);
  }
}

/** The codec a file's first bytes announce, or undefined for none. Cheap: looks at 6 bytes. */
export function detectCompression(b: Uint8Array): Compression | undefined {
  if (b.length >= 2 && b[0] === 0x78 && ((b[0] << 8) | b[1]) % 31 === 0) return 'zlib';
  if (b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b) return 'gzip';
  if (b.length >= 3 && b[0] === 0x42 && b[1] === 0x5a && b[2] === 0x68) return 'bz2';
  if (b.length >= 6 && b[0] === 0xfd && b[1] === 0x37 && b[2] === 0x7a && b[3] === 0x58 && b[4] === 0x5a && b[5] === 0x00) return 'xz';
  if (b.length >= 3 && b[0] === 0x5d && b[1] === 0x00 && b[2] === 0x00) return 'lzma';
  if (b.length >= 4 && b[0] === 0x04 && b[1] === 0x22 && b[2] === 0x4d && b[3] === 0x18) return 'lz4';
  return undefined;
}

const RESAVE = "re-save it with joblib.dump(model, path, compress=('zlib', 3)) or without compression";

/** Decompresses a joblib stream. Throws DecompressError. */
export function decompress(b: Uint8Array, kind: Compression, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Uint8Array {
  if (kind !== 'zlib' && kind !== 'gzip') {
    const names: Record<Compression, string> = {
      zlib: 'zlib',
      gzip: 'gzip',
      bz2: 'bz2',
      xz: 'xz',
      lzma: 'lzma (legacy .lzma)',
      lz4: 'lz4',
    };
    throw new DecompressError('unsupported', `the model is ${names[kind]}-compressed, which this reader does not decompress; ${RESAVE}`);
  }
  const opts: zlib.ZlibOptions = { maxOutputLength: Math.max(1, Math.min(maxBytes, bufferConstants.MAX_LENGTH)) };
  try {
    const out = kind === 'zlib' ? zlib.inflateSync(b, opts) : zlib.gunzipSync(b, opts);
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      throw new DecompressError('too-large', `the ${kind} stream decompresses to more than ${formatBytes(maxBytes)}, the reader's limit`);
    }
    if (err.code === 'Z_BUF_ERROR' || /unexpected end/i.test(err.message)) {
      throw new DecompressError('truncated', `the ${kind} stream ends early: the file was cut short`);
    }
    throw new DecompressError('corrupt', `the ${kind} stream is damaged (${err.message})`);
  }
}

function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${+(n / 1024 ** 3).toFixed(2)} GiB`;
  if (n >= 1024 ** 2) return `${+(n / 1024 ** 2).toFixed(2)} MiB`;
  return `${n} bytes`;
}
