/**
 * A scaler saved beside a model in a list, dict or tuple is applied to the model's rows only when
 * it can have made them (server/src/formats/sklearn/beside-check.ts). Soundness sweep 15:
 * `[StandardScaler, tree fitted on the raw rows]` was read as a Pipeline, and 93 of 500 certified
 * rows held (the CLI's own check called it a bug of this tool).
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { besideScalerContradiction } from '../../server/src/formats/sklearn/beside-check';
import { certifiedCheckText } from '../../server/src/report/html/format';
import { FIXTURES, REPO_ROOT } from '../support/paths';

const DIR = join(FIXTURES, 'containers');
const CLI = join(REPO_ROOT, 'out', 'server', 'src', 'cli.js');

/** The CLI's report on a fixture, checked against the raw rows the user holds (generate.py's first 150 Pima rows). */
function checked(file: string) {
  const args = [CLI, join(DIR, file), '--budget', '5', '--format', 'json', '--fail-on', 'never', '--training-data', join(DIR, 'list_scaler_raw_tree.train.csv'), '--label', 'Outcome'];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  const report = JSON.parse(result.stdout).files[0];
  return { notes: (report.notes ?? []) as string[], certified: report.recoverability.certifiedRows as number, check: report.evaluation.certifiedCheck as { proven: number; held: number } };
}

describe('a scaler saved beside the model', () => {
  it('list_scaler_raw_tree (scikit-learn): a tree fitted on the raw rows beside a MinMaxScaler is read in its own units, every certified row held', () => {
    const { notes, certified, check } = checked('list_scaler_raw_tree.joblib');
    assert.ok(notes.some((n) => /the MinMaxScaler saved beside the model is not applied to its rows: the model splits \S+ at [\d.]+, outside the 0 to 1/.test(n)), notes.join(' | '));
    assert.ok(certified > 100, `${certified}`);
    assert.equal(check.held, check.proven, JSON.stringify(check));
  });

  it('tuple_pair (scikit-learn): a forest fitted on the raw rows beside a StandardScaler, the same', () => {
    const { notes, check } = checked('tuple_pair.joblib');
    assert.ok(notes.some((n) => /the StandardScaler saved beside the model is not applied/.test(n)), notes.join(' | '));
    assert.equal(check.held, check.proven, JSON.stringify(check));
  });

  it("dict_feature_names (scikit-learn): a forest fitted on the scaler's output keeps the scaler, and its certified rows hold in the raw units", () => {
    const { notes, check } = checked('dict_feature_names.joblib');
    assert.ok(!notes.some((n) => /not applied to its rows/.test(n)), notes.join(' | '));
    assert.ok(check.proven > 0);
    assert.equal(check.held, check.proven, JSON.stringify(check));
  });

  it('another object beside the model never contradicts', () => {
    const forest = { features: [{ name: 'x0' }], trees: [{ left: [1, -1, -1], right: [2, -1, -1], feature: [0, -2, -2], threshold: [1e6, -2, -2] }] } as never;
    assert.equal(besideScalerContradiction(forest, 'not a scaler' as never), undefined);
  });
});

describe('proofs checked against rows sent through the steps before the model', () => {
  it("rows in other units than the steps' input: the check says the steps' input was expected, not only a bug", () => {
    // dict_feature_names: a forest fitted on the scaler's output, the scaler beside it. Its rows
    // given a hundred times larger stand for a file of the wrong units (soundness sweep 15 gave the
    // scaled rows the model itself saw: "a bug of this tool", 95 of 500 held).
    const dir = mkdtempSync(join(tmpdir(), 'mpl-steps-'));
    try {
      const [header, ...lines] = readFileSync(join(DIR, 'list_scaler_raw_tree.train.csv'), 'utf8').trim().split('\n');
      const scaled = lines.map((line) => line.split(',').map((v, i, all) => (i < all.length - 1 ? String(Number(v) * 100) : v)).join(','));
      const csv = join(dir, 'wrong_units.csv');
      writeFileSync(csv, [header, ...scaled].join('\n') + '\n');
      const args = [CLI, join(DIR, 'dict_feature_names.joblib'), '--budget', '5', '--format', 'json', '--fail-on', 'never', '--training-data', csv, '--label', 'Outcome'];
      const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      const evaluation = JSON.parse(result.stdout).files[0].evaluation;
      assert.equal(evaluation.throughPipeline, true);
      assert.ok(evaluation.certifiedCheck.held < evaluation.certifiedCheck.proven, JSON.stringify(evaluation.certifiedCheck));
      assert.equal(evaluation.certifiedCheck.throughSteps, true);
      assert.match(certifiedCheckText(evaluation.certifiedCheck), /read as the input of the steps before the model and sent through them, so a file of the values the model itself saw fails so/);
      // Rows that do hold their proofs carry no such flag (the raw rows, above).
      assert.equal(checked('dict_feature_names.joblib').check.held, checked('dict_feature_names.joblib').check.proven);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
