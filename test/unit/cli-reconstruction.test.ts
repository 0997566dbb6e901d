/**
 * The command line's reconstruction outputs (issue 3, item 7), run as a user runs them: the CLI in
 * a child process (the compiled out/ build; the last test the bundled dist/cli.js), on the
 * reconstruction fixtures (scikit-learn forests without bootstrap, with the true training rows
 * they were fitted on) and on the COMPAS example. Every expectation comes from the engine called
 * directly or from the true rows, never from figures written down here.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import type { CategoricalGroup, ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import { parseCsv } from '../../server/src/util/csv';
import { randomBaselineError } from '../../server/src/evaluate/metrics';
import { scoreReconstruction } from '../../server/src/evaluate/evaluation';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { emitPaths } from '../../server/src/cli/emit-paths';
import { DIST, EXAMPLES, FIXTURES, REPO_ROOT } from '../support/paths';
import { readTrainingRows, type FixtureEntry, type TrainingRow } from '../support/reconstruction-truth';

const DIR = join(FIXTURES, 'reconstruction');
const manifest: FixtureEntry[] = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));
const entry = (name: string) => manifest.find((e) => e.name === name)!;
/** Fixtures whose reconstruction takes well under a second here; their groups change the certificate. */
const COMPAS = entry('rf_compas_t20');
const SHALLOW = entry('rf_compas_t10_d3');
const ADULT = entry('rf_adult_t15');
const EXAMPLE_MODEL = join(EXAMPLES, 'models', 'compas_no_bagging.joblib');
const EXAMPLE_DATA = join(EXAMPLES, 'data', 'compas_100.csv');
const EXAMPLE_LABEL = 'recidivate-within-two-years:1';

const COMPILED_CLI = join(REPO_ROOT, 'out', 'server', 'src', 'cli.js');

function run(args: string[], cli = COMPILED_CLI) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The JSON report of one model file. */
function jsonFor(args: string[], cli = COMPILED_CLI) {
  const result = run([...args, '--format', 'json', '--fail-on', 'never'], cli);
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.equal(report.version, 1);
  return report.files as JsonFile[];
}

interface JsonFile {
  path: string;
  model?: { task: string } | null;
  findings: { rule: string; severity: string; data?: Record<string, unknown> }[];
  recoverability?: {
    status: string;
    method: string;
    rows: number | null;
    certifiedRows: number;
    reconstructedRows: number;
    seconds: number;
    reason?: string;
    groups: { declared: number; sources: string[]; problems: string[] };
  };
  evaluation?: {
    matchedBy?: string;
    rowsCompared: number;
    reconstructedRows: number;
    error: number | null;
    perfectRows: number | null;
    consistentRows: number | null;
    undeterminedValues: number | null;
    randomBaseline: number | null;
    baselineRuns?: number;
    accuracy?: { all: number; top: { features: string[]; accuracy: number }; categorical: string[]; tolerance: number } | null;
    problem?: string;
  };
}

async function forestOf(path: string): Promise<Forest> {
  const report = await lintFile(path, { keepForest: true });
  assert.ok(report.forest, path);
  return report.forest;
}

const groupFlags = (groups: readonly CategoricalGroup[]) => groups.flatMap((g) => [`--${g.kind}`, g.features.join(',')]);

function assertSameSummary(file: JsonFile, direct: ReconstructionResult, what: string): void {
  const r = file.recoverability;
  assert.ok(r, `${what}: recoverability`);
  assert.deepEqual(
    { status: r.status, method: r.method, rows: r.rows, certifiedRows: r.certifiedRows, reconstructedRows: r.reconstructedRows },
    { status: direct.status, method: direct.method, rows: direct.rows, certifiedRows: direct.certifiedRows, reconstructedRows: direct.reconstructedRows },
    what,
  );
}

