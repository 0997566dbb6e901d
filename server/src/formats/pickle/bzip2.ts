/**
 * bzip2 (joblib's compress=('bz2', n)) through seek-bzip: pure JavaScript, synchronous, MIT, and
 * it writes its output one byte at a time into a stream object we supply, so the CappedOutput
 * stops a bomb at the limit (unbzip2-stream is asynchronous; compressjs is unmaintained since 2014).
 */
import Bunzip from 'seek-bzip';
import { CappedOutput, DecompressError, OutputLimitReached, endOfInput } from './capped-output';

const CODEC = 'bz2';

export function decodeBzip2(input: Uint8Array, out: CappedOutput): void {
  let pos = 0;
  const source = {
    readByte(): number {
      if (pos >= input.length) throw endOfInput(CODEC);
      return input[pos++];
    },
    read(buffer: Uint8Array, offset: number, length: number): number {
      const n = Math.min(length, input.length - pos);
      if (n <= 0) return -1;
      buffer.set(input.subarray(pos, pos + n), offset);
      pos += n;
      return n;
    },
    eof: () => pos >= input.length,
  };
  // seek-bzip allocates its 4-byte magic buffer with the deprecated `new Buffer(4)`; once bundled
  // (dist/*.js, not under node_modules) Node would print DEP0005 to the CLI's stderr or the
  // server's log. The call is synchronous, so silencing deprecations around it affects nothing else.
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    Bunzip.decode(source, { writeByte: (b: number) => out.push(b) }, true);
  } catch (e) {
    if (e instanceof DecompressError || e instanceof OutputLimitReached) throw e;
    // seek-bzip reports damage as TypeError with its own message (bad magic, CRC mismatch, ...).
    if (pos >= input.length) throw endOfInput(CODEC);
    throw new DecompressError('corrupt', `the ${CODEC} stream is damaged (${(e as Error).message})`);
  } finally {
    process.noDeprecation = quiet;
  }
}
