/**
 * An LZMA decoder (LZMA1 and the LZMA2 chunking xz uses) writing into a CappedOutput, after the
 * public-domain LZMA SDK and xz-embedded; the .xz container is read in ./xz.ts.
 *
 * Why our own code and not an npm package: the reader is synchronous (ModelReader.read) and must
 * stop a bomb while inflating. The candidates checked (Nov 2026) each miss one of these:
 * xz-decompress (xz-embedded in WebAssembly) only offers an async web ReadableStream and no legacy
 * .lzma; lzma / lzma1 (LZMA-JS) and lzma-purejs decode .lzma only, into an output they grow
 * without limit; xz-compat pulls ~70 packages and may try to install lzma-native at run time;
 * @napi-rs/lzma and lzma-native are native builds, which the esbuild bundle cannot carry.
 * Decoding is the small half of LZMA (~250 lines); the tests check it against files written by
 * Python's lzma module (liblzma).
 */
import { CappedOutput, DecompressError, endOfInput } from './capped-output';

const PROB_INIT = 1024;
const STATES = 12;
const POS_STATES_MAX = 16;
const MATCH_LEN_MIN = 2;
const END_MARKER = 0xffffffff;

// Offsets into one Uint16Array of probabilities (the SDK's layout, flattened).
const IS_MATCH = 0;
const IS_REP = IS_MATCH + STATES * POS_STATES_MAX;
const IS_REP_G0 = IS_REP + STATES;
const IS_REP_G1 = IS_REP_G0 + STATES;
const IS_REP_G2 = IS_REP_G1 + STATES;
const IS_REP0_LONG = IS_REP_G2 + STATES;
const POS_SLOT = IS_REP0_LONG + STATES * POS_STATES_MAX;
const SPEC_POS = POS_SLOT + 4 * 64;
const ALIGN = SPEC_POS + 114;
const LEN_CODER_SIZE = 2 + 2 * POS_STATES_MAX * 8 + 256;
const LEN = ALIGN + 16;
const REP_LEN = LEN + LEN_CODER_SIZE;
const LITERAL = REP_LEN + LEN_CODER_SIZE;
// Within a length coder:
const CHOICE = 0;
const CHOICE2 = 1;
const LOW = 2;
const MID = LOW + POS_STATES_MAX * 8;
const HIGH = MID + POS_STATES_MAX * 8;

/** The range decoder over input[pos, end): `end` is the chunk's end in LZMA2, the input's in LZMA1. */
export class RangeDecoder {
  private range = 0xffffffff;
  private code = 0;

  constructor(
    private readonly input: Uint8Array,
    public pos: number,
    private readonly end: number,
    private readonly codec: string,
  ) {
    if (this.byte() !== 0) throw new DecompressError('corrupt', `the ${codec} stream is damaged (bad range coder start)`);
    for (let i = 0; i < 4; i++) this.code = ((this.code << 8) | this.byte()) >>> 0;
    if (this.code === this.range) throw new DecompressError('corrupt', `the ${codec} stream is damaged (bad range coder start)`);
  }

  private byte(): number {
    if (this.pos < this.end && this.pos < this.input.length) return this.input[this.pos++];
    if (this.pos >= this.input.length) throw endOfInput(this.codec);
    throw new DecompressError('corrupt', `the ${this.codec} stream is damaged (a chunk needs more bytes than it declares)`);
  }

  bit(probs: Uint16Array, i: number): number {
    const p = probs[i];
    const bound = (this.range >>> 11) * p;
    let b: number;
    if (this.code < bound) {
      this.range = bound;
      probs[i] = p + ((2048 - p) >>> 5);
      b = 0;
    } else {
      this.range -= bound;
      this.code -= bound;
      probs[i] = p - (p >>> 5);
      b = 1;
    }
    if (this.range < 0x1000000) {
      this.range = (this.range * 256) >>> 0;
      this.code = ((this.code * 256) + this.byte()) >>> 0;
    }
    return b;
  }

  tree(probs: Uint16Array, base: number, bits: number): number {
    let m = 1;
    for (let i = 0; i < bits; i++) m = (m << 1) | this.bit(probs, base + m);
    return m - (1 << bits);
  }