/** CSV rows (header dropped) as text, for comparison with the engine's rows. */
function csvRows(path: string): { header: string[]; rows: string[][] } {
  const table = parseCsv(readFileSync(path, 'utf8'));
  return { header: table[0], rows: table.slice(1) };
}

/** Whether a CSV row (features..., label, certified) agrees with a true row on every value it states. */
function agrees(row: string[], truth: TrainingRow): boolean {
  const features = truth.values.length;
  return row.slice(0, features).every((cell, f) => cell === '' || Number(cell) === truth.values[f]) && Number(row[features]) === truth.label;
}

let temp: string;
before(() => {
  temp = mkdtempSync(join(tmpdir(), 'mpl-cli-rec-'));
});
after(() => rmSync(temp, { recursive: true, force: true }));

/** A copy of a fixture model alone in its own folder (so that sidecars written beside it are its own). */
function isolatedCopy(model: string, folder: string): string {
  const dir = join(temp, folder);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, basename(model));
  copyFileSync(model, copy);
  return copy;
}

describe('recoverability in the JSON report', () => {
  for (const fixture of [COMPAS, SHALLOW]) {
    for (const withGroups of [false, true]) {
      it(`${fixture.name}, ${withGroups ? 'groups as --one-hot flags' : 'no groups'}: the summary is what reconstruct() gives`, async () => {
        const model = join(DIR, fixture.model);
        const direct = await reconstruct(await forestOf(model), { groups: withGroups ? fixture.groups : [] });
        const [file] = jsonFor([model, ...(withGroups ? groupFlags(fixture.groups) : [])]);
        assertSameSummary(file, direct, fixture.name);
        assert.equal(file.recoverability!.groups.declared, withGroups ? fixture.groups.length : 0);
        const finding = file.findings.find((f) => f.rule === 'reconstructable-training-set');
        assert.ok(finding, 'the finding is among the file\'s findings');
        assert.equal(finding.data?.certifiedRows, direct.certifiedRows);
      });
    }
  }

  it('--budget 0 skips the reconstruction, says why, and adds no finding', () => {
    const [file] = jsonFor([join(DIR, COMPAS.model), '--budget', '0']);
    assert.equal(file.recoverability?.status, 'skipped');
    assert.equal(file.recoverability?.method, 'none');
    assert.equal(file.recoverability?.certifiedRows, 0);
    assert.match(file.recoverability?.reason ?? '', /budget/);
    assert.ok(!file.findings.some((f) => f.rule === 'reconstructable-training-set'));
  });

  it('a model the engine does not handle is skipped with the engine\'s reason; unreadable files get no block', async () => {
    // XGBoost's random-forest mode without subsample: trees grown side by side, not modelled.
    const et = join(FIXTURES, 'xgboost-objectives', 'xgbrf_full_pima.json');
    const direct = await reconstruct(await forestOf(et));
    assert.equal(direct.status, 'skipped');
    const junk = join(temp, 'junk.pkl');
    writeFileSync(junk, 'not a pickle');
    const files = jsonFor([et, junk]);
    const extraTrees = files.find((f) => f.path === et)!;
    assertSameSummary(extraTrees, direct, 'XGBoost random-forest mode');
    assert.equal(extraTrees.recoverability?.reason, direct.reason);
    assert.equal(files.find((f) => f.path === junk)!.recoverability, undefined);
  });
});

