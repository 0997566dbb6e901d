/**
 * The privacy report's model (report/build.ts) and timeline (report/timeline.ts), built from real
 * runs of the linter and the engine on the examples: every expected figure comes from the engine's
 * own result or the summary the CLI prints, never from numbers written down here.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { lintFile, type FileReport } from '../../server/src/linter/linter';
import type { Forest } from '../../server/src/forest/schema';
import type { ReconstructionProgress, ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import { buildReport, CERTIFYING_METHODS, featureUse, revealRows, summarySentence } from '../../server/src/report/build';
import { headlineLook, headlineVerdict } from '../../server/src/report/html/verdict';
import { header, headline } from '../../server/src/report/html/sections';
import type { ReportHeadline } from '../../server/src/report/model';
import { DEFAULT_TIMELINE_POINTS, DONE_PHASE, thin, TimelineRecorder } from '../../server/src/report/timeline';
import { RULES } from '../../server/src/rules/catalog';
import { ruleDocUrl } from '../../server/src/util/package-info';
import { EXAMPLES, FIXTURES } from '../support/paths';

const COMPAS = join(EXAMPLES, 'models', 'compas_no_bagging.joblib');
const DIABETES_NO_BAGGING = join(EXAMPLES, 'models', 'diabetes_no_bagging.joblib');
// Skipped by the engine: XGBoost's random-forest mode without subsample (num_parallel_tree trees
// grown side by side in one round, which the hessian matching does not model).
const SKIPPED_MODEL = join(FIXTURES, 'xgboost-objectives', 'xgbrf_full_pima.json');
const DIABETES_XGB = join(EXAMPLES, 'models', 'diabetes_xgb.json');

interface Run {
  file: FileReport;
  forest: Forest;
  result: ReconstructionResult;
  progress: ReconstructionProgress[];
}

/** Lint, then reconstruct as the CLI does (sidecar groups, findings appended). */
async function run(path: string, budgetMs: number): Promise<Run> {
  const file = await lintFile(path, { keepForest: true });
  const forest = file.forest!;
  assert.ok(forest, `${path} reads as a model`);
  delete file.forest;
  const progress: ReconstructionProgress[] = [];
  const assessment = await assessRecoverability(path, forest, { budgetMs, onProgress: (p) => progress.push(p) });
  file.recoverability = assessment.recoverability;
  file.findings.push(...assessment.findings);
  return { file, forest, result: assessment.result, progress };
}

