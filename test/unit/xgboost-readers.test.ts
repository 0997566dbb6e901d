/**
 * The XGBoost readers against the library's own view of every fixture: `get_dump(with_stats=True,
 * dump_format='json')` written by xgboost 1.7.4 into `<model>.truth.json` (test/fixtures/xgboost/generate.py).
 * Every node of every tree must have the library's children, feature, threshold, missing-value
 * direction, cover, gain and leaf value; JSON and UBJSON files of one model must read the same.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { completeForest } from '../../server/src/forest/complete';
import { nativeNodeId } from '../../server/src/forest/boosting';
import type { Forest } from '../../server/src/forest/schema';
import { readModel } from '../../server/src/formats';
import type { ModelRead } from '../../server/src/formats/types';
import { LONG_LINE } from '../../server/src/formats/xgboost';
import { FIXTURES } from '../support/paths';
import { lintFile } from '../../server/src/linter/linter';

const DIR = path.join(FIXTURES, 'xgboost');
/** `features`: the model's feature names, for files that do not store them (the legacy binary format: f0, f1, ...). */
interface Entry { file: string; model?: string; objective?: string; classes?: number; unreadable?: string; hyper?: Record<string, number>; derived?: string; features?: string[] }
const MANIFEST: { files: Entry[] } = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8'));
const models = MANIFEST.files.filter((e) => e.model);

interface DumpNode { nodeid: number; split?: string; split_condition?: number; yes?: number; no?: number; missing?: number; gain?: number; cover: number; leaf?: number; children?: DumpNode[] }

function truthOf(model: string): { dump: DumpNode[]; objective: string } {
  return JSON.parse(fs.readFileSync(path.join(DIR, `${model}.truth.json`), 'utf8'));
}

export function readFixture(file: string): { read: ModelRead; forest: Forest; text: string } {
  const bytes = new Uint8Array(fs.readFileSync(path.join(DIR, file)));
  const read = readModel(bytes, file);
  assert.equal(read.kind, 'model', `${file}: ${JSON.stringify(read)}`);
  const completed = completeForest((read as ModelRead).forest);
  assert.ok(completed.ok, `${file}: ${completed.ok ? '' : completed.problem}`);
  return { read: read as ModelRead, forest: completed.forest, text: Buffer.from(bytes).toString('latin1') };
}

/** float32 numbers printed with 9 significant digits (the dump) against float64 read back. */
const sameFloat = (a: number, b: number) => Math.fround(a) === Math.fround(b) || Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));

function flatten(root: DumpNode): Map<number, DumpNode> {
  const nodes = new Map<number, DumpNode>();
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    nodes.set(n.nodeid, n);
    for (const c of n.children ?? []) stack.push(c);
  }
  return nodes;
}

function asFloat32(value: unknown): unknown {
  if (typeof value === 'number') return Math.fround(value) + 0;
  if (Array.isArray(value)) return value.map(asFloat32);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asFloat32(v)]));
  return value;
}