describe('--training-data matched by position', () => {
  it("names the best-scored features with the CSV's columns, not the model's x0..x7", () => {
    // pima_t10_d5 was fitted on an array (features x0..x7); its CSV has Pima's headers.
    const [file] = jsonFor([join(FIXTURES, 'numeric', 'pima_t10_d5.joblib'), '--budget', '5', '--training-data', join(FIXTURES, 'numeric', 'pima_t10_d5.train.csv'), '--label', 'Outcome']);
    const evaluation = (file as unknown as { evaluation: { matchedBy: string; accuracy: { top: { features: string[] } } } }).evaluation;
    assert.equal(evaluation.matchedBy, 'position');
    const headers = ['Pregnancies', 'Glucose', 'BloodPressure', 'SkinThickness', 'Insulin', 'BMI', 'DiabetesPedigreeFunction', 'Age'];
    assert.ok(evaluation.accuracy.top.features.length > 0);
    for (const name of evaluation.accuracy.top.features) assert.ok(headers.includes(name), name);
    // Numeric rows: the binary measures are not defined, and no matching is spent on them.
    const numeric = (file as unknown as { evaluation: { error: number | null; consistentRows: number | null; perfectRows: number | null; problem?: string } }).evaluation;
    assert.equal(numeric.error, null);
    assert.equal(numeric.consistentRows, null);
    assert.equal(typeof numeric.perfectRows, 'number');
    assert.match(numeric.problem ?? '', /error and consistent rows count binary values/);
  });
});

describe('scoreReconstruction on identical rows only', () => {
  it('pairs identical rows without a matching: perfectRows as the matching gives it, no error or consistent rows', () => {
    const truth = [{ values: [1.5, 2], label: 0 }, { values: [3, 4], label: 1 }, { values: [5, 6], label: 1 }];
    const reconstructed = [{ values: [3, 4], label: 1 }, { values: [1.6, 2], label: 0 }, { values: [5, 6.5], label: 1 }];
    const matched = scoreReconstruction(reconstructed, truth);
    const identical = scoreReconstruction(reconstructed, truth, true);
    assert.equal(identical.perfectRows, matched.perfectRows);
    assert.equal(identical.perfectRows, 1 / 3);
    assert.equal(identical.error, null);
    assert.equal(identical.consistentRows, null);
    assert.notEqual(matched.error, null);
  });
});

describe('--emit-reconstruction', () => {
  it('writes the engine\'s rows: features, label, certified; empty where undetermined; certified rows are true rows', async () => {
    const model = join(DIR, SHALLOW.model);
    const out = join(temp, 'shallow.csv');
    const direct = await reconstruct(await forestOf(model), { groups: SHALLOW.groups });
    const [file] = jsonFor([model, ...groupFlags(SHALLOW.groups), '--emit-reconstruction', out]);
    assertSameSummary(file, direct, 'summary');
    const forest = await forestOf(model);
    const { header, rows } = csvRows(out);
    assert.deepEqual(header, [...forest.features.map((f) => f.name), 'label', 'certified']);
    // The same rows as the engine's, in its order.
    assert.deepEqual(
      rows,
      direct.reconstruction.map((r) => [...r.values.map((v) => (v === null ? '' : String(v))), String(r.label), String(r.certified)]),
    );
    assert.equal(rows.filter((r) => r.at(-1) === 'true').length, direct.certifiedRows);
    assert.ok(rows.some((r) => r.includes('')), 'this shallow forest leaves some values undetermined');
    const truth = readTrainingRows(join(DIR, SHALLOW.truth)).rows;
    for (const row of rows.filter((r) => r.at(-1) === 'true')) {
      assert.ok(truth.some((t) => agrees(row, t)), `certified row ${row.join(',')} is not in the training data`);
    }
  });

  it('with --training-data the columns are the training data\'s names, label last', () => {
    const out = join(temp, 'adult.csv');
    jsonFor([join(DIR, ADULT.model), ...groupFlags(ADULT.groups), '--emit-reconstruction', out, '--training-data', join(DIR, ADULT.truth), '--label', 'income']);
    const trueHeader = readTrainingRows(join(DIR, ADULT.truth)).header;
    assert.deepEqual(csvRows(out).header, [...trueHeader, 'certified']);
  });

  it('several models: one file per model, named after the model file', () => {
    const dir = join(temp, 'two');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(DIR, COMPAS.model), join(dir, COMPAS.model));
    copyFileSync(join(DIR, SHALLOW.model), join(dir, SHALLOW.model));
    const target = join(temp, 'rows.csv');
    const files = jsonFor([dir, '--emit-reconstruction', target]);
    assert.equal(files.length, 2);
    for (const file of files) {
      const written = join(temp, `rows.${basename(file.path)}.csv`);
      assert.ok(existsSync(written), written);
      assert.equal(csvRows(written).rows.length, file.recoverability?.reconstructedRows);
    }
    assert.ok(!existsSync(target), 'the bare name is only used for a single model');
  });

  it('names stay distinct when two models share a file name', () => {
    const paths = emitPaths('out/rows.csv', ['a/m.joblib', 'b/m.joblib', 'c/n.pkl']);
    assert.deepEqual([...paths.values()], [join('out', 'rows.m.joblib.csv'), join('out', 'rows.m.joblib-2.csv'), join('out', 'rows.n.pkl.csv')]);
    assert.deepEqual([...emitPaths('x.csv', ['only.joblib']).values()], ['x.csv']);
  });

  it('writes nothing for a skipped model, and exits 2 when the file cannot be written', () => {
    const skipped = join(temp, 'skipped.csv');
    const result = run([join(DIR, COMPAS.model), '--budget', '0', '--emit-reconstruction', skipped, '--fail-on', 'never']);
    assert.equal(result.code, 0);
    assert.ok(!existsSync(skipped));
    assert.match(result.stderr, /nothing written/);
    assert.equal(run([join(DIR, COMPAS.model), '--emit-reconstruction', join(temp, 'no', 'such', 'dir.csv'), '--fail-on', 'never']).code, 2);
  });
});

