/**
 * The scikit-learn reader against the fixtures of test/fixtures/sklearn (written by generate.py
 * with scikit-learn 1.2.1): every model file must reproduce what scikit-learn itself holds
 * (`<model>.truth.json`), exactly; hostile files must be refused with the right globals and run
 * nothing; bad files must give the right reason.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it, before } from 'node:test';
import { ForestSchema, type ForestInput } from '../../server/src/forest/schema';
import { readSklearn, sklearnReader } from '../../server/src/formats/sklearn';
import type { ReadResult } from '../../server/src/formats/types';

const DIR = path.resolve(__dirname, '../../../test/fixtures/sklearn');

interface Fixture {
  file: string;
  expect: 'model' | 'unsafe' | 'unreadable' | 'no-model' | 'models';
  /** `models`: how many tree models the file holds. */
  count?: number;
  model?: string;
  format?: string;
  compression?: string;
  protocol?: number;
  layout?: 'v13' | 'v14';
  version?: string;
  reason?: string;
  detail_includes?: string;
  globals?: string[];
  sniff?: boolean;
}

interface TreeTruth {
  random_state: number | null;
  node_count: number;
  children_left: number[];
  children_right: number[];
  feature: number[];
  threshold: number[];
  n_node_samples: number[];
  weighted_n_node_samples: number[];
  value: number[][];
}

interface Truth {
  name: string;
  estimator: string;
  sklearn_version: string;
  classes: (string | number | boolean)[];
  feature_names: string[] | null;
  n_features_in: number;
  n_samples: number;
  bootstrap: boolean;
  max_samples: number | null;
  class_weight: string | null;
  hyper_parameters: Record<string, string | number | boolean | null>;
  trees: TreeTruth[];
  n_samples_bootstrap?: number;
  bootstrap_multiplicities?: number[][];
}

const manifest = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8')) as {
  lz4: boolean;
  marker: string;
  fixtures: Fixture[];
};
const missingLeft = JSON.parse(fs.readFileSync(path.join(DIR, 'missing_go_to_left.json'), 'utf8')) as Record<string, number[][]>;
const truths = new Map<string, Truth>();
function truthOf(name: string): Truth {
  let t = truths.get(name);
  if (!t) {
    t = JSON.parse(fs.readFileSync(path.join(DIR, `${name}.truth.json`), 'utf8')) as Truth;
    truths.set(name, t);
  }
  return t;
}

/** A Node Buffer, as the server hands readers (other tests pass plain Uint8Arrays). */
function load(file: string): Uint8Array {
  return fs.readFileSync(path.join(DIR, file));
}

function read(file: string): ReadResult {
  return sklearnReader.read(load(file), file);
}

function asModel(r: ReadResult, file: string): { forest: ForestInput; notes: string[]; format: string } {
  if (r.kind !== 'model') assert.fail(`${file}: expected a model, got ${JSON.stringify(r)}`);
  return r;
}

const models = manifest.fixtures.filter((f) => f.expect === 'model');
const unsafe = manifest.fixtures.filter((f) => f.expect === 'unsafe');
const bad = manifest.fixtures.filter((f) => f.expect === 'unreadable');
const noModel = manifest.fixtures.filter((f) => f.expect === 'no-model');
const containers = manifest.fixtures.filter((f) => f.expect === 'models');

