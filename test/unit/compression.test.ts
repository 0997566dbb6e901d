/**
 * joblib's compressions and other versions' module paths, against test/fixtures/compression
 * (written by its generate.py with scikit-learn 1.2.1 / joblib 1.2.0): every codec reads to the
 * arrays scikit-learn holds, exactly; a file cut in half is `truncated`; a compression bomb is
 * `too-large` having produced no more than the limit; derived pickles naming scikit-learn 0.22's
 * or numpy 2's modules read to the same trees.
 *
 * The zlib, gzip and lz4 bombs are built here at run time (a repeated deflate block, a repeated
 * LZ4 block), the xz, lzma and bz2 ones are small committed files (80 MiB of zeros, a few KB).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_FILE_BYTES, lintBytes } from '../../server/src/linter/linter';
import { readModel } from '../../server/src/formats';
import {
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  DecompressError,
  RATIO_GUARD,
  decompress,
  detectCompression,
  type Compression,
} from '../../server/src/formats/pickle/compression';
import { readSklearn, sklearnReader } from '../../server/src/formats/sklearn';
import type { ReadResult } from '../../server/src/formats/types';

const DIR = path.resolve(__dirname, '../../../test/fixtures/compression');
const MiB = 1024 * 1024;

interface Fixture {
  file: string;
  expect: 'model' | 'unreadable';
  format: string;
  compression?: Compression;
  reason?: string;
  derived?: boolean;
  renamed_globals?: string[];
  sklearn_version?: string;
  bomb?: boolean;
  inflated_bytes?: number;
}
interface TreeTruth {
  node_count: number;
  children_left: number[];
  children_right: number[];
  feature: number[];
  threshold: number[];
  n_node_samples: number[];
  value: number[][];
}
const manifest = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8')) as { lz4: boolean; fixtures: Fixture[] };
const truth = JSON.parse(fs.readFileSync(path.join(DIR, 'rf.truth.json'), 'utf8')) as {
  estimator: string;
  sklearn_version: string;
  classes: number[];
  n_features_in: number;
  trees: TreeTruth[];
};

function load(file: string): Uint8Array {
  return fs.readFileSync(path.join(DIR, file));
}

function read(file: string, maxBytes?: number): ReadResult {
  return sklearnReader.read(load(file), file, { maxBytes });
}

function assertTruth(r: ReadResult, file: string, version = truth.sklearn_version): void {
  if (r.kind !== 'model') assert.fail(`${file}: expected a model, got ${JSON.stringify(r)}`);
  const forest = r.forest;
  assert.equal(forest.estimator, truth.estimator);
  assert.equal(forest.library.version, version);
  assert.deepEqual(forest.classes, truth.classes);
  assert.equal(forest.features.length, truth.n_features_in);
  assert.equal(forest.trees.length, truth.trees.length);
  forest.trees.forEach((tree, t) => {
    const tt = truth.trees[t];
    assert.equal(tree.left.length, tt.node_count);
    assert.deepEqual(tree.left, tt.children_left, `${file} tree ${t} left`);
    assert.deepEqual(tree.right, tt.children_right, `${file} tree ${t} right`);
    assert.deepEqual(tree.feature, tt.feature, `${file} tree ${t} feature`);
    assert.deepEqual(tree.threshold, tt.threshold, `${file} tree ${t} threshold`);
    assert.deepEqual(tree.distinctRows, tt.n_node_samples, `${file} tree ${t} n_node_samples`);
    assert.deepEqual(tree.classWeights, tt.value.flat(), `${file} tree ${t} value`);
  });
}

/** Runs `f`, which must throw a DecompressError; returns it. */
function failure(f: () => unknown): DecompressError {
  try {
    f();
  } catch (e) {
    if (e instanceof DecompressError) return e;
    throw e;
  }
  return assert.fail('expected a DecompressError');
}

// ---- bombs built at run time ----------------------------------------------------------------

