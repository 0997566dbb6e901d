/**
 * The fuzz corpus and its oracle, shared by the fuzz tests (test/unit/fuzz-*.test.ts) and the
 * fuzz benchmark (test/bench/fuzz.bench.ts): the committed fixtures by format family, the
 * mutations applied to them, and `lintChecked`, which lints one file and says what went wrong
 * (a throw, no finding, time or memory over the limit) instead of throwing itself.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { lintBytes, type FileReport } from '../../server/src/linter/linter';
import { REPO_ROOT } from './paths';

/** Fixed seed: CI runs the same mutants every time; a failure names the seed and path to replay. */
export const FUZZ_SEED = 20_261_124;
/** Wall-clock limit per file: generous (the biggest fixture lints in ~0.1 s, the 80 MiB bombs in ~1 s). */
export const FILE_MS = 5_000;
/** Resident memory the test process may reach after any file. */
export const MAX_RSS_BYTES = 1_536 * 1024 * 1024;
/** What bootstrap replay may spend per file, so one mutant cannot hold the suite. */
export const BUDGET_MS = 1_000;

export type Family = 'pickle' | 'joblib' | 'joblib-compressed' | 'xgboost-json' | 'xgboost-ubj' | 'xgboost-binary' | 'xgboost-dump' | 'forest-json' | 'sidecar';

export interface Seed {
  family: Family;
  name: string;
  bytes: Uint8Array;
}

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');

function familyOf(file: string): Family | undefined {
  const name = basename(file);
  if (name.endsWith('.privacy.json')) return 'sidecar';
  if (name.endsWith('.forest.json')) return 'forest-json';
  if (/\.dump\.(json|txt)$/.test(name)) return 'xgboost-dump';
  if (name.endsWith('.ubj')) return 'xgboost-ubj';
  // XGBoost's legacy binary models (elsewhere a .bin is not one: test/fixtures/sklearn/random.bin)
  if (/\.(xgb|model|bin)$/.test(name) && file.includes(`${join('fixtures', 'xgboost')}${sep}`)) return 'xgboost-binary';
  if (name.endsWith('.json') && file.includes(`${join('fixtures', 'xgboost')}`) && !/truth|manifest/.test(name)) return 'xgboost-json';
  if (/\.(zlib|gzip|bz2|lzma|xz|lz4|xz-bcj)(\.truncated)?\.joblib$/.test(name) || name.startsWith('bomb-')) return 'joblib-compressed';
  if (name.endsWith('.joblib')) return 'joblib';
  if (name.endsWith('.pkl')) return 'pickle';
  return undefined;
}

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) yield* files(file);
    else yield file;
  }
}

/** Every committed model fixture (and the example models and sidecar), by family, smallest first within one. */
export function seedCorpus(): Seed[] {
  const seeds: Seed[] = [];
  for (const root of [FIXTURES, join(REPO_ROOT, 'examples', 'models')]) {
    for (const file of files(root)) {
      const family = familyOf(file);
      // The 80 MiB bombs are linted as they are (fuzz-bombs); mutating them costs seconds each.
      if (!family || basename(file).startsWith('bomb-')) continue;
      seeds.push({ family, name: file.slice(REPO_ROOT.length + 1), bytes: new Uint8Array(readFileSync(file)) });
    }
  }
  return seeds;
}

/** A mutation, as fast-check generates it: what to do, where (fractions of the length) and with what bytes. */
export interface Mutation {
  kind: 'flip' | 'truncate' | 'splice' | 'insert' | 'number' | 'inner';
  /** Positions as fractions in [0, 1) of the length, so one mutation fits any file. */
  at: number[];
  bytes: number[];
  /** For `number`: the replacement for the chosen number in a text file. */
  value?: string;
}

/** Values that hit the edges a reader must refuse: negative and huge indices, non-finite and tiny numbers. */
export const EDGE_NUMBERS = ['-1', '0', '-0.0', '2147483648', '9007199254740993', '1e309', '-1e309', '1e-320', '0.5', '65536', '18446744073709551616', '"x"', 'null', '[]', '{}'];

/** Uniform in [0, 1): fast-check's doubles favour extremes (1e-300 is "the first byte" every time). */
const fraction = fc.noBias(fc.integer({ min: 0, max: 2 ** 31 - 1 })).map((v) => v / 2 ** 31);

/** The mutations a family gets: every family the byte-level ones, text the edge numbers, zlib/gzip damage inside. */
export function mutationArb(family: Family): fc.Arbitrary<Mutation> {
  const kinds: Mutation['kind'][] = ['flip', 'flip', 'truncate', 'splice', 'insert'];
  if (family === 'xgboost-json' || family === 'xgboost-dump' || family === 'forest-json' || family === 'sidecar') kinds.push('number', 'number', 'number');
  if (family === 'joblib-compressed') kinds.push('inner', 'inner', 'inner', 'inner');
  return fc.record({
    kind: fc.constantFrom(...kinds),
    at: fc.array(fraction, { minLength: 1, maxLength: 8 }),
    bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 16 }),
    value: fc.constantFrom(...EDGE_NUMBERS),
  });
}