describe('sklearn fixtures: the manifest covers what it should', () => {
  it('has models in every container, hostile files and bad files', () => {
    const files = new Set(manifest.fixtures.map((f) => f.file));
    for (const f of [
      'rf_compas.joblib',
      'rf_compas.zlib.joblib',
      'rf_compas.gzip.joblib',
      'rf_compas.xz.joblib',
      'rf_compas.lzma.joblib',
      'rf_compas.bz2.joblib',
      'rf_compas.p0.pkl',
      'rf_compas.p2.pkl',
      'rf_compas.p3.pkl',
      'rf_compas.p4.pkl',
      'rf_compas.p5.pkl',
      'rf_compas.v13.p4.pkl',
      'rf_compas.v14.joblib',
      'dt_compas.p4.pkl',
      'et_compas.joblib',
      'pipeline_rf.joblib',
      'rf_balanced.p4.pkl',
      'rf_max_samples_half.joblib',
      'rf_nobootstrap.joblib',
      'rf_strings.joblib',
      'evil_os_system.pkl',
      'evil_eval.pkl',
      'evil_popen.pkl',
      'evil_nested_forest.pkl',
      'truncated.joblib',
      'random.bin',
      'empty.pkl',
      'dict.pkl',
      'logreg.pkl',
      'gzip_garbage.joblib',
    ]) {
      assert.ok(files.has(f), `manifest lacks ${f}`);
      assert.ok(fs.existsSync(path.join(DIR, f)), `${f} is missing on disk`);
    }
    assert.ok(models.length >= 40 && unsafe.length >= 6 && bad.length >= 6 && noModel.length >= 3 && containers.length >= 1);
  });
});

