/**
 * What every decompressor here writes into and fails with: an output buffer that refuses to grow
 * past a limit (so a compression bomb stops as soon as it has produced `limit` bytes, never
 * after), and the error kinds the sklearn reader turns into `unreadable` reasons.
 */

export type DecompressErrorKind = 'truncated' | 'corrupt' | 'too-large' | 'unsupported';

export class DecompressError extends Error {
  constructor(
    readonly kind: DecompressErrorKind,
    message: string,
    /** Bytes the decompressor had produced when it stopped (known for the codecs decoded here, not for node:zlib). */
    readonly produced?: number,
  ) {
    super(message);
  }
}

/** Thrown by CappedOutput; the codec's wrapper turns it into a DecompressError with its own words. */
export class OutputLimitReached extends Error {
  constructor(readonly produced: number) {
    super(`output limit reached after ${produced} bytes`);
  }
}

/** A growable byte buffer that never holds more than `limit` bytes (it doubles up to the limit, not past it). */
export class CappedOutput {
  buf: Uint8Array;
  len = 0;

  constructor(
    readonly limit: number,
    initial = 64 * 1024,
  ) {
    this.buf = new Uint8Array(Math.max(16, Math.min(initial, limit)));
  }

  /** Makes room for `n` more bytes, or throws OutputLimitReached if that would pass the limit. */
  reserve(n: number): void {
    const need = this.len + n;
    if (need <= this.buf.length) return;
    if (need > this.limit) throw new OutputLimitReached(this.len);
    const next = new Uint8Array(Math.min(this.limit, Math.max(need, this.buf.length * 2)));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** Grows the buffer to hold `n` more bytes, or up to the limit if that is less; never throws. */
  ensureCapacity(n: number): void {
    const want = Math.min(this.limit, this.len + n);
    if (want > this.buf.length) this.reserve(want - this.len);
  }

  push(byte: number): void {
    if (this.len === this.buf.length) this.reserve(1);
    this.buf[this.len++] = byte;
  }

  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  /** The bytes written so far (a view, not a copy). */
  result(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

/** Reading past the end of the input: the file was cut short. */
export function endOfInput(codec: string): DecompressError {
  return new DecompressError('truncated', `the ${codec} stream ends early: the file was cut short`);
}
