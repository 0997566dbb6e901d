/**
 * The .xz container (joblib's compress=('xz', n), Python's lzma.FORMAT_XZ): stream header, blocks
 * of LZMA2 chunks, index, footer. Only the LZMA2 filter is accepted, which is what Python writes
 * unless given a custom filter chain (BCJ and delta filters are for executables and media).
 * Integrity checks (CRC32/CRC64/SHA-256) are skipped, not verified: the LZMA2 decoder already
 * fails on damaged data, and the pickle VM reads what comes out with its own bounds checks.
 */
import { CappedOutput, DecompressError, endOfInput } from './capped-output';
import { LzmaDecoder, RangeDecoder } from './lzma';

const CODEC = 'xz';
const MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];
const FILTER_LZMA2 = 0x21;

function corrupt(what: string): DecompressError {
  return new DecompressError('corrupt', `the ${CODEC} stream is damaged (${what})`);
}

/** Bytes of the check field per check type (xz spec 2.1.1.2: 0, 4, 8, 16, 32, 64 by groups of three). */
function checkSize(type: number): number {
  return type === 0 ? 0 : 4 << Math.floor((type - 1) / 3);
}

class Cursor {
  constructor(
    readonly b: Uint8Array,
    public pos: number,
  ) {}

  byte(): number {
    if (this.pos >= this.b.length) throw endOfInput(CODEC);
    return this.b[this.pos++];
  }

  /** xz's variable-length integer: 7 bits a byte, at most 9 bytes. */
  vli(): number {
    let v = 0;
    for (let i = 0; i < 9; i++) {
      const byte = this.byte();
      v += (byte & 0x7f) * 2 ** (7 * i);
      if ((byte & 0x80) === 0) return v;
    }
    throw corrupt('bad variable-length integer');
  }

  need(n: number): void {
    if (this.pos + n > this.b.length) throw endOfInput(CODEC);
  }
}

export function decodeXz(input: Uint8Array, out: CappedOutput): void {
  const c = new Cursor(input, 0);
  c.need(12);
  for (let i = 0; i < 6; i++) if (input[i] !== MAGIC[i]) throw corrupt('bad stream header');
  if (input[6] !== 0 || input[7] > 0x0f) throw corrupt('unknown stream flags');
  const check = checkSize(input[7]);
  c.pos = 12;
  const decoder = new LzmaDecoder(out, CODEC);
  for (;;) {
    const headerStart = c.pos;
    const sizeByte = c.byte();
    if (sizeByte === 0) break; // the index: every block has been read
    const headerEnd = headerStart + (sizeByte + 1) * 4;
    c.need(headerEnd - c.pos);
    const flags = c.byte();
    if (flags & 0x3c) throw corrupt('reserved block flags set');
    const filters = (flags & 0x03) + 1;
    if (flags & 0x40) c.vli(); // compressed size
    const declaredSize = flags & 0x80 ? c.vli() : undefined;
    let dictProps = -1;
    for (let f = 0; f < filters; f++) {
      const id = c.vli();
      const propSize = c.vli();
      if (id !== FILTER_LZMA2 || filters !== 1 || propSize !== 1) {
        throw new DecompressError(
          'unsupported',
          `the xz stream uses a filter chain other than plain LZMA2 (filter 0x${id.toString(16)}), which this reader does not decompress; re-save the model with joblib.dump(model, path, compress=('xz', 3)) and no custom filters, or with compress=('zlib', 3)`,
        );
      }
      dictProps = c.byte();
    }
    if (dictProps > 40) throw corrupt('bad dictionary size');
    c.pos = headerEnd; // header padding and CRC32
    const blockStart = out.len;
    c.pos = decodeLzma2(input, c.pos, decoder);
    if (declaredSize !== undefined && out.len - blockStart !== declaredSize) throw corrupt('a block does not hold its declared size');
    while ((c.pos - headerStart) % 4 !== 0) if (c.byte() !== 0) throw corrupt('bad block padding');
    c.need(check);
    c.pos += check;
  }
  // Index, index CRC32 and the 12-byte footer follow; all data is out, but a cut file must still say so.
  if (input.length - c.pos < 12 || input[input.length - 2] !== 0x59 || input[input.length - 1] !== 0x5a) {
    throw endOfInput(CODEC);
  }
}

/** Reads LZMA2 chunks from `pos` up to the end byte; returns the position after it. */
function decodeLzma2(input: Uint8Array, pos: number, decoder: LzmaDecoder): number {
  const c = new Cursor(input, pos);
  let first = true;
  for (;;) {
    const control = c.byte();
    if (control === 0x00) return c.pos;
    if (control < 0x80) {
      // Stored chunk: 0x01 resets the dictionary, 0x02 does not.
      if (control > 0x02) throw corrupt('bad LZMA2 control byte');
      if (first && control !== 0x01) throw corrupt('the first LZMA2 chunk does not reset the dictionary');
      if (control === 0x01) decoder.resetDictionary();
      const size = ((c.byte() << 8) | c.byte()) + 1;
      c.need(size);
      decoder.copyStored(input.subarray(c.pos, c.pos + size));
      c.pos += size;
    } else {
      const reset = (control >>> 5) & 0x03;
      if (first && reset !== 3) throw corrupt('the first LZMA2 chunk does not reset the dictionary');
      const unpacked = (control & 0x1f) * 65536 + ((c.byte() << 8) | c.byte()) + 1;
      const packed = ((c.byte() << 8) | c.byte()) + 1;
      if (reset === 3) decoder.resetDictionary();
      if (reset >= 2) decoder.setProperties(c.byte(), true);
      if (reset >= 1) decoder.resetState();
      const end = c.pos + packed;
      const rc = new RangeDecoder(input, c.pos, end, CODEC);
      const target = decoder.outputLength + unpacked;
      if (decoder.decode(rc, target)) throw corrupt('an end marker inside an LZMA2 chunk');
      if (rc.pos !== end || !rc.finishedCleanly) {
        if (end > input.length) throw endOfInput(CODEC);
        throw corrupt('an LZMA2 chunk does not end where it says');
      }
      c.pos = end;
    }
    first = false;
  }
}