describe('sklearn reader: models reproduce scikit-learn exactly', () => {
  for (const fx of models) {
    it(fx.file, () => {
      const truth = truthOf(fx.model as string);
      const r = asModel(read(fx.file), fx.file);
      const forest = r.forest;
      assert.equal(r.format, fx.format);
      // the IR validates
      const parsed = ForestSchema.safeParse(forest);
      assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3)));

      assert.equal(forest.library.name, 'scikit-learn');
      assert.equal(forest.library.version, fx.version ?? truth.sklearn_version);
      assert.equal(forest.estimator, truth.estimator);
      assert.equal(forest.task, 'classification');
      assert.deepEqual(forest.classes, truth.classes);
      const names = truth.feature_names ?? Array.from({ length: truth.n_features_in }, (_, i) => `x${i}`);
      assert.deepEqual(
        forest.features.map((f) => f.name),
        names,
      );

      const weighted = truth.class_weight !== null;
      assert.equal(forest.training.bootstrap, truth.bootstrap);
      assert.equal(forest.training.weighted ?? false, weighted);
      let rows: number | undefined;
      let bootstrapSize: number | undefined;
      if (!weighted && (!truth.bootstrap || truth.max_samples === null)) rows = truth.n_samples;
      if (truth.bootstrap) {
        if (typeof truth.max_samples === 'number' && Number.isInteger(truth.max_samples) && truth.max_samples > 1) bootstrapSize = truth.max_samples;
        else if (!weighted) bootstrapSize = truth.n_samples_bootstrap;
      }
      assert.equal(forest.training.rows, rows, 'training.rows');
      assert.equal(forest.training.bootstrapSize, bootstrapSize, 'training.bootstrapSize');

      for (const [k, v] of Object.entries(forest.hyperParameters ?? {})) {
        assert.ok(k in truth.hyper_parameters, `unexpected hyper-parameter ${k}`);
        assert.deepEqual(v, truth.hyper_parameters[k], `hyper-parameter ${k}`);
      }
      if (truth.estimator !== 'DecisionTreeClassifier') {
        assert.equal(forest.hyperParameters?.n_estimators, truth.trees.length);
        assert.equal(forest.hyperParameters?.bootstrap, truth.bootstrap);
      }

      assert.equal(forest.trees.length, truth.trees.length);
      const fractions = fx.layout === 'v14';
      // A feature shows missing values in training when one of its splits sends them to the smaller
      // child; the directions of every other feature follow the larger child and read as left.
      const stated = fx.layout ? missingLeft[fx.model as string] : undefined;
      const hadMissing = new Set<number>();
      stated?.forEach((column, t) => {
        const tt = truth.trees[t];
        column.forEach((x, n) => {
          const l = tt.children_left[n];
          if (l !== -1 && (x === 1) !== tt.n_node_samples[l] > tt.n_node_samples[tt.children_right[n]]) hadMissing.add(tt.feature[n]);
        });
      });
      forest.trees.forEach((tree, t) => {
        const tt = truth.trees[t];
        assert.deepEqual(tree.left, tt.children_left, `tree ${t} left`);
        assert.deepEqual(tree.right, tt.children_right, `tree ${t} right`);
        assert.deepEqual(tree.feature, tt.feature, `tree ${t} feature`);
        assert.deepEqual(tree.threshold, tt.threshold, `tree ${t} threshold`);
        assert.deepEqual(tree.distinctRows, tt.n_node_samples, `tree ${t} n_node_samples`);
        const expected = tt.value.flat();
        if (fractions && weighted) {
          // fraction x weight is not the stored count to the last bit when weights are fractional
          assert.equal(tree.classWeights.length, expected.length);
          tree.classWeights.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) <= 1e-9 * Math.max(1, Math.abs(expected[i])), `tree ${t} value ${i}: ${v} vs ${expected[i]}`));
        } else {
          assert.deepEqual(tree.classWeights, expected, `tree ${t} value`);
        }
        assert.equal(tree.training?.seed ?? null, tt.random_state, `tree ${t} seed`);
        if (fx.layout) {
          assert.deepEqual(
            tree.defaultLeft,
            stated![t].map((x, n) => (tt.children_left[n] === -1 || hadMissing.has(tt.feature[n]) ? x === 1 : true)),
            `tree ${t} missing_go_to_left`,
          );
        } else {
          assert.equal(tree.defaultLeft, undefined);
        }
        // the bootstrap draws of the truth add up to the root's weighted count
        if (truth.bootstrap_multiplicities && !weighted) {
          const draws = truth.bootstrap_multiplicities[t].reduce((a, b) => a + b, 0);
          const root = tree.classWeights.slice(0, truth.classes.length).reduce((a, b) => a + b, 0);
          assert.equal(root, draws);
          assert.equal(truth.bootstrap_multiplicities[t].filter((m) => m > 0).length, tree.distinctRows?.[0]);
        }
      });

      const notes = r.notes.join('\n');
      if (fx.compression) assert.match(notes, new RegExp(`compression: ${fx.compression}`));
      if (fx.protocol !== undefined && fx.protocol >= 2) assert.match(notes, new RegExp(`pickle protocol ${fx.protocol}`));
      if (fx.layout === 'v14') assert.match(notes, /fractions/);
      assert.match(notes, /scikit-learn \d/);
    });
  }

  it('reads every container of one model into the same forest', () => {
    const forests = models
      .filter((f) => f.model === 'rf_compas' && !f.layout)
      .map((f) => JSON.stringify(asModel(read(f.file), f.file).forest));
    assert.ok(forests.length >= 9);
    for (const f of forests) assert.equal(f, forests[0]);
  });

  it('decodes the 1.4 fraction layout to the same integer counts as the 1.2 counts layout', () => {
    const a = asModel(read('rf_compas.p4.pkl'), 'p4').forest;
    const b = asModel(read('rf_compas.v14.p4.pkl'), 'v14').forest;
    const c = asModel(read('rf_compas.v13.joblib'), 'v13').forest;
    a.trees.forEach((t, i) => {
      assert.deepEqual(b.trees[i].classWeights, t.classWeights);
      assert.deepEqual(c.trees[i].classWeights, t.classWeights);
      assert.ok(b.trees[i].classWeights.every((x) => Number.isInteger(x)));
    });
  });
});

describe('sklearn reader: hostile pickles are refused and nothing runs', () => {
  before(() => fs.rmSync(manifest.marker, { force: true }));
  for (const fx of unsafe) {
    it(fx.file, () => {
      const r = read(fx.file);
      assert.equal(r.kind, 'unsafe', JSON.stringify(r));
      if (r.kind !== 'unsafe') return;
      assert.deepEqual(r.globals, fx.globals);
      if (fx.format) assert.equal(r.format, fx.format);
    });
  }
  it('left no marker file behind', () => {
    for (const fx of unsafe) read(fx.file);
    assert.equal(fs.existsSync(manifest.marker), false);
  });
});

