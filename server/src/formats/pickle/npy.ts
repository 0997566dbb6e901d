/**
 * numpy's `.npy` file format (numpy/lib/format.py), as joblib before 0.10 wrote a model's arrays
 * beside its pickle: the magic `\x93NUMPY`, a version, a header length, a header that is a Python
 * dict literal (`{'descr': ..., 'fortran_order': False, 'shape': (n,), }`), then the raw data. Only
 * the header's literal is parsed, by a small reader of Python literals (strings, numbers, True,
 * False, None, tuples, lists, dicts); nothing is evaluated. Object arrays (`|O`, which numpy itself
 * pickles) are refused.
 */
import { NdArray } from './numpy';
import { NumpyError, type DType, type DTypeField } from './ndarray';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

export function isNpy(bytes: Uint8Array): boolean {
  return bytes.length >= 10 && MAGIC.every((b, i) => bytes[i] === b);
}

export function parseNpy(bytes: Uint8Array): NdArray {
  if (!isNpy(bytes)) throw new NumpyError('not a .npy file');
  const major = bytes[6];
  const headerLength = major === 1 ? bytes[8] | (bytes[9] << 8) : bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (bytes[11] << 24);
  const start = major === 1 ? 10 : 12;
  if (major < 1 || major > 3 || start + headerLength > bytes.length) throw new NumpyError('a .npy file with a damaged header');
  const text = new TextDecoder('latin1').decode(bytes.subarray(start, start + headerLength));
  const header = new LiteralReader(text).value();
  if (!(header instanceof Map)) throw new NumpyError('a .npy header that is not a dict');
  const dtype = dtypeOf(header.get('descr'));
  const fortran = header.get('fortran_order') === true;
  const shapeValue = header.get('shape');
  if (!Array.isArray(shapeValue) || !shapeValue.every((d) => Number.isInteger(d) && (d as number) >= 0)) throw new NumpyError('a .npy header without a shape');
  const shape = shapeValue as number[];
  const size = shape.reduce((a, b) => a * b, 1);
  const data = bytes.subarray(start + headerLength);
  if (data.length !== size * dtype.itemsize) throw new NumpyError(`a .npy array of ${size} x ${dtype.itemsize} bytes holds ${data.length} bytes`);
  return new NdArray(dtype, shape, fortran, data, undefined);
}

type Literal = string | number | boolean | null | Literal[] | Map<Literal, Literal>;

function dtypeOf(descr: Literal | undefined, depth = 0): DType {
  if (depth > 8) throw new NumpyError('a .npy dtype nested too deep');
  if (typeof descr === 'string') return simpleDType(descr);
  if (!Array.isArray(descr) || descr.length === 0) throw new NumpyError('a .npy header without a dtype');
  const fields: DTypeField[] = [];
  let offset = 0;
  for (const entry of descr) {
    if (!Array.isArray(entry) || entry.length < 2 || entry.length > 3) throw new NumpyError('a structured .npy dtype with a malformed field');
    const name = Array.isArray(entry[0]) ? entry[0][1] : entry[0];
    if (typeof name !== 'string') throw new NumpyError('a structured .npy dtype field without a name');
    let dtype = dtypeOf(entry[1], depth + 1);
    if (entry.length === 3) {
      const dims = Array.isArray(entry[2]) ? entry[2] : [entry[2]];
      if (!dims.every((d) => Number.isInteger(d) && (d as number) >= 0)) throw new NumpyError(`field '${name}' has a malformed shape`);
      const count = (dims as number[]).reduce((a, b) => a * b, 1);
      dtype = { kind: 'V', itemsize: dtype.itemsize * count, littleEndian: dtype.littleEndian, subarray: { base: dtype, shape: dims as number[] }, str: `|V${dtype.itemsize * count}` };
    }
    fields.push({ name, dtype, offset });
    offset += dtype.itemsize;
  }
  return { kind: 'V', itemsize: offset, littleEndian: true, fields, str: `|V${offset}` };
}

function simpleDType(typestr: string): DType {
  const m = /^([<>|=]?)([a-zA-Z?])(\d*)$/.exec(typestr);
  if (!m) throw new NumpyError(`unknown numpy type string '${typestr}'`);
  let kind = m[2];
  if (kind === 'a') kind = 'S';
  if (kind === '?') kind = 'b';
  if (kind === 'O') throw new NumpyError('a .npy file of Python objects (numpy pickles those; not read)');
  let itemsize = m[3] ? Number(m[3]) : kind === 'b' ? 1 : 0;
  if (kind === 'U') itemsize *= 4;
  if (!(itemsize > 0)) throw new NumpyError(`numpy type '${typestr}' has no item size`);
  const byteorder = m[1] || '=';
  return { kind, itemsize, littleEndian: byteorder !== '>', str: `${byteorder === '=' ? '<' : byteorder}${kind}${itemsize}` };
}

/** Python literals as numpy writes its headers: no expressions, no names but True, False, None. */
class LiteralReader {
  private at = 0;
  constructor(private readonly text: string) {}

  value(depth = 0): Literal {
    if (depth > 16) throw new NumpyError('a .npy header nested too deep');
    this.space();
    const c = this.text[this.at];
    if (c === '{') return this.dict(depth);
    if (c === '[' || c === '(') return this.sequence(c === '[' ? ']' : ')', depth);
    if (c === "'" || c === '"') return this.string(c);
    const word = /^(True|False|None|-?\d+(\.\d*)?([eE][-+]?\d+)?L?)/.exec(this.text.slice(this.at));
    if (!word) throw new NumpyError(`a .npy header with an unexpected '${c ?? 'end'}'`);
    this.at += word[0].length;
    if (word[0] === 'True') return true;
    if (word[0] === 'False') return false;
    if (word[0] === 'None') return null;
    return Number(word[0].replace(/L$/, ''));
  }

  private dict(depth: number): Map<Literal, Literal> {
    const out = new Map<Literal, Literal>();
    this.at++;
    for (;;) {
      this.space();
      if (this.text[this.at] === '}') {
        this.at++;
        return out;
      }
      const key = this.value(depth + 1);
      this.expect(':');
      out.set(key, this.value(depth + 1));
      this.space();
      if (this.text[this.at] === ',') this.at++;
      else if (this.text[this.at] !== '}') throw new NumpyError('a .npy header dict without a comma');
    }
  }

  private sequence(close: string, depth: number): Literal[] {
    const out: Literal[] = [];
    this.at++;
    for (;;) {
      this.space();
      if (this.text[this.at] === close) {
        this.at++;
        return out;
      }
      out.push(this.value(depth + 1));
      this.space();
      if (this.text[this.at] === ',') this.at++;
      else if (this.text[this.at] !== close) throw new NumpyError('a .npy header sequence without a comma');
    }
  }

  private string(quote: string): string {
    const end = this.text.indexOf(quote, this.at + 1);
    if (end < 0) throw new NumpyError('a .npy header with an unterminated string');
    const s = this.text.slice(this.at + 1, end);
    this.at = end + 1;
    return s;
  }

  private expect(c: string): void {
    this.space();
    if (this.text[this.at] !== c) throw new NumpyError(`a .npy header missing '${c}'`);
    this.at++;
  }

  private space(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at])) this.at++;
  }
}
