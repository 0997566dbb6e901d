/**
 * skops archives (formats/skops.ts): recognised and named, not read. No skops library installs
 * here (PyPI is unreachable, Debian has no package), so the archives below are crafted in the test:
 * ZIP files laid out as `skops.io.dump` writes them, with a `schema.json` of its node types
 * (ObjectNode, DictNode, ListNode, TupleNode, JsonNode), as a public MLflow 3 `model.skops` holds.
 * Before stop 32 such a file was "not a model".
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { readModel } from '../../server/src/formats';
import { lintBytes } from '../../server/src/linter/linter';
import { isModelFileName } from '../../server/src/linter/model-files';

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of data) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A ZIP archive of the given files, deflated, as Python's zipfile writes them. */
function zip(files: Record<string, string>): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const raw = Buffer.from(text, 'utf8');
    const packed = deflateRawSync(raw);
    const nameBytes = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(raw), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(raw), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

const json = (value: unknown) => ({ __class__: 'str', __module__: 'builtins', __loader__: 'JsonNode', content: JSON.stringify(value), is_json: true });
const object = (module: string, cls: string, attributes: Record<string, unknown>) => ({
  __class__: cls,
  __module__: module,
  __loader__: 'ObjectNode',
  content: { __class__: 'dict', __module__: 'builtins', __loader__: 'DictNode', content: attributes },
});
const tuple = (...items: unknown[]) => ({ __class__: 'tuple', __module__: 'builtins', __loader__: 'TupleNode', content: items });
const list = (...items: unknown[]) => ({ __class__: 'list', __module__: 'builtins', __loader__: 'ListNode', content: items });
const schema = (root: object) => JSON.stringify({ ...root, protocol: 2, _skops_version: '0.14.0' });

describe('skops archives', () => {
  it('names the tree models a Pipeline saved with skops holds, and where: unsupported-model, not "not a model"', () => {
    const forest = object('sklearn.ensemble._forest', 'RandomForestClassifier', { n_estimators: json(100) });
    const scaler = object('sklearn.preprocessing._data', 'StandardScaler', { with_mean: json(true) });
    const pipeline = object('sklearn.pipeline', 'Pipeline', { steps: list(tuple(json('scale'), scaler), tuple(json('rf'), forest)) });
    const bytes = zip({ 'schema.json': schema(pipeline), '140000000001.npy': 'not read' });
    const read = readModel(bytes, 'model.skops');
    assert.equal(read.kind, 'no-model', JSON.stringify(read));
    if (read.kind !== 'no-model') return;
    assert.equal(read.format, 'skops');
    assert.match(read.holds, /a skops archive of sklearn\.pipeline\.Pipeline \(skops 0\.14\.0, protocol 2\)/);
    assert.deepEqual(read.unread.map((m) => [m.location, m.estimator]), [['model.steps[1][1]', 'RandomForestClassifier']]);
    const report = lintBytes(bytes, 'model.skops');
    assert.deepEqual(report.findings.map((f) => [f.rule, f.severity]), [['unsupported-model', 'information']]);
    assert.match(report.findings[0].message, /RandomForestClassifier at model\.steps\[1\]\[1\] \(a skops archive \(skops 0\.14\.0\), which this tool does not read yet\)/);
  });

  it('an archive without a tree model is a file without one; the outer model only (an AdaBoost of trees)', () => {
    const scaler = zip({ 'schema.json': schema(object('sklearn.preprocessing._data', 'StandardScaler', {})) });
    const r = lintBytes(scaler, 'scaler.skops');
    assert.deepEqual(r.findings.map((f) => f.rule), ['no-tree-model']);
    const inner = object('sklearn.tree._classes', 'DecisionTreeRegressor', {});
    const ada = object('sklearn.ensemble._weight_boosting', 'AdaBoostRegressor', { estimators_: list(inner, inner) });
    const read = readModel(zip({ 'schema.json': schema(ada) }), 'ada.skops');
    assert.ok(read.kind === 'no-model' && read.unread.length === 1 && read.unread[0].estimator === 'AdaBoostRegressor', JSON.stringify(read));
  });

  it('is watched and found in directories; a ZIP without schema.json, or cut short, is not taken for one', () => {
    assert.ok(isModelFileName('mlruns/1/artifacts/model/model.skops'));
    const npz = zip({ 'x.npy': 'data' });
    assert.equal(readModel(npz, 'data.npz').kind, 'unreadable');
    const whole = zip({ 'schema.json': schema(object('sklearn.ensemble._forest', 'RandomForestClassifier', {})) });
    for (let cut = 1; cut < whole.length; cut += 7) {
      const r = readModel(whole.subarray(0, cut), 'cut.skops');
      assert.ok(r.kind === 'unreadable', `${cut}: ${r.kind}`);
    }
  });
});
