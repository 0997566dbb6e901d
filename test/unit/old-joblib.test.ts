/**
 * joblib before 0.10 kept a model's arrays in .npy files beside its pickle, or with compress the
 * pickle in a z-file and large arrays in z-files beside it (test/fixtures/old-joblib/generate.py
 * writes those layouts and checks that joblib 1.2 loads them back as the same models). The reader follows the wrappers to those files, beside the model only, and
 * says plainly when they are missing (sweep 9: such a public file was "corrupt").
 */
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseNpy } from '../../server/src/formats/pickle/npy';
import { hashContent, lintBytes, lintFile } from '../../server/src/linter/linter';
import { modelOfSideFile, sideFilesBeside } from '../../server/src/linter/side-files';
import { FIXTURES } from '../support/paths';

const DIR = join(FIXTURES, 'old-joblib');
const truth = JSON.parse(readFileSync(join(DIR, 'tree.truth.json'), 'utf8'));
const temp = mkdtempSync(join(tmpdir(), 'old-joblib-'));
after(() => rmSync(temp, { recursive: true, force: true }));

describe('old joblib files (arrays in side files)', () => {
  it("reads the tree from its side files: scikit-learn's arrays exactly", async () => {
    const report = await lintFile(join(DIR, 'tree.pkl'), { keepForest: true });
    assert.ok(report.forest, report.findings.map((f) => f.message).join('\n'));
    assert.equal(report.model?.estimator, 'DecisionTreeClassifier');
    const tree = report.forest.trees[0];
    assert.equal(tree.left.length, truth.nodes);
    truth.feature.forEach((f: number, n: number) => {
      if (f < 0) return assert.equal(tree.left[n], -1);
      assert.equal(tree.feature[n], f);
      assert.equal(tree.threshold[n], truth.threshold[n]);
    });
    assert.deepEqual(Array.from(tree.distinctRows!), truth.n_node_samples);
    assert.equal(report.model?.trainingRows, 150);
    assert.ok(report.notes.some((n) => /old joblib format \(before 0\.10\): 4 arrays read from the side files/.test(n)), report.notes.join(' | '));
  });

  it('without its side files: a clear finding, not "corrupt"', async () => {
    copyFileSync(join(DIR, 'tree.pkl'), join(temp, 'tree.pkl'));
    const report = await lintFile(join(temp, 'tree.pkl'));
    assert.equal(report.model, null);
    const finding = report.findings.find((f) => f.rule === 'unreadable-model')!;
    assert.match(finding.message, /an old joblib file \(joblib before 0\.10\) keeps its arrays in side files beside it/);
    assert.match(finding.message, /tree\.pkl_0\d\.npy: not found beside the model/);
    // Four missing, three named: the fourth is counted (sweep 18: "4 of them" beside three names).
    assert.match(finding.message, /4 of them could not be read \([^)]*; and 1 more\)/);
    assert.doesNotMatch(finding.message, /corrupt/);
    // Bytes with no folder of their own: the same words.
    const buffer = lintBytes(new Uint8Array(readFileSync(join(DIR, 'tree.pkl'))), join(temp, 'elsewhere', 'tree.pkl'));
    assert.match(buffer.findings.map((f) => f.message).join(' '), /old joblib file/);
  });

  it('opens only files of the names joblib writes, beside the model', () => {
    const side = sideFilesBeside(join(DIR, 'tree.pkl'), 1 << 20);
    assert.ok(side('tree.pkl_01.npy') instanceof Uint8Array);
    for (const name of ['../old-joblib/tree.pkl_01.npy', '/etc/passwd', 'sub/tree.pkl_01.npy', '.tree.pkl_01.npy', 'tree.pkl', 'generate.py']) {
      assert.equal(typeof side(name), 'string', name);
    }
    // The files together stay under the reader's limit.
    const small = sideFilesBeside(join(DIR, 'tree.pkl'), 200);
    assert.ok(small('tree.pkl_01.npy') instanceof Uint8Array);
    assert.match(String(small('tree.pkl_03.npy')), /larger than the reader's limit/);
  });

  it("the report's content hash covers the side files: a change of theirs is a change of the model", async () => {
    const folder = join(temp, 'hash');
    mkdirSync(folder, { recursive: true });
    const names = ['tree.pkl', 'tree.pkl_01.npy', 'tree.pkl_02.npy', 'tree.pkl_03.npy', 'tree.pkl_04.npy'];
    for (const name of names) copyFileSync(join(DIR, name), join(folder, name));
    const model = join(folder, 'tree.pkl');
    const own = hashContent(new Uint8Array(readFileSync(model)));
    const first = await lintFile(model);
    assert.ok(first.model, 'read with its side files');
    assert.notEqual(first.contentHash, own, 'more than the pickle');
    assert.equal((await lintFile(model)).contentHash, first.contentHash, 'the same files, the same hash');
    // One byte of one array changed, the pickle untouched: a new hash.
    const side = join(folder, 'tree.pkl_04.npy');
    const bytes = readFileSync(side);
    bytes[bytes.length - 1] ^= 1;
    writeFileSync(side, bytes);
    const changed = await lintFile(model);
    assert.notEqual(changed.contentHash, first.contentHash);
    // A missing side file is part of the answer too: not the pickle's own hash, so no cache takes it for the model.
    rmSync(side);
    const without = await lintFile(model);
    assert.equal(without.model, null);
    assert.notEqual(without.contentHash, own);
    assert.notEqual(without.contentHash, changed.contentHash);
    // Any other model's hash is its bytes' own.
    const plain = join(FIXTURES, 'estimators', 'dt_reg.joblib');
    assert.equal((await lintFile(plain)).contentHash, hashContent(new Uint8Array(readFileSync(plain))));
  });

  it('a side file names its model', () => {
    assert.equal(modelOfSideFile(join('/w', 'm', 'clf.pkl_01.npy')), join('/w', 'm', 'clf.pkl'));
    assert.equal(modelOfSideFile(join('/w', 'clf.joblib_12.npy.z')), join('/w', 'clf.joblib'));
    for (const name of ['data.npy', 'clf.pkl', '.clf.pkl_01.npy', 'clf.pkl_01.npz']) assert.equal(modelOfSideFile(join('/w', name)), undefined, name);
  });

  it('compressed (joblib 0.9 with compress=3): the pickle as a z-file, and the arrays in z-files beside it or inline', async () => {
    const zipped = JSON.parse(readFileSync(join(DIR, 'zipped.truth.json'), 'utf8'));
    for (const name of ['tree_z.pkl', 'forest_z.pkl']) {
      const want = zipped[name];
      const report = await lintFile(join(DIR, name), { keepForest: true });
      assert.ok(report.forest, `${name}: ${report.findings.map((f) => f.message).join('\n')}`);
      assert.equal(report.model?.estimator, want.estimator);
      assert.equal(report.forest.trees.length, want.trees.length);
      want.trees.forEach((t: { feature: number[]; threshold: number[]; n_node_samples: number[] }, i: number) => {
        const tree = report.forest!.trees[i];
        t.feature.forEach((f, n) => (f < 0 ? assert.equal(tree.left[n], -1) : (assert.equal(tree.feature[n], f), assert.equal(tree.threshold[n], t.threshold[n]))));
        assert.deepEqual(Array.from(tree.distinctRows!), t.n_node_samples);
      });
      assert.ok(report.notes.some((n) => /compression: zlib \(joblib before 0\.10's z-file\)/.test(n)), report.notes.join(' | '));
      if (want.sideFiles > 0) assert.ok(report.notes.some((n) => new RegExp(`${want.sideFiles} arrays read from the side files`).test(n)), report.notes.join(' | '));
    }
  });

  it('compressed: a missing z side file is named, a cut z-file says so', async () => {
    const folder = join(temp, 'zipped');
    mkdirSync(folder, { recursive: true });
    copyFileSync(join(DIR, 'tree_z.pkl'), join(folder, 'tree_z.pkl'));
    const alone = await lintFile(join(folder, 'tree_z.pkl'));
    assert.equal(alone.model, null);
    assert.match(alone.findings.map((f) => f.message).join(' '), /tree_z\.pkl_0\d\.npy\.z: not found beside the model/);
    const bytes = readFileSync(join(DIR, 'forest_z.pkl'));
    const cut = lintBytes(new Uint8Array(bytes.subarray(0, bytes.length - 40)), join(folder, 'forest_z.pkl'));
    assert.equal(cut.model, null);
    assert.match(cut.findings.map((f) => f.message).join(' '), /truncated|cut short|ends early/);
    // A side file that is not a z-file is refused by name, not read as something else.
    for (const n of [1, 2, 3, 4]) copyFileSync(join(DIR, `tree_z.pkl_0${n}.npy.z`), join(folder, `tree_z.pkl_0${n}.npy.z`));
    writeFileSync(join(folder, 'tree_z.pkl_02.npy.z'), Buffer.from('not a z-file at all'));
    const foreign = await lintFile(join(folder, 'tree_z.pkl'));
    assert.equal(foreign.model, null);
    assert.match(foreign.findings.map((f) => f.message).join(' '), /tree_z\.pkl_02\.npy\.z: not a joblib z-file/);
  });

  it('.npy: plain and structured dtypes from the header literal; object arrays refused', () => {
    const npy = (header: string, data: number[]) => {
      const padded = header.padEnd(Math.ceil((header.length + 11) / 64) * 64 - 11) + '\n';
      return new Uint8Array([0x93, ...Buffer.from('NUMPY'), 1, 0, padded.length & 0xff, padded.length >> 8, ...Buffer.from(padded, 'latin1'), ...data]);
    };
    const f8 = parseNpy(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", [...new Uint8Array(new Float64Array([1.5, -2]).buffer)]));
    assert.deepEqual(f8.shape, [2]);
    assert.equal(f8.dtype.str, '<f8');
    const record = parseNpy(npy("{'descr': [('a', '<i4'), ('b', '<f8')], 'fortran_order': False, 'shape': (1,), }", new Array(12).fill(0)));
    assert.deepEqual(record.dtype.fields?.map((x) => [x.name, x.offset]), [['a', 0], ['b', 4]]);
    assert.throws(() => parseNpy(npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", new Array(8).fill(0))), /Python objects/);
    assert.throws(() => parseNpy(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", new Array(16).fill(0))), /holds 16 bytes/);
    assert.throws(() => parseNpy(npy("__import__('os')", [])), /unexpected/);
  });
});
