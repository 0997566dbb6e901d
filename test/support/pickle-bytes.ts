/**
 * Pickle opcodes as bytes, to build hostile and odd pickles byte by byte in tests (marked as
 * crafted where used). Encodings follow CPython's Lib/pickle.py opcode table.
 */
export type Part = number | string | readonly number[] | Uint8Array;

/** Concatenates opcodes (numbers), latin-1 text and byte arrays. */
export function pk(...parts: Part[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === 'number') out.push(p);
    else if (typeof p === 'string') for (const c of Buffer.from(p, 'latin1')) out.push(c);
    else for (const b of p) out.push(b);
  }
  return Uint8Array.from(out);
}

export const PROTO = (v: number) => [0x80, v];
export const STOP = 0x2e;
export const MARK = 0x28;
export const TUPLE = 0x74;
export const TUPLE1 = 0x85;
export const TUPLE2 = 0x86;
export const TUPLE3 = 0x87;
export const EMPTY_TUPLE = 0x29;
export const EMPTY_LIST = 0x5d;
export const EMPTY_DICT = 0x7d;
export const APPEND = 0x61;
export const SETITEMS = 0x75;
export const SETITEM = 0x73;
export const REDUCE = 0x52;
export const BUILD = 0x62;
export const NEWOBJ = 0x81;
export const NEWOBJ_EX = 0x92;
export const OBJ = 0x6f;
export const STACK_GLOBAL = 0x93;
export const MEMOIZE = 0x94;
export const NONE = 0x4e;
export const NEWTRUE = 0x88;
export const NEWFALSE = 0x89;

/** GLOBAL (protocols 0-3): `c module\n name\n`. */
export const global = (module: string, name: string) => `c${module}\n${name}\n`;
/** INST: `i module\n name\n`, after a MARK and the arguments. */
export const inst = (module: string, name: string) => `i${module}\n${name}\n`;
/** UNICODE (protocol 0): text to the end of the line. */
export const unicode = (s: string) => `V${s}\n`;
/** SHORT_BINUNICODE. */
export const sbu = (s: string) => [0x8c, Buffer.byteLength(s), ...Buffer.from(s, 'utf8')];
/** SHORT_BINBYTES. */
export const sbb = (b: readonly number[]) => [0x43, b.length, ...b];
/** STACK_GLOBAL from two short strings (protocol 4). */
export const stackGlobal = (module: string, name: string) => [...sbu(module), ...sbu(name), STACK_GLOBAL];
export const binint1 = (n: number) => [0x4b, n];
export const binint = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return [0x4a, ...b];
};
/** An unsigned little-endian length of `bytes` bytes (BigInt, for 8-byte lengths up to 2^64 - 1). */
export const le = (n: bigint, bytes: number) => Array.from({ length: bytes }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
/** LONG1: a little-endian two's-complement integer. */
export const long1 = (n: bigint) => {
  const bytes: number[] = [];
  let v = n;
  do {
    bytes.push(Number(v & 0xffn));
    v >>= 8n;
  } while (v !== 0n || (bytes[bytes.length - 1] & 0x80) !== 0);
  return [0x8a, bytes.length, ...bytes];
};
/** FRAME (protocol 4) around `body`, with its true length unless `declared` says otherwise. */
export const frame = (body: Uint8Array, declared?: bigint) => pk(0x95, le(declared ?? BigInt(body.length), 8), body);

/** `numpy.dtype('f8')` as numpy pickles it (REDUCE + BUILD state). */
export const dtypeF8 = () =>
  pk(global('numpy', 'dtype'), unicode('f8'), NEWFALSE, NEWTRUE, TUPLE3, REDUCE, MARK, binint1(3), unicode('<'), NONE, NONE, NONE, binint(-1), binint(-1), binint1(0), TUPLE, BUILD);