describe('sklearn reader: bad files give one unreadable result with the right reason', () => {
  for (const fx of bad) {
    it(fx.file, () => {
      const r = read(fx.file);
      assert.equal(r.kind, 'unreadable', JSON.stringify(r));
      if (r.kind !== 'unreadable') return;
      assert.equal(r.reason, fx.reason, r.detail);
      if (fx.format) assert.equal(r.format, fx.format);
      if (fx.detail_includes) assert.ok(r.detail.includes(fx.detail_includes), r.detail);
      assert.ok(r.detail.length > 10);
      if (r.reason === 'unsupported-compression') assert.match(r.detail, /joblib\.dump\(model, path, compress=\('zlib', 3\)\)/);
    });
  }
});

describe('sklearn reader: files without a tree model it reads are described, not refused', () => {
  for (const fx of noModel) {
    it(fx.file, () => {
      const r = read(fx.file);
      assert.equal(r.kind, 'no-model', JSON.stringify(r).slice(0, 300));
      if (r.kind !== 'no-model') return;
      const said = [r.holds, ...r.unread.map((m) => `${m.estimator}: ${m.reason}`)].join(' | ');
      if (fx.detail_includes) assert.ok(said.includes(fx.detail_includes), said);
      if (fx.format) assert.equal(r.format, fx.format);
    });
  }
});

describe('sklearn reader: containers of several tree models give each of them', () => {
  for (const fx of containers) {
    it(fx.file, () => {
      const r = read(fx.file);
      assert.equal(r.kind, 'model', JSON.stringify(r).slice(0, 300));
      if (r.kind !== 'model') return;
      assert.equal(1 + (r.others?.length ?? 0), fx.count);
    });
  }
});

describe('sklearn reader: sniff', () => {
  it('accepts pickles and joblib files by content and rejects the rest', () => {
    for (const fx of manifest.fixtures) {
      const bytes = load(fx.file);
      const expected = fx.sniff ?? bytes.length > 0;
      assert.equal(sklearnReader.sniff(bytes, fx.file), expected, fx.file);
    }
    // content, not extension
    assert.equal(sklearnReader.sniff(load('rf_compas.p4.pkl'), 'model.bin'), true);
    assert.equal(sklearnReader.sniff(new TextEncoder().encode('{"format":"model-privacy-lint/forest"}'), 'x.forest.json'), false);
    assert.equal(sklearnReader.sniff(new TextEncoder().encode('(just text'), 'notes.txt'), false);
  });
});

describe('sklearn reader: size limits', () => {
  it('refuses a compressed file that inflates past the limit', () => {
    const r = readSklearn(load('rf_compas.zlib.joblib'), 'rf.joblib', { maxBytes: 4096 });
    assert.equal(r.kind, 'unreadable');
    if (r.kind === 'unreadable') assert.equal(r.reason, 'too-large');
    const g = readSklearn(load('rf_compas.gzip.joblib'), 'rf.joblib', { maxBytes: 4096 });
    assert.equal(g.kind === 'unreadable' && g.reason, 'too-large');
  });
  it('refuses an uncompressed file past the limit', () => {
    const r = readSklearn(load('rf_compas.joblib'), 'rf.joblib', { maxBytes: 4096 });
    assert.equal(r.kind === 'unreadable' && r.reason, 'too-large');
  });
  it('refuses a pickle that memoizes more than allowed', () => {
    const r = readSklearn(load('rf_compas.p4.pkl'), 'rf.pkl', { limits: { maxMemo: 50 } });
    assert.equal(r.kind === 'unreadable' && r.reason, 'too-large');
  });
});
