/**
 * XGBoost's legacy binary format (server/src/formats/xgboost/legacy-binary.ts) against what
 * XGBoost 1.7.4 itself writes for the same boosters (test/fixtures/xgboost/generate.py): the
 * decoded object is the `save_model("m.json")` object, field by field, and the IR is the JSON's
 * but for the feature names the format does not hold. Damaged, cut-short and hostile files are
 * refused with a reason, quickly, without throwing.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { completeForest } from '../../server/src/forest/complete';
import { ForestSchema, type Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import type { ModelRead } from '../../server/src/formats/types';
import { readXgboost } from '../../server/src/formats/xgboost';
import { decodeLegacyBinary } from '../../server/src/formats/xgboost/legacy-binary';
import { collectModelFiles } from '../../server/src/linter/model-files';
import { FIXTURES, REPO_ROOT } from '../support/paths';
import { byteDamage } from '../support/fuzz';

const DIR = path.join(FIXTURES, 'xgboost');
const load = (file: string) => new Uint8Array(fs.readFileSync(path.join(DIR, file)));
interface Entry { file: string; model?: string; features?: string[]; loadedBaseScore?: string }
const MANIFEST: { files: Entry[] } = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8'));

/** Each legacy binary fixture and the JSON that 1.7.4 wrote for the same booster. */
const PAIRS: [string, string][] = [
  ['bin_pima_xgb.model', 'bin_pima.json'],
  ['bin_stroke_sk_xgb.bin', 'bin_stroke_sk.json'],
  ['multi_iris_xgb.bin', 'multi_iris.json'],
  ['reg_pima.xgb', 'reg_pima.json'],
  ['dart_pima.xgb', 'dart_pima.json'],
];
const LEGACY = [...PAIRS.map(([file]) => file), 'bin_pima_intercept.v0-derived.xgb'];

function readForest(file: string, bytes = load(file)): { read: ModelRead; forest: Forest } {
  const read = readModel(bytes, file);
  assert.equal(read.kind, 'model', `${file}: ${JSON.stringify(read).slice(0, 300)}`);
  const completed = completeForest((read as ModelRead).forest);
  assert.ok(completed.ok, `${file}: ${completed.ok ? '' : completed.problem}`);
  return { read: read as ModelRead, forest: completed.forest };
}

/**
 * Numbers as float32 (the JSON prints the shortest decimal of XGBoost's float32 values, the binary
 * holds the bits), numeric strings as numbers ("5E-1" and 0.5 are one base_score).
 */
function normal(value: unknown): unknown {
  if (typeof value === 'number') return Math.fround(value) + 0;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Math.fround(Number(value)) + 0;
  if (Array.isArray(value)) return value.map(normal);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normal(v)]));
  return value;
}

/** The IR without what the format does not hold: feature names (f0, f1, ...) and the patch version. */
function withoutNames(forest: Forest): unknown {
  const { features, library, boosting, ...rest } = forest;
  const { version, ...lib } = library;
  const { libraryVersion, ...boost } = boosting!;
  void version;
  void libraryVersion;
  return normal({ ...rest, library: lib, boosting: boost, features: features.map((f) => f.kind) });
}

