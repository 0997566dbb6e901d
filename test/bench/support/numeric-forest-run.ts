/**
 * One model of the numeric-forest benchmark (numeric-forests.bench.ts), in a process of its own so
 * that the peak memory it reports is this model's alone:
 *
 *   node out/test/bench/support/numeric-forest-run.js DIR NAME engine|baseline BUDGET_MS
 *
 * `engine`: `reconstruct()` as the CLI and the editor run it. `baseline`: the bounded search
 * (bounded-search.ts, the fallback before boxes/) called directly with the same budget.
 * Prints one JSON line (`RunResult`). The peak RSS is read right after the reconstruction, before
 * the scoring (whose matching would otherwise count): it covers reading and linting the model,
 * which every user of the engine pays too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reconstruct, type ReconstructedRow, type ReconstructionResult } from '../../../server/src/attacks/reconstruction';
import { reconstructBySearch } from '../../../server/src/attacks/reconstruction/bounded-search';
import { RunContext } from '../../../server/src/attacks/reconstruction/context';
import { featureAxes } from '../../../server/src/attacks/reconstruction/feature-axes';
import { likeliestPoint } from '../../../server/src/attacks/reconstruction/point-choice';
import { loadHighs } from '../../../server/src/attacks/reconstruction/highs';
import { buildLeafTable } from '../../../server/src/attacks/reconstruction/leaves';
import { evaluateNumericReconstruction, TOLERANCE_STD } from '../../../server/src/evaluate/numeric-metrics';
import { seededRandom } from '../../../server/src/evaluate/seeded-random';
import type { Forest } from '../../../server/src/forest/schema';
import { lintFile } from '../../../server/src/linter/linter';
import { cellBox } from '../../../server/src/membership/cell';
import { readFloat32Rows, type NumericFixtureEntry } from '../../support/numeric-truth';
import type { TrainingRow } from '../../support/reconstruction-truth';

export interface RunResult {
  name: string;
  mode: 'engine' | 'baseline';
  status: string;
  method: string;
  reason?: string;
  rows: number;
  certifiedRows: number;
  pinnedRows?: number;
  medianWidth?: number;
  /** Wall-clock seconds of the reconstruction call alone (reading the model excluded). */
  seconds: number;
  /** Peak resident set of the process, MB, at the end of the reconstruction. */
  peakMb: number;
  leafCountError?: number;
  /** RA after the Hungarian matching over all rows (only for N <= HUNGARIAN_LIMIT). */
  raHungarian?: number;
  /** RA of a seeded sample of true rows, each against its nearest reconstructed row (see `nearestAccuracy`). */
  raNearest?: number;
  sampled: number;
  /** RA of each true row's own cell's representative point (engine runs only). */
  raCeiling?: number;
  error?: string;
}

/** Above this many rows the O(n^3) Hungarian matching is not run (1,000 rows take seconds, 10,000 hours). */
export const HUNGARIAN_LIMIT = 1_000;
/** True rows the nearest-row RA scores (all of them below this). */
export const SAMPLE_ROWS = 1_000;

/** The matching cost of numeric-metrics.ts: per feature min(1, |difference| / std), null 1; a wrong label 1. */
function cost(r: ReconstructedRow, t: TrainingRow, std: readonly number[]): number {
  let total = r.label !== t.label ? 1 : 0;
  for (let f = 0; f < std.length; f++) {
    const v = r.values[f];
    total += v === null ? 1 : Math.min(1, Math.abs(v - t.values[f]) / (std[f] > 0 ? std[f] : 1));
  }
  return total;
}

function withinTolerance(values: readonly (number | null)[], t: TrainingRow, std: readonly number[]): number {
  let within = 0;
  for (let f = 0; f < std.length; f++) {
    const v = values[f];
    if (v !== null && Math.abs(v - t.values[f]) <= TOLERANCE_STD * std[f]) within++;
  }
  return within;
}

/** A seeded sample of `size` distinct indices of 0..n-1 (all of them, in order, when n <= size). */
export function sampleIndices(n: number, size: number, seed = 1): number[] {
  const all = Array.from({ length: n }, (_, i) => i);
  if (n <= size) return all;
  const random = seededRandom(seed);
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(random() * (n - i));
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all.slice(0, size);
}

/**
 * The cheap RA for large N: every sampled true row is scored against its nearest reconstructed row
 * by the Hungarian's own cost, each reconstructed row free to serve several true rows. Dropping the
 * one-to-one constraint can only lower the cost of each pair, so this is an optimistic estimate of
 * the matched RA; the table shows both where both can be computed, to show how optimistic.
 */