/**
 * A raw deflate stream of `mib` MiB of zeros without ever holding them: deflate's back-references
 * are relative, so one sync-flushed block of "1 MiB of zeros" decodes to 1 MiB of zeros wherever
 * it stands. Ends with an empty final block.
 */
function deflateZeros(mib: number): Buffer {
  const block = zlib.deflateRawSync(Buffer.alloc(MiB), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return Buffer.concat([...Array.from({ length: mib }, () => block), Buffer.from([0x03, 0x00])]);
}

function zlibBomb(mib: number): Buffer {
  // The Adler-32 of n zeros: a = 1, b = n mod 65521.
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((mib * MiB) % 65521) * 65536 + 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0x9c]), deflateZeros(mib), adler]);
}

/** The CRC-32 trailer is right only for small sizes (computing it would need the zeros); a bomb never reaches it. */
function gzipBomb(mib: number): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
  const trailer = Buffer.alloc(8);
  if (mib <= 16) trailer.writeUInt32LE(zlib.crc32(Buffer.alloc(mib * MiB)), 0);
  trailer.writeUInt32LE((mib * MiB) % 2 ** 32, 4);
  return Buffer.concat([header, deflateZeros(mib), trailer]);
}

/** An LZ4 frame of `blocks` blocks of 4,192,220 zeros each: one literal, then one long match at distance 1. */
function lz4Bomb(blocks: number): Buffer {
  const ext = 16440; // 0xff length bytes: 1 literal + (15 + 255 * 16440 + 0 + 4) match bytes, under the 4 MiB block maximum
  const body = Buffer.concat([Buffer.from([0x1f, 0x00, 0x01, 0x00]), Buffer.alloc(ext, 0xff), Buffer.from([0x00])]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  const header = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x00]); // independent blocks, 4 MiB maximum
  const parts: Buffer[] = [header];
  for (let i = 0; i < blocks; i++) parts.push(size, body);
  parts.push(Buffer.alloc(4)); // end mark
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------

const models = manifest.fixtures.filter((f) => f.expect === 'model' && !f.derived);
const truncated = manifest.fixtures.filter((f) => f.reason === 'truncated');
const derived = manifest.fixtures.filter((f) => f.derived);
const committedBombs = manifest.fixtures.filter((f) => f.bomb);

describe('compression fixtures: the manifest covers every codec', () => {
  it('has a model and a truncated copy per codec, derived pickles and bombs', () => {
    const codecs = ['zlib', 'gzip', 'bz2', 'xz', 'lzma', ...(manifest.lz4 ? ['lz4'] : [])];
    for (const c of codecs) {
      assert.ok(models.some((f) => f.compression === c), `no ${c} model`);
      assert.ok(truncated.some((f) => f.compression === c), `no truncated ${c}`);
    }
    assert.equal(manifest.lz4, true, 'python3-lz4 was missing when the fixtures were written');
    assert.equal(derived.length, 5);
    assert.deepEqual(committedBombs.map((f) => f.compression).sort(), ['bz2', 'lzma', 'xz']);
    for (const f of manifest.fixtures) assert.ok(fs.existsSync(path.join(DIR, f.file)), f.file);
  });
});

describe('compression: every codec joblib writes reads to what scikit-learn holds', () => {
  for (const fx of models) {
    it(fx.file, () => {
      const bytes = load(fx.file);
      assert.equal(detectCompression(bytes), fx.compression);
      const r = read(fx.file);
      assertTruth(r, fx.file);
      if (r.kind === 'model' && fx.compression) assert.ok(r.notes.includes(`compression: ${fx.compression}`), r.notes.join('; '));
    });
  }

  it('every codec inflates to the uncompressed joblib file, byte for byte', () => {
    const plain = Buffer.from(load('rf.joblib'));
    for (const fx of models.filter((f) => f.compression)) {
      assert.ok(plain.equals(decompress(load(fx.file), fx.compression as Compression)), fx.file);
    }
  });
});

