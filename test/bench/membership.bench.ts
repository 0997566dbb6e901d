/**
 * Benchmark of issue 14: membership inference against forests as people train them. Pima, breast
 * cancer, COMPAS and Adult (2,000-row samples), members = a seeded random half, candidates = the
 * whole set; `RandomForestClassifier(bootstrap=False)` and `RandomForestClassifier()` (100 trees,
 * bootstrap, seeds stored), trained by make-membership-models.py into .cache/bench/membership/.
 *
 * Per model: the reconstruction with the budget (its certified rows can prove members; `0` skips
 * it), then our engine on every candidate, timed; the paper's range attack trained on a seeded,
 * stratified 70% and both scored on the other 30%; and, as an alternative score on the same
 * candidates, the forest's confidence in the candidate's label (the mean over trees of the leaf's
 * share of the label, the classic confidence attack). Reported: basis, proven members and
 * non-members, proven verdicts the truth contradicts (must be 0; twins: proven members that are
 * non-members the model cannot tell from a member of their cell), how many non-members share
 * their cell and label with a member (no attack on the model can separate those: the ceiling),
 * AUC, accuracy, TPR at 1% FPR, scoring time (the engine alone, after the reconstruction).
 *
 *   npx tsc -b && node out/test/bench/membership.bench.js [budgetMs=30000] [name filter ...]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import type { ReconstructedRow } from '../../server/src/attacks/reconstruction/types';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { runBaseline, splitKnown } from '../../server/src/membership/baseline';
import { alignCandidates, readCandidates } from '../../server/src/membership/candidates';
import { assessMembership } from '../../server/src/membership/engine';
import { leavesOf } from '../../server/src/membership/leaves';
import { auc, isMemberDecision, membershipMetrics, tprAtFpr } from '../../server/src/membership/metrics';
import type { Candidate } from '../../server/src/membership/types';
import { REPO_ROOT } from '../support/paths';

const OUT = join(REPO_ROOT, '.cache/bench/membership');
interface Entry { name: string; dataset: string; model: string; candidates: string; bootstrap: boolean; rows: number; members: number }

function train(): Entry[] {
  const made = spawnSync('/usr/bin/python3', [join(REPO_ROOT, 'test/bench/make-membership-models.py'), OUT], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error("training the benchmark models failed (Debian's python3-sklearn is needed)");
  return JSON.parse(readFileSync(join(OUT, 'manifest.json'), 'utf8'));
}

/** The confidence attack: mean over trees of the leaf's share of the candidate's label. */
function confidence(forest: Forest, c: Candidate): number {
  const k = forest.classes.length;
  const y = forest.classes.findIndex((cls) => cls === c.label);
  const leaves = leavesOf(forest, c.values);
  let sum = 0;
  forest.trees.forEach((tree, t) => {
    let total = 0;
    for (let j = 0; j < k; j++) total += tree.classWeights[leaves[t] * k + j];
    sum += total > 0 && y >= 0 ? tree.classWeights[leaves[t] * k + y] / total : 0;
  });
  return sum / forest.trees.length;
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${(100 * v).toFixed(1)}%`);
const f3 = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : v.toFixed(3));

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const budgetMs = args[0] && /^\d+$/.test(args[0]) ? Number(args.shift()) : 30_000;
  const filters = args;
  const entries = train().filter((e) => filters.length === 0 || filters.some((f) => e.name.includes(f)));
  const lines = [
    `Reconstruction budget ${budgetMs / 1000} s per model (0: not run). Held-out: 30% of the candidates, stratified, seed 14; the paper's inference model is trained on the other 70%.`,
    '',
    '| model | candidates | basis | proven member | proven non-member | proven wrong (twins) | indistinguishable non-members | AUC | accuracy | TPR@1%FPR | held-out: ours AUC / acc / TPR | held-out: paper AUC / acc / TPR | confidence attack AUC | scoring time |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  let failures = 0;
  // Each bootstrap model a second time with its seeds stripped (no reconstruction): what is left without replay.
  const runs = entries.flatMap((e) => (e.bootstrap ? [{ entry: e, seedless: false }, { entry: e, seedless: true }] : [{ entry: e, seedless: false }]));
  for (const { entry, seedless } of runs) {
    const report = await lintFile(join(OUT, entry.model), { keepForest: true });
    const read = report.forest!;
    const forest: Forest = seedless ? { ...read, trees: read.trees.map((tree) => ({ ...tree, training: {} })) } : read;
    const file = await readCandidates(join(OUT, entry.candidates), 'label', 'member');
    const aligned = alignCandidates(file, forest);
    if (!aligned.ok) throw new Error(`${entry.name}: ${aligned.problem}`);
    const truth = file.members!;
    let certified: ReconstructedRow[] = [];
    let trainingRows: number | null = null;
    if (budgetMs > 0 && !seedless) {
      const result = await reconstruct(forest, { budgetMs });
      certified = result.reconstruction.filter((r) => r.certified);
      trainingRows = result.rows;
      process.stderr.write(`${entry.name}: reconstruction ${result.status} (${result.method}), ${result.certifiedRows} certified, ${result.seconds.toFixed(1)} s\n`);
    }
    const started = Date.now();
    const result = assessMembership(forest, aligned.candidates, { certifiedRows: certified, trainingRows });
    const seconds = (Date.now() - started) / 1000;
    const scores = result.candidates.map((c) => c.score);
    const verdicts = result.candidates.map((c) => c.verdict);
    const cells = aligned.candidates.map((c) => `${String(c.label)}|${leavesOf(forest, c.values).join(',')}`);
    const m = membershipMetrics(scores, verdicts, truth, cells);
    // Non-members sharing their cell and label with a member: no attack on the model can tell them apart.
    const memberCells = new Set(cells.filter((_, i) => truth[i]));
    const twinsAll = cells.filter((key, i) => !truth[i] && memberCells.has(key)).length;
    const split = splitKnown(truth);
    const test = split.test;
    const ours = [auc(test.map((i) => scores[i]), test.map((i) => truth[i])), test.filter((i) => isMemberDecision(verdicts[i]) === truth[i]).length / test.length, tprAtFpr(test.map((i) => scores[i]), test.map((i) => truth[i]))];
    const paper = runBaseline(forest, aligned.candidates, truth, split);
    const conf = auc(aligned.candidates.map((c) => confidence(forest, c)), truth);
    const count = (v: string) => verdicts.filter((x) => x === v).length;
    if (m.provenWrong > 0) failures++;
    lines.push(
      `| ${entry.name}${seedless ? ' (seeds stripped)' : ''} | ${entry.rows} (${entry.members} members) | ${result.basis} | ${count('member')} | ${count('non-member')} | ${m.provenWrong} (${m.twins}) | ${twinsAll} | ${f3(m.auc)} | ${pct(m.accuracy)} | ${pct(m.tprAt1Fpr)} | ` +
        `${f3(ours[0])} / ${pct(ours[1])} / ${pct(ours[2])} | ${paper.applies ? `${f3(paper.auc)} / ${pct(paper.accuracy)} / ${pct(paper.tprAt1Fpr)}` : 'n/a (no numeric features)'} | ${f3(conf)} | ${seconds.toFixed(2)} s |`,
    );
    process.stderr.write(`${lines[lines.length - 1]}\n`);
  }
  console.log(lines.join('\n'));
  if (failures) {
    console.error(`${failures} model(s) with a proven verdict the truth contradicts`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
