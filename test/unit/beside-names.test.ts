/**
 * Feature names saved beside a model fitted on a bare array (`{"model": m, "scaler": s, "features":
 * [...]}`, the list often of numpy strings): they name the model's features, and the input of a
 * scaler or Pipeline in front of it, so findings say "Glucose > 162.5", not "x1 > 162.5" (sweep 7).
 * Fixtures: test/fixtures/containers/generate.py (scikit-learn 1.2.1, Pima).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readModel } from '../../server/src/formats';

const DIR = path.resolve(__dirname, '../../../test/fixtures/containers');
const PIMA = ['Pregnancies', 'Glucose', 'BloodPressure', 'SkinThickness', 'Insulin', 'BMI', 'DiabetesPedigreeFunction', 'Age'];
const read = (name: string) => {
  const r = readModel(fs.readFileSync(path.join(DIR, name)), name);
  if (r.kind !== 'model') throw new Error(`${name}: ${r.kind}`);
  return r;
};

describe('feature names saved beside the model', () => {
  it('a forest and its scaler beside a list of numpy strings: the forest\'s features and the scaler\'s input take the names', () => {
    const r = read('dict_feature_names.joblib');
    assert.deepEqual(r.forest.features.map((f) => f.name), PIMA);
    assert.deepEqual(r.forest.pipelineInput?.columns, PIMA);
    assert.ok(r.notes.some((n) => n.includes('saved beside the model under "features"')));
    assert.ok(r.notes.some((n) => n.includes('(Pregnancies, Glucose, BloodPressure, SkinThickness, ...)')), r.notes.join(' | '));
  });
  it('a Pipeline beside the list: its model inherits the names through the Pipeline', () => {
    const r = read('dict_bundle.joblib');
    assert.equal(r.location, 'model["model"].named_steps["rf"]');
    assert.deepEqual(r.forest.features.map((f) => f.name), PIMA);
  });
  it('a model that names its own features keeps them', () => {
    const r = read('pipeline_column_transformer.joblib');
    assert.ok(!r.notes.some((n) => n.includes('saved beside the model')));
  });
});