describe('compression: a file cut in half is truncated, for every codec', () => {
  for (const fx of truncated) {
    it(fx.file, () => {
      const r = read(fx.file);
      assert.equal(r.kind, 'unreadable', JSON.stringify(r));
      if (r.kind !== 'unreadable') return;
      assert.equal(r.reason, 'truncated', r.detail);
      assert.equal(r.format, 'sklearn-joblib');
      assert.match(r.detail, new RegExp(`\\b${fx.compression}\\b`));
    });
  }

  it('every cut of the xz, lzma, bz2 and lz4 files is truncated, never corrupt or a crash', () => {
    for (const fx of models.filter((f) => f.compression && ['xz', 'lzma', 'bz2', 'lz4'].includes(f.compression))) {
      const whole = load(fx.file);
      for (let cut = 1; cut < whole.length; cut += Math.max(1, Math.floor(whole.length / 40))) {
        const e = failure(() => decompress(whole.subarray(0, cut), fx.compression as Compression));
        assert.equal(e.kind, 'truncated', `${fx.file} cut at ${cut}: ${e.message}`);
      }
    }
  });
});

describe('compression: bombs stop at the limit', () => {
  const CAP = 4 * MiB;

  it('committed xz, lzma and bz2 bombs: too-large, having produced no more than the limit', () => {
    for (const fx of committedBombs) {
      const bytes = load(fx.file);
      const e = failure(() => decompress(bytes, fx.compression as Compression, CAP));
      assert.equal(e.kind, 'too-large', e.message);
      assert.ok(e.produced !== undefined && e.produced <= CAP && e.produced > CAP - 64 * 1024, `${fx.file}: produced ${e.produced}`);
      assert.match(e.message, /4 MiB, the reader's limit/);
    }
  });

  it('the lz4 bomb: too-large, having produced no more than the limit', () => {
    const bomb = lz4Bomb(8); // 32 MiB of zeros in 131 KB
    assert.equal(decompress(bomb, 'lz4', 64 * MiB).length, 8 * 4192220, 'the bomb is a valid frame');
    const e = failure(() => decompress(bomb, 'lz4', CAP));
    assert.equal(e.kind, 'too-large', e.message);
    assert.ok(e.produced !== undefined && e.produced <= CAP, `produced ${e.produced}`);
  });

  it('zlib and gzip bombs of 1 GiB: too-large without the memory to hold them', () => {
    const before = process.resourceUsage().maxRSS; // KiB, the process's peak so far
    for (const [codec, bomb] of [
      ['zlib', zlibBomb(1024)],
      ['gzip', gzipBomb(1024)],
    ] as const) {
      assert.equal(detectCompression(bomb), codec);
      assert.ok(bomb.length < 2 * MiB);
      const e = failure(() => decompress(bomb, codec, CAP));
      assert.equal(e.kind, 'too-large', e.message);
    }
    // Inflating either fully would have raised the peak by 1 GiB; the cap keeps it to a few MiB.
    const grew = (process.resourceUsage().maxRSS - before) * 1024;
    assert.ok(grew < 256 * MiB, `peak memory grew by ${Math.round(grew / MiB)} MiB`);
    // and the same construction, small, is a valid stream (so too-large above is the cap's doing)
    assert.equal(decompress(zlibBomb(2), 'zlib', CAP).length, 2 * MiB);
    assert.equal(decompress(gzipBomb(2), 'gzip', CAP).length, 2 * MiB);
  });

  it('the ratio guard: past 64 MiB, 1500:1 xz is refused even under a large limit', () => {
    const xz = load('bomb-80MiB.xz.joblib');
    const e = failure(() => decompress(xz, 'xz', DEFAULT_MAX_DECOMPRESSED_BYTES));
    assert.equal(e.kind, 'too-large');
    assert.ok(e.produced !== undefined && e.produced <= RATIO_GUARD.floorBytes && e.produced > RATIO_GUARD.floorBytes - 64 * 1024, `produced ${e.produced}`);
    assert.match(e.message, /1500 times .* compression bombs do; if the model is genuine, save it without compression/);
    // a genuine model is far below the guard: it applies to the output's size, not its ratio alone
    assert.ok(load('rf.bz2.joblib').length * RATIO_GUARD.ratio.bz2 < RATIO_GUARD.floorBytes);
    // lz4 has no ratio guard (its ceiling, ~255x, is within genuine models' range): only the limit
    assert.equal(decompress(lz4Bomb(20), 'lz4', DEFAULT_MAX_DECOMPRESSED_BYTES).length, 20 * 4192220);
  });

  it('the reader reports a bomb as too-large under its default limit', () => {
    // xz only: the guard is the same for every codec, and bz2 takes seconds to write 64 MiB byte by byte
    const r = read('bomb-80MiB.xz.joblib');
    assert.equal(r.kind === 'unreadable' && r.reason, 'too-large', JSON.stringify(r));
    assert.equal(r.kind === 'unreadable' && r.format, 'sklearn-joblib');
  });
});

describe('compression: the limit is the linter\'s file-size limit', () => {
  it('the reader default equals DEFAULT_MAX_FILE_BYTES', () => {
    assert.equal(DEFAULT_MAX_DECOMPRESSED_BYTES, DEFAULT_MAX_FILE_BYTES);
  });

  it('lintBytes passes maxFileBytes down to the decompressor', () => {
    const bytes = load('rf.xz.joblib'); // 2 KB on disk, 8 KB inflated
    const small = lintBytes(bytes, 'rf.xz.joblib', { maxFileBytes: 4096 });
    assert.equal(small.model, null);
    assert.equal(small.findings[0]?.rule, 'unreadable-model');
    assert.match(small.findings[0].message, /too-large.*4 KiB, the reader's limit.*--max-file-mb/s);
    const ok = lintBytes(bytes, 'rf.xz.joblib', { maxFileBytes: 16384 });
    assert.equal(ok.model?.trees, truth.trees.length);
  });

  it('readModel passes its options to the reader', () => {
    const r = readModel(load('rf.lz4.joblib'), 'rf.lz4.joblib', { maxBytes: 4096 });
    assert.equal(r.kind === 'unreadable' && r.reason, 'too-large');
    assert.equal(readSklearn(load('rf.lz4.joblib'), 'rf.lz4.joblib', { maxBytes: 16384 }).kind, 'model');
  });
});

describe('compression: what is not decompressed says so', () => {
  it('an unknown codec names itself and how to re-save', () => {
    const e = failure(() => decompress(load('rf.zlib.joblib'), 'zstd' as Compression));
    assert.equal(e.kind, 'unsupported');
    assert.match(e.message, /zstd-compressed.*joblib\.dump\(model, path, compress=\('zlib', 3\)\)/);
  });

  it('an xz file with a BCJ filter is unsupported-compression, with how to re-save', () => {
    const r = read('rf.xz-bcj.joblib');
    assert.equal(r.kind === 'unreadable' && r.reason, 'unsupported-compression', JSON.stringify(r));
    if (r.kind === 'unreadable') assert.match(r.detail, /filter 0x4.*compress=\('zlib', 3\)/);
  });

  it('damaged bytes inside a stream are corrupt, not truncated', () => {
    for (const fx of models.filter((f) => f.compression && ['xz', 'lzma', 'bz2'].includes(f.compression))) {
      const bytes = Buffer.from(load(fx.file));
      for (let i = 40; i < bytes.length - 40; i += 97) bytes[i] ^= 0x5a;
      const e = failure(() => decompress(bytes, fx.compression as Compression));
      assert.equal(e.kind, 'corrupt', `${fx.file}: ${e.message}`);
    }
  });
});

describe('module paths of other versions (derived pickles)', () => {
  for (const fx of derived) {
    it(fx.file, () => {
      // the file really names the old or new modules (the generator checked the opcodes too)
      const text = Buffer.from(load(fx.file)).toString('latin1');
      for (const g of fx.renamed_globals ?? []) assert.ok(text.includes(g.slice(0, g.lastIndexOf('.'))), g);
      assertTruth(read(fx.file), fx.file, fx.sklearn_version);
    });
  }
});