describe('buildReport on the COMPAS example (aggregated, certified)', () => {
  let compas: Run;
  before(async () => {
    compas = await run(COMPAS, 60_000);
  });

  it('headline: the certified rows are the engine\'s, claimed as certified, out of the stated N', () => {
    const report = buildReport({ file: compas.file, features: featureUse(compas.forest), reconstruction: compas.result });
    assert.ok(compas.result.certifiedRows > 0, 'the engine certifies rows of COMPAS');
    assert.equal(report.headline.claim, 'certified');
    assert.equal(report.headline.certifiedRows, compas.result.certifiedRows);
    assert.equal(report.headline.reconstructedRows, compas.result.reconstructedRows);
    assert.equal(report.headline.rows, compas.forest.training.rows);
    assert.equal(report.headline.certifiedShare, compas.result.certifiedRows / compas.forest.training.rows!);
    assert.equal(report.headline.status, compas.result.status);
    assert.equal(report.headline.method, compas.result.method);
    assert.match(report.headline.summary, new RegExp(`${compas.forest.training.rows} training rows`));
    assert.match(report.headline.summary, /proven recoverable from the model alone/);
    assert.doesNotMatch(report.headline.summary, /[Ee]stimate/);
  });

  it('per feature: determined rows equal recoverability.determinedFeatures, in the model\'s order, with the trees\' use', () => {
    const report = buildReport({ file: compas.file, features: featureUse(compas.forest), reconstruction: compas.result });
    const determined = compas.file.recoverability!.determinedFeatures;
    assert.deepEqual(
      report.features.map((f) => f.name),
      compas.forest.features.map((f) => f.name),
    );
    for (const feature of report.features) {
      assert.equal(feature.determinedRows, determined[feature.name], feature.name);
      assert.equal(feature.determinedShare, determined[feature.name] / report.headline.rows!);
    }
    // `used`: some tree has an internal node testing the feature.
    const tested = new Set(compas.forest.trees.flatMap((t) => t.feature.filter((_, n) => t.left[n] !== -1)));
    report.features.forEach((f, i) => assert.equal(f.used, tested.has(i), f.name));
    const sum = report.features.reduce((s, f) => s + f.determinedRows, 0);
    assert.equal(report.headline.determinedValueShare, sum / (report.headline.rows! * report.features.length));
  });

  it('per row: one exposure per reconstructed row, certified as the engine says, without values', () => {
    const report = buildReport({ file: compas.file, reconstruction: compas.result });
    assert.equal(report.rows.length, compas.result.reconstructedRows);
    assert.equal(report.rows.filter((r) => r.certified).length, compas.result.certifiedRows);
    report.rows.forEach((row, i) => {
      const engineRow = compas.result.reconstruction[i];
      assert.equal(row.determinedFeatures, engineRow.values.filter((v) => v !== null).length);
      assert.equal(row.features, compas.forest.features.length);
    });
    // The report itself carries no reconstructed value: no key named `values` anywhere.
    assert.doesNotMatch(JSON.stringify(report), /"values"/);
  });

  it('findings: every finding with its rule title and page, most severe first as in the Problems panel', () => {
    const report = buildReport({ file: compas.file, docsBaseUrl: 'https://example.org/rules' });
    assert.equal(report.findings.length, compas.file.findings.length);
    // The linter lists the reconstruction's error last; the report lists it first.
    const order = ['error', 'warning', 'information', 'hint'];
    const rank = (severity: string) => order.indexOf(severity);
    assert.ok(rank(compas.file.findings.at(-1)!.severity) < rank(compas.file.findings[0].severity), 'the linter\'s order is not already by severity');
    const sorted = compas.file.findings.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f.severity) - rank(b.f.severity) || a.i - b.i).map(({ f }) => f);
    report.findings.forEach((f, i) => {
      assert.equal(f.rule, sorted[i].rule);
      assert.equal(f.message, sorted[i].message);
      if (i > 0) assert.ok(rank(report.findings[i - 1].severity) <= rank(f.severity), `${report.findings[i - 1].severity} before ${f.severity}`);
      assert.equal(f.title, RULES[f.rule].title);
      assert.equal(f.docsUrl, `https://example.org/rules/${f.rule}.md`);
    });
    const packaged = buildReport({ file: compas.file });
    assert.equal(packaged.findings[0].docsUrl, ruleDocUrl(packaged.findings[0].rule));
    assert.ok(report.findings.some((f) => f.rule === 'reconstructable-training-set'));
    assert.equal(report.headline.worstSeverity, compas.file.findings.some((f) => f.severity === 'error') ? 'error' : 'warning');
    assert.ok(report.notes.some((n) => /declared/.test(n)), 'the sidecar groups are noted');
  });

  it('revealRows: the engine\'s values and labels, in the report\'s row order', () => {
    const revealed = revealRows(compas.forest.features, compas.result);
    assert.deepEqual(revealed.features, compas.forest.features.map((f) => f.name));
    assert.equal(revealed.rows.length, compas.result.reconstruction.length);
    revealed.rows.forEach((row, i) => {
      assert.deepEqual(row.values, compas.result.reconstruction[i].values);
      assert.equal(row.label, compas.result.reconstruction[i].label);
      assert.equal(row.certified, compas.result.reconstruction[i].certified);
    });
  });

  it('the summary alone (rows not at hand) gives the same headline and features, and no rows', () => {
    const full = buildReport({ file: compas.file, features: featureUse(compas.forest), reconstruction: compas.result });
    const summaryOnly = buildReport({ file: compas.file });
    assert.deepEqual(summaryOnly.headline, full.headline);
    assert.deepEqual(
      summaryOnly.features.map((f) => [f.name, f.determinedRows]),
      full.features.map((f) => [f.name, f.determinedRows]),
    );
    assert.deepEqual(summaryOnly.rows, []);
  });

  it('the timeline of the real run: at most 200 points, time never goes back, ends with the answer', () => {
    const recorder = new TimelineRecorder();
    compas.progress.forEach((p) => recorder.record(p));
    const timeline = recorder.finish(compas.result);
    assert.ok(timeline.length <= DEFAULT_TIMELINE_POINTS);
    assert.ok(timeline.length >= 3, 'start, some phase, done');
    for (let i = 1; i < timeline.length; i++) assert.ok(timeline[i].ms >= timeline[i - 1].ms);
    const last = timeline[timeline.length - 1];
    assert.equal(last.phase, DONE_PHASE);
    assert.equal(last.certifiedRows, compas.result.certifiedRows);
    assert.equal(last.reconstructedRows, compas.result.reconstructedRows);
    // Every phase the engine went through appears.
    const phases = new Set(compas.progress.map((p) => p.phase));
    for (const phase of phases) assert.ok(timeline.some((t) => t.phase === phase), phase);
    const report = buildReport({ file: compas.file, timeline });
    assert.deepEqual(report.timeline, timeline);
  });
});

