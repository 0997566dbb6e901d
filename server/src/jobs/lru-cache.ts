/**
 * A least-recently-used cache bounded both by entries and by an estimate of the memory its values
 * hold: the reconstruction's answers carry the reconstructed rows, whose size depends on the model,
 * so a count alone would not bound the memory. In memory only: the rows are personal data and
 * never go to disk. A value larger than the whole budget is not kept at all.
 */
export interface LruCacheOptions<V> {
  maxEntries: number;
  /** Upper bound of the sum of `size(value)` over the entries. */
  maxBytes: number;
  /** Estimated bytes a value holds. */
  size: (value: V) => number;
}

export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private totalBytes = 0;

  constructor(private readonly options: LruCacheOptions<V>) {}

  /** The value, which becomes the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  set(key: K, value: V): void {
    this.delete(key);
    const bytes = this.options.size(value);
    if (bytes > this.options.maxBytes) return;
    this.entries.set(key, { value, bytes });
    this.totalBytes += bytes;
    // Map iteration follows insertion order, and `get` re-inserts: the first key is the least recent.
    while (this.entries.size > this.options.maxEntries || this.totalBytes > this.options.maxBytes) {
      this.delete(this.entries.keys().next().value as K);
    }
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.totalBytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.totalBytes;
  }
}

/**
 * Bytes a JSON-like value holds, estimated from its serialisation (two bytes per UTF-16 unit, as V8
 * holds strings at worst); numbers in arrays of rows are counted by their text, close enough for a
 * budget. Computed once per stored value.
 */
export function estimatedBytes(value: unknown): number {
  try {
    return 2 * (JSON.stringify(value)?.length ?? 0);
  } catch {
    return Number.MAX_SAFE_INTEGER; // not serialisable (a cycle): too big to keep
  }
}