  reverseTree(probs: Uint16Array, base: number, bits: number): number {
    let m = 1;
    let sym = 0;
    for (let i = 0; i < bits; i++) {
      const b = this.bit(probs, base + m);
      m = (m << 1) | b;
      sym |= b << i;
    }
    return sym;
  }

  direct(bits: number): number {
    let res = 0;
    for (let i = 0; i < bits; i++) {
      this.range >>>= 1;
      let t = 0;
      if (this.code >= this.range) {
        this.code -= this.range;
        t = 1;
      }
      res = res * 2 + t;
      if (this.range < 0x1000000) {
        this.range = (this.range * 256) >>> 0;
        this.code = ((this.code * 256) + this.byte()) >>> 0;
      }
    }
    return res;
  }

  /** A finished LZMA stream leaves code 0 (the encoder flushes so). */
  get finishedCleanly(): boolean {
    return this.code === 0;
  }
}

/** LZMA's state machine and models; the dictionary is the output itself (the whole pickle is kept anyway). */
export class LzmaDecoder {
  private probs = new Uint16Array(LITERAL + (0x300 << 4));
  private lc = 3;
  private lp = 0;
  private pb = 2;
  private state = 0;
  private rep0 = 0;
  private rep1 = 0;
  private rep2 = 0;
  private rep3 = 0;
  /** Output position of the last dictionary reset: matches may not reach before it. */
  private dictStart = 0;
  /** The rest of a match cut by an LZMA2 chunk's end, copied first in the next chunk. */
  private pending = 0;

  constructor(
    private readonly out: CappedOutput,
    private readonly codec: string,
  ) {}

  /** lc/lp/pb from the properties byte (both .lzma and LZMA2 encode them as (pb * 5 + lp) * 9 + lc). */
  setProperties(props: number, lzma2: boolean): void {
    if (props >= 9 * 5 * 5) throw this.corrupt('bad properties byte');
    const lc = props % 9;
    const lp = Math.floor(props / 9) % 5;
    const pb = Math.floor(props / 45);
    if (lzma2 && lc + lp > 4) throw this.corrupt('lc + lp above 4 in LZMA2');
    this.lc = lc;
    this.lp = lp;
    this.pb = pb;
    const size = LITERAL + (0x300 << (lc + lp));
    if (this.probs.length < size) this.probs = new Uint16Array(size);
  }

  resetState(): void {
    this.probs.fill(PROB_INIT);
    this.state = 0;
    this.rep0 = this.rep1 = this.rep2 = this.rep3 = 0;
    this.pending = 0;
  }

  resetDictionary(): void {
    this.dictStart = this.out.len;
    this.pending = 0;
  }

  get outputLength(): number {
    return this.out.len;
  }

  /** Appends uncompressed bytes (LZMA2's stored chunks); they join the dictionary. */
  copyStored(bytes: Uint8Array): void {
    this.out.append(bytes);
  }

  /**
   * Decodes until the output reaches `outEnd` (absolute length; Infinity for "until the end
   * marker"). Returns true if it stopped at an end marker.
   */
  decode(rc: RangeDecoder, outEnd: number): boolean {
    const out = this.out;
    const probs = this.probs;
    const pbMask = (1 << this.pb) - 1;
    const lpMask = (1 << this.lp) - 1;
    const lc = this.lc;
    if (this.pending > 0) this.copyMatch(this.pending, outEnd);
    while (out.len < outEnd) {
      const pos = out.len - this.dictStart;
      const posState = pos & pbMask;
      const state = this.state;
      if (rc.bit(probs, IS_MATCH + (state << 4) + posState) === 0) {
        const prev = pos > 0 ? out.buf[out.len - 1] : 0;
        const base = LITERAL + 0x300 * (((pos & lpMask) << lc) + (prev >>> (8 - lc)));
        let symbol = 1;
        if (state < 7) {
          while (symbol < 0x100) symbol = (symbol << 1) | rc.bit(probs, base + symbol);
        } else {
          let matchByte = this.byteAt(this.rep0);
          let offset = 0x100;
          while (symbol < 0x100) {
            matchByte <<= 1;
            const matchBit = matchByte & offset;
            const b = rc.bit(probs, base + offset + matchBit + symbol);
            symbol = (symbol << 1) | b;
            offset = b ? matchBit : offset & ~matchBit;
          }
        }
        out.push(symbol & 0xff);
        this.state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
        continue;
      }
      let len: number;
      if (rc.bit(probs, IS_REP + state) === 0) {
        this.state = state < 7 ? 7 : 10;
        len = this.length(rc, LEN, posState);
        const dist = this.distance(rc, len);
        if (dist === END_MARKER) return true;
        this.rep3 = this.rep2;
        this.rep2 = this.rep1;
        this.rep1 = this.rep0;
        this.rep0 = dist;
      } else {
        if (rc.bit(probs, IS_REP_G0 + state) === 0) {
          if (rc.bit(probs, IS_REP0_LONG + (state << 4) + posState) === 0) {
            this.state = state < 7 ? 9 : 11;
            out.push(this.byteAt(this.rep0));
            continue;
          }
        } else {
          let dist: number;
          if (rc.bit(probs, IS_REP_G1 + state) === 0) {
            dist = this.rep1;
          } else {
            if (rc.bit(probs, IS_REP_G2 + state) === 0) {
              dist = this.rep2;
            } else {
              dist = this.rep3;
              this.rep3 = this.rep2;
            }
            this.rep2 = this.rep1;
          }
          this.rep1 = this.rep0;
          this.rep0 = dist;
        }
        this.state = state < 7 ? 8 : 11;
        len = this.length(rc, REP_LEN, posState);
      }
      this.copyMatch(len + MATCH_LEN_MIN, outEnd);
    }
    return false;
  }

