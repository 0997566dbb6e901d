/**
 * Just enough of the ZIP format to take one named entry out of an archive: the end-of-central-
 * directory record, the central directory's entries, and an entry's data, stored or deflated
 * (node's zlib), within a size limit. For skops archives (./skops.ts). Never throws: a damaged or
 * hostile archive gives a reason instead.
 */
import { inflateRawSync } from 'node:zlib';

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const MAX_END_SEARCH = 22 + 0xffff;
/** Entries listed at most: a skops archive holds one file per array (hundreds). */
const MAX_ENTRIES = 200_000;

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/** The archive's entries, from its central directory; a string says why they cannot be listed. */
export function zipEntries(bytes: Uint8Array): ZipEntry[] | string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - MAX_END_SEARCH); at--) {
    if (view.getUint32(at, true) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) return 'no end-of-central-directory record (the archive is cut short or not a ZIP file)';
  const count = view.getUint16(end + 10, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (count > MAX_ENTRIES) return `${count} entries, more than the ${MAX_ENTRIES} this reader lists`;
  const entries: ZipEntry[] = [];
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL_HEADER) return `central directory entry ${i} is damaged`;
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    if (at + 46 + nameLength > bytes.length) return `central directory entry ${i} runs past the end`;
    entries.push({
      name: Buffer.from(bytes.buffer, bytes.byteOffset + at + 46, nameLength).toString('utf8'),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** An entry's bytes (stored or deflated), at most `maxBytes`; a string says why not. */
export function zipEntryData(bytes: Uint8Array, entry: ZipEntry, maxBytes: number): Uint8Array | string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL_HEADER) return `the local header of ${entry.name} is damaged`;
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const stop = start + entry.compressedSize;
  if (stop > bytes.length) return `${entry.name} runs past the end of the archive`;
  if (entry.size > maxBytes) return `${entry.name} is ${entry.size} bytes, over the reader's limit of ${maxBytes}`;
  const data = bytes.subarray(start, stop);
  if (entry.method === 0) return data;
  if (entry.method !== 8) return `${entry.name} is compressed with method ${entry.method}, which this reader does not decode`;
  try {
    return new Uint8Array(inflateRawSync(data, { maxOutputLength: maxBytes }));
  } catch (error) {
    return `${entry.name} does not inflate (${(error as Error).message})`;
  }
}