describe('buildReport on estimates and runs that did not reconstruct', () => {
  it('row boxes (diabetes without bagging, too many cells to enumerate): certified as boxes, with their width', async () => {
    const diabetes = await run(DIABETES_NO_BAGGING, 1000);
    assert.equal(diabetes.result.method, 'row-boxes');
    const boxes = diabetes.result.boxes;
    assert.ok(boxes && diabetes.result.certifiedRows > 0);
    const report = buildReport({ file: diabetes.file, features: featureUse(diabetes.forest), reconstruction: diabetes.result });
    assert.equal(report.headline.claim, 'certified');
    assert.equal(report.headline.certifiedRows, diabetes.result.certifiedRows);
    // Proven as boxes, never as values: the sentence says so and gives the median width.
    assert.match(report.headline.summary, / as boxes, with their label/);
    assert.match(report.headline.summary, new RegExp(`, ${Math.round(100 * boxes.medianWidth)}% of the feature's threshold range wide`));
    assert.doesNotMatch(report.headline.summary, /recoverable/);
    assert.deepEqual(report.boxes, {
      rows: boxes.rows,
      pinnedRows: boxes.pinnedRows,
      medianWidth: boxes.medianWidth,
      features: boxes.featureWidths.map((w) => ({ name: diabetes.forest.features[w.feature].name, medianWidth: w.medianWidth })),
    });
    // A value counts as determined where an interval is proven, not where the completion wrote a point.
    for (const f of report.features) {
      const index = diabetes.forest.features.findIndex((x) => x.name === f.name);
      const proven = diabetes.result.reconstruction.filter((r) => r.certified && r.intervals?.[index]).length;
      assert.equal(f.determinedRows, proven, f.name);
    }
    assert.equal(report.rows.length, diabetes.result.reconstructedRows);
  });

  it('an estimate (bounded search): 0 certified, no feature proven', async () => {
    const diabetes = await run(DIABETES_NO_BAGGING, 1000);
    const file: FileReport = { ...diabetes.file, recoverability: { ...diabetes.file.recoverability!, method: 'bounded-search' } };
    const report = buildReport({ file, features: featureUse(diabetes.forest), reconstruction: { ...diabetes.result, method: 'bounded-search' } });
    assert.equal(report.headline.claim, 'estimate');
    assert.equal(report.headline.certifiedRows, 0);
    assert.equal(report.headline.certifiedShare, 0);
    assert.match(report.headline.summary, /^Estimate: /);
    assert.ok(report.features.every((f) => f.determinedRows === 0));
    assert.ok(report.rows.every((r) => !r.certified));
  });

  it('a method that does not certify never yields a certified claim, whatever count it reports', () => {
    for (const method of ['bootstrap-likelihood', 'dp-likelihood', 'boosting-hessians', 'bounded-search'] as const) {
      assert.ok(!CERTIFYING_METHODS.includes(method));
      const file: FileReport = {
        path: '/m.joblib',
        format: 'joblib',
        contentHash: 'x',
        model: null,
        findings: [],
        notes: [],
        recoverability: { status: 'bounded', method, rows: 10, certifiedRows: 4, reconstructedRows: 10, seconds: 1, determinedFeatures: { a: 4 }, groups: { declared: 0, sources: [], problems: [] } },
      };
      const report = buildReport({ file });
      assert.equal(report.headline.claim, 'estimate', method);
      assert.equal(report.headline.certifiedRows, 0, method);
      assert.equal(report.features[0].determinedRows, 0, method);
    }
  });

  it('skipped (XGBoost random-forest mode without subsample): not measured, warning-coloured by its warnings, the reason once', async () => {
    const forest = await run(SKIPPED_MODEL, 5000);
    const report = buildReport({ file: forest.file, reconstruction: forest.result });
    assert.equal(report.headline.status, 'skipped');
    assert.equal(report.headline.claim, 'none');
    assert.equal(report.headline.certifiedShare, null);
    assert.equal(report.headline.verdict, 'not-measured');
    assert.ok(forest.file.findings.some((f) => f.rule === 'first-tree-exposes-counts' && f.severity === 'warning'), 'the model\'s first-tree-exposes-counts warning');
    assert.equal(report.headline.look, 'warning');
    assert.ok(forest.result.reason);
    assert.equal(report.headline.reason, forest.result.reason);
    assert.ok(!report.headline.summary.includes(forest.result.reason!), 'the reason is shown once, on its own line, not again in the summary');
    assert.match(report.headline.summary, /skipped/);
    assert.deepEqual(report.features, []);
    // The first tree's covers count all 150 rows: N from the probe, said so in the header.
    assert.equal(forest.file.model?.trainingRowsSource, 'probe');
    assert.ok(forest.file.findings.some((f) => f.rule === 'first-tree-exposes-counts' && f.data?.rows === 150));
    assert.equal(report.headline.rows, 150);
    assert.equal(report.headline.rowsSource, 'first-tree-probe');
  });

  it('not run and running: claim none, no figures', async () => {
    const file = await lintFile(COMPAS);
    const notRun = buildReport({ file });
    assert.equal(notRun.headline.status, 'not-run');
    assert.equal(notRun.headline.claim, 'none');
    assert.equal(notRun.headline.rows, file.model!.trainingRows);
    assert.equal(notRun.headline.rowsSource, 'file');
    assert.equal(notRun.headline.verdict, 'not-measured');
    assert.notEqual(notRun.headline.look, 'safe');
    const running = buildReport({ file, running: true, timeline: [{ ms: 0, phase: 'start' }] });
    assert.equal(running.headline.status, 'running');
    assert.equal(running.headline.verdict, 'not-measured-yet');
    assert.notEqual(running.headline.look, 'safe');
    assert.equal(running.timeline.length, 1);
  });

  it('summary sentences: one row, N unknown, timeout', () => {
    const base = { status: 'bounded' as const, method: 'aggregated' as const, reconstructedRows: 10 };
    assert.equal(summarySentence('certified', { ...base, certifiedRows: 1 }, 10), '1 of 10 training rows is proven recoverable from the model alone.');
    assert.equal(summarySentence('certified', { ...base, certifiedRows: 3 }, null), '3 training rows are proven recoverable from the model alone.');
    assert.match(summarySentence('certified', { ...base, status: 'timeout', certifiedRows: 3 }, 10), /by the time the budget ran out/);
  });
});