describe('--training-data', () => {
  it('scores the reconstruction against the true rows with the papers\' measures (columns by position)', async () => {
    for (const fixture of [SHALLOW, COMPAS]) {
      for (const withGroups of [false, true]) {
        const model = join(DIR, fixture.model);
        const groups = withGroups ? fixture.groups : [];
        const direct = await reconstruct(await forestOf(model), { groups });
        const { header, rows: truth } = readTrainingRows(join(DIR, fixture.truth));
        const [file] = jsonFor([model, ...groupFlags(groups), '--training-data', join(DIR, fixture.truth), '--label', header.at(-1)!]);
        const e = file.evaluation;
        assert.ok(e, 'evaluation block');
        const what = `${fixture.name} ${withGroups ? 'with' : 'without'} groups`;
        assert.equal(e.matchedBy, 'position', 'the fixtures store no feature names');
        assert.equal(e.rowsCompared, truth.length);
        assert.equal(e.reconstructedRows, direct.reconstructedRows);
        // The baseline is the papers' random guess with the same groups, seeded: recomputed here.
        assert.equal(e.randomBaseline, randomBaselineError(truth, groups, [0, 1], e.baselineRuns));
        assert.ok(e.error !== null && e.perfectRows !== null && e.consistentRows !== null, what);
        // Certified rows are true rows: at least that share of true rows is matched consistently.
        assert.ok(e.consistentRows >= direct.certifiedRows / truth.length - 1e-12, `${what}: consistent ${e.consistentRows}, certified ${direct.certifiedRows}`);
        assert.ok(e.perfectRows <= e.consistentRows);
        assert.ok(e.error < e.randomBaseline!, `${what}: the model leaks (error ${e.error} vs baseline ${e.randomBaseline})`);
        // Undetermined values count as wrong: the error is at least their share in rows matched consistently.
        if (e.consistentRows === 1) assert.ok(Math.abs(e.error - e.undeterminedValues!) < 1e-9, `${what}: error is exactly the empty values`);
        else assert.ok(e.error > 0);
      }
    }
  });

  it('fewer certified rows give a worse error: the shallow forest without groups against with groups', () => {
    const args = (groups: readonly CategoricalGroup[]) => [join(DIR, SHALLOW.model), ...groupFlags(groups), '--training-data', join(DIR, SHALLOW.truth), '--label', readTrainingRows(join(DIR, SHALLOW.truth)).header.at(-1)!];
    const [without] = jsonFor(args([]));
    const [withGroups] = jsonFor(args(SHALLOW.groups));
    assert.ok(withGroups.recoverability!.certifiedRows > without.recoverability!.certifiedRows, 'groups help this forest (precondition)');
    assert.ok(withGroups.evaluation!.error! < without.evaluation!.error!, `${withGroups.evaluation!.error} < ${without.evaluation!.error}`);
  });

  it('the example: exact reconstruction gives every row right on every determined value; columns matched by name in any order', async () => {
    const [file] = jsonFor([EXAMPLE_MODEL, '--training-data', EXAMPLE_DATA, '--label', EXAMPLE_LABEL]);
    const e = file.evaluation!;
    assert.equal(e.matchedBy, 'name');
    if (file.recoverability!.status === 'exact') {
      assert.equal(e.consistentRows, 1);
      assert.ok(Math.abs(e.error! - e.undeterminedValues!) < 1e-12, 'the only errors are values the model does not determine');
      if (e.undeterminedValues === 0) {
        assert.equal(e.error, 0);
        assert.equal(e.perfectRows, 1);
      }
    }
    // Columns in reverse order (label first): matched by name, same figures.
    const table = parseCsv(readFileSync(EXAMPLE_DATA, 'utf8'));
    const shuffled = join(temp, 'compas_reversed.csv');
    writeFileSync(shuffled, table.map((row) => [...row].reverse().join(',')).join('\n'));
    const [again] = jsonFor([EXAMPLE_MODEL, '--training-data', shuffled, '--label', EXAMPLE_LABEL]);
    assert.deepEqual({ ...again.evaluation, trainingData: undefined }, { ...file.evaluation, trainingData: undefined });
  });

  it('the text report shows the recoverability and the evaluation', () => {
    const { stdout } = run([EXAMPLE_MODEL, '--training-data', EXAMPLE_DATA, '--label', EXAMPLE_LABEL, '--fail-on', 'never']);
    assert.match(stdout, /recoverability: (exact|bounded|timeout), \d+ of 100 training rows certified/);
    assert.match(stdout, /declared groups: 2 \(compas_no_bagging\.privacy\.json\)/);
    assert.match(stdout, /evaluation against .*compas_100\.csv: error \d\.\d{3}.*random baseline \d\.\d{3}.*perfect rows \d+%/);
  });

  it('training data that fits no model is an error (exit 2); a bad value is reported, not thrown', () => {
    const wrongWidth = join(temp, 'narrow.csv');
    writeFileSync(wrongWidth, 'a,b,label\n0,1,0\n');
    const narrow = run([join(DIR, COMPAS.model), '--training-data', wrongWidth, '--label', 'label', '--format', 'json']);
    assert.equal(narrow.code, 2);
    assert.match(JSON.parse(narrow.stdout).files[0].evaluation.problem, /cannot be matched by position/);
    const text = readFileSync(join(DIR, COMPAS.truth), 'utf8').split('\n');
    text[3] = text[3].replace(/^\d/, 'x');
    const badValue = join(temp, 'bad-value.csv');
    writeFileSync(badValue, text.join('\n'));
    const bad = run([join(DIR, COMPAS.model), '--training-data', badValue, '--label', text[0].split(',').at(-1)!, '--format', 'json']);
    assert.equal(bad.code, 2);
    assert.match(JSON.parse(bad.stdout).files[0].evaluation.problem, /row 3.*'x' is not a number/);
  });
});

