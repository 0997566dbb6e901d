/**
 * A CSV of a Pipeline's own input (the raw data `pipeline.fit` was given: strings, empty cells,
 * unscaled numbers) lined up with the forest at its end through the steps' fitted operations
 * (test/fixtures/pipeline-inputs, written by generate.py with scikit-learn 1.2.1 and pandas 1.5.3).
 * The values must be exactly those `pipeline[:-1].transform` gave there, which the fixtures hold.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parseCsv } from '../../server/src/util/csv';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { alignTrainingData, readTrainingData, type TrainingData } from '../../server/src/evaluate/training-data';
import { conditionsOnInput, type ColumnCondition } from '../../server/src/forest/pipeline-conditions';
import { PipelineInputSchema, type Category } from '../../server/src/forest/pipeline-input';
import { forEachLeaf, leafOf, pathBox } from '../../server/src/forest/structure';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES, REPO_ROOT } from '../support/paths';
import { firstUnmatched, maximumMatching } from '../support/bipartite-matching';
import { containsRow } from '../support/numeric-truth';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { summarizeReconstruction } from '../../server/src/recoverability/summary';
import { reconstructionFindings } from '../../server/src/rules';
import { DEFAULT_THRESHOLDS } from '../../server/src/rules/reconstructable-training-set';
import { declaredGroupsFor } from '../../server/src/recoverability/declared-groups';
import { seqItems, stateDict, unpickle } from '../../server/src/formats/pickle';
import { pipelineFeatures } from '../../server/src/formats/sklearn/pipeline-features';

const DIR = join(FIXTURES, 'pipeline-inputs');
const CLI = join(REPO_ROOT, 'out', 'server', 'src', 'cli.js');

interface Expected {
  features: string[];
  rows: number[][];
}

async function forestOf(name: string): Promise<Forest> {
  return (await lintFile(join(DIR, `${name}.joblib`), { keepForest: true })).forest!;
}

function expected(name: string): Expected {
  return JSON.parse(readFileSync(join(DIR, `${name}.expected.json`), 'utf8')) as Expected;
}

/** Every value as scikit-learn computed it, to the last bit. */
function assertSameValues(actual: readonly (readonly (number | null)[])[], want: Expected): void {
  assert.equal(actual.length, want.rows.length);
  for (let r = 0; r < want.rows.length; r++) {
    for (let f = 0; f < want.features.length; f++) {
      assert.ok(Object.is(actual[r][f], want.rows[r][f]), `row ${r + 1}, ${want.features[f]}: ${actual[r][f]} against scikit-learn's ${want.rows[r][f]}`);
    }
  }
}