describe('the headline\'s verdict over every status x claim x worst severity', () => {
  const statuses: ReportHeadline['status'][] = ['exact', 'bounded', 'timeout', 'skipped', 'failed', 'not-run', 'running'];
  const claims: ReportHeadline['claim'][] = ['certified', 'estimate', 'none'];
  const severities: ReportHeadline['worstSeverity'][] = ['error', 'warning', 'information', 'hint', null];

  it('safe (green) only when the reconstruction completed, recovered nothing, and no finding is a warning or an error', () => {
    for (const status of statuses) {
      for (const claim of claims) {
        for (const worst of severities) {
          const verdict = headlineVerdict({ status, claim });
          const look = headlineLook(verdict, worst);
          const where = `${status} x ${claim} x ${worst}`;
          const completedNothing = (status === 'exact' || status === 'bounded') && claim === 'none';
          assert.equal(look === 'safe', completedNothing && worst !== 'error' && worst !== 'warning', where);
          // A run that did not finish is not measured, whatever count it carries.
          if (status === 'skipped' || status === 'failed' || status === 'not-run') assert.equal(verdict, 'not-measured', where);
          if (status === 'running') assert.equal(verdict, 'not-measured-yet', where);
          if (status === 'timeout' && claim === 'none') assert.equal(verdict, 'not-measured', where);
          if (verdict.startsWith('not-measured')) assert.equal(look, worst === 'error' || worst === 'warning' ? 'warning' : 'neutral', where);
          if (['exact', 'bounded', 'timeout'].includes(status) && claim !== 'none') assert.equal(verdict, claim, where);
        }
      }
    }
  });
});