describe('XGBoost readers match the library, node by node', () => {
  for (const entry of models) {
    it(`${entry.file}`, () => {
      const { forest } = readFixture(entry.file);
      const truth = truthOf(entry.model!);
      assert.equal(forest.trees.length, truth.dump.length, 'tree count');
      assert.equal(forest.splitRule, 'less');
      forest.trees.forEach((tree, t) => {
        const nodes = flatten(truth.dump[t]);
        assert.equal(tree.left.length, nodes.size, `tree ${t}: node count`);
        const irOf = new Map<number, number>();
        for (let i = 0; i < tree.left.length; i++) irOf.set(nativeNodeId(tree, i), i);
        for (const [id, node] of nodes) {
          const i = irOf.get(id);
          assert.ok(i !== undefined, `tree ${t}: node ${id} missing`);
          const b = tree.boosting!;
          assert.ok(b.cover && sameFloat(b.cover[i], node.cover), `tree ${t} node ${id}: cover ${b.cover?.[i]} vs ${node.cover}`);
          if (node.leaf !== undefined) {
            assert.equal(tree.left[i], -1, `tree ${t} node ${id} is a leaf`);
            assert.ok(sameFloat(b.leafValue[i], node.leaf), `tree ${t} node ${id}: leaf ${b.leafValue[i]} vs ${node.leaf}`);
            continue;
          }
          assert.equal(nativeNodeId(tree, tree.left[i]), node.yes, `tree ${t} node ${id}: yes`);
          assert.equal(nativeNodeId(tree, tree.right[i]), node.no, `tree ${t} node ${id}: no`);
          assert.equal(tree.defaultLeft?.[i], node.missing === node.yes, `tree ${t} node ${id}: missing`);
          const feature = entry.features ? `f${entry.features.indexOf(node.split!)}` : node.split;
          assert.equal(forest.features[tree.feature[i]].name, feature, `tree ${t} node ${id}: feature`);
          assert.ok(sameFloat(tree.threshold[i], node.split_condition!), `tree ${t} node ${id}: threshold ${tree.threshold[i]} vs ${node.split_condition}`);
          assert.ok(b.gain && sameFloat(b.gain[i], node.gain!), `tree ${t} node ${id}: gain`);
        }
      });
      if (!entry.file.includes('.dump.')) {
        assert.equal(forest.boosting?.objective, entry.objective);
        assert.equal(forest.boosting?.outputGroups, entry.classes ?? 1);
        if (entry.classes) assert.deepEqual(forest.trees.map((t) => t.boosting!.group), forest.trees.map((_, i) => i % entry.classes!));
        assert.equal(forest.task, entry.objective!.startsWith('reg:') ? 'regression' : 'classification');
      } else {
        assert.equal(forest.boosting?.source, 'dump');
        assert.equal(forest.boosting?.baseScoreStated, false);
      }
    });
  }

  it('JSON and UBJSON files of one model give the same forest', () => {
    for (const model of ['bin_pima', 'bin_stroke_sk', 'multi_iris', 'reg_pima', 'bin_pima_intercept.v2-derived']) {
      // UBJSON holds the float32 bits; JSON their shortest decimal: equal once rounded to float32.
      const a = asFloat32(readFixture(`${model}.json`).forest);
      const b = asFloat32(readFixture(`${model}.ubj`).forest);
      assert.deepEqual(b, a, model);
    }
  });

  it('reads the base score in every version\'s form and the wrapper\'s hyper-parameters', () => {
    assert.deepEqual(readFixture('bin_pima.json').forest.boosting?.baseScore, [0.5]);
    const v3 = readFixture('bin_pima.v3-derived.json').forest;
    assert.deepEqual(v3.boosting?.baseScore, [0.5]);
    assert.equal(v3.library.version, '3.1.0');
    const truth = JSON.parse(fs.readFileSync(path.join(DIR, 'bin_pima_intercept.truth.json'), 'utf8'));
    for (const file of ['bin_pima_intercept.v2-derived.json', 'bin_pima_intercept.v2-derived.ubj']) {
      const f = readFixture(file).forest;
      assert.equal(f.library.version, '2.0.3', file);
      assert.equal(Math.fround(f.boosting!.baseScore[0]), Math.fround(truth.baseScore), file);
    }
    const sk = readFixture('bin_stroke_sk.json').forest;
    assert.equal(sk.estimator, 'XGBClassifier');
    assert.equal(sk.hyperParameters.eta, 0.1);
    assert.equal(sk.hyperParameters.lambda, 2);
    assert.equal(sk.hyperParameters.min_child_weight, 2);
    assert.equal(sk.hyperParameters.alpha, null, 'left to XGBoost\'s default');
    assert.equal(sk.features[8].name, 'bmi');
    assert.equal(readFixture('bin_pima_spw.json').forest.hyperParameters.scale_pos_weight, 3);
  });

  it('says why the other files are not read', () => {
    for (const entry of MANIFEST.files.filter((e) => e.unreadable)) {
      const r = readModel(new Uint8Array(fs.readFileSync(path.join(DIR, entry.file))), entry.file);
      // A model refused for what it is (a linear booster) is a file without a tree model to read, not an unreadable one.
      if (entry.unreadable === 'unsupported-estimator') {
        assert.equal(r.kind, 'no-model', `${entry.file}: ${JSON.stringify(r)}`);
        continue;
      }
      assert.equal(r.kind === 'unreadable' && r.reason, entry.unreadable, `${entry.file}: ${JSON.stringify(r)}`);
    }
  });

  it('locates a node: its line in a text dump, its object in a JSON dump, its sum_hessian entry in a JSON model written on several lines', () => {
    const txt = readFixture('bin_pima.dump.txt');
    const lines = txt.text.split('\n');
    // save_model writes one line; the same model pretty-printed has short lines to point into
    const pretty = JSON.stringify(JSON.parse(readFixture('bin_pima.json').text), null, 2);
    const prettyRead = readModel(new Uint8Array(Buffer.from(pretty)), 'bin_pima.json') as ModelRead;
    const json = { text: pretty, read: prettyRead };
    const jdump = readFixture('bin_pima.dump.json');
    const jlines = jdump.text.split('\n');
    const modelLines = json.text.split('\n');
    const raw = JSON.parse(json.text).learner.gradient_booster.model.trees;
    for (const t of [0, 3, 9]) {
      const tree = txt.forest.trees[t];
      for (let i = 0; i < tree.left.length; i++) {
        const id = nativeNodeId(tree, i);
        const range = txt.read.locate!({ tree: t, node: i })!;
        const line = lines[range.start.line];
        assert.ok(line.trimStart().startsWith(`${id}:`), `tree ${t} node ${id} -> ${line}`);
        assert.equal(line.slice(range.start.character, range.end.character), line.trim());
        // the line is inside this tree's block
        const header = lines.slice(0, range.start.line).reverse().find((l) => l.startsWith('booster['));
        assert.equal(header, `booster[${t}]:`);
        const jr = jdump.read.locate!({ tree: t, node: i })!;
        assert.match(jlines[jr.start.line].slice(jr.start.character), new RegExp(`^"nodeid": ${id}\\b`));
        const mr = json.read.locate!({ tree: t, node: i })!;
        const text = modelLines[mr.start.line].slice(mr.start.character, mr.end.character);
        assert.equal(Number(text), raw[t].sum_hessian[id], `tree ${t} node ${id}`);
      }
    }
    assert.equal(readFixture('bin_pima.ubj').read.locate, undefined, 'a binary file has no text ranges');
  });

  it('anchors findings in a one-line JSON model (as save_model writes it) at the line start, on a short range', () => {
    const json = readFixture('bin_pima.json');
    assert.equal(json.text.split('\n').filter((l) => l.length > 0).length, 1, 'the fixture is written on one line');
    assert.ok(json.text.length > LONG_LINE);
    for (const t of [0, 3, 9]) {
      for (const node of [0, 1, json.forest.trees[t].left.length - 1]) {
        const range = json.read.locate!({ tree: t, node })!;
        assert.deepEqual(range.start, { line: 0, character: 0 }, `tree ${t} node ${node}`);
        assert.equal(range.end.line, 0);
        assert.ok(range.end.character > 0 && range.end.character <= 80, `short range: ${JSON.stringify(range)}`);
        // what the squiggle covers: the file's first key, not one number deep in the line
        assert.equal(json.text.slice(0, range.end.character), '{"learner"');
      }
    }
  });
});

describe("a dump's summary task", () => {
  // A dump states no objective; the first-tree probe finds the logistic or softmax one its covers
  // fit, and the findings name it. The summary said `regression` beside them (sweep 17).
  it('is classification for dumps of binary and multi-class models, as the probe reads them', async () => {
    for (const file of ['bin_pima.dump.txt', 'bin_pima.dump.json', 'multi_iris.dump.txt', 'multi_iris.dump.json']) {
      const report = await lintFile(path.join(FIXTURES, 'xgboost', file));
      assert.equal(report.model?.task, 'classification', file);
    }
    // A model file states its objective: a regressor stays one.
    assert.equal((await lintFile(path.join(FIXTURES, 'xgboost', 'reg_pima.json'))).model?.task, 'regression');
  });
});
