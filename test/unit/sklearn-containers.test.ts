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
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { PyCall, PyDict, PyGlobal, PyList, PyObject, PyTuple, unpickle, type PyValue } from '../../server/src/formats/pickle';
import { decodeModel, describeHolding } from '../../server/src/formats/sklearn/decode';
import { readSklearn } from '../../server/src/formats/sklearn';
import { pythonFloat } from '../../server/src/formats/sklearn/decode-helpers';
import { alignTrainingData } from '../../server/src/evaluate/training-data';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { declaredGroupsFor } from '../../server/src/recoverability/declared-groups';
import { readTrainingRows } from '../support/reconstruction-truth';
import { lintBytes, lintFile } from '../../server/src/linter/linter';
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
  /** For a model after a Pipeline's transformers: scikit-learn's get_feature_names_out() of the steps before it. */
  input_names?: string[];
}

interface Entry {
  file: string;
  models: ExpectedModel[];
  holds?: string;
  /** Rows of training data the file saves (a bare array): a saved-data warning. */
  saved_rows?: number;
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
        // Named as scikit-learn names what the earlier steps output; elsewhere the model's own names.
        if (want.input_names) assert.deepEqual(got.forest.features.map((f) => f.name), want.input_names, want.location);
        else assert.ok(!got.notes.some((n) => /get_feature_names_out/.test(n)), `${want.location}: renamed though no step before it names its features`);
      }
      if (entry.models.length === 0) {
        assert.deepEqual(decoded.unread, []);
        assert.ok(decoded.holds.includes(entry.holds!), decoded.holds);
      } else {
        // The primary model is the one storing the most nodes, of those fitted on the data (a
        // stack's final estimator is fitted on its members' predictions).
        const size = (nodes: number[]) => nodes.reduce((a, b) => a + b, 0);
        const onData = entry.models.filter((m) => !m.location.endsWith('.final_estimator_'));
        const largest = Math.max(...(onData.length ? onData : entry.models).map((m) => size(m.nodes)));
        assert.equal(size(decoded.models[0].forest.trees.map((t) => t.left.length)), largest);
      }
    });
  }
});