describe('declared groups from a sidecar beside the model', () => {
  it('changes the certified count the way the manifest\'s groups change reconstruct()', async () => {
    const copy = isolatedCopy(join(DIR, SHALLOW.model), 'sidecar');
    const forest = await forestOf(copy);
    const [plain, grouped] = await Promise.all([reconstruct(forest, { groups: [] }), reconstruct(forest, { groups: SHALLOW.groups })]);
    assert.notEqual(plain.certifiedRows, grouped.certifiedRows, 'groups change this forest\'s certificate (precondition)');
    assertSameSummary(jsonFor([copy])[0], plain, 'no sidecar');
    writeFileSync(`${copy}.privacy.json`, JSON.stringify({ groups: SHALLOW.groups }));
    const [file] = jsonFor([copy]);
    assertSameSummary(file, grouped, 'with the sidecar');
    assert.deepEqual(file.recoverability!.groups, { declared: SHALLOW.groups.length, sources: [`${basename(copy)}.privacy.json`], problems: [] });
  });

  it('a bad sidecar or unknown feature names are problems in the report, never a crash', async () => {
    const copy = isolatedCopy(join(DIR, COMPAS.model), 'bad-sidecar');
    const plain = await reconstruct(await forestOf(copy), { groups: [] });
    const sidecar = `${copy}.privacy.json`;
    for (const [content, problem] of [
      ['{ "groups": [', /not valid JSON/],
      ['{ "groups": [{ "kind": "one-hot", "features": ["x1"] }] }', /not a valid privacy sidecar/],
      ['{ "groups": [{ "kind": "exactly-two", "features": ["x1", "x2"] }] }', /not a valid privacy sidecar/],
      ['{ "groups": [{ "kind": "one-hot", "features": ["x1", "age"] }] }', /does not have \(age\)/],
      ['{ "groups": [{ "kind": "one-hot", "features": [1, 99] }] }', /does not have \(99\)/],
    ] as const) {
      writeFileSync(sidecar, content);
      const result = run([copy, '--format', 'json', '--fail-on', 'never']);
      assert.equal(result.code, 0, `${content}: ${result.stderr}`);
      const [file] = JSON.parse(result.stdout).files as JsonFile[];
      assert.match(file.recoverability!.groups.problems.join('\n'), problem, content);
      assertSameSummary(file, plain, `${content}: the bad declaration is ignored`);
    }
    // The same for flags: an unknown name is a problem of this model, not a usage error.
    const [flagged] = jsonFor([copy, '--one-hot', 'nope,x1']);
    assert.match(flagged.recoverability!.groups.problems.join('\n'), /command line.*does not have \(nope\)/);
  });
});