describe('the training rows N: one number in the model header and the headline', () => {
  it('XGBoost (diabetes_xgb.json, N not in the file): the header says where N comes from, and shows the headline\'s N', async () => {
    const xgb = await run(DIABETES_XGB, 3000);
    // The file does not state N: the linter's summary has it from first-tree probing, and says so.
    assert.equal(xgb.file.model!.trainingRowsSource, 'probe');
    assert.ok(xgb.result.rows !== null && xgb.result.rows > 0, 'the reconstruction knows N');
    const probe = xgb.file.findings.find((f) => f.rule === 'first-tree-exposes-counts');
    assert.equal(probe?.data?.rows, xgb.result.rows, 'the first-tree probe states the same N');
    const report = buildReport({ file: xgb.file, features: featureUse(xgb.forest), reconstruction: xgb.result });
    assert.equal(report.headline.rows, xgb.result.rows);
    assert.equal(report.headline.rowsSource, 'first-tree-probe');
    const n = xgb.result.rows!.toLocaleString('en-US');
    const stated = /<dt>Training rows<\/dt><dd>([^<]*)<\/dd>/.exec(header(report))?.[1];
    assert.equal(stated, `${n} (from first-tree probing)`);
    assert.doesNotMatch(header(report), /not stated/);
    // The headline uses the same N.
    const figure = /<p class="headline-figure">([\s\S]*?)<\/p>/.exec(headline(report))![1].replace(/<[^>]+>/g, ' ');
    assert.match(figure, new RegExp(`\\b${n} training rows`));
    // Before any reconstruction, the probe alone gives the same N.
    const lintOnly = await lintFile(DIABETES_XGB);
    const notRun = buildReport({ file: lintOnly });
    assert.equal(notRun.headline.rows, xgb.result.rows);
    assert.equal(notRun.headline.rowsSource, 'first-tree-probe');
  });

  it('"not stated" only when nobody knows N', () => {
    const file: FileReport = { path: '/m.json', format: 'xgboost-json', contentHash: 'x', model: { library: 'xgboost', libraryVersion: null, estimator: 'Booster', task: 'regression', trees: 1, maxDepth: 1, features: 1, classes: [], trainingRows: null, bootstrap: false, location: null, trainingRowsSource: null }, findings: [], notes: [] };
    const report = buildReport({ file });
    assert.equal(report.headline.rows, null);
    assert.equal(report.headline.rowsSource, undefined);
    assert.match(header(report), /<dt>Training rows<\/dt><dd>not stated<\/dd>/);
  });
});

describe('TimelineRecorder', () => {
  it('thins a long run to the limit and keeps every phase boundary', () => {
    const recorder = new TimelineRecorder(50);
    const phases = ['cells', 'formulation', 'milp', 'certify'] as const;
    let ms = 0;
    const boundaries: { phase: string; ms: number }[] = [];
    for (const phase of phases) {
      for (let i = 0; i < 5000; i++) {
        ms += 1;
        if (i === 0 || i === 4999) boundaries.push({ phase, ms });
        recorder.record({ phase, elapsedMs: ms, done: i, total: 5000 });
      }
    }
    const timeline = recorder.finish({ seconds: (ms + 5) / 1000, certifiedRows: 7, reconstructedRows: 9 });
    assert.ok(timeline.length <= 50, `${timeline.length} points`);
    for (const b of boundaries) assert.ok(timeline.some((t) => t.phase === b.phase && t.ms === b.ms), `${b.phase} at ${b.ms}`);
    assert.deepEqual(timeline[0], { ms: 0, phase: 'start', certifiedRows: 0, reconstructedRows: 0 });
    assert.deepEqual(timeline[timeline.length - 1], { ms: ms + 5, phase: 'done', certifiedRows: 7, reconstructedRows: 9 });
    // Inner points spread over the phase, not bunched at its start.
    const certify = timeline.filter((t) => t.phase === 'certify');
    assert.ok(certify.length >= 3);
    assert.ok(certify.some((t) => t.done! > 1000 && t.done! < 4000));
  });

  it('ignores events after finish; thin keeps short timelines whole', () => {
    const recorder = new TimelineRecorder();
    recorder.record({ phase: 'cells', elapsedMs: 3, cells: 10 });
    const done = recorder.finish({ seconds: 0.01, certifiedRows: 1, reconstructedRows: 1 });
    recorder.record({ phase: 'milp', elapsedMs: 20 });
    assert.deepEqual(recorder.timeline(), done);
    assert.equal(done[1].cells, 10);
    assert.deepEqual(thin(done, 10), done);
  });
});