describe('containers: scikit-learn 1.6+ FrozenEstimator (not in 1.2.1: its object built around a real stacking model)', () => {
  it("CalibratedClassifierCV(FrozenEstimator(stack)): the stack's models are found through the frozen estimator", () => {
    const stack = graph('stacking.joblib')!;
    // As scikit-learn 1.9 saves it: the fitted model is reached through calibrated_classifiers_[0].estimator.
    const expected = decodeModel(stack).models.map((m) => m.location.replace(/^model/, 'model.calibrated_classifiers_[0].estimator.estimator'));
    assert.ok(expected.length >= 2);
    const object = (module: string, name: string, state: [string, PyValue][]) => {
      const o = new PyObject(new PyGlobal(module, name), []);
      const dict = new PyDict();
      for (const [k, v] of state) dict.set(k, v);
      o.state = dict;
      return o;
    };
    const frozen = object('sklearn.frozen._frozen', 'FrozenEstimator', [['estimator', stack], ['_sklearn_version', '1.6.1']]);
    const member = object('sklearn.calibration', '_CalibratedClassifier', [['estimator', frozen], ['calibrators', new PyList([])], ['method', 'isotonic']]);
    const calibrated = object('sklearn.calibration', 'CalibratedClassifierCV', [['estimator', frozen], ['method', 'isotonic'], ['calibrated_classifiers_', new PyList([member])], ['_sklearn_version', '1.6.1']]);
    const found = decodeModel(calibrated).models.map((m) => m.location);
    assert.deepEqual(found.sort(), expected.sort());
    // A parameter that holds a fitted model is followed under the parameter's name (the user
    // fitted it before passing it on); one that holds a template never fitted is not.
    const other = object('sklearn.calibration', 'CalibratedClassifierCV', [['estimator', stack], ['_sklearn_version', '1.6.1']]);
    assert.deepEqual(
      decodeModel(other).models.map((m) => m.location).sort(),
      expected.map((at) => at.replace('model.calibrated_classifiers_[0].estimator.estimator', 'model.estimator')).sort(),
    );
    const template = object('sklearn.ensemble._forest', 'RandomForestClassifier', [['n_estimators', 3], ['max_depth', 3], ['_sklearn_version', '1.6.1']]);
    const unfitted = object('sklearn.calibration', 'CalibratedClassifierCV', [['estimator', template], ['_sklearn_version', '1.6.1']]);
    assert.deepEqual(decodeModel(unfitted).models, []);
  });
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
        // Training rows saved alone (an array of 40 rows, by joblib or by pickle): saved data, not a note.
        if (entry.saved_rows !== undefined) {
          assert.deepEqual(report.findings.map((f) => [f.rule, f.severity]), [['saved-data', 'warning']]);
          assert.match(report.findings[0].message, new RegExp(`\\b${entry.saved_rows} rows x`));
          assert.ok(read.kind === 'no-model' && read.holds.includes(entry.holds!), JSON.stringify(read).slice(0, 200));
          return;
        }
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
      // Each further model gets its own fast findings, marked with where it sits; with three or more
      // models a rule's findings are one, which names the others (alsoIn, and in its detail).
      const primaryPlace = read.location ?? 'model';
      const folded = (location: string) => report.findings.filter((f) => f.location.alsoIn?.includes(location));
      for (const location of embedded) {
        const own = report.findings.filter((f) => f.location.model === location);
        // (exact-counts for a forest; a gradient-boosted model's counts are first-tree-exposes-counts)
        const counts = (f: { rule: string }) => f.rule === 'exact-counts' || f.rule === 'first-tree-exposes-counts';
        assert.ok(own.some(counts) || folded(location).some(counts), `${entry.file}: no findings for ${location}`);
        // The first line stays the short one; where the model sits leads the detail.
        assert.ok(own.every((f) => detailOf(f.message).startsWith(`In ${location}`)), own.map((f) => f.message).join('\n'));
        for (const f of folded(location)) assert.ok(detailOf(f.message).includes(location) || /\bto \[\d+\]/.test(detailOf(f.message)), f.message);
      }
      const own = report.findings.filter((f) => f.location.model === undefined && MODEL_RULE_IDS.has(f.rule));
      assert.ok(own.some((f) => f.rule === 'exact-counts') || folded(primaryPlace).some((f) => f.rule === 'exact-counts'));
      // One finding a rule and model: a rule's findings name no model twice.
      for (const rule of MODEL_RULE_IDS) {
        const places = report.findings.filter((f) => f.rule === rule).flatMap((f) => [f.location.model ?? primaryPlace, ...(f.location.alsoIn ?? [])]);
        assert.equal(new Set(places).size, places.length, `${entry.file} ${rule}: ${places.join(', ')}`);
      }
      // The primary model's findings say where it sits too, when it is not the file itself.
      if (read.location) assert.ok(own.every((f) => detailOf(f.message).startsWith(`In ${read.location} (`)), own.map((f) => f.message).join('\n'));
      // With several models, the notes say why the deeper analyses run on this one (sweep 10: estimators_[11] of twelve, unexplained).
      const chosen = report.notes.filter((n) => /^the reconstruction and the report run on this one of the file's \d+ tree models: it stores the most nodes/.test(n));
      assert.equal(chosen.length, embedded.length > 0 ? 1 : 0, report.notes.join(' | '));
    });
  }
});

