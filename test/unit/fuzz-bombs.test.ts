/**
 * Bombs, huge declared lengths and deep nesting, each linted in a process of its own
 * (test/support/lint-child.ts) so its peak memory is its own: BINUNICODE8 / BINBYTES8 /
 * BYTEARRAY8 / FRAME lengths of 2^60 and 2^64 - 1, 4 GiB BINUNICODE / BINBYTES, LONG4 of 2 GiB,
 * a million-digit INT / LONG, numpy arrays declaring 2^40 elements (plain and joblib), a sparse
 * memo, shared references 10^30 deep ("billion laughs"), zlib / gzip / bz2 / lzma / xz
 * compression bombs, 100,000 nested lists, tuples, dicts and MARKs, 100,000-deep JSON and
 * UBJSON, and a 100,000-level tree in a forest.json. All crafted here or committed as bombs
 * (test/fixtures/compression). The promise: no crash, a finding, under FILE_MS and BOMB_RSS_MIB.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { FIXTURES } from '../support/paths';
import { FILE_MS, concat } from '../support/fuzz';
import {
  BUILD, EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE, MARK, NEWOBJ, PROTO, REDUCE, SETITEMS, STOP, TUPLE, TUPLE1,
  binint1, dtypeF8, global, le, long1, pk, sbb, sbu,
} from '../support/pickle-bytes';

/** Peak resident memory of the process that lints one bomb (node itself takes ~60 MiB). */
const BOMB_RSS_MIB = 768;
const CHILD = join(__dirname, '..', 'support', 'lint-child.js');
const DEEP = 100_000;

interface Bomb {
  name: string;
  bytes: Uint8Array;
  /** The reason the finding must give, when one is certain. */
  reason?: RegExp;
}

const repeat = (part: number | number[], times: number) => {
  const one = typeof part === 'number' ? [part] : part;
  const out = new Uint8Array(one.length * times);
  for (let i = 0; i < times; i++) out.set(one, i * one.length);
  return out;
};
const ascii = (s: string) => new TextEncoder().encode(s);

function pickleBombs(): Bomb[] {
  const huge = [2n ** 60n, 2n ** 64n - 1n];
  const out: Bomb[] = [];
  for (const n of huge) {
    out.push({ name: `binunicode8-${n}`, bytes: pk(PROTO(4), 0x8d, le(n, 8), 'abc', STOP), reason: /truncated|too-large/ });
    out.push({ name: `binbytes8-${n}`, bytes: pk(PROTO(4), 0x8e, le(n, 8), 'abc', STOP), reason: /truncated|too-large/ });
    out.push({ name: `bytearray8-${n}`, bytes: pk(PROTO(5), 0x96, le(n, 8), 'abc', STOP), reason: /truncated|too-large/ });
    out.push({ name: `frame-${n}`, bytes: pk(PROTO(4), 0x95, le(n, 8), EMPTY_LIST, STOP), reason: /truncated|too-large/ });
  }
  out.push({ name: 'binunicode-4GiB', bytes: pk(PROTO(2), 0x58, le(0xffffffffn, 4), 'abc', STOP), reason: /truncated|too-large/ });
  out.push({ name: 'binbytes-4GiB', bytes: pk(PROTO(3), 0x42, le(0xffffffffn, 4), 'abc', STOP), reason: /truncated|too-large/ });
  out.push({ name: 'long4-2GiB', bytes: pk(PROTO(2), 0x8b, le(0x7fffffffn, 4), 'abc', STOP), reason: /truncated|too-large/ });
  out.push({ name: 'int-million-digits', bytes: concat(pk(PROTO(2), 'I'), repeat(0x39, 1_000_000), ascii('\n.')) });
  out.push({ name: 'long-million-digits', bytes: concat(pk(PROTO(2), 'L'), repeat(0x39, 1_000_000), ascii('L\n.')) });
  // LONG_BINPUT at 2^32 - 1, then a million distinct memo slots: the memo is a map, not an array.
  out.push({ name: 'memo-sparse', bytes: concat(pk(PROTO(2), EMPTY_LIST, 0x72, le(0xffffffffn, 4)), repeat([0x72, 0xff, 0xff, 0xff, 0x7f], 1), ascii('.')) });
  out.push({ name: 'memo-million', bytes: concat(pk(PROTO(4), EMPTY_LIST), repeat(0x94, 1_000_000), ascii('.')) });
  // numpy arrays whose shape asks for 2^40 doubles with 8 bytes of data.
  const shape = pk(long1(2n ** 40n), TUPLE1);
  out.push({
    name: 'numpy-reconstruct-2^40',
    bytes: pk(PROTO(2), global('numpy.core.multiarray', '_reconstruct'), global('numpy', 'ndarray'), binint1(0), TUPLE1, sbb([0x62]), 0x87, REDUCE, MARK, binint1(1), shape, dtypeF8(), 0x89, sbb([0, 0, 0, 0, 0, 0, 0, 0]), TUPLE, BUILD, STOP),
  });
  out.push({
    name: 'numpy-shape-overflow',
    bytes: pk(PROTO(2), global('numpy.core.multiarray', '_reconstruct'), global('numpy', 'ndarray'), binint1(0), TUPLE1, sbb([0x62]), 0x87, REDUCE, MARK, binint1(1), long1(2n ** 62n), long1(2n ** 62n), 0x86, dtypeF8(), 0x89, sbb([0]), TUPLE, BUILD, STOP),
  });
  out.push({
    // joblib: the wrapper's shape says how many raw bytes follow the record; 2^40 doubles, 16 given.
    name: 'joblib-wrapper-2^40',
    bytes: concat(
      pk(PROTO(2), global('joblib.numpy_pickle', 'NumpyArrayWrapper'), EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, MARK, sbu('subclass'), global('numpy', 'ndarray'), sbu('shape'), shape, sbu('order'), sbu('C'), sbu('dtype'), dtypeF8(), sbu('allow_mmap'), 0x89, SETITEMS, BUILD),
      new Uint8Array(16),
      pk(STOP),
    ),
  });
  // Shared references: 100 levels of a list holding the level below twice (2^100 leaves if expanded).
  const laughs: number[] = [...PROTO(2), EMPTY_LIST, 0x71, 0];
  for (let level = 1; level <= 100; level++) laughs.push(MARK, 0x68, level - 1, 0x68, level - 1, 0x6c, 0x71, level);
  out.push({ name: 'shared-references-2^100', bytes: pk(laughs, STOP) });
  return out;
}

