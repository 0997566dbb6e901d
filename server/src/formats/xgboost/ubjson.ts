/**
 * A small, defensive UBJSON decoder (https://ubjson.org, big-endian), for XGBoost's `.ubj` model
 * files. It decodes into the same plain values JSON.parse gives, so one reader serves both formats.
 *
 * Untrusted input: every length is checked against the bytes that remain before anything is
 * allocated (a declared count of 2^60 elements is refused, not attempted), nesting is bounded, and
 * objects have no prototype (a key `__proto__` is an ordinary key). Failures are values, never
 * exceptions: `truncated` when the bytes stop mid-value, `corrupt` for anything else.
 * Typed arrays (`[$d#L n`), which XGBoost uses for every per-node column, decode into plain arrays.
 */

export type UbjValue = null | boolean | number | string | UbjValue[] | { [key: string]: UbjValue };

export type UbjResult = { ok: true; value: UbjValue } | { ok: false; reason: 'truncated' | 'corrupt'; detail: string };

export const UBJ_MAX_DEPTH = 64;

class Stop extends Error {
  constructor(readonly reason: 'truncated' | 'corrupt', detail: string) {
    super(detail);
  }
}

/** Bytes one element of each fixed-size type takes. */
const FIXED_SIZE: Record<string, number> = { i: 1, U: 1, I: 2, l: 4, L: 8, d: 4, D: 8, C: 1 };

class Decoder {
  private pos = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  decodeRoot(): UbjValue {
    const value = this.value(this.marker(), 0);
    this.skipNoOps();
    if (this.pos !== this.bytes.length) throw new Stop('corrupt', `${this.bytes.length - this.pos} unexpected bytes after the top-level value at offset ${this.pos}`);
    return value;
  }

  private need(n: number): void {
    if (this.pos + n > this.bytes.length) throw new Stop('truncated', `the data ends at byte ${this.bytes.length} inside a value that needs ${n} more byte(s) from offset ${this.pos}`);
  }

  private marker(): string {
    this.need(1);
    return String.fromCharCode(this.bytes[this.pos++]);
  }

  private skipNoOps(): void {
    while (this.pos < this.bytes.length && this.bytes[this.pos] === 0x4e /* N */) this.pos++;
  }

  private fixed(type: string): number {
    const size = FIXED_SIZE[type];
    this.need(size);
    const at = this.pos;
    this.pos += size;
    switch (type) {
      case 'i': return this.view.getInt8(at);
      case 'U': return this.view.getUint8(at);
      case 'I': return this.view.getInt16(at);
      case 'l': return this.view.getInt32(at);
      case 'L': return Number(this.view.getBigInt64(at));
      case 'd': return this.view.getFloat32(at);
      case 'D': return this.view.getFloat64(at);
      default: return this.view.getUint8(at); // 'C'
    }
  }

  /** A length or count: an integer value with its own marker, never negative. */
  private length(): number {
    const type = this.marker();
    if (!'iUIlL'.includes(type)) throw new Stop('corrupt', `expected an integer length at offset ${this.pos - 1}, found marker '${printable(type)}'`);
    const n = this.fixed(type);
    if (n < 0 || !Number.isSafeInteger(n)) throw new Stop('corrupt', `invalid length ${n} at offset ${this.pos}`);
    return n;
  }

  private string(): string {
    const n = this.length();
    this.need(n);
    const text = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.pos, n).toString('utf8');
    this.pos += n;
    return text;
  }

  private value(type: string, depth: number): UbjValue {
    switch (type) {
      case 'Z': return null;
      case 'T': return true;
      case 'F': return false;
      case 'N': return this.value(this.marker(), depth);
      case 'i': case 'U': case 'I': case 'l': case 'L': case 'd': case 'D': return this.fixed(type);
      case 'C': return String.fromCharCode(this.fixed('C'));
      case 'S': return this.string();
      case 'H': {
        const text = this.string();
        const n = Number(text);
        if (!Number.isFinite(n)) throw new Stop('corrupt', `high-precision number '${text.slice(0, 40)}' is not a number`);
        return n;
      }
      case '[': return this.array(depth + 1);
      case '{': return this.object(depth + 1);
      default:
        throw new Stop('corrupt', `unknown UBJSON marker '${printable(type)}' at offset ${this.pos - 1}`);
    }
  }

  /** The optional `$type` and `#count` that open an optimised container. */
  private header(): { type?: string; count?: number } {
    let type: string | undefined;
    if (this.peek() === '$') {
      this.pos++;
      type = this.marker();
      if (!'ZTFiUIlLdDCSH[{'.includes(type)) throw new Stop('corrupt', `unknown element type '${printable(type)}' at offset ${this.pos - 1}`);
      if (this.peek() !== '#') throw new Stop(this.pos >= this.bytes.length ? 'truncated' : 'corrupt', `a typed container needs a count (offset ${this.pos})`);
    }
    if (this.peek() === '#') {
      this.pos++;
      const count = this.length();
      // Each element takes at least one byte unless its type carries no payload (Z, T, F).
      const each = type === undefined ? 1 : FIXED_SIZE[type] ?? ('ZTF'.includes(type) ? 0 : 1);
      if (each > 0 && count * each > this.bytes.length - this.pos) {
        throw new Stop('truncated', `a container declares ${count} element(s) but only ${this.bytes.length - this.pos} byte(s) remain (offset ${this.pos})`);
      }
      if (each === 0 && count > 1e7) throw new Stop('corrupt', `a container declares ${count} payload-free elements`);
      return { type, count };
    }
    return { type };
  }

  private peek(): string | undefined {
    return this.pos < this.bytes.length ? String.fromCharCode(this.bytes[this.pos]) : undefined;
  }

  private array(depth: number): UbjValue[] {
    if (depth > UBJ_MAX_DEPTH) throw new Stop('corrupt', `containers nest deeper than ${UBJ_MAX_DEPTH}`);
    const { type, count } = this.header();
    const out: UbjValue[] = [];
    if (count !== undefined) {
      for (let i = 0; i < count; i++) out.push(this.value(type ?? this.marker(), depth));
      return out;
    }
    for (;;) {
      const m = this.marker();
      if (m === ']') return out;
      if (m === 'N') continue;
      out.push(this.value(m, depth));
    }
  }

  private object(depth: number): { [key: string]: UbjValue } {
    if (depth > UBJ_MAX_DEPTH) throw new Stop('corrupt', `containers nest deeper than ${UBJ_MAX_DEPTH}`);
    const { type, count } = this.header();
    const out: { [key: string]: UbjValue } = Object.create(null);
    if (count !== undefined) {
      for (let i = 0; i < count; i++) {
        const key = this.string();
        out[key] = this.value(type ?? this.marker(), depth);
      }
      return out;
    }
    for (;;) {
      this.skipNoOps();
      if (this.peek() === '}') {
        this.pos++;
        return out;
      }
      const key = this.string();
      out[key] = this.value(this.marker(), depth);
    }
  }
}

function printable(ch: string): string {
  const code = ch.charCodeAt(0);
  return code >= 0x20 && code < 0x7f ? ch : `0x${code.toString(16).padStart(2, '0')}`;
}

export function decodeUbjson(bytes: Uint8Array): UbjResult {
  try {
    return { ok: true, value: new Decoder(bytes).decodeRoot() };
  } catch (error) {
    if (error instanceof Stop) return { ok: false, reason: error.reason, detail: error.message };
    if (error instanceof RangeError) return { ok: false, reason: 'corrupt', detail: `the data is too large or malformed (${error.message})` };
    throw error;
  }
}