describe("containers: a Pipeline's model named by the steps before it", () => {
  it('covers a ColumnTransformer on a numpy array and one on a DataFrame with a nested imputing Pipeline', () => {
    const named = manifest.filter((e) => e.models.some((m) => m.input_names));
    assert.deepEqual(named.map((e) => e.file).sort(), [
      'pipeline_column_transformer.joblib',
      'pipeline_dataframe.joblib',
      'pipeline_multioutput.joblib',
      'pipeline_onehot_compas.joblib',
      'pipeline_onehot_compas_bootstrap.joblib',
      'pipeline_onehot_kbest.joblib',
      'pipeline_scaled_onehot.joblib',
      'pipeline_select_chain.joblib',
      'pipeline_select_from_boosting.joblib',
      'pipeline_select_from_forest.joblib',
      'pipeline_select_from_l1.joblib',
      'pipeline_select_kbest.joblib',
    ]);
  });

  it("a feature selector's kept columns name the forest; a one-hot group it cut short is at most one 1, no longer exactly one", () => {
    // Before: the forest after SelectKBest kept x0..x5 for 6 of 13 one-hot columns, and no group.
    const forest = decodeModel(graph('pipeline_onehot_kbest.joblib')).models[0].forest;
    const names = forest.features.map((f) => f.name);
    assert.ok(forest.features.every((f) => f.kind === 'binary'), names.join(' '));
    // priors_=0, priors_=1 and priors_>3 are left of the four priors columns (the rows of the
    // fourth have none of them): at most one is 1. age_>45 alone is no group.
    assert.deepEqual((forest.featureGroups ?? []).map((g) => [g.kind, g.features.map((i) => names[i])]), [['at-most-one', ['priors_=0', 'priors_=1', 'priors_>3']]]);
  });

  it('one-hot columns scaled by a later step are named but no longer 0/1', () => {
    const forest = decodeModel(graph('pipeline_scaled_onehot.joblib')).models[0].forest;
    assert.ok(forest.features.some((f) => /^cat__x0_/.test(f.name)));
    assert.ok(forest.features.every((f) => f.kind !== 'binary'), forest.features.map((f) => `${f.name}:${f.kind}`).join(' '));
  });

  it("one-hot columns are binary features, the rest keep their kind; the note says where the names come from; findings name the Pipeline's input columns", () => {
    const file = 'pipeline_dataframe.joblib';
    const decoded = decodeModel(graph(file));
    const forest = decoded.models[0].forest;
    const names = forest.features.map((f) => f.name);
    forest.features.forEach((f) => assert.equal(f.kind === 'binary', /^cat__Pregnancies_/.test(f.name), f.name));
    assert.ok(decoded.models[0].notes.some((n) => /get_feature_names_out\(\) gives them \(num__Glucose, num__Insulin, num__SkinThickness, \.\.\.\); 13 one-hot columns/.test(n)), decoded.models[0].notes.join(' | '));
    const report = lintBytes(fs.readFileSync(path.join(DIR, file)), file);
    const tested = report.findings.map((f) => f.message).join('\n');
    // The Pipeline's own columns in their own units (forest/pipeline-conditions.ts), not num__Insulin in standard deviations.
    assert.ok(names.length > 0);
    assert.match(tested, /\b(Glucose|Insulin|SkinThickness|BMI|Pregnancies)\b/);
    assert.doesNotMatch(tested, /\b(num|cat)__/);
    assert.doesNotMatch(tested, /\bx\d+ (<=|>)/);
  });

  it('a CSV of the earlier steps\' output still matches by name, or by position under other headers', async () => {
    const forest = (await lintFile(path.join(DIR, 'pipeline_dataframe.joblib'), { keepForest: true })).forest!;
    assert.equal(forest.featureNamesFrom, 'pipeline');
    const names = forest.features.map((f) => f.name);
    const row = names.map((_, i) => String(i % 2));
    const byName = alignTrainingData({ path: 'named.csv', header: [...names, 'y'], labelColumn: 'y', rows: [[...row, '1']] }, forest);
    assert.ok(byName.ok && byName.aligned.matchedBy === 'name');
    const numbered = names.map((_, i) => `column ${i}`);
    const byPosition = alignTrainingData({ path: 'numbered.csv', header: [...numbered, 'y'], labelColumn: 'y', rows: [[...row, '1']] }, forest);
    assert.ok(byPosition.ok && byPosition.aligned.matchedBy === 'position', byPosition.ok ? '' : byPosition.problem);
  });

  it("a OneHotEncoder's columns per input are groups the file proves; the reconstruction keeps them and stays sound", async () => {
    const file = path.join(DIR, 'pipeline_onehot_compas.joblib');
    const forest = (await lintFile(file, { keepForest: true })).forest!;
    const names = forest.features.map((f) => f.name);
    // One group per input, exactly one 1 in each (OneHotEncoder's defaults: nothing dropped, unknown refused).
    const groups = forest.featureGroups ?? [];
    assert.deepEqual(groups.map((g) => [g.kind, g.features.map((i) => names[i].split('_')[0])]), [
      ['one-hot', ['sex', 'sex']],
      ['one-hot', ['age', 'age', 'age', 'age', 'age']],
      ['one-hot', ['juvenile-felonies', 'juvenile-felonies']],
      ['one-hot', ['priors', 'priors', 'priors', 'priors']],
      ['one-hot', ['current-charge-degree', 'current-charge-degree']],
    ]);
    const truth = readTrainingRows(path.join(DIR, 'pipeline_onehot_compas.train.csv'));
    assert.deepEqual(truth.header.slice(0, -1), names);
    for (const row of truth.rows) for (const g of groups) assert.equal(g.features.reduce((sum, i) => sum + row.values[i], 0), 1);
    // The engine gets them as it gets declared groups, named as from the model.
    const declared = await declaredGroupsFor(file, forest);
    assert.equal(declared.groups.length, groups.length);
    assert.deepEqual(declared.sources, ["the model's Pipeline (OneHotEncoder)"]);
    const withGroups = await reconstruct(forest, { budgetMs: 10_000, groups: declared.groups });
    const without = await reconstruct(forest, { budgetMs: 10_000 });
    for (const row of withGroups.reconstruction) for (const g of groups) assert.ok(g.features.reduce((sum, i) => sum + (row.values[i] ?? 0), 0) <= 1, 'a reconstructed row breaks a one-hot group');
    // Certified rows are true rows: per certified pattern (a value left open matches any), no more
    // rows than the training rows that fit it, with the label.
    const patterns = new Map<string, { values: (number | null)[]; label: number; count: number }>();
    for (const row of withGroups.reconstruction.filter((r) => r.certified)) {
      const key = `${row.values.join(',')}|${String(row.label)}`;
      const entry = patterns.get(key) ?? { values: row.values, label: row.label as number, count: 0 };
      entry.count++;
      patterns.set(key, entry);
    }
    assert.ok(patterns.size > 0, 'nothing certified');
    for (const [key, { values, label, count }] of patterns) {
      const fitting = truth.rows.filter((t) => t.label === label && values.every((v, i) => v === null || v === t.values[i])).length;
      assert.ok(fitting >= count, `${count} rows certified as ${key}; ${fitting} training rows fit it`);
    }
    assert.ok(withGroups.certifiedRows >= without.certifiedRows, `${withGroups.certifiedRows} certified with the groups, ${without.certifiedRows} without`);
  });

  it('with bootstrap, a budget that runs out before the solve still answers what single-class leaves prove', async () => {
    // Out of time while enumerating candidates (0.1 s) or after propagation (0.4 s) the answer was
    // 0 certified rows; the box estimate, walking no row once out of time, certifies its leaves'.
    const file = path.join(DIR, 'pipeline_onehot_compas_bootstrap.joblib');
    const forest = (await lintFile(file, { keepForest: true })).forest!;
    const declared = await declaredGroupsFor(file, forest);
    for (const budgetMs of [100, 400]) {
      const started = Date.now();
      const r = await reconstruct(forest, { budgetMs, groups: declared.groups });
      assert.equal(r.method, 'box-estimate', `${budgetMs} ms: ${r.reason}`);
      assert.ok(r.certifiedRows > 0, `${budgetMs} ms: ${r.reason}`);
      assert.match(r.reason ?? '', /^replayed draws: /);
      // Past the deadline by the estimate's listing only (generous: a loaded machine).
      assert.ok(Date.now() - started < budgetMs + 3_000, `${Date.now() - started} ms on ${budgetMs} ms`);
    }
  });

  it('with bootstrap, an integer solve that finds nothing in its share of the budget leaves time for the box estimate', async () => {
    const file = path.join(DIR, 'pipeline_onehot_compas_bootstrap.joblib');
    const forest = (await lintFile(file, { keepForest: true })).forest!;
    const declared = await declaredGroupsFor(file, forest);
    assert.equal(declared.groups.length, 5);
    // 1.55 s: too little to start the solver on its 1.6M entries (at the guard's 1 s a million) at
    // any point, so the fallback runs on any machine, yet three times what reading and propagation
    // take here (at 1 s a loaded machine ran out during the propagation). With 8 s a time-limited
    // solve usually found nothing, but once in a while (a clean-clone CI run) HiGHS found an
    // incumbent, and the premise did not hold.
    const r = await reconstruct(forest, { budgetMs: 1_550, groups: declared.groups });
    assert.equal(r.method, 'box-estimate', r.reason);
    // (Either reason: the solve did not start, or started and found nothing.)
    assert.match(r.reason ?? '', /^replayed draws: .*(the integer solve found no training set in its share of the time left|too little (to start the solver|for an integer solve)).*, and propagation proved no row/);
    assert.ok(r.certifiedRows > 0, r.reason);
    // Each certified box holds at least as many training rows of its label as it certifies.
    const truth = readTrainingRows(path.join(DIR, 'pipeline_onehot_compas_bootstrap.train.csv')).rows;
    const boxes = new Map<string, { row: (typeof r.reconstruction)[number]; count: number }>();
    for (const row of r.reconstruction.filter((x) => x.certified)) {
      const key = `${JSON.stringify(row.intervals)}|${String(row.label)}`;
      boxes.set(key, { row, count: (boxes.get(key)?.count ?? 0) + 1 });
    }
    for (const [key, { row, count }] of boxes) {
      assert.ok(row.intervals, 'a certified box-estimate row carries its box');
      const fitting = truth.filter((t) => t.label === row.label && row.intervals!.every((iv, f) => !iv || (t.values[f] > iv[0] && t.values[f] <= iv[1]))).length;
      assert.ok(fitting >= count, `${count} rows certified in ${key}; ${fitting} training rows lie there`);
    }
  });

  it('hostile step graphs end, the forest read and numbered as before: a transformer that is its own part, one shared ten times a level for eight levels', () => {
    for (const file of ['pipeline_cyclic_transformer.joblib', 'pipeline_shared_transformers.joblib']) {
      const [model] = decodeModel(graph(file)).models;
      assert.deepEqual(model.forest.features.map((f) => f.name), ['x0', 'x1', 'x2'], file);
    }
  });

  it('names places and dict entries under keys that are not strings as Python writes them (sweep 12: `model[…]`, "[object Object]")', () => {
    const report = lintBytes(fs.readFileSync(path.join(DIR, 'dict_float_keys.joblib')), 'dict_float_keys.joblib');
    const places = [report.model?.location, ...(report.embedded ?? []).map((e) => e.location)].sort();
    assert.deepEqual(places, ['model[("rf", 2)]', 'model[0.15]', 'model[0.5]']);
    const where = report.notes.find((n) => n.startsWith('the model analysed is'));
    assert.match(where ?? '', /in a dict \(0\.15: GradientBoostingRegressor, 0\.5: GradientBoostingRegressor, \("rf", 2\): RandomForestClassifier\)/);
  });

  it("analyses a stack's member rather than its final estimator, whose features are named by the members it reads (sweep 12)", () => {
    const bytes = fs.readFileSync(path.join(DIR, 'stacking_final_forest.joblib'));
    const read = readSklearn(bytes, 'stacking_final_forest.joblib');
    assert.equal(read.kind, 'model');
    if (read.kind !== 'model') return;
    // The final forest stores the most nodes, but is fitted on the members' predictions.
    assert.equal(read.location, 'model.named_estimators_["et"]');
    assert.ok(read.notes.some((n) => /of those fitted on the data, .*final estimator, fitted on their predictions, is not/.test(n)), read.notes.join(' | '));
    const final = read.others?.find((o) => o.location === 'model.final_estimator_');
    assert.ok(final);
    // Three classes, two members, predict_proba: one column per member and class.
    assert.deepEqual(final.forest.features.map((f) => f.name), ['dt[0]', 'dt[1]', 'dt[2]', 'et[0]', 'et[1]', 'et[2]']);
    assert.ok(final.notes.some((n) => /predictions of the stack's estimators \(dt, et\)/.test(n)), final.notes.join(' | '));
  });

  it("passes over mlxtend's meta learner too (meta_regr_, meta_clf_; mlxtend is not in Debian: its object built around a real stack's models, sweep 19)", () => {
    const stack = graph('stacking_final_forest.joblib') as PyObject;
    const state = stack.state as PyDict;
    const members = state.get('estimators_')!;
    const meta = state.get('final_estimator_')!;
    for (const [name, field] of [['StackingCVRegressor', 'meta_regr_'], ['StackingCVClassifier', 'meta_clf_']]) {
      const o = new PyObject(new PyGlobal('mlxtend.regressor.stacking_cv_regression', name), []);
      const dict = new PyDict();
      dict.set('regr_', members);
      dict.set(field, meta);
      o.state = dict;
      const decoded = decodeModel(o);
      assert.ok(decoded.models.some((m) => m.location === `model.${field}`), `${name}: the meta learner is still read`);
      // The meta forest stores the most nodes; the primary is a member fitted on the data.
      assert.match(decoded.models[0].location, /^model\.regr_\[\d\]$/, name);
    }
  });

  it("writes categories as Python's str() does", () => {
    assert.deepEqual([1, 0.5, 13, 1e-5, 0.0001, 1e16, -2.5, 123456].map(pythonFloat), ['1.0', '0.5', '13.0', '1e-05', '0.0001', '1e+16', '-2.5', '123456.0']);
  });
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

describe('containers: where the model sits, in the notes', () => {
  it("a Pipeline step after other steps is said to see their output; the one step of a Pipeline is not (sweep 16)", () => {
    const noteOf = (file: string) => {
      const read = readSklearn(fs.readFileSync(path.join(DIR, file)), file);
      assert.equal(read.kind, 'model');
      return (read.kind === 'model' ? read.notes : []).find((n) => /the model analysed is/.test(n)) ?? '';
    };
    assert.match(noteOf('one_step_pipeline.joblib'), /the model analysed is model\.named_steps\["dt"\] in a Pipeline \(DecisionTreeClassifier\)$/);
    assert.match(noteOf('pipeline_column_transformer.joblib'), /in a Pipeline \(ColumnTransformer -> RandomForestClassifier\); it sees the output of the Pipeline's earlier steps/);
  });
  it("a ClassifierChain's later link names the earlier outputs' labels it was fitted on, and says so (sweep 16)", () => {
    const file = 'classifier_chain.joblib';
    const read = readSklearn(fs.readFileSync(path.join(DIR, file)), file);
    assert.equal(read.kind, 'model');
    if (read.kind !== 'model') return;
    const link = [read, ...(read.others ?? [])].find((m) => m.location === 'model.estimators_[1]');
    assert.ok(link, 'the second link is read');
    assert.deepEqual(link.forest.features.map((f) => f.name), [...Array.from({ length: 8 }, (_, i) => `x${i}`), 'y[1]']);
    assert.ok(link.notes.some((n) => /^link 2 of a classifier or regressor chain: besides the chain's 8 input columns .* \(y\[1\]\)/.test(n)), link.notes.join(' | '));
    const first = [read, ...(read.others ?? [])].find((m) => m.location === 'model.estimators_[0]');
    assert.ok(first && !first.notes.some((n) => /chain/.test(n)));
  });
  it('an object a function rebuilt is not "an instance of" the function; a Keras model says so (sweep 16)', () => {
    const called = (module: string, name: string) => new PyCall(new PyGlobal(module, name), new PyTuple([]));
    assert.equal(describeHolding(called('keras.src.saving.pickle_utils', 'deserialize_model_from_bytecode')), 'a Keras model (rebuilt by keras.src.saving.pickle_utils.deserialize_model_from_bytecode)');
    assert.equal(describeHolding(called('mylib.io', 'load_thing')), 'an object rebuilt by calling mylib.io.load_thing');
    assert.equal(describeHolding(new PyObject(new PyGlobal('sklearn.cluster._kmeans', 'KMeans'), [])), 'an instance of sklearn.cluster._kmeans.KMeans');
  });
});

describe('containers: a TransformedTargetRegressor\'s reconstructed targets in the CSV', () => {
  const cli = path.resolve(__dirname, '../../../dist/cli.js');
  const emitted = (name: string) => {
    const out = path.join(fs.mkdtempSync(path.join(tmpdir(), 'mpl-ttr-')), 'rows.csv');
    execFileSync(process.execPath, [cli, path.join(DIR, `${name}.joblib`), '--budget', '5', '--emit-reconstruction', out, '--fail-on', 'never'], { encoding: 'utf8' });
    const [header, ...rows] = fs.readFileSync(out, 'utf8').trim().split('\n').map((line) => line.split(','));
    return { header, rows };
  };
  const trueTargets = (name: string) => {
    const [, ...rows] = fs.readFileSync(path.join(DIR, `${name}.candidates.csv`), 'utf8').trim().split('\n').map((line) => line.split(','));
    return new Set(rows.filter((row) => row[row.length - 1] === '1').map((row) => Number(row[row.length - 2])));
  };
  it('log1p: certified targets written back in y\'s scale (expm1), each a true training target', () => {
    // Soundness sweep 16: written as log1p(y) under the column of y.
    const { header, rows } = emitted('transformed_target_tree');
    const label = header.length - 2;
    assert.equal(header[label], 'label');
    const truth = trueTargets('transformed_target_tree');
    const certified = rows.filter((row) => row[row.length - 1] === 'true');
    assert.ok(certified.length > 0);
    for (const row of certified) assert.ok([...truth].some((y) => Math.abs(y - Number(row[label])) < 1e-9 * Math.max(1, y)), `target ${row[label]} is no training target`);
  });
  it('a StandardScaler on the target: written as the trees hold it, under a column that says so', () => {
    const { header } = emitted('transformed_target_scaled');
    assert.equal(header[header.length - 2], 'label [as transformed by StandardScaler]');
  });
});

describe('containers: which model the reconstruction is about (sweep 9: a dict of four forests)', () => {
  it("the finding names the model's place, and the text's recoverability line names it when the file holds several", () => {
    const cli = path.resolve(__dirname, '../../../dist/cli.js');
    const out = execFileSync(process.execPath, [cli, path.join(DIR, 'stacking.joblib'), '--budget', '3', '--fail-on', 'never'], { encoding: 'utf8' });
    assert.match(out, /reconstructable-training-set[^\n]*\n\s+In model\.named_estimators_\["rf"\] \(RandomForestClassifier\): /);
    assert.match(out, /recoverability of model\.named_estimators_\["rf"\]: /);
    // One model at its root: neither.
    const single = execFileSync(process.execPath, [cli, path.join(DIR, '..', 'estimators', 'rf_reg.joblib'), '--budget', '3', '--fail-on', 'never'], { encoding: 'utf8' });
    assert.match(single, /\n {2}recoverability: /);
    assert.doesNotMatch(single, /recoverability of|\bIn model/);
  });
});
