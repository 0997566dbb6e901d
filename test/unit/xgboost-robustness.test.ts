/**
 * Damaged XGBoost files: the readers never throw or hang, never hand back an IR that does not
 * validate, a cut-short UBJSON file always says `truncated`, and the probe never throws on what
 * a damaged file still gives.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probeFirstTrees } from '../../server/src/attacks/first-tree-probe';
import { completeForest } from '../../server/src/forest/complete';
import { ForestSchema } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import { readXgboost } from '../../server/src/formats/xgboost';
import { decodeUbjson } from '../../server/src/formats/xgboost/ubjson';
import { FIXTURES } from '../support/paths';
import { byteDamage } from '../support/fuzz';

const DIR = path.join(FIXTURES, 'xgboost');
const load = (file: string) => new Uint8Array(fs.readFileSync(path.join(DIR, file)));

function checkModel(file: string, bytes: Uint8Array): string {
  const t0 = performance.now();
  const r = readModel(bytes, file);
  assert.ok(performance.now() - t0 < 2000, `${file}: a damaged file took too long`);
  if (r.kind !== 'model') return `unreadable:${r.kind === 'unreadable' ? r.reason : r.kind}`;
  const parsed = ForestSchema.safeParse(r.forest);
  assert.ok(parsed.success, `${file}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues[0])}`);
  const completed = completeForest(r.forest);
  if (completed.ok) probeFirstTrees(completed.forest);
  return 'model';
}

describe('XGBoost readers: damaged files', () => {
  it('says truncated for every prefix of a UBJSON model', () => {
    for (const file of ['bin_pima.ubj', 'multi_iris.ubj']) {
      const whole = load(file);
      const step = Math.max(1, Math.floor(whole.length / 400));
      for (let n = 1; n < whole.length; n += step) {
        const r = readXgboost(whole.subarray(0, n), file);
        assert.equal(r.kind === 'unreadable' && r.reason, 'truncated', `${file} cut at ${n}: ${JSON.stringify(r).slice(0, 200)}`);
      }
    }
  });

  it('says truncated or corrupt for prefixes of JSON models and dumps', () => {
    for (const file of ['bin_pima.json', 'bin_pima.dump.json', 'bin_pima.dump.txt']) {
      const whole = load(file);
      for (let n = 50; n < whole.length; n += Math.floor(whole.length / 97)) {
        const kind = checkModel(file, whole.subarray(0, n));
        // A text dump cut at a line end is a smaller, valid dump; anything else must be refused.
        if (!file.endsWith('.txt')) assert.ok(kind === 'unreadable:truncated' || kind === 'unreadable:corrupt', `${file} cut at ${n}: ${kind}`);
      }
    }
  });

  it('never throws and never returns an invalid forest on random byte damage', () => {
    const files = ['bin_pima.ubj', 'multi_iris.ubj', 'bin_pima.json', 'bin_pima.dump.txt', 'bin_pima.dump.json', 'reg_pima.ubj'];
    const damaged = byteDamage(files.map(load), 20250501);
    const kinds = new Map<string, number>();
    for (let i = 0; i < 600; i++) {
      const { file: k, bytes: b } = damaged(i);
      const kind = checkModel(files[k], b);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    assert.ok((kinds.get('unreadable:corrupt') ?? 0) > 50, JSON.stringify([...kinds]));
    assert.ok((kinds.get('model') ?? 0) > 10, JSON.stringify([...kinds]));
  });

  it('refuses hostile UBJSON without allocating or recursing without bound', () => {
    const cases: [string, Uint8Array, string][] = [
      ['huge count', Uint8Array.from([0x7b, 0x69, 1, 0x61, 0x5b, 0x24, 0x64, 0x23, 0x4c, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]), 'truncated'],
      ['count beyond 2^53', Uint8Array.from([0x7b, 0x69, 1, 0x61, 0x5b, 0x24, 0x64, 0x23, 0x4c, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), 'corrupt'],
      ['huge string', Uint8Array.from([0x53, 0x4c, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff, 0xff]), 'truncated'],
      ['negative length', Uint8Array.from([0x53, 0x69, 0xff, 0x61]), 'corrupt'],
      ['deep nesting', new Uint8Array(200_000).fill(0x5b), 'corrupt'],
      ['unknown marker', Uint8Array.from([0x7b, 0x69, 1, 0x61, 0x51, 0x7d]), 'corrupt'],
      ['trailing bytes', Uint8Array.from([0x5a, 0x5a]), 'corrupt'],
      ['payload-free flood', Uint8Array.from([0x5b, 0x24, 0x5a, 0x23, 0x4c, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff]), 'corrupt'],
    ];
    for (const [name, bytes, reason] of cases) {
      const r = decodeUbjson(bytes);
      assert.equal(!r.ok && r.reason, reason, `${name}: ${JSON.stringify(r)}`);
    }
    // `__proto__` is an ordinary key
    const proto = decodeUbjson(Uint8Array.from([0x7b, 0x69, 9, ...Buffer.from('__proto__'), 0x54, 0x7d]));
    assert.ok(proto.ok && Object.getPrototypeOf(proto.value) === null && (proto.value as Record<string, unknown>)['__proto__'] === true);
  });

  it('garbage is not a model', () => {
    for (const bytes of [Buffer.from('{"learner": 3, "gradient_booster": 1}'), Buffer.from('booster[0]:\nhello\n'), Buffer.from('[{"nodeid": "x"}]'), Uint8Array.from([0x7b, 0x69, 0x07, ...Buffer.from('learner'), 0x5a, 0x7d])]) {
      const r = readModel(bytes, 'x.json');
      assert.equal(r.kind, 'unreadable', Buffer.from(bytes).toString('latin1'));
    }
  });

  it('a damaged num_class (more classes than trees) is corrupt, at once', () => {
    const model = JSON.parse(fs.readFileSync(path.join(DIR, 'multi_iris.json'), 'utf8'));
    model.learner.learner_model_param.num_class = '200000000';
    const start = performance.now();
    const r = readModel(new Uint8Array(Buffer.from(JSON.stringify(model))), 'multi_iris.json');
    assert.ok(performance.now() - start < 500, 'sized nothing by the count');
    assert.equal(r.kind === 'unreadable' && r.reason, 'corrupt');
    if (r.kind === 'unreadable') assert.match(r.detail, /num_class is 200000000, more than the model's 9 trees/);
  });
});