describe('XGBoost legacy binary: the object save_model("m.json") writes, and its IR', () => {
  for (const [file, json] of PAIRS) {
    it(`${file} decodes into ${json}, field by field`, () => {
      const decoded = decodeLegacyBinary(load(file));
      assert.ok(decoded.ok, decoded.ok ? '' : decoded.detail);
      if (!decoded.ok) return;
      assert.equal(decoded.end, load(file).length, 'every byte read');
      const want = JSON.parse(fs.readFileSync(path.join(DIR, json), 'utf8'));
      const got = decoded.model as { learner: Record<string, unknown>; version?: number[] };
      // What the format does not hold: feature names and types, the patch version.
      assert.deepEqual(got.learner.feature_names, []);
      assert.deepEqual(got.version, want.version.slice(0, 2));
      const { feature_names: a, feature_types: b, ...wantLearner } = want.learner;
      const { feature_names: c, feature_types: d, ...gotLearner } = got.learner;
      void [a, b, c, d];
      // Trees (every column, deleted nodes included), tree_info, learner_model_param, objective,
      // attributes (the wrapper's scikit_learn among them), dart's weight_drop.
      assert.deepEqual(normal(gotLearner), normal(wantLearner));
    });

    it(`${file} reads into the IR of ${json} (features named f0, f1, ...)`, () => {
      const { read, forest } = readForest(file);
      const fromJson = readForest(json).forest;
      assert.equal(read.format, 'xgboost-binary');
      assert.equal(read.locate, undefined, 'a binary file: findings are per file');
      assert.deepEqual(withoutNames(forest), withoutNames(fromJson));
      assert.deepEqual(forest.features.map((f) => f.name), fromJson.features.map((_, i) => `f${i}`));
      assert.equal(forest.library.version, fromJson.library.version!.split('.').slice(0, 2).join('.'));
      assert.ok(read.notes.some((n) => /feature names: not stored/.test(n)));
    });
  }

  it("reads leaves written as (-1, 0), as XGBoost 0.8x boosters have them, as leaves (sweep 12: 'node 1 has exactly one child')", () => {
    const json = JSON.parse(fs.readFileSync(path.join(DIR, 'bin_pima.json'), 'utf8'));
    // The same JSON written back unchanged is the baseline (JSON.stringify writes -0 as 0).
    const { forest: baseline } = readForest('bin_pima.json', new TextEncoder().encode(JSON.stringify(json)));
    const trees = json.learner.gradient_booster.model.trees as { left_children: number[]; right_children: number[] }[];
    for (const tree of trees) tree.right_children = tree.right_children.map((r, i) => (tree.left_children[i] === -1 ? 0 : r));
    const { forest } = readForest('bin_pima_leaf_zero.json', new TextEncoder().encode(JSON.stringify(json)));
    assert.deepEqual(forest.trees, baseline.trees);
    // A split with one child is still refused.
    const split = trees.find((t) => t.left_children[0] !== -1)!;
    split.right_children[0] = -1;
    const broken = readModel(new TextEncoder().encode(JSON.stringify(json)), 'one_child.json');
    assert.equal(broken.kind, 'unreadable');
    if (broken.kind === 'unreadable') assert.match(broken.detail, /node 0 has exactly one child/);
  });

  it('reads a booster whose leaves keep no hessian sums without its covers, with a note, instead of refusing it (sweep 12)', () => {
    const json = JSON.parse(fs.readFileSync(path.join(DIR, 'bin_pima.json'), 'utf8'));
    const trees = json.learner.gradient_booster.model.trees as { left_children: number[]; sum_hessian: number[] }[];
    for (const tree of trees) tree.sum_hessian = tree.sum_hessian.map((h, i) => (tree.left_children[i] === -1 ? 0 : h));
    const { read, forest } = readForest('no_leaf_stats.json', new TextEncoder().encode(JSON.stringify(json)));
    assert.ok(forest.trees.every((t) => t.boosting!.cover === undefined));
    assert.ok(read.notes.some((n) => /^hessian sums \(cover\) not read: in tree 0 a node's cover is not its children's together/.test(n)), read.notes.join(' | '));
    assert.equal(forest.trees.length, readForest('bin_pima.json').forest.trees.length);
  });

  it('reads the wrapper\'s attributes and the multi-class groups as XGBoost holds them', () => {
    const sk = readForest('bin_stroke_sk_xgb.bin').forest;
    assert.equal(sk.estimator, 'XGBClassifier');
    assert.equal(sk.hyperParameters.eta, 0.1);
    assert.equal(sk.hyperParameters.lambda, 2);
    const multi = readForest('multi_iris_xgb.bin').forest;
    assert.equal(multi.boosting!.outputGroups, 3);
    assert.deepEqual(multi.classes, [0, 1, 2]);
    assert.deepEqual(multi.trees.map((t) => t.boosting!.group), multi.trees.map((_, i) => i % 3));
    const dart = readForest('dart_pima.xgb');
    assert.ok(dart.read.notes.some((n) => n.startsWith('booster: dart')));
  });

  it('a file of XGBoost before 1.0 (no magic, base_score as a margin) gives the base_score XGBoost 1.7.4 loads from it', () => {
    const file = 'bin_pima_intercept.v0-derived.xgb';
    const entry = MANIFEST.files.find((e) => e.file === file)!;
    const bytes = load(file);
    assert.notEqual(Buffer.from(bytes.subarray(0, 4)).toString('latin1'), 'binf');
    const { read, forest } = readForest(file, bytes);
    assert.equal(read.format, 'xgboost-binary');
    assert.equal(Math.fround(forest.boosting!.baseScore[0]), Math.fround(Number(entry.loadedBaseScore)));
    assert.equal(forest.library.version, undefined, 'no version before 1.0');
    assert.ok(read.notes.some((n) => /before 1\.0: base_score was stored as a margin/.test(n)), read.notes.join('\n'));
    // The trees are those of the same booster's JSON (written as 2.0.3 by the generator).
    const json = readForest('bin_pima_intercept.v2-derived.json').forest;
    assert.deepEqual(normal(forest.trees), normal(json.trees));
    assert.deepEqual(forest.boosting!.baseScore.map(Math.fround), json.boosting!.baseScore.map(Math.fround));
  });

  it('a file before 1.1 whose first byte is a protocol 0 pickle\'s is still read as XGBoost, whatever its name', () => {
    const bytes = load('bin_pima_intercept.v0-derived.xgb').slice();
    bytes[0] = 0x28; // `(`, MARK: base_score's lowest byte, so the model stays a model
    for (const name of ['model.bin', 'model.model', 'model.dat', 'x']) {
      const read = readModel(bytes, name);
      assert.equal(read.kind === 'model' && read.format, 'xgboost-binary', `${name}: ${JSON.stringify(read).slice(0, 200)}`);
    }
  });
});

