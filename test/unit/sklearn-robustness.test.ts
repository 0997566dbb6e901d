/**
 * Damaged input: the reader must never throw, hang or hand back an IR that does not validate,
 * and every cut-short file must say `truncated`.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { NEGATIVE_INFINITY_THRESHOLD } from '../../server/src/forest/missing-split';
import { ForestSchema } from '../../server/src/forest/schema';
import { readSklearn } from '../../server/src/formats/sklearn';
import { byteDamage } from '../support/fuzz';

const DIR = path.resolve(__dirname, '../../../test/fixtures/sklearn');

function load(file: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(DIR, file)));
}

describe('sklearn reader: damaged files', () => {
  it('says truncated for every prefix of a file', () => {
    for (const file of ['dt_compas.joblib', 'dt_compas.p2.pkl', 'dt_compas.p4.pkl', 'dt_compas.zlib.joblib']) {
      const whole = load(file);
      const step = Math.max(1, Math.floor(whole.length / 300));
      for (let n = 2; n < whole.length; n += step) {
        const r = readSklearn(whole.subarray(0, n), file);
        assert.equal(r.kind === 'unreadable' && r.reason, 'truncated', `${file} cut at ${n} of ${whole.length}: ${JSON.stringify(r).slice(0, 300)}`);
      }
      assert.equal(readSklearn(whole, file).kind, 'model');
    }
    const one = readSklearn(Uint8Array.from([0x80]), 'x.pkl');
    assert.equal(one.kind === 'unreadable' && one.reason, 'truncated');
  });

  it('never throws and never returns an invalid forest on random byte damage', () => {
    const files = ['rf_compas.joblib', 'rf_compas.p4.pkl', 'rf_compas.p2.pkl', 'rf_strings.joblib', 'rf_compas.v14.p4.pkl', 'rf_compas.p0.pkl'];
    const damaged = byteDamage(files.map(load), 20240611);
    const kinds = new Map<string, number>();
    for (let i = 0; i < 600; i++) {
      const { file: k, bytes: b } = damaged(i);
      const t0 = performance.now();
      const r = readSklearn(b, files[k]);
      assert.ok(performance.now() - t0 < 2000, 'a damaged file took too long');
      const key = r.kind === 'unreadable' ? `unreadable:${r.reason}` : r.kind;
      kinds.set(key, (kinds.get(key) ?? 0) + 1);
      if (r.kind === 'model') {
        const parsed = ForestSchema.safeParse(r.forest);
        assert.ok(parsed.success, `${files[k]} damage ${i}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues[0])}`);
      }
    }
    // damage is mostly caught, and some files still read (damage inside float payloads)
    assert.ok((kinds.get('unreadable:corrupt') ?? 0) > 100, JSON.stringify([...kinds]));
    assert.ok((kinds.get('model') ?? 0) > 10, JSON.stringify([...kinds]));
  });
});

describe('sklearn reader: a split stored at -inf or NaN (scikit-learn 1.6 trained on infinite values)', () => {
  // scikit-learn puts a threshold halfway between two values: -inf beside a value gives -inf, -inf
  // beside +inf gives NaN. A public 1.6.1 BaggingRegressor with one such split read "corrupt". Derived
  // here from a real 1.2.1 tree (which refuses infinite input) by writing one node's threshold as
  // those versions do; the rest of the file is scikit-learn's.
  const file = path.resolve(__dirname, '../../../test/fixtures/estimators/dt_reg.joblib');
  const whole = new Uint8Array(fs.readFileSync(file));
  const read = readSklearn(whole, 'dt_reg.joblib');
  assert.ok(read.kind === 'model');
  const tree = read.forest.trees[0];
  // An inner node whose threshold's float64 bytes occur once in the file.
  const bytesOf = (x: number) => new Uint8Array(new Float64Array([x]).buffer);
  const at = (needle: Uint8Array): number[] => {
    const found: number[] = [];
    for (let i = 0; i + 8 <= whole.length; i++) if (needle.every((b, k) => whole[i + k] === b)) found.push(i);
    return found;
  };
  const node = tree.left.findIndex((l, n) => l !== -1 && n > 0 && at(bytesOf(tree.threshold[n])).length === 1);
  const offset = at(bytesOf(tree.threshold[node]))[0];

  for (const stored of [Number.NaN, -Infinity]) {
    it(`threshold ${stored}: read, the split at the lowest float32 with a note, the rest unchanged`, () => {
      const patched = whole.slice();
      patched.set(bytesOf(stored), offset);
      const again = readSklearn(patched, 'dt_reg.joblib');
      assert.equal(again.kind, 'model', JSON.stringify(again).slice(0, 300));
      if (again.kind !== 'model') return;
      assert.ok(ForestSchema.safeParse(again.forest).success);
      const t = again.forest.trees[0];
      assert.equal(t.threshold[node], NEGATIVE_INFINITY_THRESHOLD);
      t.threshold.forEach((x, n) => n !== node && assert.equal(x, tree.threshold[n]));
      assert.ok(again.notes.some((n) => /1 split stored at -inf or NaN/.test(n)), again.notes.join(' | '));
    });
  }
});
