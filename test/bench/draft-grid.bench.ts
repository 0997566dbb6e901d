/**
 * The DRAFT grid (issue 3, item 9): scikit-learn forests on N=100 rows of COMPAS, Adult and
 * Default Credit, 1/10/100 trees, max_depth 3/5/10/None, bootstrap off and on, several sampling
 * seeds (trained by test/bench/make-draft-grid.py into .cache/bench/draft-grid/). For each setting:
 *  - ours without bootstrap (aggregated cells + certificate);
 *  - ours with bootstrap as saved, seeds included (what a published pickle gives an attacker);
 *  - ours with bootstrap and the seeds stripped (the paper's setting: draws unknown);
 *  - on seed 0 without bootstrap, the per-row DRAFT-style formulation on the same HiGHS
 *    (test/bench/support/draft-per-row.ts), so that the speed-up is measured, not quoted.
 * Printed: mean error (strict: undetermined values count as wrong; filled: undetermined values
 * guessed as the paper's baseline does), certified rows, median time, next to the paper's times
 * (Tables 2 and 3: CP-SAT, 16 threads, 5 other samples) and its random baseline.
 *
 * Run: npx tsc -b && node out/test/bench/draft-grid.bench.js [--seeds 3] [--budget 20] [--per-row-limit 30]
 */
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { loadHighs } from '../../server/src/attacks/reconstruction/highs';
import type { ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import { evaluateReconstruction, randomBaselineError } from '../../server/src/evaluate/metrics';
import { seededRandom } from '../../server/src/evaluate/seeded-random';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { REPO_ROOT } from '../support/paths';
import { readTrainingRows, type FixtureEntry } from '../support/reconstruction-truth';
import type { PerRowResult } from './support/draft-per-row';
import type { PerRowJob } from './support/per-row-worker';
import { fillUndetermined } from './support/fill-undetermined';

const OUT = join(REPO_ROOT, '.cache/bench/draft-grid');
const PYTHON = '/usr/bin/python3';

interface GridEntry extends FixtureEntry {
  bootstrap: boolean;
}

/** DRAFT Table 2 (100 trees, by depth) and Table 3 (no depth limit, by trees): seconds without bagging. */
const PAPER_TABLE2: Record<string, Record<string, number>> = {
  compas: { '3': 36.5, '5': 70.0, '10': 110.9, none: 100.8 },
  adult: { '3': 81.5, '5': 1290.7, '10': 346.4, none: 196.3 },
  default_credit: { '3': 300.8, '5': 1358.5, '10': 382.8, none: 165.0 },
};
const PAPER_TABLE3: Record<string, Record<number, number>> = {
  compas: { 1: 0.7, 10: 8.4, 100: 100.8 },
  adult: { 1: 0.8, 10: 74.2, 100: 196.3 },
  default_credit: { 1: 0.9, 10: 129.7, 100: 165.0 },
};
/** DRAFT, bagging: average error over its whole grid (domain notes, section 4). */
const PAPER_BAGGING_ERROR: Record<string, number> = { compas: 0.087, adult: 0.137, default_credit: 0.192 };

/** The per-row baseline in a worker of its own (fresh WebAssembly memory), stopped 60 s after its limit. */
function perRowInWorker(job: PerRowJob): Promise<PerRowResult> {
  return new Promise((resolve) => {
    const worker = new Worker(join(__dirname, 'support', 'per-row-worker.js'), { workerData: job });
    const fail = (detail: string) => resolve({ status: 'error', seconds: job.timeLimitSeconds, variables: 0, constraints: 0, nonzeros: 0, detail });
    const watchdog = setTimeout(() => {
      void worker.terminate();
      fail('stopped by the watchdog');
    }, (job.timeLimitSeconds + 60) * 1000);
    worker.once('message', (result: PerRowResult) => {
      clearTimeout(watchdog);
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', (error) => {
      clearTimeout(watchdog);
      fail(error.message);
    });
  });
}

function paperSeconds(entry: GridEntry): string {
  const depth = entry.max_depth === null ? 'none' : String(entry.max_depth);
  const seconds = entry.trees === 100 ? PAPER_TABLE2[entry.dataset][depth] : entry.max_depth === null ? PAPER_TABLE3[entry.dataset][entry.trees] : undefined;
  return seconds === undefined ? '' : `${seconds} s`;
}

function withoutSeeds(forest: Forest): Forest {
  return { ...forest, trees: forest.trees.map((tree) => ({ ...tree, training: { ...tree.training, seed: undefined } })) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}
const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);

interface Run {
  strict: number;
  filled: number;
  certified: number;
  seconds: number;
  status: string;
  method: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seeds: { type: 'string', default: '3' }, budget: { type: 'string', default: '20' }, 'per-row-limit': { type: 'string', default: '30' }, only: { type: 'string' } } });
  const made = spawnSync(PYTHON, [join(REPO_ROOT, 'test/bench/make-draft-grid.py'), OUT, values.seeds!], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error('training the grid failed (Debian python3-sklearn is needed)');
  const manifest: GridEntry[] = JSON.parse(readFileSync(join(OUT, 'manifest.json'), 'utf8')).filter((e: GridEntry) => !values.only || e.dataset === values.only);
  const budgetMs = Number(values.budget) * 1000;
  const perRowLimit = Number(values['per-row-limit']);
  await loadHighs();

  const runs = new Map<string, Run[]>();
  const perRow = new Map<string, PerRowResult & { error?: number }>();
  const baselines = new Map<string, number>();
  const record = (key: string, run: Run) => runs.set(key, [...(runs.get(key) ?? []), run]);
  const started = Date.now();
  // Resident memory of this process (engine, HiGHS heap, the bench's own data), sampled after every model.
  let peakRss = process.memoryUsage().rss;
  for (const entry of manifest) {
    const report = await lintFile(join(OUT, entry.model), { keepForest: true });
    if (!report.forest) throw new Error(`${entry.model}: ${report.findings.map((f) => f.message).join('; ')}`);
    const truth = readTrainingRows(join(OUT, entry.truth)).rows;
    if (!baselines.has(entry.dataset)) baselines.set(entry.dataset, randomBaselineError(truth, entry.groups, report.forest.classes, 20));
    const evaluate = (result: ReconstructionResult): Run => {
      const rows = result.reconstruction;
      const strict = rows.length ? evaluateReconstruction(rows, truth).error : 1;
      const filled = rows.length ? evaluateReconstruction(fillUndetermined(rows, entry.groups, seededRandom(entry.seed + 7)), truth).error : 1;
      return { strict, filled, certified: result.certifiedRows, seconds: result.seconds, status: result.status, method: result.method };
    };
    const depth = entry.max_depth === null ? 'none' : String(entry.max_depth);
    const key = (setting: string) => `${entry.dataset}|${entry.trees}|${depth}|${setting}`;
    if (!entry.bootstrap) {
      record(key('no bootstrap'), evaluate(await reconstruct(report.forest, { groups: entry.groups, budgetMs })));
      if (entry.seed === 0) {
        const result = await perRowInWorker({ modelPath: join(OUT, entry.model), groups: entry.groups, timeLimitSeconds: perRowLimit });
        const error = result.rows ? evaluateReconstruction(result.rows, truth).error : undefined;
        perRow.set(key('no bootstrap'), { ...result, ...(error !== undefined ? { error } : {}) });
      }
    } else {
      record(key('bootstrap, seeds stored'), evaluate(await reconstruct(report.forest, { groups: entry.groups, budgetMs })));
      record(key('bootstrap, seeds stripped'), evaluate(await reconstruct(withoutSeeds(report.forest), { groups: entry.groups, budgetMs })));
    }
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    process.stderr.write(`\r${entry.name} (${((Date.now() - started) / 1000).toFixed(0)} s)          `);
  }
  process.stderr.write('\n');

  console.log(`\nDRAFT grid: N=100, ${values.seeds} samples per setting, budget ${values.budget} s per reconstruction, one-hot groups declared (scikit-learn 1.2.1, HiGHS WebAssembly, Node ${process.versions.node}, 2 cores)`);
  console.log('| data | trees | depth | setting | method | statuses | error strict | error filled | certified rows | median time | per-row (same HiGHS) | DRAFT paper |');
  console.log('|---|---:|---|---|---|---|---:|---:|---:|---:|---|---|');
  for (const [k, list] of runs) {
    const [data, trees, depth, setting] = k.split('|');
    const statuses = [...new Set(list.map((r) => r.status))].join('/');
    const methods = [...new Set(list.map((r) => r.method))].join('/');
    const entry = manifest.find((e) => e.dataset === data && String(e.trees) === trees && (e.max_depth === null ? 'none' : String(e.max_depth)) === depth)!;
    const pr = perRow.get(k);
    const perRowText = !pr
      ? ''
      : pr.status === 'too-large'
        ? `not built (${pr.detail})`
        : pr.status === 'error'
          ? `failed: ${pr.detail}`
          : `${pr.status} ${pr.seconds.toFixed(1)} s${pr.error !== undefined ? `, error ${pr.error.toFixed(3)}` : ''}`;
    const paper = setting === 'no bootstrap' ? paperSeconds(entry) : setting.endsWith('stripped') ? `avg error ${PAPER_BAGGING_ERROR[data]} (whole grid)` : '';
    console.log(
      `| ${data} | ${trees} | ${depth} | ${setting} | ${methods} | ${statuses} | ${mean(list.map((r) => r.strict)).toFixed(3)} | ${mean(list.map((r) => r.filled)).toFixed(3)} | ${mean(list.map((r) => r.certified)).toFixed(1)} | ${(median(list.map((r) => r.seconds)) * 1000).toFixed(0)} ms | ${perRowText} | ${paper} |`,
    );
  }
  console.log('\nRandom baseline (error of uniform guesses respecting the groups): ' + [...baselines].map(([d, e]) => `${d} ${e.toFixed(3)}`).join(', '));
  console.log('error strict: undetermined values count as wrong; error filled: undetermined values guessed uniformly within the groups, as a solver that must output a value would.');
  console.log(`Peak resident memory of this process: ${(peakRss / 1024 / 1024).toFixed(0)} MB, including the per-row baseline's HiGHS heap (WebAssembly memory only grows); the engine alone is measured by reconstruction.bench.`);
  console.log(`Whole grid in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