export function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const n = bytes.length;
  const pos = (f: number) => Math.max(0, Math.min(n - 1, Math.floor(f * n)));
  if (n === 0) return m.kind === 'insert' ? Uint8Array.from(m.bytes) : bytes;
  switch (m.kind) {
    case 'flip': {
      const out = bytes.slice();
      m.at.forEach((f, i) => (out[pos(f)] ^= (m.bytes[i % m.bytes.length] || 1)));
      return out;
    }
    case 'truncate':
      return bytes.slice(0, pos(m.at[0]));
    case 'splice': {
      // A copy of one stretch written over another: lengths and opcodes land in wrong places.
      const out = bytes.slice();
      const from = pos(m.at[0]);
      const to = pos(m.at[1] ?? 0);
      const len = Math.min(64, n - from, n - to);
      out.set(bytes.subarray(from, from + len), to);
      return out;
    }
    case 'insert': {
      const at = pos(m.at[0]);
      const out = new Uint8Array(n + m.bytes.length);
      out.set(bytes.subarray(0, at));
      out.set(m.bytes, at);
      out.set(bytes.subarray(at), at + m.bytes.length);
      return out;
    }
    case 'number': {
      // Text formats: the k-th number literal replaced by an edge value (an index, a count, a threshold).
      const text = Buffer.from(bytes).toString('utf8');
      const matches = [...text.matchAll(/-?\d+(\.\d+)?([eE][-+]?\d+)?/g)];
      if (!matches.length) return bytes;
      const hit = matches[Math.min(matches.length - 1, Math.floor(m.at[0] * matches.length))];
      return new TextEncoder().encode(text.slice(0, hit.index) + (m.value ?? '-1') + text.slice(hit.index! + hit[0].length));
    }
    case 'inner': {
      // zlib/gzip joblib: the pickle inside mutated and packed again, so the damage gets past the checksum.
      const inner = innerOf(bytes);
      if (!inner) return mutate(bytes, { ...m, kind: 'flip' });
      const damaged = mutate(inner.pickle, { ...m, kind: m.bytes.length % 2 ? 'flip' : 'splice' });
      return inner.pack(damaged);
    }
  }
}

/** joblib's zlib container (a header line, then a zlib stream) or a gzip file: the pickle and how to pack it again. */
function innerOf(bytes: Uint8Array): { pickle: Uint8Array; pack: (p: Uint8Array) => Uint8Array } | undefined {
  try {
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) return { pickle: new Uint8Array(gunzipSync(bytes)), pack: (p) => new Uint8Array(gzipSync(p)) };
    if (bytes[0] === 0x78) return { pickle: new Uint8Array(inflateSync(bytes)), pack: (p) => new Uint8Array(deflateSync(p)) };
  } catch {
    return undefined;
  }
  return undefined;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** What linting one file came to, and what was wrong with how it went (empty: nothing). */
export interface Checked {
  report?: FileReport;
  ms: number;
  rss: number;
  /** Broken promises: 'crash: ...', 'no finding', 'time: ...', 'memory: ...', 'undocumented rule ...'. */
  failures: string[];
}

const documented = new Map<string, boolean>();
function hasDocs(rule: string): boolean {
  if (!documented.has(rule)) documented.set(rule, existsSync(join(REPO_ROOT, 'docs', 'rules', `${rule}.md`)));
  return documented.get(rule)!;
}

/** Lints one file in this process and checks the promises every file gets. Never throws. */
export function lintChecked(bytes: Uint8Array, name: string, options: { maxFileBytes?: number } = {}): Checked {
  const start = performance.now();
  let report: FileReport | undefined;
  const failures: string[] = [];
  try {
    report = lintBytes(bytes, name, { budgetMs: BUDGET_MS, ...options });
  } catch (error) {
    failures.push(`crash: ${(error as Error)?.stack ?? String(error)}`);
  }
  const ms = performance.now() - start;
  const rss = process.memoryUsage.rss();
  if (report) {
    // A file without a model must say why (unreadable, unsafe, no tree model); a model with no findings is "nothing found".
    if (report.model === null && report.findings.length === 0) failures.push('no finding for a file without a model');
    for (const f of report.findings) if (!hasDocs(f.rule)) failures.push(`undocumented rule ${f.rule}`);
  }
  if (ms > FILE_MS) failures.push(`time: ${ms.toFixed(0)} ms`);
  if (rss > MAX_RSS_BYTES) failures.push(`memory: rss ${(rss / 2 ** 20).toFixed(0)} MiB`);
  return { report, ms, rss, failures };
}

/** The rule ids of a report, for assertions and tallies. */
export const rulesOf = (c: Checked): string[] => c.report?.findings.map((f) => f.rule) ?? [];

/**
 * Reproducible random byte damage for the readers' robustness tests: `damaged(i)` is file
 * `i % originals.length` with 1 to 4 bytes overwritten by a seeded linear congruential generator,
 * anywhere, or within the first `within(i)` bytes when given (where the counts and names are).
 */
export function byteDamage(originals: readonly Uint8Array[], seed: number, within?: (i: number) => number | undefined): (i: number) => { file: number; bytes: Uint8Array } {
  let state = seed;
  const rnd = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  return (i) => {
    const file = i % originals.length;
    const bytes = originals[file].slice();
    const range = Math.min(within?.(i) ?? bytes.length, bytes.length);
    const hits = 1 + Math.floor(rnd() * 4);
    for (let h = 0; h < hits; h++) bytes[Math.floor(rnd() * range)] = Math.floor(rnd() * 256);
    return { file, bytes };
  };
}
