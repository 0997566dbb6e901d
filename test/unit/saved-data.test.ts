/**
 * Data saved in pickles (formats/sklearn/saved-data.ts, rule `saved-data`), on files made by pandas
 * 1.5.3, numpy and joblib (test/fixtures/saved-data/generate.py): the training split as a
 * DataFrame, its labels as a Series, and arrays in a dict beside a forest, each found with the size
 * the data has; a model saved alone gets no such finding. Fitted estimators that keep training rows
 * as they are (formats/sklearn/stored-rows.ts): a KNNImputer, SMOTE's neighbours (imbalanced-learn
 * 0.10.0), a KNeighborsClassifier. Forests fitted with oob_score=True keep an out-of-bag prediction
 * per training row.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lintBytes, lintFile } from '../../server/src/linter/linter';
import { NdArray, stateDict, unpickle, type PyValue } from '../../server/src/formats/pickle';
import { decodeModel } from '../../server/src/formats/sklearn/decode';
import { savedDataFindings } from '../../server/src/rules';
import { summaryOf } from '../../server/src/rules/message';
import { FIXTURES } from '../support/paths';
import { APPEND, BUILD, EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE, MARK, NEWOBJ, NONE, PROTO, REDUCE, SETITEMS, STOP, TUPLE, TUPLE2, binint, binint1, global, pk, sbu } from '../support/pickle-bytes';

const DIR = join(FIXTURES, 'saved-data');
const tablesOf = async (file: string) => {
  const report = await lintFile(join(DIR, file));
  const finding = report.findings.find((f) => f.rule === 'saved-data');
  return { report, finding, tables: (finding?.data?.tables ?? []) as { location: string; kind: string; rows: number | null; columns: number | null }[] };
};

describe('saved-data', () => {
  it('X_train.pkl: a DataFrame of the 200 rows and 8 feature columns, a warning instead of "nothing here to analyse"', async () => {
    const { report, finding, tables } = await tablesOf('X_train.pkl');
    assert.equal(finding?.severity, 'warning');
    assert.deepEqual(tables, [{ location: 'model', kind: 'DataFrame', rows: 200, columns: 8 }]);
    assert.match(finding!.message, /^The file holds data \(a table of 200 rows\): keep data out of shared files\./);
    assert.ok(!report.findings.some((f) => f.rule === 'no-tree-model'), 'not "nothing here to analyse"');
    // pandas' own classes are no unknown globals.
    assert.ok(!report.findings.some((f) => f.rule === 'unknown-pickle-global'));
  });

  it('y_train.pkl: a Series of 200 labels', async () => {
    const { tables } = await tablesOf('y_train.pkl');
    assert.deepEqual(tables, [{ location: 'model', kind: 'Series', rows: 200, columns: null }]);
  });

  it('arrays beside a forest in a dict: the 200 x 8 array found where it sits, and the forest still analysed', async () => {
    const { report, tables } = await tablesOf('model_with_arrays.joblib');
    assert.deepEqual(tables, [{ location: 'model["X"]', kind: 'array', rows: 200, columns: 8 }]);
    assert.equal(report.model?.estimator, 'RandomForestClassifier');
    // The arrays are named as such, not by numpy's reconstructor (sweep 12: "a tuple of 2 (_reconstruct, a list)").
    assert.ok(report.notes.some((n) => n.includes('in a dict ("model": RandomForestClassifier, "X": a numpy array, "y": a numpy array)')), report.notes.join(' | '));
  });

  it('a model saved alone: its own arrays are parameters, not data', async () => {
    for (const file of [join(FIXTURES, 'sklearn', 'rf_compas.v14.joblib'), join(FIXTURES, 'pickle-tiers', 'hgb.joblib')]) {
      const report = await lintFile(file);
      assert.ok(!report.findings.some((f) => f.rule === 'saved-data'), file);
    }
  });

  it('a KNNImputer in front of a forest keeps all 200 rows: found by its Pipeline step, the forest still analysed', async () => {
    const { report, finding, tables } = await tablesOf('knn_imputer_forest.joblib');
    assert.deepEqual(tables, [{ location: 'model.named_steps["imp"]._fit_X', kind: 'fitted-rows', rows: 200, columns: 8, estimator: 'KNNImputer' }]);
    assert.match(finding!.message, /^A KNNImputer stores 200 training rows verbatim: use an imputer that keeps none\./);
    assert.equal(report.model?.estimator, 'RandomForestClassifier');
  });

  it("SMOTE's fitted neighbours keep the minority class's 75 rows", async () => {
    const { finding, tables } = await tablesOf('smote_forest.joblib');
    assert.deepEqual(tables, [{ location: 'model.named_steps["smote"].nn_k_._fit_X', kind: 'fitted-rows', rows: 75, columns: 8, estimator: 'NearestNeighbors' }]);
    assert.match(finding!.message, /^SMOTE's neighbours store 75 training rows verbatim: save the model without it\./);
  });

  it("SMOTENC's neighbours keep the minority rows as a sparse matrix: its shape is read too (sweep 12: 1,259 rows went unseen)", async () => {
    const { finding, tables } = await tablesOf('smotenc_forest.joblib');
    assert.equal(tables.length, 1);
    const [table] = tables as unknown as { location: string; rows: number; columns: number; estimator: string }[];
    assert.equal(table.location, 'model.named_steps["smote"].nn_k_._fit_X');
    assert.equal(table.estimator, 'NearestNeighbors');
    // 75 minority rows (as SMOTE's), the categorical column one-hot encoded: 7 numeric + 6 categories.
    assert.deepEqual([table.rows, table.columns], [75, 13]);
    assert.match(finding!.message, /^SMOTENC's neighbours store 75 training rows verbatim/);
  });

  it('a list of models: the headline counts the estimators and states the most rows one keeps (sweep 12: "A SVC stores 307" for a KNN\'s rows; sweep 13: the KNN alone named beside an SVC)', async () => {
    const { finding, tables } = await tablesOf('models_list.joblib');
    const kept = tables as unknown as { estimator: string; rows: number }[];
    assert.deepEqual(kept.map((t) => t.estimator), ['SVC', 'KNeighborsClassifier']);
    assert.ok(kept[0].rows < kept[1].rows, 'the SVC keeps fewer rows than the KNN (precondition)');
    assert.match(finding!.message, new RegExp(`^2 fitted estimators store training rows verbatim, up to ${kept[1].rows}: keep them private\\.`));
    // Both named in the detail, one after the other (no comma splice between them).
    assert.match(finding!.message, /a fitted SVC, which keeps [^;]*; a fitted KNeighborsClassifier, which keeps/);
  });

  it('"An SVC", "An SVR", "An XGBClassifier", "A KNeighborsRegressor": the article as the name is read aloud', () => {
    const lead = (estimator: string) => summaryOf(savedDataFindings({ savedData: [{ location: 'model', kind: 'fitted-rows', rows: 12, columns: 3, estimator, what: 'its support vectors', keeper: 'model' }] }, {})[0].message);
    assert.match(lead('SVC'), /^An SVC stores 12 training rows/);
    assert.match(lead('SVR'), /^An SVR stores/);
    assert.match(lead('XGBClassifier'), /^An XGBClassifier stores/);
    assert.match(lead('IsolationForest'), /^An IsolationForest stores/);
    assert.match(lead('KNeighborsRegressor'), /^A KNeighborsRegressor stores/);
    assert.match(lead('KNNImputer'), /^A KNNImputer stores/);
  });

  it("oob_score=True: the forest keeps each training row's out-of-bag prediction, found on the model itself", async () => {
    // Before: not mentioned (sweep 7's rf_oob_score_bc.pkl), though it is a label per training row.
    const classifier = await tablesOf('rf_oob_score.joblib');
    assert.deepEqual(classifier.tables, [{ location: 'model.oob_decision_function_', kind: 'row-outputs', rows: 200, columns: 2, estimator: 'RandomForestClassifier' }]);
    assert.match(classifier.finding!.message, /^The model stores a prediction for each training row: delete it before saving\.\n/);
    assert.match(classifier.finding!.message, /class probabilities of each training row, in training order/);
    assert.equal(classifier.report.model?.estimator, 'RandomForestClassifier');
    const regressor = await tablesOf('rf_regressor_oob_score.joblib');
    assert.deepEqual(regressor.tables, [{ location: 'model.oob_prediction_', kind: 'row-outputs', rows: 200, columns: null, estimator: 'RandomForestRegressor' }]);
    assert.match(regressor.finding!.message, /its target/);
    // Without oob_score, nothing of the kind (the forests of the other fixtures).
    const plain = await tablesOf('knn_imputer_forest.joblib');
    assert.ok(plain.tables.every((t) => t.kind !== 'row-outputs'));
  });

  it('a KNeighborsClassifier alone is its 200 rows: saved-data, and still "no tree model"', async () => {
    const { report, finding, tables } = await tablesOf('knn_classifier.joblib');
    assert.deepEqual(tables, [{ location: 'model._fit_X', kind: 'fitted-rows', rows: 200, columns: 8, estimator: 'KNeighborsClassifier' }]);
    assert.match(finding!.message, /keep it private/);
    const note = report.findings.find((f) => f.rule === 'no-tree-model');
    assert.ok(note);
    // Beside the saved rows the note speaks of counts only (it read "nothing here to analyse").
    assert.match(note.message, /no training counts to analyse/);
    assert.doesNotMatch(note.message, /nothing here/i);
  });
});

describe("saved-data: scikit-learn 1.9's _sample_weight (not in 1.2.1: added to a real forest's fitted state)", () => {
  it('the weight kept per training row is found on the model, with advice to delete it', () => {
    const graph = unpickle(readFileSync(join(FIXTURES, 'saved-data', 'rf_oob_score.joblib')), { joblib: true }).value!;
    // Its out-of-bag outputs aside: the weights alone.
    const state = stateDict(graph)!;
    state.set('oob_decision_function_', null);
    const weights = new NdArray<PyValue>({ kind: 'f', itemsize: 8, littleEndian: true, str: '<f8' }, [200], false, new Uint8Array(8 * 200), undefined);
    state.set('_sample_weight', weights);
    const decoded = decodeModel(graph);
    assert.deepEqual(
      decoded.storedRows.map((d) => [d.location, d.kind, d.rows]),
      [['model._sample_weight', 'row-outputs', 200]],
    );
    const [finding] = savedDataFindings({ savedData: decoded.storedRows }, {});
    assert.match(finding.message, /^The model stores a weight for each training row: delete it before saving\.\n/);
    assert.match(finding.message, /with class_weight, each weight is its row's class.*del model\._sample_weight/);
    assert.doesNotMatch(finding.message, /oob_score/);
  });
});

describe('saved-data: a DataFrame pickled by pandas before 1.1', () => {
  // Crafted, byte by byte (pandas 0.2x does not install here), as pandas 0.23 writes
  // `pd.DataFrame(X)` with protocol 2: NDFrame.__getstate__ names the manager `_data`, and the
  // manager is pandas.core.internals.BlockManager, rebuilt from the state (axes, values, items,
  // extra); both axes are RangeIndex objects. The block values are left empty: the reader never
  // looks at them. Sweep 17 found such files read "size not read", with an unknown-pickle-global.
  const rangeIndex = (stop: number) =>
    pk(global('pandas.core.indexes.base', '_new_Index'), global('pandas.core.indexes.range', 'RangeIndex'), EMPTY_DICT, MARK, sbu('name'), NONE, sbu('start'), binint1(0), sbu('stop'), binint(stop), sbu('step'), binint1(1), SETITEMS, TUPLE2, REDUCE);
  const manager = pk(global('pandas.core.internals', 'BlockManager'), EMPTY_TUPLE, NEWOBJ, MARK, EMPTY_LIST, rangeIndex(6), APPEND, rangeIndex(250), APPEND, EMPTY_LIST, EMPTY_LIST, EMPTY_DICT, TUPLE, BUILD);
  const frame = pk(PROTO(2), global('pandas.core.frame', 'DataFrame'), EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, MARK, sbu('_data'), manager, sbu('_typ'), sbu('dataframe'), sbu('_metadata'), EMPTY_LIST, SETITEMS, BUILD, STOP);

  it('its 250 rows and 6 columns are read, and its manager is no unknown global', () => {
    const report = lintBytes(frame, 'X_train_pandas023.pkl');
    const finding = report.findings.find((f) => f.rule === 'saved-data');
    assert.ok(finding, report.findings.map((f) => `${f.rule}: ${f.message}`).join('\n'));
    assert.deepEqual(finding.data?.tables, [{ location: 'model', kind: 'DataFrame', rows: 250, columns: 6 }]);
    assert.ok(!report.findings.some((f) => f.rule === 'unknown-pickle-global' || f.rule === 'unsafe-pickle'), report.findings.map((f) => f.rule).join(', '));
  });
});