/** Reads damaged bytes: never throws, stays fast, gives a valid forest or a refusal with a reason. */
function check(file: string, bytes: Uint8Array): string {
  const start = performance.now();
  const r = readModel(bytes, file);
  assert.ok(performance.now() - start < 1000, `${file}: a damaged file took too long`);
  // A model the reader refuses for what it is (no trees, a linear booster): an unread model, with its reason.
  if (r.kind === 'no-model') {
    assert.ok(r.unread.length === 1 ? r.unread[0].reason.length > 20 : /gblinear/.test(r.holds), `${file}: ${JSON.stringify(r)}`);
    return 'unsupported-estimator';
  }
  if (r.kind !== 'model') {
    assert.equal(r.kind, 'unreadable');
    if (r.kind === 'unreadable') assert.ok(r.detail.length > 20 && /[.!?]$/.test(r.detail), `${file}: ${r.detail}`);
    return (r as { reason: string }).reason;
  }
  const parsed = ForestSchema.safeParse(r.forest);
  assert.ok(parsed.success, `${file}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues[0])}`);
  return 'model';
}

describe('XGBoost legacy binary: damaged and hostile files', () => {
  it('says truncated for every prefix of every fixture (once its first bytes say what it is)', () => {
    for (const file of LEGACY) {
      const whole = load(file);
      // With the magic, 4 bytes say it; before 1.1 the names after the learner's parameters do.
      const first = file.includes('v0-derived') ? 136 + 8 + 'binary:logistic'.length + 8 + 'gbtree'.length : 4;
      const step = Math.max(1, Math.floor(whole.length / 500));
      for (let n = first; n < whole.length; n += step) {
        const r = readXgboost(whole.subarray(0, n), file);
        assert.equal(r.kind === 'unreadable' && r.reason, 'truncated', `${file} cut at ${n}: ${JSON.stringify(r).slice(0, 200)}`);
      }
      for (let n = 1; n < first; n += 7) assert.equal(check(file, whole.subarray(0, n)), file.includes('v0-derived') ? 'not-a-model' : n < 4 ? 'not-a-model' : 'truncated');
    }
  });

  it('never throws on random byte damage, refuses what no longer holds together', () => {
    // Half the damage where the counts and names are: the first 600 bytes.
    const damaged = byteDamage(LEGACY.map(load), 20_251_125, (i) => (i % 2 ? undefined : 600));
    const kinds = new Map<string, number>();
    for (let i = 0; i < 1200; i++) {
      const { file: k, bytes: b } = damaged(i);
      const kind = check(LEGACY[k], b);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    assert.ok((kinds.get('corrupt') ?? 0) > 50, JSON.stringify([...kinds]));
    assert.ok((kinds.get('model') ?? 0) > 100, JSON.stringify([...kinds]));
  });

  /** bin_pima_xgb.model with one little-endian integer replaced at `offset`. */
  function patched(offset: number, value: number, size: 4 | 8 = 4): Uint8Array {
    const b = Buffer.from(load('bin_pima_xgb.model'));
    if (size === 4) b.writeInt32LE(value, offset);
    else b.writeBigUInt64LE(BigInt(value), offset);
    return new Uint8Array(b);
  }
  const OBJECTIVE = 4 + 136;
  const GBTREE = OBJECTIVE + 8 + 'binary:logistic'.length + 8 + 'gbtree'.length;
  const TREE0 = GBTREE + 160;

  it('refuses absurd counts before allocating anything, with the count in the reason', () => {
    const cases: [string, Uint8Array, string, RegExp][] = [
      ['num_trees 2^31 - 1', patched(GBTREE, 2 ** 31 - 1), 'truncated', /declares 2147483647 trees/],
      ['num_trees -5', patched(GBTREE, -5), 'corrupt', /num_trees is -5/],
      ['num_nodes 2^31 - 1', patched(TREE0 + 4, 2 ** 31 - 1), 'truncated', /tree 0 declares 2147483647 nodes/],
      ['num_nodes 0', patched(TREE0 + 4, 0), 'corrupt', /tree 0 declares 0 nodes/],
      ['num_roots 2', patched(TREE0, 2), 'corrupt', /2 roots/],
      ['num_deleted 3', patched(TREE0 + 8, 3), 'corrupt', /3 deleted nodes/],
      ['objective length 2^62', patched(OBJECTIVE, 2 ** 62, 8), 'corrupt', /objective's name .* declares/],
      ['objective length 300', patched(OBJECTIVE, 300, 8), 'corrupt', /declares 300 bytes/],
      ['num_class 2^20', patched(4 + 8, 2 ** 20), 'corrupt', /num_class is 1048576, more than the model's 10 trees/],
      ['num_class -1', patched(4 + 8, -1), 'corrupt', /num_class is -1/],
      ['version 77.7', patched(4 + 20, 77), 'corrupt', /version field says 77\.7/],
      ['a child out of range', patched(TREE0 + 148 + 4, 999), 'corrupt', /tree 0/],
      ['a child pointing back at the root', patched(TREE0 + 148 + 4, 0), 'corrupt', /tree 0/],
      ['num_feature 2^31', patched(4 + 4, -(2 ** 31)), 'too-large', /features/],
    ];
    for (const [what, bytes, reason, detail] of cases) {
      const start = performance.now();
      const r = readModel(bytes, 'm.model');
      assert.ok(performance.now() - start < 200, `${what}: too slow`);
      assert.equal(r.kind === 'unreadable' && r.reason, reason, `${what}: ${JSON.stringify(r).slice(0, 300)}`);
      if (r.kind === 'unreadable') assert.match(r.detail, detail, what);
    }
    // A count of attributes or weights past the end: the model is cut, whatever the count says.
    const whole = load('bin_pima_xgb.model');
    const attrCount = Buffer.from(whole).lastIndexOf(Buffer.from('best_iteration')) - 8 - 8;
    const huge = Buffer.from(whole);
    huge.writeBigUInt64LE(2n ** 60n, attrCount);
    const r = readModel(new Uint8Array(huge), 'm.model');
    assert.equal(r.kind === 'unreadable' && r.reason, 'truncated', JSON.stringify(r));
  });

  it('a file that starts with binf but is no XGBoost model is refused clearly, whatever follows', () => {
    const garbage = [
      Buffer.from('binf'),
      Buffer.from('binfhello, this is a text file that happens to start with binf and goes on for a while. '.repeat(4)),
      Buffer.concat([Buffer.from('binf'), Buffer.alloc(136, 0xff), Buffer.alloc(64, 0x41)]),
      Buffer.concat([Buffer.from('binf'), Buffer.alloc(136), Buffer.from([5, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('a\u0000b\u0001c'), Buffer.alloc(40)]),
      Buffer.concat([Buffer.from('binf'), Buffer.alloc(136), Buffer.from([3, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('a:b'), Buffer.from([4, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('tree'), Buffer.alloc(200)]),
    ];
    for (const bytes of garbage) {
      const r = readModel(new Uint8Array(bytes), 'notes.bin');
      assert.equal(r.kind, 'unreadable', bytes.toString('latin1').slice(0, 40));
      if (r.kind !== 'unreadable') continue;
      assert.equal(r.format, 'xgboost-binary');
      assert.ok(['truncated', 'corrupt'].includes(r.reason), r.reason);
      assert.match(r.detail, /^the file starts with `binf`, the mark of XGBoost's legacy binary format, but is (truncated|corrupt): /);
    }
  });

  it('a gblinear model is a model without trees, as its JSON is', () => {
    const whole = Buffer.from(load('bin_pima_xgb.model'));
    const at = 4 + 136 + 8 + 'binary:logistic'.length;
    const linear = Buffer.concat([whole.subarray(0, at), Buffer.from([8, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('gblinear'), Buffer.alloc(64)]);
    const r = readModel(new Uint8Array(linear), 'm.model');
    assert.equal(r.kind, 'no-model');
    if (r.kind === 'no-model') assert.match(r.holds, /gblinear/);
  });
});

describe('XGBoost legacy binary: the CLI', () => {
  const cli = path.join(REPO_ROOT, 'out', 'server', 'src', 'cli.js');
  const lint = (budget: string, ...args: string[]) => {
    const run = spawnSync(process.execPath, [cli, ...args, '--format', 'json', '--fail-on', 'never', '--budget', budget], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout).files as { path: string; format: string; findings: { rule: string; message: string }[] }[];
  };

  it('gives the legacy binary file the findings of its JSON', () => {
    const files = lint('10', path.join(DIR, 'bin_pima_xgb.model'), path.join(DIR, 'bin_pima.json'));
    const binary = files.find((f) => f.path.endsWith('.model'))!;
    const json = files.find((f) => f.path.endsWith('.json'))!;
    assert.equal(binary.format, 'xgboost-binary');
    assert.equal(json.format, 'xgboost-json');
    const rules = (f: typeof binary) => f.findings.map((x) => x.rule).sort();
    assert.deepEqual(rules(binary), rules(json));
    assert.ok(rules(binary).includes('first-tree-exposes-counts'), rules(binary).join(', '));
    // The same message, the JSON's feature names read as f0, f1, ... (the binary file has none).
    const names = MANIFEST.files.find((e) => e.file === 'bin_pima_xgb.model')!.features!;
    const counts = (f: typeof binary) => f.findings.find((x) => x.rule === 'first-tree-exposes-counts')!.message;
    const renamed = names.reduce((m, name, i) => m.replace(new RegExp(`\\b${name}\\b`, 'g'), `f${i}`), counts(json));
    assert.match(counts(binary), /200 training rows, 72 with label 1/);
    assert.equal(counts(binary), renamed);
  });

  it('the directory walk picks up legacy binary models by name (*xgb*.model, *xgb*.bin, *.xgb) or content (any .model or .bin), not other .model or .bin files', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mpl-legacy-'));
    try {
      const model = load('bin_pima_xgb.model');
      // XGBoost's own bytes under any of these names: R's xgb.save(bst, "0001.model") has no xgb in it.
      const picked = ['bin_pima_xgb.model', 'XGB-booster.bin', 'churn.xgb', 'my_xgboost_model.bin', '0001.model', 'booster.bin'];
      for (const name of picked) fs.writeFileSync(path.join(dir, name), model);
      // Other libraries' .model / .bin files (a sentencepiece protobuf, a PyTorch ZIP, a gensim pickle).
      fs.writeFileSync(path.join(dir, 'tokenizer.model'), Buffer.from([0x0a, 0x0b, 0x0a, 0x05, 0x3c, 0x75, 0x6e, 0x6b, 0x3e, 0x15, 0, 0, 0, 0]));
      fs.writeFileSync(path.join(dir, 'pytorch_model.bin'), Buffer.from('PK\x03\x04\x00\x00\x08\x00archive/data.pkl', 'latin1'));
      fs.copyFileSync(path.join(REPO_ROOT, 'examples', 'models', 'diabetes_tree.pkl'), path.join(dir, 'word2vec.model'));
      const { files } = await collectModelFiles([dir]);
      assert.deepEqual(files.map((f) => path.basename(f)).sort(), [...picked].sort());
      const linted = lint('1', dir);
      assert.equal(linted.length, picked.length);
      for (const f of linted) assert.equal(f.format, 'xgboost-binary', f.path);
      // Named on the command line, a file is read whatever its name.
      fs.writeFileSync(path.join(dir, 'named.ckpt'), model);
      assert.equal(lint('1', path.join(dir, 'named.ckpt'))[0].format, 'xgboost-binary');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