function nesting(): Bomb[] {
  return [
    { name: 'nested-lists', bytes: concat(pk(PROTO(2)), repeat(EMPTY_LIST, DEEP), repeat(0x61, DEEP - 1), pk(STOP)) },
    { name: 'nested-tuples', bytes: concat(repeat(MARK, DEEP), repeat(TUPLE, DEEP), pk(STOP)) },
    { name: 'nested-dicts', bytes: concat(pk(PROTO(2)), repeat([EMPTY_DICT, 0x4b, 1], DEEP), pk(EMPTY_DICT), repeat(0x73, DEEP), pk(STOP)) },
    { name: 'marks', bytes: concat(pk(PROTO(2)), repeat(MARK, DEEP), pk(STOP)) },
    { name: 'nested-reduce', bytes: concat(pk(PROTO(2)), repeat([...pk(global('builtins', 'list'), MARK)], 20_000), pk(EMPTY_LIST), repeat([TUPLE, REDUCE], 20_000), pk(STOP)) },
    { name: 'deep.json', bytes: concat(ascii('{"learner":{"attributes":{},"feature_names":'), repeat(0x5b, DEEP), repeat(0x5d, DEEP), ascii('}}')) },
    { name: 'deep.dump.json', bytes: deepDump(), reason: /deeper than/ },
    { name: 'deep.forest.json', bytes: concat(ascii('{"format":"model-privacy-lint/forest","trees":'), repeat(0x5b, DEEP), repeat(0x5d, DEEP), ascii('}')) },
    { name: 'deep.ubj', bytes: concat(ascii('{L'), pk(le(7n, 8).reverse()), ascii('learner'), repeat(0x5b, DEEP), repeat(0x5d, DEEP), ascii('}')) },
  ];
}

/** dump_model(dump_format='json') nests children in their parent: a valid chain DEEP objects deep. */
function deepDump(): Uint8Array {
  const parts: string[] = ['['];
  for (let k = 0; k < DEEP; k++) {
    parts.push(`{"nodeid":${2 * k},"depth":${k},"split":"f0","split_condition":${k + 0.5},"yes":${2 * k + 1},"no":${2 * k + 2},"missing":${2 * k + 1},"children":[{"nodeid":${2 * k + 1},"leaf":0.5},`);
  }
  parts.push(`{"nodeid":${2 * DEEP},"leaf":1}`, ']}'.repeat(DEEP), ']');
  return ascii(parts.join(''));
}

