/**
 * The what-if advisor (issue 5, item 5): for the model at hand, simulate each remedy on its IR,
 * re-run the reconstruction on the simulated model within a share of the budget, and score it
 * against the truth next to the random baseline, so that advice can be concrete ("with ε = 2 the
 * reconstruction is no better than guessing").
 *
 *   sampling.ts              seeded Laplace and uniform draws
 *   tree-sums.ts             internal nodes' counts as sums of their children's
 *   bootstrap-simulation.ts  bootstrap without seeds: a multinomial resample of each tree's counts
 *   larger-leaves.ts         min_samples_leaf = k: small sibling leaves merged bottom-up
 *   dp-simulation.ts         DRAFT-DP's Laplace noise on this model's leaf counts at an epsilon
 *   refill.ts                a private model's trees refilled with the true rows (the mechanism's start)
 *   truth.ts                 what the scenarios are scored against; the papers' error and baseline
 *   scenarios.ts             one remedy setting: simulate, reconstruct, score
 *   recommendations.ts       the advice, and `advisedEpsilon` for the "lower epsilon" quick fix
 *   text.ts                  the advisor's lines in the CLI's text output
 *
 * Worker-safe: imports the engine and the evaluation only (no LSP, no file system).
 */
import type { ReconstructionResult } from '../attacks/reconstruction/types';
import type { CategoricalGroup } from '../attacks/reconstruction/types';
import type { Forest } from '../forest/schema';
import type { EvaluatedRow } from '../evaluate/metrics';
import { seededRandom } from '../evaluate/seeded-random';
import type { AdvisorReport, RemedyOutcome } from '../report/model';
import { drawNoise } from './dp-simulation';
import { recommend } from './recommendations';
import { bootstrapScenario, currentOutcome, dpScenario, leafScenario, type AdvisorOutcome, type MembershipTruth, type ScenarioRun } from './scenarios';
import { refillWithRows } from './refill';
import { chooseTruth, type AdvisorTruth } from './truth';
import { hasNoLabels } from '../forest/task';

export { advisedEpsilon, largestSafeEpsilon } from './recommendations';
export type { AdvisorOutcome, MembershipTruth } from './scenarios';

/** Epsilons tried by default: the DRAFT-DP paper's 1, 5, 10, 30 and the range around them. */
export const DEFAULT_EPSILONS = [0.1, 0.5, 1, 2, 5, 10, 20, 30];
/** min_samples_leaf values tried by default. */
export const DEFAULT_LEAF_SIZES = [2, 5, 10, 20];
/** Noise draws averaged per epsilon (the verdict rests on the mean error). */
export const DEFAULT_DP_REPEATS = 2;
const DEFAULT_BUDGET_MS = 30_000;

export interface AdvisorProgress {
  /** Reconstructions finished and planned. */
  done: number;
  total: number;
  /** The scenario now running, e.g. "ε = 2". */
  label: string;
  elapsedMs: number;
}

export interface AdvisorOptions {
  /** Wall-clock budget for all scenarios together. Default 30,000. */
  budgetMs?: number;
  signal?: AbortSignal;
  onProgress?: (progress: AdvisorProgress) => void;
  /** The true training rows (aligned with the model's features, as evaluate/training-data.ts gives them). */
  truth?: readonly EvaluatedRow[];
  /** Declared categorical groups: passed to every reconstruction and to the baseline. */
  groups?: readonly CategoricalGroup[];
  epsilons?: readonly number[];
  leafSizes?: readonly number[];
  /** Noise draws per epsilon, averaged. Default 2. */
  dpRepeats?: number;
  /** Seed of every simulation's random draws. Default 1. */
  seed?: number;
  /** Candidates with known membership: each outcome gets its membership AUC (scenarios.ts). */
  membership?: MembershipTruth;
}

/** `AdvisorReport` (report/model.ts) with optional extras: the outcomes' engine reasons and the truth's description. */
export interface AdvisorResult extends AdvisorReport {
  current: AdvisorOutcome;
  scenarios: AdvisorOutcome[];
  /** What the scores compare, and anything left out, in words. */
  notes: string[];
}