describe("a CSV of the Pipeline's input", () => {
  for (const [name, csv, label, matchedBy] of [
    ['stroke_pipeline', 'stroke_pipeline.train.csv', 'stroke', 'name'],
    ['stroke_infrequent', 'stroke_pipeline.train.csv', 'stroke', 'name'],
    ['stroke_smote', 'stroke_pipeline.train.csv', 'stroke', 'name'],
    ['stroke_selector', 'stroke_pipeline.train.csv', 'stroke', 'name'],
    ['stroke_bundle', 'stroke_pipeline.train.csv', 'stroke', 'name'],
    ['pima_scalers', 'pima_scalers.train.csv', 'Outcome', 'position'],
    ['pima_scaled', 'pima_scalers.train.csv', 'Outcome', 'position'],
    ['pima_identity', 'pima_scalers.train.csv', 'Outcome', 'position'],
  ] as const) {
    it(`${name}: the raw rows become exactly the values pipeline[:-1].transform gives`, async () => {
      const forest = await forestOf(name);
      const want = expected(name);
      assert.ok(forest.pipelineInput, 'the reader recorded how the features are computed');
      // pima_scaled: a scaler alone keeps x0.. (as scikit-learn names them); the others are renamed.
      assert.deepEqual(forest.features.map((f) => f.name), want.features);
      const data = await readTrainingData(join(DIR, csv), label);
      const fit = alignTrainingData(data, forest);
      assert.ok(fit.ok, fit.ok ? '' : fit.problem);
      assert.equal(fit.aligned.matchedBy, matchedBy);
      assert.equal(fit.aligned.throughPipeline, true);
      assertSameValues(fit.aligned.rows.map((row) => row.values), want);
    });
  }

  for (const name of ['stroke_pipeline', 'stroke_infrequent']) {
    it(`${name}: certified rows, with the encoder's groups, each hold a distinct training row (the raw CSV as the truth)`, async () => {
      const file = join(DIR, `${name}.joblib`);
      const forest = await forestOf(name);
      assert.ok((forest.featureGroups ?? []).length >= 2, 'the one-hot groups are read');
      const fit = alignTrainingData(await readTrainingData(join(DIR, 'stroke_pipeline.train.csv'), 'stroke'), forest);
      assert.ok(fit.ok);
      // The trees compare float32 values.
      const truth = fit.aligned.rows.map((row) => ({ values: row.values.map((v) => Math.fround(v as number)), label: row.label as number }));
      const declared = await declaredGroupsFor(file, forest);
      const result = await reconstruct(forest, { budgetMs: 5_000, groups: declared.groups });
      const certified = result.reconstruction.filter((row) => row.certified);
      assert.ok(certified.length > 0, 'nothing certified');
      const matching = maximumMatching(certified.map((row) => truth.flatMap((t, i) => (containsRow(row, t) ? [i] : []))), truth.length);
      assert.equal(matching.size, certified.length, `certified row ${firstUnmatched(matching)} has no training row of its own`);
    });
  }

  it("--emit-reconstruction writes a Pipeline's rows in its input columns; every certified row's bounds and categories hold a distinct training row", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mpl-pipeline-emit-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const out = join(dir, 'rows.csv');
    const train = join(DIR, 'stroke_pipeline.train.csv');
    const run = spawnSync(process.execPath, [CLI, join(DIR, 'stroke_pipeline.joblib'), '--training-data', train, '--label', 'stroke', '--emit-reconstruction', out, '--budget', '5', '--fail-on', 'never'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    const forest = await forestOf('stroke_pipeline');
    const input = forest.pipelineInput!;
    const [header, ...rows] = parseCsv(readFileSync(out, 'utf8'));
    const truth = await readTrainingData(train, 'stroke');
    // The Pipeline's columns (the id too, never read, so empty), each numeric one with its bounds.
    assert.deepEqual(header.filter((h) => !h.includes('.')), [...input.columns, 'stroke', 'certified']);
    for (const name of ['age', 'bmi', 'avg_glucose_level']) for (const end of ['low', 'high']) assert.ok(header.includes(`${name}.${end}`));
    for (const name of ['gender', 'work_type', 'smoking_status']) assert.ok(header.includes(`${name}.categories`));
    assert.ok(rows.some((row) => /^[A-Za-z]/.test(row[header.indexOf('gender')])), 'categories are written as text');
    // A missing true value passes where the column's imputer fills it with a value inside the bounds.
    const fills = new Map(input.features.flatMap((f) => f.ops.flatMap((op) => (op.op === 'impute' && typeof op.value === 'number' ? [[input.columns[f.input], op.value] as const] : []))));
    const holds = (claim: string[], trueRow: string[]) =>
      claim[header.indexOf('stroke')] === trueRow[truth.header.indexOf('stroke')] &&
      input.columns.every((name) => {
        const text = trueRow[truth.header.indexOf(name)].trim();
        const missing = text === '' || text === 'N/A';
        const low = header.includes(`${name}.low`) ? claim[header.indexOf(`${name}.low`)] : '';
        const high = header.includes(`${name}.high`) ? claim[header.indexOf(`${name}.high`)] : '';
        const value = missing ? fills.get(name) : Number(text);
        if ((low !== '' || high !== '') && value === undefined) return false;
        if (low !== '' && !(value! > Number(low))) return false;
        if (high !== '' && !(value! <= Number(high))) return false;
        const allowed = header.includes(`${name}.categories`) ? claim[header.indexOf(`${name}.categories`)] : '';
        return allowed === '' || allowed.split('|').includes(text);
      });
    const certified = rows.filter((row) => row[header.indexOf('certified')] === 'true');
    assert.ok(certified.length > 100, `${certified.length} certified`);
    const matching = maximumMatching(certified.map((claim) => truth.rows.flatMap((row, i) => (holds(claim, row) ? [i] : []))), truth.rows.length);
    assert.equal(matching.size, certified.length, `certified row ${firstUnmatched(matching)}: ${certified[firstUnmatched(matching)]?.join(',')} holds no training row of its own`);
  });

  it('an imbalanced-learn Pipeline: pandas Index columns and SMOTE are followed, read without a warning, and the one-hot columns are not trusted as 0/1', async () => {
    const report = await lintFile(join(DIR, 'stroke_smote.joblib'), { keepForest: true });
    const forest = report.forest!;
    // Named through the ColumnTransformer whose columns are pandas Index objects (they used to give x0..).
    assert.ok(forest.features.some((f) => f.name === 'cat__gender_Male'), forest.features.map((f) => f.name).join(' '));
    // pandas' Index reconstruction and imblearn's classes are allowed globals.
    assert.ok(!report.findings.some((f) => f.rule === 'unknown-pickle-global' || f.rule === 'unsafe-pickle'), report.findings.map((f) => f.rule).join(' '));
    // SMOTE interpolated between rows: neither 0/1 columns nor one-hot groups are claimed.
    assert.equal(forest.featureGroups, undefined);
    assert.ok(forest.features.every((f) => f.kind !== 'binary'));
    assert.ok(report.notes.some((n) => /resamples the rows before the model \(SMOTE\)/.test(n)), report.notes.join(' | '));
    // And the finding that counts its rows says so (sweep 19: only a JSON note did).
    assert.deepEqual(forest.training.resampledBy, ['SMOTE']);
    const result = await reconstruct(forest, { budgetMs: 3_000 });
    const [finding] = reconstructionFindings(forest, summarizeReconstruction(forest, result, { declared: 0, sources: [], problems: [] }), DEFAULT_THRESHOLDS, {});
    assert.match(finding.message, /The Pipeline resamples the rows before the model \(SMOTE\): these are the rows it was fitted on, so they include the synthetic rows/);
  });

  it('notes say why: a step the reader does not follow (PCA), and XGBoost behind a sparse one-hot matrix', async () => {
    const pca = await lintFile(join(DIR, 'pima_pca.joblib'), { keepForest: true });
    assert.ok(pca.notes.some((n) => /feature names stay numbered: .*its step PCA is not one the reader follows/.test(n)), pca.notes.join(' | '));
    assert.equal(pca.forest!.pipelineInput, undefined);
    const sparse = await lintFile(join(DIR, 'stroke_xgb_sparse.joblib'), { keepForest: true });
    // Named as scikit-learn names them, but zeros reached XGBoost as missing values: no raw input.
    assert.deepEqual(sparse.forest!.features.map((f) => f.name), expected('stroke_xgb_sparse').features);
    assert.equal(sparse.forest!.pipelineInput, undefined);
    assert.ok(sparse.notes.some((n) => /sparse matrix, whose absent entries XGBoost reads as missing values/.test(n)), sparse.notes.join(' | '));
    assert.ok(!sparse.notes.some((n) => n.startsWith("a CSV of the Pipeline's own input")));
  });

  it('a preprocessor saved beside the model in a dict is followed only when its width fits the model', async () => {
    const bundle = await lintFile(join(DIR, 'stroke_bundle.joblib'), { keepForest: true });
    assert.ok(bundle.notes.some((n) => /feature names from the ColumnTransformer saved beside it/.test(n)), bundle.notes.join(' | '));
    assert.ok(bundle.notes.some((n) => /a CSV of the input of the ColumnTransformer saved beside the model/.test(n)), bundle.notes.join(' | '));
    const mismatch = await lintFile(join(DIR, 'pima_bundle_mismatch.joblib'), { keepForest: true });
    assert.equal(mismatch.forest!.pipelineInput, undefined);
    assert.ok(mismatch.forest!.features.every((f, i) => f.name === `x${i}`));
    assert.ok(!mismatch.notes.some((n) => /saved beside|stay numbered/.test(n)), mismatch.notes.join(' | '));
  });

  it('FunctionTransformer: the identity is followed, a function (np.log1p) named but not computed', async () => {
    const log1p = await lintFile(join(DIR, 'pima_log1p.joblib'), { keepForest: true });
    assert.deepEqual(log1p.forest!.features.map((f) => f.name), ['log__x3', 'log__x4']);
    assert.equal(log1p.forest!.pipelineInput, undefined);
    assert.ok(log1p.notes.some((n) => /the Pipeline's FunctionTransformer is named but its computation is not followed/.test(n)), log1p.notes.join(' | '));
  });

  it('never-fitted estimators: templates beside a fitted model are not reported, a file of them alone says so', async () => {
    const search = await lintFile(join(DIR, 'pima_search_templates.joblib'), { keepForest: true });
    assert.ok(search.forest, 'the best estimator is read');
    const rules = search.findings.map((f) => f.rule);
    assert.ok(!rules.includes('unsupported-model'), 'the grid\'s templates are not unread models');
    assert.ok(!rules.includes('unknown-pickle-global'), 'make_scorer(f1_score) names an allowed metric');
    const unfitted = await lintFile(join(DIR, 'pima_unfitted.joblib'));
    const note = unfitted.findings.find((f) => f.rule === 'unsupported-model');
    assert.ok(note && /never fitted: no trees, nothing to analyse/.test(note.message), unfitted.findings.map((f) => f.message).join(' | '));
  });

  it('a model saved beside pandas objects (a DataFrame with a categorical column, a Series): read, and pandas\' containers raise no unknown-pickle-global', async () => {
    const report = await lintFile(join(DIR, 'pima_frame.joblib'), { keepForest: true });
    assert.equal(report.forest?.trees.length, 3);
    const unknown = report.findings.filter((f) => f.rule === 'unknown-pickle-global');
    assert.equal(unknown.length, 0, unknown.map((f) => f.message).join(' | '));
    assert.ok(!report.findings.some((f) => f.rule === 'unsafe-pickle'));
  });

  it('DictVectorizer: named from its feature_names_ as scikit-learn names them, never computed from a CSV', async () => {
    const report = await lintFile(join(DIR, 'stroke_dict.joblib'), { keepForest: true });
    const names = JSON.parse(readFileSync(join(DIR, 'stroke_dict.names.json'), 'utf8')) as string[];
    assert.deepEqual(report.forest!.features.map((f) => f.name), names);
    assert.equal(report.forest!.pipelineInput, undefined);
    assert.ok(report.notes.some((n) => /the Pipeline's DictVectorizer is named but its computation is not followed/.test(n)), report.notes.join(' | '));
  });

  it('headers x0.. behind a Pipeline fitted on an array are the raw input, not the scaled values', async () => {
    const forest = await forestOf('pima_scaled');
    const data = await readTrainingData(join(DIR, 'pima_scalers.train.csv'), 'Outcome');
    // The model's own names are x0..x7, and so are the Pipeline's input names: numbering, not names.
    const numbered: TrainingData = { ...data, header: data.header.map((h) => (h === 'Outcome' ? h : `x${data.header.indexOf(h)}`)) };
    const fit = alignTrainingData(numbered, forest);
    assert.ok(fit.ok, fit.ok ? '' : fit.problem);
    assert.equal(fit.aligned.throughPipeline, true);
    assertSameValues(fit.aligned.rows.map((row) => row.values), expected('pima_scaled'));
  });

  it('numbered names do not pick 8 of 10 numbered columns of a model that may see other values (a step not followed, PCA)', async () => {
    // Soundness sweep 16: a PCA Pipeline's forest (x0..x4) took the first five of 30 raw columns
    // x0..x29 by name, and 119 training rows were "proven non-members".
    const report = await lintFile(join(FIXTURES, 'membership', 'pima_rows_t10.joblib'), { keepForest: true });
    const forest = report.forest!;
    assert.deepEqual(forest.features.map((f) => f.name), Array.from({ length: 8 }, (_, i) => `x${i}`));
    assert.equal(forest.pipelineInput, undefined);
    const table = (columns: number): TrainingData => ({
      path: 'raw.csv',
      header: [...Array.from({ length: columns }, (_, i) => `x${i}`), 'y'],
      labelColumn: 'y',
      rows: [Array.from({ length: columns + 1 }, (_, i) => String(i % 2))],
    });
    const wider = alignTrainingData(table(10), forest);
    assert.equal(wider.ok, false);
    assert.match(wider.ok ? '' : wider.problem, /numbered x0 to x7\) and raw\.csv has 10 columns besides 'y'/);
    const exact = alignTrainingData(table(8), forest);
    assert.ok(exact.ok, exact.ok ? '' : exact.problem);
  });

  it("a CSV of the model's own columns is still read as they are, by name", async () => {
    const forest = await forestOf('stroke_pipeline');
    const want = expected('stroke_pipeline');
    const data: TrainingData = { path: 'transformed.csv', header: [...want.features, 'stroke'], labelColumn: 'stroke', rows: want.rows.map((row) => [...row.map(String), '1']) };
    const fit = alignTrainingData(data, forest);
    assert.ok(fit.ok, fit.ok ? '' : fit.problem);
    assert.equal(fit.aligned.matchedBy, 'name');
    assert.equal(fit.aligned.throughPipeline, undefined);
    assertSameValues(fit.aligned.rows.map((row) => row.values), want);
  });

  it('a category the OrdinalEncoder refuses is a problem naming the row and column; a value no step fills is missing', async () => {
    const forest = await forestOf('stroke_pipeline');
    const data = await readTrainingData(join(DIR, 'stroke_pipeline.train.csv'), 'stroke');
    const at = (column: string) => data.header.indexOf(column);
    const edited = (row: number, column: string, value: string): TrainingData => ({
      ...data,
      rows: data.rows.map((cells, r) => (r === row ? cells.map((cell, c) => (c === at(column) ? value : cell)) : cells)),
    });
    const refused = alignTrainingData(edited(4, 'smoking_status', 'sometimes'), forest);
    assert.ok(!refused.ok);
    assert.match(refused.problem, /row 5, column 'smoking_status' \(the Pipeline's input\): 'sometimes' is not a category/);
    // A value no step fills reaches the model as missing (models trained with missing values take it).
    const unfilled = alignTrainingData(edited(2, 'hypertension', ''), forest);
    assert.ok(unfilled.ok, unfilled.ok ? '' : unfilled.problem);
    const hypertension = forest.features.findIndex((f) => /hypertension/.test(f.name));
    assert.ok(hypertension >= 0);
    assert.equal(unfilled.aligned.rows[2].values[hypertension], null);
    assert.notEqual(unfilled.aligned.rows[1].values[hypertension], null);
    // A missing BMI is what the imputer was fitted for; an unseen OneHotEncoder category (handle_unknown='ignore') is all zeros.
    const unseen = alignTrainingData(edited(0, 'gender', 'Unknown'), forest);
    assert.ok(unseen.ok, unseen.ok ? '' : unseen.problem);
    const genders = forest.features.flatMap((f, i) => (f.name.startsWith('cat__gender_') ? [i] : []));
    assert.ok(genders.length >= 2);
    for (const i of genders) assert.equal(unseen.aligned.rows[0].values[i], 0);
    const imputed = alignTrainingData(edited(0, 'bmi', ''), forest);
    assert.ok(imputed.ok, imputed.ok ? '' : imputed.problem);
    const indicator = forest.features.findIndex((f) => f.name === 'num__missingindicator_bmi');
    assert.ok((imputed.aligned.rows[0].values[indicator] ?? 0) > 0, 'the scaled indicator of a missing BMI');
  });

  it('labels coded otherwise than the model\'s classes are a problem, not rows silently scored wrong', async () => {
    const forest = await forestOf('stroke_pipeline');
    const data = await readTrainingData(join(DIR, 'stroke_pipeline.train.csv'), 'stroke');
    const label = data.header.indexOf('stroke');
    const recoded = (code: (text: string, r: number) => string): TrainingData => ({ ...data, rows: data.rows.map((cells, r) => cells.map((cell, c) => (c === label ? code(cell, r) : cell))) });
    const yesNo = recoded((text) => (text === '1' ? 'Yes' : 'No'));
    const refused = alignTrainingData(yesNo, forest);
    assert.ok(!refused.ok);
    assert.match(refused.problem, /the label column 'stroke' holds 'Yes', 'No'|the label column 'stroke' holds 'No', 'Yes'/);
    assert.match(refused.problem, /classes of the model \(0, 1\)/);
    // Candidates: one of a class the model never saw is a non-member, not a reason to refuse the file.
    const oneOdd = recoded((text, r) => (r === 0 ? 'unknown' : text));
    assert.ok(!alignTrainingData(oneOdd, forest).ok, 'training rows must all be of a class');
    assert.ok(alignTrainingData(oneOdd, forest, { unknownLabels: 'some' }).ok);
    assert.ok(!alignTrainingData(yesNo, forest, { unknownLabels: 'some' }).ok, 'no label at all is a class');
  });

  it('a hand-written pipelineInput with an unknown operation is refused by the IR schema', () => {
    assert.ok(PipelineInputSchema.safeParse({ columns: ['a'], features: [{ input: 0, ops: [{ op: 'subtract', value: 1 }] }] }).success);
    assert.ok(!PipelineInputSchema.safeParse({ columns: ['a'], features: [{ input: 0, ops: [{ op: 'run', code: 'os.system' }] }] }).success);
  });

  it('the command line scores raw candidates and raw training rows through the Pipeline, with no proven verdict wrong', () => {
    const model = join(DIR, 'stroke_pipeline.joblib');
    const run = spawnSync(
      process.execPath,
      [CLI, model, '--training-data', join(DIR, 'stroke_pipeline.train.csv'), '--membership', join(DIR, 'stroke_pipeline.candidates.csv'), '--label', 'stroke', '--members-column', 'member', '--budget', '5', '--format', 'json', '--fail-on', 'never'],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const file = JSON.parse(run.stdout).files[0];
    assert.equal(file.evaluation.throughPipeline, true);
    assert.equal(file.evaluation.rowsCompared, 300);
    assert.equal(typeof file.evaluation.accuracy.all, 'number', 'the reconstruction accuracy is computed');
    assert.equal(file.membership.throughPipeline, true);
    assert.equal(file.membership.rows, 400);
    assert.equal(file.membership.metrics.provenWrong, 0);
    assert.ok(file.membership.verdicts.member + file.membership.verdicts.nonMember > 0, 'some verdicts are proven');
    // Without bootstrap every training row fits its leaves; unscaled values would not.
    assert.ok(file.membership.metrics.auc > 0.95, `AUC ${file.membership.metrics.auc}`);
  });
});

/**
 * Whether a raw cell meets a condition carried back to its column. The bounds are the thresholds'
 * images, and a tree compares float32 values: a relative 1e-5 covers the float32 rounding of the
 * transformed value, scaled back.
 */
function meets(c: ColumnCondition, text: string): boolean {
  const cell = text.trim();
  const missing = cell === '' || cell === 'N/A' || cell === 'NaN';
  if (c.missing !== undefined) return c.missing === missing;
  if (missing) return c.orMissing === true;
  const value = Number(cell);
  const slack = (bound: number) => 1e-5 * Math.max(1, Math.abs(bound));
  if (c.lower !== undefined && !(value > c.lower - slack(c.lower))) return false;
  if (c.upper !== undefined && !(value <= c.upper + slack(c.upper))) return false;
  const same = (category: Category) => (typeof category === 'number' ? value === category : cell === category);
  if (c.is !== undefined && !same(c.is)) return false;
  if (c.not && c.not.some(same)) return false;
  if (c.oneOf && !c.oneOf.some(same)) return false;
  return true;
}

describe("a leaf's box in the Pipeline's input columns", () => {
  for (const [name, csv, label] of [
    ['stroke_pipeline', 'stroke_pipeline.train.csv', 'stroke'],
    ['stroke_infrequent', 'stroke_pipeline.train.csv', 'stroke'],
    ['pima_scalers', 'pima_scalers.train.csv', 'Outcome'],
  ] as const) {
    it(`${name}: every training row in a leaf meets the leaf's conditions on its raw columns`, async () => {
      const forest = await forestOf(name);
      const input = forest.pipelineInput!;
      const data = await readTrainingData(join(DIR, csv), label);
      const fit = alignTrainingData(data, forest);
      assert.ok(fit.ok);
      const columnOf = input.columns.map((column, k) => (fit.aligned.matchedBy === 'name' ? data.header.indexOf(column) : data.header.filter((h) => h !== label).map((h) => data.header.indexOf(h))[k]));
      let checked = 0;
      let carried = 0;
      for (const tree of forest.trees) {
        forEachLeaf(tree, (leaf, path) => {
          const box = pathBox(path);
          const { columns, rest } = conditionsOnInput(input, box, forest.splitRule);
          carried += box.length - rest.length;
          fit.aligned.rows.forEach((row, r) => {
            if (leafOf(tree, row.values as number[], forest.splitRule) !== leaf) return;
            for (const c of columns) {
              const cell = data.rows[r][columnOf[c.column]];
              assert.ok(meets(c, cell), `tree leaf ${leaf}, row ${r + 1}: ${input.columns[c.column]} = '${cell}' fails ${JSON.stringify(c)}`);
              checked++;
            }
          });
        });
      }
      assert.ok(checked > 1000 && carried > 100, `${checked} conditions checked, ${carried} intervals carried back`);
    });
  }

  it('findings name the raw columns and their units, not the transformed ones', async () => {
    const report = await lintFile(join(DIR, 'stroke_pipeline.joblib'));
    const singleton = report.findings.find((f) => f.rule === 'singleton-leaf');
    assert.ok(singleton);
    const text = singleton.message + JSON.stringify(singleton);
    assert.doesNotMatch(text, /num__|cat__|ord__/);
    assert.match(text, /\b(age|bmi|avg_glucose_level)\b/);
  });
});

describe("scikit-learn 0.24's ColumnTransformer", () => {
  it('its private _feature_names_in (the public feature_names_in_ came with 1.0) names the input columns', () => {
    // stroke_selector made by scikit-learn 1.2, its ColumnTransformer's state then laid out as 0.24
    // saved it (a public 0.24 Pipeline, whose columns the reader could not follow, had only the
    // private name); the columns and the computed features must not change.
    const bytes = new Uint8Array(readFileSync(join(DIR, 'stroke_selector.joblib')));
    const stepsOf = () => {
      const root = unpickle(bytes, { joblib: true }).value;
      return seqItems(stateDict(root)!.get('steps'))!.map((pair) => seqItems(pair)![1]);
    };
    const current = pipelineFeatures(stepsOf().slice(0, -1));
    const steps = stepsOf();
    const state = stateDict(steps[0])!;
    const names = state.get('feature_names_in_')!;
    state.set('_feature_names_in', names);
    state.set('feature_names_in_', null);
    const legacy = pipelineFeatures(steps.slice(0, -1));
    assert.ok(current.features && legacy.features);
    assert.ok(current.pipelineInput && legacy.pipelineInput, 'the input is followed');
    assert.deepEqual(legacy.pipelineInput.columns, current.pipelineInput.columns);
    assert.ok(legacy.pipelineInput.columns.includes('avg_glucose_level'));
    assert.deepEqual(legacy.features.map((f) => f.name), current.features.map((f) => f.name));
  });
});