describe('severity of reconstructable-training-set', () => {
  it('follows --error-share and --warning-rows, in JSON, SARIF and the exit code', async () => {
    const model = join(DIR, COMPAS.model);
    const direct = await reconstruct(await forestOf(model), { groups: COMPAS.groups });
    const n = direct.rows!;
    const certified = direct.certifiedRows;
    assert.ok(certified > 0 && certified < n, 'a partial certificate (precondition)');
    const level = (...flags: string[]) => jsonFor([model, ...groupFlags(COMPAS.groups), ...flags])[0].findings.find((f) => f.rule === 'reconstructable-training-set')?.severity;
    assert.equal(level('--error-share', String(certified / n)), 'error');
    assert.equal(level('--error-share', String((certified + 1) / n)), 'warning');
    assert.equal(level('--error-share', String((certified + 1) / n), '--warning-rows', String(certified)), 'warning');
    assert.equal(level('--error-share', String((certified + 1) / n), '--warning-rows', String(certified + 1)), 'information');
    assert.equal(level('--severity', 'reconstructable-training-set=off'), undefined);

    const sarif = JSON.parse(run([model, '--format', 'sarif', '--fail-on', 'never', '--error-share', String((certified + 1) / n)]).stdout);
    const result = sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'reconstructable-training-set');
    assert.equal(result.level, 'warning');
    assert.equal(sarif.runs[0].tool.driver.rules[result.ruleIndex].id, 'reconstructable-training-set');

    // Exit code: the other rules quietened, --fail-on error fails on this finding alone when it is an error.
    const quiet = [model, ...groupFlags(COMPAS.groups), '--severity', 'no-bootstrap=information', '--severity', 'singleton-leaf=information'];
    assert.equal(run([...quiet, '--error-share', String(certified / n)]).code, 1);
    assert.equal(run([...quiet, '--error-share', String((certified + 1) / n)]).code, 0);
  });
});

