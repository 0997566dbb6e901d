/**
 * One remedy setting at a time: build the simulated forest, run the reconstruction on it with its
 * share of the budget, score what comes back (truth.ts). A scenario whose simulation does not
 * apply says why (status `skipped`) instead of failing the advisor.
 */
import { reconstruct } from '../attacks/reconstruction';
import type { CategoricalGroup, ReconstructionResult } from '../attacks/reconstruction/types';
import type { Forest } from '../forest/schema';
import type { RemedyOutcome } from '../report/model';
import { simulateBootstrapWithoutSeeds } from './bootstrap-simulation';
import { noiseScale, privatize, type NoiseDraws } from './dp-simulation';
import { mergeSmallLeaves } from './larger-leaves';
import type { Random } from './sampling';
import { scoreAgainst, type AdvisorTruth } from './truth';
import { assessMembership } from '../membership/engine';
import { auc } from '../membership/metrics';
import type { Candidate } from '../membership/types';

/** `RemedyOutcome` plus optional extras (not in report/model.ts; renderers may ignore them). */
export interface AdvisorOutcome extends RemedyOutcome {
  /** The engine's reason when its answer is not exact (timeout, skipped, why only an estimate). */
  reason?: string;
  /** Differential privacy: the error of each noise draw, whose mean is `error`. */
  errors?: (number | null)[];
}

/**
 * Candidates lined up with the model, and whether each was a member (the truth): with them
 * (CLI --membership with --members-column, or the sidecar's membersColumn) every outcome gets
 * `membershipAuc`, the AUC of our membership scores on the (simulated) model, computed as
 * cli/membership.ts does; null when it cannot be (one class of truth); for differential privacy,
 * the mean over the noise draws.
 */
export interface MembershipTruth {
  candidates: readonly Candidate[];
  members: readonly boolean[];
}

export interface ScenarioContext {
  truth: AdvisorTruth;
  membership?: MembershipTruth;
  current: AdvisorOutcome;
  groups: CategoricalGroup[];
  signal?: AbortSignal;
  stopped: () => boolean;
  /** Budget for the next reconstruction. */
  budgetMs: () => number;
  /** Counts one reconstruction as done (for progress and the budget shares). */
  finished: () => void;
}

export interface ScenarioRun {
  label: string;
  /** Reconstructions it will run. */
  reconstructions: number;
  run(ctx: ScenarioContext): Promise<AdvisorOutcome & { partial?: boolean }>;
}

export function currentOutcome(result: ReconstructionResult, truth: AdvisorTruth, groups: readonly CategoricalGroup[], membership?: { forest: Forest; truth: MembershipTruth }): AdvisorOutcome {
  return fromResult({ kind: 'current', label: 'as trained', simulation: false, description: 'the model as it is' }, result, truth, groups, membership);
}

/**
 * The membership AUC of the candidates on `forest` (the model or a simulated one), scored by the
 * membership engine with this reconstruction's certified rows, as the CLI's membership step does.
 */
export function membershipAucOf(forest: Forest, result: ReconstructionResult, membership: MembershipTruth): number | null {
  const scored = assessMembership(forest, membership.candidates, { certifiedRows: result.reconstruction.filter((row) => row.certified), trainingRows: result.rows });
  return auc(scored.candidates.map((c) => c.score), membership.members);
}

/** The scenario context's membership truth with the forest it applies to, if any. */
function on(forest: Forest, ctx: ScenarioContext): { forest: Forest; truth: MembershipTruth } | undefined {
  return ctx.membership ? { forest, truth: ctx.membership } : undefined;
}

type Setting = Pick<RemedyOutcome, 'kind' | 'label' | 'simulation' | 'description'> & { parameter?: number };

function fromResult(setting: Setting, result: ReconstructionResult, truth: AdvisorTruth, groups: readonly CategoricalGroup[], membership?: { forest: Forest; truth: MembershipTruth }): AdvisorOutcome {
  const error = scoreAgainst(truth, result.reconstruction, groups);
  return {
    ...(membership ? { membershipAuc: round4(membershipAucOf(membership.forest, result, membership.truth)) } : {}),
    ...setting,
    status: result.status,
    method: result.method,
    certifiedRows: result.certifiedRows,
    reconstructedRows: result.reconstructedRows,
    error,
    noBetterThanBaseline: verdict(error, truth),
    seconds: round(result.seconds),
    ...(result.reason ? { reason: result.reason } : {}),
  };
}

function verdict(error: number | null, truth: AdvisorTruth): boolean | null {
  return error === null || truth.baselineError === null ? null : error >= truth.baselineError;
}

function skipped(setting: Setting, reason: string): AdvisorOutcome {
  return { ...setting, status: 'skipped', method: 'none', certifiedRows: 0, reconstructedRows: 0, error: null, noBetterThanBaseline: null, seconds: 0, reason };
}

