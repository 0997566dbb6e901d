/**
 * Benchmark of the what-if advisor (server/src/advisor/): per model, every simulated remedy's
 * reconstruction error against the true training rows next to the random baseline, its method
 * and seconds, and the advice. Models: examples/models/compas_no_bagging.joblib (COMPAS, 10
 * trees, no bagging, with examples/data/compas_100.csv), the reconstruction fixture
 * rf_credit_t5_d5 (Default Credit from ../shared/data, 5 trees of depth 5, 100 rows), and the
 * DRAFT-DP fixture dp_compas_t10_d5_e30_s0 (a DP forest's random trees, refilled from its rows).
 *
 * Run: npx tsc -b && node out/test/bench/advisor.bench.js
 * Environment: ADVISOR_BENCH_BUDGET_MS (default 60000 per model), ADVISOR_BENCH_DP_REPEATS (default 2).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { advise, advisedEpsilon } from '../../server/src/advisor';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import type { CategoricalGroup } from '../../server/src/attacks/reconstruction/types';
import { alignTrainingData, readTrainingData } from '../../server/src/evaluate/training-data';
import type { EvaluatedRow } from '../../server/src/evaluate/metrics';
import { lintFile } from '../../server/src/linter/linter';
import { declaredGroupsFor } from '../../server/src/recoverability/declared-groups';
import { EXAMPLES, FIXTURES } from '../support/paths';
import { readTrainingRows } from '../support/reconstruction-truth';

const BUDGET_MS = Number(process.env.ADVISOR_BENCH_BUDGET_MS ?? 60_000);
const DP_REPEATS = Number(process.env.ADVISOR_BENCH_DP_REPEATS ?? 2);

interface Case {
  name: string;
  model: string;
  truth: () => Promise<EvaluatedRow[]>;
  groups?: CategoricalGroup[];
}

function fixture(dir: string, name: string): Case {
  const entry = (JSON.parse(readFileSync(join(FIXTURES, dir, 'manifest.json'), 'utf8')) as { name: string; model: string; truth: string; groups: CategoricalGroup[] }[]).find((e) => e.name === name)!;
  return { name, model: join(FIXTURES, dir, entry.model), truth: async () => readTrainingRows(join(FIXTURES, dir, entry.truth)).rows, groups: entry.groups };
}

const CASES: Case[] = [
  {
    name: 'COMPAS (examples, no bagging)',
    model: join(EXAMPLES, 'models', 'compas_no_bagging.joblib'),
    truth: async () => {
      const forest = (await lintFile(join(EXAMPLES, 'models', 'compas_no_bagging.joblib'), { keepForest: true })).forest!;
      const aligned = alignTrainingData(await readTrainingData(join(EXAMPLES, 'data', 'compas_100.csv'), 'recidivate-within-two-years:1'), forest);
      if (!aligned.ok) throw new Error(aligned.problem);
      return aligned.aligned.rows;
    },
  },
  fixture('reconstruction', 'rf_credit_t5_d5'),
  fixture('dp', 'dp_compas_t10_d5_e30_s0'),
];

const fmt = (x: number | null) => (x === null ? '   n/a' : x.toFixed(3).padStart(6));

async function main(): Promise<void> {
  console.log(`advisor benchmark: budget ${BUDGET_MS / 1000} s per model, ${DP_REPEATS} noise draws per epsilon (timings on a shared machine are noisy)\n`);
  for (const c of CASES) {
    const forest = (await lintFile(c.model, { keepForest: true })).forest!;
    const groups = c.groups ?? (await declaredGroupsFor(c.model, forest, [])).groups;
    const truth = await c.truth();
    const current = await reconstruct(forest, { groups, budgetMs: 30_000 });
    const report = await advise(forest, current, { groups, truth, budgetMs: BUDGET_MS, dpRepeats: DP_REPEATS });
    console.log(`## ${c.name}: random baseline ${fmt(report.baselineError).trim()}, truth ${report.truth}, ${report.seconds.toFixed(1)} s${report.partial ? ' (partial)' : ''}`);
    console.log('| scenario | error | no better than baseline | certified | status | method | seconds |');
    console.log('|---|---|---|---|---|---|---|');
    for (const s of [report.current, ...report.scenarios]) {
      console.log(`| ${s.label} | ${fmt(s.error).trim()} | ${s.noBetterThanBaseline ?? 'n/a'} | ${s.certifiedRows} | ${s.status} | ${s.method} | ${s.seconds.toFixed(1)} |`);
    }
    console.log(`\nadvised epsilon: ${advisedEpsilon(report) ?? 'none'}`);
    for (const r of report.recommendations) console.log(`- ${r.text}`);
    console.log('');
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