  private byteAt(dist: number): number {
    if (dist >= this.out.len - this.dictStart) throw this.corrupt('a match reaches before the start of the data');
    return this.out.buf[this.out.len - dist - 1];
  }

  /** Copies `len` bytes from rep0 back, stopping at outEnd and remembering the rest. */
  private copyMatch(len: number, outEnd: number): void {
    const out = this.out;
    const dist = this.rep0;
    if (dist >= out.len - this.dictStart) throw this.corrupt('a match reaches before the start of the data');
    const n = Math.min(len, outEnd - out.len);
    this.pending = len - n;
    out.reserve(n);
    const buf = out.buf;
    let from = out.len - dist - 1;
    let to = out.len;
    for (let i = 0; i < n; i++) buf[to++] = buf[from++];
    out.len = to;
  }

  private length(rc: RangeDecoder, coder: number, posState: number): number {
    const probs = this.probs;
    if (rc.bit(probs, coder + CHOICE) === 0) return rc.tree(probs, coder + LOW + (posState << 3), 3);
    if (rc.bit(probs, coder + CHOICE2) === 0) return 8 + rc.tree(probs, coder + MID + (posState << 3), 3);
    return 16 + rc.tree(probs, coder + HIGH, 8);
  }

  private distance(rc: RangeDecoder, len: number): number {
    const probs = this.probs;
    const slot = rc.tree(probs, POS_SLOT + (Math.min(len, 3) << 6), 6);
    if (slot < 4) return slot;
    const direct = (slot >>> 1) - 1;
    let dist = (2 | (slot & 1)) * 2 ** direct;
    if (slot < 14) return dist + rc.reverseTree(probs, SPEC_POS + dist - slot - 1, direct);
    dist += rc.direct(direct - 4) * 16;
    return dist + rc.reverseTree(probs, ALIGN, 4);
  }

  private corrupt(what: string): DecompressError {
    return new DecompressError('corrupt', `the ${this.codec} stream is damaged (${what})`);
  }
}

/** The legacy .lzma ("alone") format joblib's compress=('lzma', n) writes: 13-byte header, then LZMA1. */
export function decodeLzmaAlone(input: Uint8Array, out: CappedOutput): void {
  const codec = 'lzma';
  if (input.length < 13) throw endOfInput(codec);
  const decoder = new LzmaDecoder(out, codec);
  decoder.setProperties(input[0], false);
  decoder.resetState();
  let size = 0;
  let known = false;
  for (let i = 7; i >= 0; i--) {
    if (input[5 + i] !== 0xff) known = true;
    size = size * 256 + input[5 + i];
  }
  const rc = new RangeDecoder(input, 13, input.length, codec);
  const endMarker = decoder.decode(rc, known ? size : Infinity);
  if (known && !endMarker && out.len < size) throw endOfInput(codec);
  if (endMarker && known && out.len !== size) {
    throw new DecompressError('corrupt', `the ${codec} stream is damaged (it ends before its declared size)`);
  }
}
