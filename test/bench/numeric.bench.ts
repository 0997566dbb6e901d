/**
 * Benchmark of the reconstruction of numeric forests: scikit-learn RandomForestClassifier without
 * bootstrap on N=100 rows of Pima Indians Diabetes (8 numeric features), trees 1/10/100 x depth
 * 3/5/unlimited, trained by test/fixtures/numeric/generate.py --bench into .cache/bench/numeric/.
 * Per model: method and status, cells enumerated (and merged), certified rows, leaf-count error of
 * the answer, accuracy after Hungarian matching (TimberStrike: share of features within 0.319 std,
 * with undetermined values counted wrong, and with them filled by the population mean; share
 * inside the reported interval; labels) against a uniform random baseline, and time. For the
 * bounded search, "cells" are those the exact enumeration found before giving up, and the number
 * in brackets the distinct cells the search sampled.
 * One run per model with a 30 s budget (the machine is shared: times are noisy).
 *
 * Run: npx tsc -b && node out/test/bench/numeric.bench.js [budgetMs]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { loadHighs } from '../../server/src/attacks/reconstruction/highs';
import { evaluateNumericReconstruction, uniformBaselineAccuracy } from '../../server/src/evaluate/numeric-metrics';
import { lintFile } from '../../server/src/linter/linter';
import { readFloat32Rows, routedLeafCountError, type NumericFixtureEntry } from '../support/numeric-truth';
import { REPO_ROOT } from '../support/paths';

const OUT = join(REPO_ROOT, '.cache/bench/numeric');
const PYTHON = '/usr/bin/python3';

function train(): NumericFixtureEntry[] {
  mkdirSync(OUT, { recursive: true });
  const made = spawnSync(PYTHON, [join(REPO_ROOT, 'test/fixtures/numeric/generate.py'), '--bench', OUT], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error('training the benchmark models failed (Debian\'s python3-sklearn is needed)');
  return JSON.parse(readFileSync(join(OUT, 'manifest.json'), 'utf8'));
}

const percent = (v: number | undefined) => (v === undefined ? '-' : `${(100 * v).toFixed(1)}%`);

async function main(): Promise<void> {
  const budgetMs = Number(process.argv[2] ?? 30_000);
  const models = train();
  await loadHighs();
  console.log(`\nNumeric reconstruction, Pima N=100, no bootstrap, budget ${budgetMs / 1000} s (scikit-learn 1.2.1; shared machine, times noisy)`);
  console.log('| trees | depth | method | status | cells (merged or sampled) | certified | leaf-count error | within 0.319 std | same, nulls = mean | random | in interval | labels | time |');
  console.log('|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const model of models) {
    const report = await lintFile(join(OUT, model.model), { keepForest: true });
    if (!report.forest) throw new Error(`${model.model}: ${report.findings.map((f) => f.message).join('; ')}`);
    const forest = report.forest;
    const truth = readFloat32Rows(join(OUT, model.truth));
    const result = await reconstruct(forest, { budgetMs });
    const quality = result.reconstructedRows > 0 ? evaluateNumericReconstruction(result.reconstruction, truth, model.population.std) : undefined;
    const filled = result.reconstructedRows > 0 ? evaluateNumericReconstruction(result.reconstruction, truth, model.population.std, model.population.mean) : undefined;
    const integral = model.population.min.map((_, f) => truth.every((r) => Number.isInteger(r.values[f])));
    const baseline = uniformBaselineAccuracy(truth, model.population, forest.classes, integral);
    const error = result.reconstructedRows > 0 ? routedLeafCountError(forest, result.reconstruction) : '-';
    console.log(
      `| ${model.trees} | ${model.max_depth ?? 'unlimited'} | ${result.method} | ${result.status} | ${result.stats.cells} (${result.stats.mergedCells}) | ${result.certifiedRows}/${model.rows} | ${error} | ${percent(quality?.accuracy)} | ${percent(filled?.accuracy)} | ${percent(baseline)} | ${percent(quality?.withinInterval)} | ${percent(quality?.labelAccuracy)} | ${result.seconds.toFixed(1)} s |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