export async function advise(forest: Forest, current: ReconstructionResult, options: AdvisorOptions = {}): Promise<AdvisorResult> {
  const started = Date.now();
  const deadline = started + (options.budgetMs ?? DEFAULT_BUDGET_MS);
  const groups = [...(options.groups ?? [])];
  const truth = chooseTruth(current, options.truth, groups, forest);
  const notes = [truth.note];
  const membership = options.membership && options.membership.candidates.length === options.membership.members.length ? options.membership : undefined;
  const currentOut = currentOutcome(current, truth, groups, membership ? { forest, truth: membership } : undefined);
  if (membership) notes.push(`membership AUC: our scores for ${membership.candidates.length} candidates of known membership on each (simulated) model`);

  const base = simulationBase(forest, truth, notes);
  const runs = base ? plan(base, options, notes, forest.privacy !== undefined) : [];
  const total = runs.reduce((n, run) => n + run.reconstructions, 0);
  let done = 0;
  const scenarios: (AdvisorOutcome & { partial?: boolean })[] = [];
  let partial = false;
  const stopped = () => options.signal?.aborted === true || Date.now() >= deadline;
  for (const run of runs) {
    if (stopped()) {
      partial = true;
      break;
    }
    options.onProgress?.({ done, total, label: run.label, elapsedMs: Date.now() - started });
    const outcome = await run.run({
      truth,
      ...(membership ? { membership } : {}),
      current: currentOut,
      groups,
      signal: options.signal,
      stopped,
      // An even share of what is left for each reconstruction still to run: quick ones hand their rest on.
      budgetMs: () => Math.max(0, (deadline - Date.now()) / Math.max(1, total - done)),
      finished: () => void done++,
    });
    scenarios.push(outcome);
    if (outcome.partial) partial = true;
  }
  if (partial) notes.push(options.signal?.aborted ? 'cancelled: the scenarios not run are missing' : 'the budget ran out: the scenarios not run are missing');
  options.onProgress?.({ done, total, label: 'done', elapsedMs: Date.now() - started });
  const clean = scenarios.map(({ partial: _partial, ...outcome }) => outcome);
  return {
    truth: truth.kind,
    baselineError: truth.baselineError,
    errorMeasure: truth.measure,
    current: currentOut,
    scenarios: clean,
    recommendations: recommend(clean, truth.baselineError, truth.measure),
    seconds: (Date.now() - started) / 1000,
    partial,
    notes,
  };
}

/**
 * The forest the remedies are simulated on: the model itself, or for a model that is already
 * differentially private, its trees refilled with the true rows (refill.ts); without the true
 * rows its noisy counts cannot be simulated at another epsilon, nor would anything be scored.
 */
function simulationBase(forest: Forest, truth: AdvisorTruth, notes: string[]): Forest | undefined {
  if (!forest.privacy) return forest;
  const refilled = truth.kind === 'training-data' ? refillWithRows(forest, truth.rows) : null;
  if (refilled) {
    notes.push(`the model is differentially private (ε = ${forest.privacy.epsilon}): the scenarios refill its trees with the ${truth.rows.length} true rows and apply each setting's noise afresh`);
    return refilled;
  }
  notes.push(
    truth.kind === 'training-data'
      ? 'the model is differentially private and the true rows cannot be routed down its trees: no remedy simulated'
      : 'the model is differentially private: its remedies can only be simulated from the true training rows (CLI --training-data)',
  );
  return undefined;
}

/** The scenarios to run, in order: the epsilons first (the quick fix needs them), then leaf sizes, then bootstrap. */
function plan(forest: Forest, options: AdvisorOptions, notes: string[], mechanismTrees: boolean): ScenarioRun[] {
  if (forest.boosting) {
    notes.push('boosted models store hessian sums, not counts: none of the simulated remedies applies to them yet');
    return [];
  }
  // Gradient boosting and AdaBoost (read as row counts, or a binary model with subsample as its
  // stage 0): each stage was fitted to the ones before it, so merging one stage's leaves or
  // resampling its counts stands for no retrained model.
  if (forest.logLoss || forest.countedClasses) {
    notes.push('a boosted classifier (gradient boosting or AdaBoost): its stages were fitted one after another, so no remedy simulated on its counts stands for a retrained model; none is simulated for it yet');
    return [];
  }
  if (hasNoLabels(forest)) {
    notes.push('the simulated remedies apply to classification and regression forests: none simulated for an outlier detector');
    return [];
  }
  const sizes = [...new Set(options.leafSizes ?? DEFAULT_LEAF_SIZES)].filter((k) => k >= 2 && Number.isFinite(k)).sort((a, b) => a - b);
  if (forest.task !== 'classification') {
    // The noise and the bootstrap resampling are written over class counts; merging leaves keeps
    // each node's stored targets, so it stands for a regression tree as well.
    notes.push('regression forest: only larger leaves are simulated (the differential-privacy noise and the bootstrap resampling are written over class counts)');
    return sizes.map((k) => leafScenario(forest, k));
  }
  const seed = options.seed ?? 1;
  const runs: ScenarioRun[] = [];
  const epsilons = [...new Set(options.epsilons ?? DEFAULT_EPSILONS)].filter((e) => e > 0 && Number.isFinite(e)).sort((a, b) => a - b);
  const repeats = Math.max(1, Math.floor(options.dpRepeats ?? DEFAULT_DP_REPEATS));
  if (epsilons.length) {
    // One set of standard Laplace draws per repeat, shared by every epsilon (common random numbers).
    const draws = Array.from({ length: repeats }, (_, r) => drawNoise(forest, seededRandom(seed * 1000 + r)));
    for (const epsilon of epsilons) runs.push(dpScenario(forest, epsilon, draws, mechanismTrees));
  }
  for (const k of sizes) runs.push(leafScenario(forest, k));
  runs.push(bootstrapScenario(forest, seededRandom(seed)));
  return runs;
}

/** The same function under the name the integration (server, worker) calls. */
export const runAdvisor = advise;
export type { RemedyOutcome };