describe('--training-data without --label', () => {
  it('an outlier detector (no label) is scored on its features; a classifier is refused: its label column is missing', () => {
    const iso = join(FIXTURES, 'estimators', 'iso_forest_all');
    const [outlier] = jsonFor([`${iso}.joblib`, '--budget', '5', '--training-data', `${iso}.train.csv`]);
    assert.equal(outlier.model?.task, 'outlier-detection');
    assert.doesNotMatch(outlier.evaluation?.problem ?? '', /label/);
    assert.ok(outlier.evaluation?.accuracy && outlier.evaluation.accuracy.all > 0.5, JSON.stringify(outlier.evaluation));
    // A file that fits none of the models is an error (exit 2), with what is missing.
    const classifier = run([join(DIR, COMPAS.model), '--budget', '1', '--training-data', join(DIR, COMPAS.truth)]);
    assert.equal(classifier.code, 2);
    assert.match(classifier.stderr, /label column with --label/);
  });
});

describe('usage errors exit 2', () => {
  const model = join(DIR, COMPAS.model);
  const truth = join(DIR, COMPAS.truth);
  for (const args of [
    ['--budget', '-1'],
    ['--budget', 'soon'],
    ['--budget', ''],
    ['--one-hot', 'x1'],
    ['--at-most-one', ','],
    ['--error-share', '1.5'],
    ['--error-share', 'half'],
    ['--warning-rows', '2.5'],
    ['--label', 'label'],
    ['--membership', truth],
    ['--training-data', join(DIR, 'no-such.csv'), '--label', 'label'],
    ['--training-data', truth, '--label', 'no-such-column'],
    ['--emit-reconstruction'],
  ]) {
    it(args.join(' '), () => {
      const result = run([model, ...args]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /model-privacy-lint: /);
    });
  }
});

describe('the bundled CLI (dist/cli.js, after node scripts/bundle.mjs)', () => {
  it('reconstructs the example with HiGHS loaded from dist/highs.wasm, writes the CSV and the evaluation', async () => {
    const bundled = join(DIST, 'cli.js');
    assert.ok(existsSync(bundled) && existsSync(join(DIST, 'highs.wasm')), 'run `node scripts/bundle.mjs` (or `npm run build`) first');
    const forest = await forestOf(EXAMPLE_MODEL);
    const sidecar = JSON.parse(readFileSync(join(EXAMPLES, 'models', 'compas_no_bagging.privacy.json'), 'utf8')).groups as { kind: CategoricalGroup['kind']; features: string[] }[];
    const groups = sidecar.map((g) => ({ kind: g.kind, features: g.features.map((name) => forest.features.findIndex((f) => f.name === name)) }));
    const direct = await reconstruct(forest, { groups });
    const out = join(temp, 'example.csv');
    const [file] = jsonFor([EXAMPLE_MODEL, '--emit-reconstruction', out, '--training-data', EXAMPLE_DATA, '--label', EXAMPLE_LABEL], bundled);
    assertSameSummary(file, direct, 'bundled CLI');
    assert.ok(direct.certifiedRows > 0, 'the example shows a certified reconstruction');
    const truthHeader = parseCsv(readFileSync(EXAMPLE_DATA, 'utf8'))[0];
    const { header, rows } = csvRows(out);
    assert.deepEqual(header, [...truthHeader, 'certified']);
    const truth = readTrainingRows(EXAMPLE_DATA).rows;
    for (const row of rows.filter((r) => r.at(-1) === 'true')) assert.ok(truth.some((t) => agrees(row, t)), row.join(','));
    assert.equal(file.evaluation?.rowsCompared, truth.length);
  });
});