/** A forest.json whose one tree is a chain DEEP levels deep (counts consistent): a deep IR, not deep syntax. */
function deepTree(): Bomb {
  const n = 2 * DEEP + 1;
  const left = new Array<number>(n).fill(-1);
  const right = new Array<number>(n).fill(-1);
  const feature = new Array<number>(n).fill(-2);
  for (let k = 0; k < DEEP; k++) {
    left[2 * k] = 2 * k + 1;
    right[2 * k] = 2 * k + 2;
    feature[2 * k] = 0;
  }
  const weights = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) weights[i] = left[i] === -1 ? 1 : weights[left[i]] + weights[right[i]];
  const forest = { format: 'model-privacy-lint/forest', library: { name: 'test' }, estimator: 'DecisionTreeRegressor', task: 'regression', classes: [], features: [{ name: 'x' }], training: { bootstrap: false }, trees: [{ left, right, feature, threshold: feature.map((_, i) => i + 0.5), classWeights: weights }] };
  return { name: 'deep-tree.forest.json', bytes: ascii(JSON.stringify(forest)), reason: /too-large/ };
}

function compressionBombs(): Bomb[] {
  // 256 MiB of zeros compresses to ~250 KiB: past the ratio guard's 64 MiB floor at 300x.
  const zeros = new Uint8Array(256 * 1024 * 1024);
  const pickle = concat(pk(PROTO(2), 0x42, le(BigInt(zeros.length - 16), 4)), zeros.subarray(16), pk(STOP));
  const out: Bomb[] = [
    { name: 'bomb-256MiB.zlib.joblib', bytes: new Uint8Array(deflateSync(pickle, { level: 9 })), reason: /too-large/ },
    { name: 'bomb-256MiB.gzip.joblib', bytes: new Uint8Array(gzipSync(pickle, { level: 9 })), reason: /too-large/ },
  ];
  for (const codec of ['bz2', 'lzma', 'xz']) {
    out.push({ name: `bomb-80MiB.${codec}.joblib`, bytes: new Uint8Array(readFileSync(join(FIXTURES, 'compression', `bomb-80MiB.${codec}.joblib`))), reason: /too-large/ });
  }
  return out;
}

describe('fuzz: bombs, huge lengths and deep nesting, one process each', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mpl-bombs-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const groups: [string, () => Bomb[]][] = [
    ['pickle lengths, numbers, numpy shapes, memo, shared references', pickleBombs],
    ['100,000-deep nesting in pickles, JSON, UBJSON, and a 100,000-level tree', () => [...nesting(), deepTree()]],
    ['compression bombs in every codec with a ratio guard', compressionBombs],
  ];
  for (const [title, make] of groups) {
    test(title, { timeout: 300_000 }, () => {
      for (const bomb of make()) {
        const file = join(dir, bomb.name.replace(/[^\w.^-]/g, '_'));
        writeFileSync(file, bomb.bytes);
        const out = execFileSync(process.execPath, [CHILD, file, bomb.name.endsWith('json') || bomb.name.endsWith('.ubj') || bomb.name.includes('joblib') ? bomb.name : `${bomb.name}.pkl`], { encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 24 });
        rmSync(file);
        const r = JSON.parse(out) as { ms: number; peakRssMiB: number; model: boolean; rules: string[]; details: string[]; crash?: string };
        const what = `${bomb.name}: ${JSON.stringify(r)}`;
        assert.equal(r.crash, undefined, what);
        assert.ok(r.rules.length > 0 || r.model, `${what}: no finding`);
        assert.ok(r.ms < FILE_MS, `${what}: ${r.ms.toFixed(0)} ms`);
        assert.ok(r.peakRssMiB < BOMB_RSS_MIB, `${what}: peak ${r.peakRssMiB.toFixed(0)} MiB`);
        if (bomb.reason) {
          assert.ok(r.rules.includes('unreadable-model'), what);
          assert.match(r.details.join(' '), bomb.reason, what);
        }
        console.log(`# ${bomb.name}: ${r.ms.toFixed(0)} ms, peak ${r.peakRssMiB.toFixed(0)} MiB, ${r.model ? 'model' : r.rules.join(',')}; ${r.details[0]?.slice(0, 200) ?? ''}`);
      }
    });
  }
});