async function run(forest: Forest, ctx: ScenarioContext): Promise<ReconstructionResult> {
  const result = await reconstruct(forest, { budgetMs: ctx.budgetMs(), groups: ctx.groups, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  ctx.finished();
  return result;
}

/** `mechanismTrees`: the trees are a DP forest's own random ones (refilled), not a model's data-chosen ones. */
export function dpScenario(forest: Forest, epsilon: number, draws: readonly NoiseDraws[], mechanismTrees = false): ScenarioRun {
  const trees = forest.trees.length;
  const label = `ε = ${epsilon}`;
  const setting: Setting = {
    kind: 'differential-privacy',
    label,
    parameter: epsilon,
    simulation: true,
    description:
      `simulation: Laplace noise of scale ${round(noiseScale(epsilon, trees))} (ε = ${epsilon} split evenly over ${trees} trees, the DRAFT-DP mechanism) ` +
      `added to each of ${mechanismTrees ? 'the private model\'s leaf counts, recounted from the true rows,' : 'this model\'s leaf counts'} and truncated, error averaged over ${draws.length} noise draw${draws.length === 1 ? '' : 's'}` +
      (mechanismTrees ? '' : '; a real DP forest also grows random trees, which this model\'s data-chosen leaves are not'),
  };
  return {
    label,
    reconstructions: draws.length,
    async run(ctx) {
      const errors: (number | null)[] = [];
      const aucs: (number | null)[] = [];
      let first: AdvisorOutcome | undefined;
      let seconds = 0;
      let partial = false;
      for (const noise of draws) {
        if (first && ctx.stopped()) {
          partial = true;
          break;
        }
        const noised = privatize(forest, epsilon, noise);
        const outcome = fromResult(setting, await run(noised, ctx), ctx.truth, ctx.groups, on(noised, ctx));
        first ??= outcome;
        errors.push(outcome.error);
        if (outcome.membershipAuc !== undefined) aucs.push(outcome.membershipAuc);
        seconds += outcome.seconds;
        // A draw that timed out is still scored (its best estimate so far); the status says so.
        if (outcome.status === 'timeout') first.status = 'timeout';
      }
      const scored = errors.filter((e): e is number => e !== null);
      const error = scored.length === errors.length && scored.length > 0 ? scored.reduce((a, b) => a + b, 0) / scored.length : null;
      const outcome: AdvisorOutcome = { ...first!, error, noBetterThanBaseline: verdict(error, ctx.truth), seconds: round(seconds), errors };
      if (ctx.membership) {
        const known = aucs.filter((a): a is number => a !== null);
        outcome.membershipAuc = known.length === aucs.length && known.length > 0 ? round4(known.reduce((a, b) => a + b, 0) / known.length) : null;
      }
      if (errors.length < draws.length) outcome.description += ` (only ${errors.length} of ${draws.length} draws ran before the budget ran out)`;
      return partial ? { ...outcome, partial } : outcome;
    },
  };
}

export function leafScenario(forest: Forest, minLeafRows: number): ScenarioRun {
  const label = `min_samples_leaf = ${minLeafRows}`;
  return {
    label,
    reconstructions: 1,
    async run(ctx) {
      const merged = mergeSmallLeaves(forest, minLeafRows);
      const setting: Setting = {
        kind: 'larger-leaves',
        label,
        parameter: minLeafRows,
        simulation: true,
        description: `simulation: sibling leaves holding fewer than ${minLeafRows} rows merged into their parent, bottom-up (${merged.leavesBefore} leaves became ${merged.leavesAfter}); a model retrained with min_samples_leaf = ${minLeafRows} would choose other splits`,
      };
      if (merged.leavesAfter === merged.leavesBefore) {
        ctx.finished();
        return { ...ctx.current, ...setting, description: `no leaf holds fewer than ${minLeafRows} rows: the model already satisfies min_samples_leaf = ${minLeafRows} (its own reconstruction)` };
      }
      return fromResult(setting, await run(merged.forest, ctx), ctx.truth, ctx.groups, on(merged.forest, ctx));
    },
  };
}

export function bootstrapScenario(forest: Forest, random: Random): ScenarioRun {
  const label = 'bootstrap, no seeds';
  return {
    label,
    reconstructions: 1,
    async run(ctx) {
      const simulated = simulateBootstrapWithoutSeeds(forest, random);
      const base: Setting = { kind: 'bootstrap-without-seeds', label, simulation: true, description: simulated.ok ? simulated.description : 'bootstrap without seeds' };
      if (!simulated.ok) {
        ctx.finished();
        return skipped(base, simulated.reason);
      }
      return fromResult(base, await run(simulated.forest, ctx), ctx.truth, ctx.groups, on(simulated.forest, ctx));
    },
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const round4 = (x: number | null) => (x === null ? null : Math.round(x * 10000) / 10000);
