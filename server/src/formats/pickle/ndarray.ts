/**
 * A numpy array once decoded: dtype, shape, memory order and raw bytes, and the reading of its
 * elements from them. Decoding one from a pickle is numpy.ts's job.
 *
 * Generic in its object elements (`dtype=object`), which it stores and hands back without looking
 * at them: the pickle reader's values (values.ts) include arrays and an object array holds pickle
 * values, so a concrete element type here would tie the two files into an import circle.
 */
export class NumpyError extends Error {}

export interface DTypeField {
  name: string;
  dtype: DType;
  offset: number;
}

export interface DType {
  /** numpy kind letter: b i u f c O V U S M m. */
  kind: string;
  itemsize: number;
  littleEndian: boolean;
  /** Structured dtypes: fields in `names` order. */
  fields?: DTypeField[];
  /** Sub-array dtypes (`('f8', (3,))`): element dtype and shape. */
  subarray?: { base: DType; shape: number[] };
  /** e.g. `<f8`, `|V56`. */
  str: string;
}

export class NdArray<Element> {
  constructor(
    readonly dtype: DType,
    readonly shape: number[],
    /** True when `bytes` lists elements in Fortran (column-major) order. */
    readonly fortran: boolean,
    /** Raw element bytes for non-object dtypes (length = size * itemsize). */
    readonly bytes: Uint8Array | undefined,
    /** Elements for object dtypes, flat in C order. */
    readonly objects: Element[] | undefined,
  ) {}

  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  /** Every element as a JS number, flat in C order (numeric and bool dtypes). */
  numbers(): Float64Array {
    return this.readNumeric(this.dtype, 0);
  }

  /** One field of a structured dtype as JS numbers, flat in C order. */
  field(name: string): Float64Array {
    const f = this.dtype.fields?.find((x) => x.name === name);
    if (!f) throw new NumpyError(`the array has no field '${name}'`);
    return this.readNumeric(f.dtype, f.offset);
  }

  hasField(name: string): boolean {
    return !!this.dtype.fields?.some((x) => x.name === name);
  }

  /** Elements as JS values (objects, strings, numbers, booleans), flat in C order. */
  values(): Array<Element | string | number | boolean> {
    if (this.objects) return this.objects;
    const k = this.dtype.kind;
    if (k === 'U' || k === 'S') return this.strings();
    const nums = this.numbers();
    if (k === 'b') return Array.from(nums, (x) => x !== 0);
    return Array.from(nums);
  }

  private strings(): string[] {
    const bytes = this.requireBytes();
    const n = this.size;
    const w = this.dtype.itemsize;
    const out: string[] = new Array(n);
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const order = this.cOrder();
    for (let i = 0; i < n; i++) {
      const base = order[i] * w;
      let s = '';
      if (this.dtype.kind === 'U') {
        for (let j = 0; j + 4 <= w; j += 4) {
          const cp = dv.getUint32(base + j, this.dtype.littleEndian);
          if (cp === 0) break;
          s += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
        }
      } else {
        let end = base + w;
        while (end > base && bytes[end - 1] === 0) end--;
        s = Buffer.from(bytes.buffer, bytes.byteOffset + base, end - base).toString('latin1');
      }
      out[i] = s;
    }
    return out;
  }

  private requireBytes(): Uint8Array {
    if (!this.bytes) throw new NumpyError('object arrays have no raw data');
    return this.bytes;
  }

  /** Storage index of the i-th element in C order. */
  private cOrder(): ArrayLike<number> {
    const n = this.size;
    if (!this.fortran || this.shape.length < 2) return identity(n);
    // C index (i0..ik) -> Fortran storage sum(i_j * prod(shape[0..j-1]))
    const shape = this.shape;
    const nd = shape.length;
    const fstride: number[] = new Array(nd);
    let acc = 1;
    for (let j = 0; j < nd; j++) {
      fstride[j] = acc;
      acc *= shape[j];
    }
    const out = new Float64Array(n);
    const idx = new Array<number>(nd).fill(0);
    for (let i = 0; i < n; i++) {
      let p = 0;
      for (let j = 0; j < nd; j++) p += idx[j] * fstride[j];
      out[i] = p;
      for (let j = nd - 1; j >= 0; j--) {
        if (++idx[j] < shape[j]) break;
        idx[j] = 0;
      }
    }
    return out;
  }

  private readNumeric(dt: DType, offset: number): Float64Array {
    const bytes = this.requireBytes();
    const n = this.size;
    const stride = this.dtype.itemsize;
    const out = new Float64Array(n);
    const le = dt.littleEndian;
    const k = dt.kind;
    const w = dt.itemsize;
    const contiguousF64 = k === 'f' && w === 8 && le && stride === 8 && offset === 0 && !(this.fortran && this.shape.length > 1);
    if (contiguousF64) {
      // one copy either way; a byte copy also works when the data is not 8-byte aligned
      new Uint8Array(out.buffer).set(bytes.subarray(0, n * 8));
      return out;
    }
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const read = elementReader(dv, k, w, le);
    if (!this.fortran || this.shape.length < 2) {
      for (let i = 0, p = offset; i < n; i++, p += stride) out[i] = read(p);
    } else {
      const order = this.cOrder();
      for (let i = 0; i < n; i++) out[i] = read(order[i] * stride + offset);
    }
    return out;
  }
}

function identity(n: number): ArrayLike<number> {
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}

function elementReader(dv: DataView, kind: string, w: number, le: boolean): (p: number) => number {
  switch (kind) {
    case 'f':
      if (w === 8) return (p) => dv.getFloat64(p, le);
      if (w === 4) return (p) => dv.getFloat32(p, le);
      if (w === 2) return (p) => halfToFloat(dv.getUint16(p, le));
      break;
    case 'i':
      if (w === 8) return le ? (p) => dv.getInt32(p + 4, true) * 4294967296 + dv.getUint32(p, true) : (p) => dv.getInt32(p, false) * 4294967296 + dv.getUint32(p + 4, false);
      if (w === 4) return (p) => dv.getInt32(p, le);
      if (w === 2) return (p) => dv.getInt16(p, le);
      if (w === 1) return (p) => dv.getInt8(p);
      break;
    case 'u':
      if (w === 8) return le ? (p) => dv.getUint32(p + 4, true) * 4294967296 + dv.getUint32(p, true) : (p) => dv.getUint32(p, false) * 4294967296 + dv.getUint32(p + 4, false);
      if (w === 4) return (p) => dv.getUint32(p, le);
      if (w === 2) return (p) => dv.getUint16(p, le);
      if (w === 1) return (p) => dv.getUint8(p);
      break;
    case 'b':
      if (w === 1) return (p) => (dv.getUint8(p) !== 0 ? 1 : 0);
      break;
  }
  throw new NumpyError(`cannot read numpy elements of kind '${kind}' and size ${w} as numbers`);
}

function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (f / 1024);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + f / 1024);
}