export function nearestAccuracy(reconstruction: readonly ReconstructedRow[], truth: readonly TrainingRow[], std: readonly number[], sample: readonly number[]): number {
  if (reconstruction.length === 0) return 0;
  let within = 0;
  for (const i of sample) {
    const t = truth[i];
    let best = 0;
    let bestCost = Infinity;
    for (let j = 0; j < reconstruction.length; j++) {
      const c = cost(reconstruction[j], t, std);
      if (c < bestCost) {
        bestCost = c;
        best = j;
      }
    }
    within += withinTolerance(reconstruction[best].values, t, std);
  }
  return within / Math.max(1, sample.length * std.length);
}

/**
 * What the model reveals at all about the sampled rows: each true row's own cell (the intersection
 * of the leaf boxes its values reach in every tree: the points no tree can tell from it), stood for
 * by the engine's point for each feature's interval (`likeliestPoint`, as `boxToRow`
 * does), paired with that row itself. No reconstruction can know more about a row than its cell,
 * so this is the RA an attacker who found every row's cell exactly would score.
 */
export function ceilingAccuracy(forest: Forest, truth: readonly TrainingRow[], std: readonly number[], sample: readonly number[]): number | undefined {
  const axes = featureAxes(forest);
  if (!axes.ok) return undefined;
  const features = forest.features.length;
  let within = 0;
  for (const i of sample) {
    const { lower, upper } = cellBox(forest, truth[i].values);
    const point = Array.from({ length: features }, (_, f) => likeliestPoint(axes.axes, f, lower[f], upper[f]));
    within += withinTolerance(point, truth[i], std);
  }
  return within / Math.max(1, sample.length * features);
}

/**
 * A reference that needs no model: every sampled true row guessed as the per-feature median of the
 * training rows (which the model does not reveal; an attacker who knows the data's distribution).
 * Shows how much of an RA the tolerance alone grants on skewed features.
 */
export function medianGuessAccuracy(truth: readonly TrainingRow[], std: readonly number[], sample: readonly number[]): number {
  const median = std.map((_, f) => {
    const values = truth.map((t) => t.values[f]).sort((a, b) => a - b);
    const mid = values.length >> 1;
    return values.length % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  });
  let within = 0;
  for (const i of sample) within += withinTolerance(median, truth[i], std);
  return within / Math.max(1, sample.length * std.length);
}

async function reconstructBaseline(forest: Forest, budgetMs: number): Promise<ReconstructionResult> {
  const prepared = buildLeafTable(forest);
  const ctx = new RunContext({ budgetMs });
  if (!prepared.ok) return ctx.answer({ status: 'skipped', reason: prepared.reason, rows: forest.training.rows ?? null, certifiedRows: 0 });
  return reconstructBySearch(forest, prepared.table, ctx, 'baseline: the bounded search, called directly');
}

async function run(dir: string, name: string, mode: 'engine' | 'baseline', budgetMs: number): Promise<RunResult> {
  const manifest: NumericFixtureEntry[] = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const model = manifest.find((m) => m.name === name);
  if (!model) throw new Error(`${name}: not in ${dir}/manifest.json`);
  const report = await lintFile(join(dir, model.model), { keepForest: true });
  if (!report.forest) throw new Error(`${name}: ${report.findings.map((f) => f.message).join('; ')}`);
  const forest = report.forest;
  await loadHighs();
  const started = Date.now();
  const result = mode === 'engine' ? await reconstruct(forest, { budgetMs }) : await reconstructBaseline(forest, budgetMs);
  const seconds = (Date.now() - started) / 1000;
  const peakMb = process.resourceUsage().maxRSS / 1024;

  const truth = readFloat32Rows(join(dir, model.truth));
  const std = model.population.std;
  const sample = sampleIndices(truth.length, SAMPLE_ROWS);
  const rows = result.reconstruction;
  const scored = rows.length > 0;
  return {
    name,
    mode,
    status: result.status,
    method: result.method,
    ...(result.reason ? { reason: result.reason } : {}),
    rows: truth.length,
    certifiedRows: result.certifiedRows,
    ...(result.boxes ? { pinnedRows: result.boxes.pinnedRows, medianWidth: result.boxes.medianWidth } : {}),
    seconds,
    peakMb,
    ...(result.stats.leafCountError !== undefined ? { leafCountError: result.stats.leafCountError } : {}),
    ...(scored && truth.length <= HUNGARIAN_LIMIT ? { raHungarian: evaluateNumericReconstruction(rows, truth, std).accuracy } : {}),
    ...(scored ? { raNearest: nearestAccuracy(rows, truth, std, sample) } : {}),
    sampled: sample.length,
    ...(mode === 'engine' ? { raCeiling: ceilingAccuracy(forest, truth, std, sample) } : {}),
  };
}

if (require.main === module) {
  const [dir, name, mode, budget] = process.argv.slice(2);
  run(dir, name, mode === 'baseline' ? 'baseline' : 'engine', Number(budget ?? 60_000)).then(
    (result) => console.log(JSON.stringify(result)),
    (error: unknown) => {
      console.log(JSON.stringify({ name, mode, error: (error as Error).stack ?? String(error) }));
      process.exit(1);
    },
  );
}
