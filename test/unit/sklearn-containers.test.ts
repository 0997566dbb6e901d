/**
 * Tree models inside what people save (test/fixtures/containers, written by generate.py with
 * scikit-learn 1.2.1): every tree model is found at the location scikit-learn puts it, with the
 * trees, node counts, features and training rows scikit-learn holds; files without a tree model
 * are described; several models in one file each get the fast findings.
 *
 * The walk is checked on the unpickled graph directly, so that what the globals' tiers decide
 * (some wrappers name classes outside the allowlist) does not hide what the walk finds; the
 * whole reader and linter are checked where the file reads as a model.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { unpickle } from '../../server/src/formats/pickle';
import { decodeModel } from '../../server/src/formats/sklearn/decode';
import { readSklearn } from '../../server/src/formats/sklearn';
import { lintBytes } from '../../server/src/linter/linter';
import { detailOf } from '../../server/src/rules/message';
import { MODEL_RULES, unknownGlobalFindings } from '../../server/src/rules';
import type { ModelRead, NoTreeModelRead } from '../../server/src/formats/types';

const MODEL_RULE_IDS = new Set<string>(MODEL_RULES.map((rule) => rule.id));

const DIR = path.resolve(__dirname, '../../../test/fixtures/containers');

interface ExpectedModel {
  location: string;
  estimator: string;
  trees: number;
  nodes: number[];
  features: number;
  rows: number;
}

interface Entry {
  file: string;
  models: ExpectedModel[];
  holds?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8')) as Entry[];

function graph(file: string) {
  const result = unpickle(fs.readFileSync(path.join(DIR, file)), { joblib: true });
  assert.equal(result.error, undefined, `${file}: ${result.error?.message}`);
  return result.value;
}

describe('containers: the walk finds every tree model where scikit-learn keeps it', () => {
  it('covers the ways people save models', () => {
    const files = manifest.map((e) => e.file);
    for (const f of ['pipeline_column_transformer.joblib', 'grid_search.joblib', 'calibrated.joblib', 'voting.joblib', 'stacking.joblib', 'multi_output.joblib', 'dict_bundle.joblib', 'scaler.joblib']) {
      assert.ok(files.includes(f), f);
    }
  });

  for (const entry of manifest) {
    it(entry.file, () => {
      const decoded = decodeModel(graph(entry.file));
      const byLocation = new Map(decoded.models.map((m) => [m.location, m]));
      assert.deepEqual([...byLocation.keys()].sort(), entry.models.map((m) => m.location).sort());
      for (const want of entry.models) {
        const got = byLocation.get(want.location)!;
        assert.equal(got.estimator, want.estimator, want.location);
        assert.equal(got.forest.trees.length, want.trees, want.location);
        assert.deepEqual(got.forest.trees.map((t) => t.left.length), want.nodes, want.location);
        assert.equal(got.forest.features.length, want.features, want.location);
        assert.equal(got.forest.training.rows, want.rows, want.location);
      }
      if (entry.models.length === 0) {
        assert.deepEqual(decoded.unread, []);
        assert.ok(decoded.holds.includes(entry.holds!), decoded.holds);
      } else {
        // The primary model is the one storing the most nodes.
        const size = (nodes: number[]) => nodes.reduce((a, b) => a + b, 0);
        const largest = Math.max(...entry.models.map((m) => size(m.nodes)));
        assert.equal(size(decoded.models[0].forest.trees.map((t) => t.left.length)), largest);
      }
    });
  }
});

describe('containers: the reader and the linter', () => {
  for (const entry of manifest) {
    it(entry.file, (t) => {
      const bytes = fs.readFileSync(path.join(DIR, entry.file));
      const read = readSklearn(bytes, entry.file);
      if (read.kind === 'unsafe') {
        // Tiered globals decide these (wrappers that name classes beyond the allowlist); the walk is checked above.
        t.diagnostic(`${entry.file}: unsafe (${read.globals.join(', ')})`);
        return;
      }
      if (entry.models.length === 0) {
        assert.equal(read.kind, 'no-model', JSON.stringify(read).slice(0, 200));
        const report = lintBytes(bytes, entry.file);
        assert.equal(report.model, null);
        assert.deepEqual(report.findings.map((f) => [f.rule, f.severity]), [['no-tree-model', 'information']]);
        assert.ok(report.findings[0].message.includes(entry.holds!), report.findings[0].message);
        return;
      }
      assert.equal(read.kind, 'model', JSON.stringify(read).slice(0, 200));
      if (read.kind !== 'model') return;
      const locations = [read.location ?? 'model', ...(read.others ?? []).map((o) => o.location)];
      assert.deepEqual(locations.sort(), entry.models.map((m) => m.location).sort());

      const report = lintBytes(bytes, entry.file);
      assert.ok(report.model);
      assert.equal(report.model.location, read.location ?? null);
      const embedded = (report.embedded ?? []).map((e) => e.location).sort();
      assert.deepEqual(embedded, (read.others ?? []).map((o) => o.location).sort());
      // Each further model gets its own fast findings, marked with where it sits.
      for (const location of embedded) {
        const own = report.findings.filter((f) => f.location.model === location);
        assert.ok(own.some((f) => f.rule === 'exact-counts'), `${entry.file}: no findings for ${location}`);
        // The first line stays the short one; where the model sits leads the detail.
        assert.ok(own.every((f) => detailOf(f.message).startsWith(`In ${location}`)), own.map((f) => f.message).join('\n'));
      }
      const own = report.findings.filter((f) => f.location.model === undefined && MODEL_RULE_IDS.has(f.rule));
      assert.ok(own.some((f) => f.rule === 'exact-counts'));
      // The primary model's findings say where it sits too, when it is not the file itself.
      if (read.location) assert.ok(own.every((f) => detailOf(f.message).startsWith(`In ${read.location} (`)), own.map((f) => f.message).join('\n'));
    });
  }
});

describe('containers: unknown globals in a file without a tree model are a note', () => {
  const unknownGlobals = [{ name: 'pandas.core.series.Series', called: true }];
  it('information beside no-tree-model, a warning beside a model, and a severity override wins', () => {
    const none: NoTreeModelRead = { kind: 'no-model', format: 'sklearn-pickle', holds: 'a pandas.core.series.Series', unread: [], notes: [], unknownGlobals };
    assert.deepEqual(unknownGlobalFindings(none, {}).map((f) => f.severity), ['information']);
    const model = { kind: 'model', format: 'sklearn-pickle', forest: { trees: [] }, notes: [], unknownGlobals } as unknown as ModelRead;
    assert.deepEqual(unknownGlobalFindings(model, {}).map((f) => f.severity), ['warning']);
    assert.deepEqual(unknownGlobalFindings(none, { 'unknown-pickle-global': 'error' }).map((f) => f.severity), ['error']);
  });
});
