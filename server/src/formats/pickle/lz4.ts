/**
 * LZ4 frames (joblib's compress=('lz4', n) writes them through python-lz4's LZ4FrameFile). The
 * frame is parsed here and each block is decoded by lz4js's decompressBlock (pure JavaScript, ISC,
 * synchronous): its whole-frame decompress() sizes its output from the header, with no limit.
 * Blocks may refer back into earlier blocks (python-lz4 links them by default), so every block is
 * decoded straight into the one CappedOutput. Checksums (xxHash32) are skipped, not verified.
 */
import { decompressBlock } from 'lz4js';
import { CappedOutput, DecompressError, OutputLimitReached, endOfInput } from './capped-output';

const CODEC = 'lz4';
const FRAME_MAGIC = 0x184d2204;
/** Block maximum sizes by the BD byte's 3-bit code (4..7); lower codes are reserved. */
const BLOCK_MAX: Record<number, number> = { 4: 64 * 1024, 5: 256 * 1024, 6: 1024 * 1024, 7: 4 * 1024 * 1024 };

function corrupt(what: string): DecompressError {
  return new DecompressError('corrupt', `the ${CODEC} stream is damaged (${what})`);
}

function u32(b: Uint8Array, pos: number): number {
  if (pos + 4 > b.length) throw endOfInput(CODEC);
  return (b[pos] | (b[pos + 1] << 8) | (b[pos + 2] << 16) | (b[pos + 3] << 24)) >>> 0;
}

export function decodeLz4(input: Uint8Array, out: CappedOutput): void {
  let pos = 0;
  while (pos < input.length) {
    const magic = u32(input, pos);
    pos += 4;
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      pos += 4 + u32(input, pos); // a skippable frame
      continue;
    }
    if (magic !== FRAME_MAGIC) throw corrupt('bad frame magic');
    if (pos + 3 > input.length) throw endOfInput(CODEC);
    const flags = input[pos++];
    const bd = input[pos++];
    if (flags >>> 6 !== 1) throw corrupt('unknown frame version');
    if (flags & 0x01) throw new DecompressError('unsupported', 'the lz4 frame needs a preset dictionary, which this reader does not have');
    const blockChecksums = (flags & 0x10) !== 0;
    const contentChecksum = (flags & 0x04) !== 0;
    const blockMax = BLOCK_MAX[(bd >>> 4) & 0x07];
    if (blockMax === undefined) throw corrupt('bad block size code');
    if (flags & 0x08) pos += 8; // content size: informative only, the output limit applies anyway
    pos += 1; // header checksum
    for (;;) {
      const word = u32(input, pos);
      pos += 4;
      if (word === 0) break; // end mark
      const stored = (word & 0x80000000) !== 0;
      const size = word & 0x7fffffff;
      if (size > blockMax) throw corrupt('a block larger than the frame allows');
      if (pos + size > input.length) throw endOfInput(CODEC);
      if (stored) {
        out.append(input.subarray(pos, pos + size));
      } else {
        out.ensureCapacity(blockMax);
        // lz4js writes into the typed array and silently drops bytes past its end, so an end past
        // the capacity means the block produced more than it may: past the limit, or corrupt.
        const end = decompressBlock(input, out.buf, pos, size, out.len);
        if (end > out.buf.length) {
          if (out.buf.length >= out.limit) throw new OutputLimitReached(out.buf.length);
          throw corrupt('a block decodes to more than the frame allows');
        }
        out.len = end;
      }
      pos += size + (blockChecksums ? 4 : 0);
    }
    if (contentChecksum) pos += 4;
    if (pos > input.length) throw endOfInput(CODEC);
  }
}
