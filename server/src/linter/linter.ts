/**
 * One file in, findings out: read -> complete the IR -> fast analyses -> rules.
 * Knows nothing of LSP or the command line; the server and the CLI both call it.
 */
import type { MembershipSummary } from '../membership/summary';
import { inputColumnCount } from '../forest/set-splits';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { readModel } from '../formats';
import { sideFilesBeside, withSideFiles } from './side-files';
import { foldAcrossModels } from './fold-findings';
import { completeForest } from '../forest/complete';
import type { Forest } from '../forest/schema';
import { treeDepth } from '../forest/structure';
import { checkReplay, type ReplayCheck } from '../attacks/bootstrap-replay';
import { squaredErrorRootsDiffer } from '../attacks/boosted-covers';
import { probeFirstTrees, type FirstTreeProbe } from '../attacks/first-tree-probe';
import { noModelFindings, runModelRules, savedDataFindings, scriptGlobalsFinding, unknownGlobalFindings, unreadableFinding, unsafeFinding, unsupportedModelFindings, type SeverityOverrides } from '../rules';
import type { EmbeddedModel, ModelRead } from '../formats/types';
import type { Finding } from '../rules/types';
import type { Recoverability } from '../recoverability/summary';
import type { Evaluation } from '../evaluate/evaluation';
import type { AdvisorReport } from '../report/model';
import { readSidecar, type GroupDeclaration } from '../recoverability/declared-groups';
import { categoriesOf } from '../rules/conditions';
import { placedIn } from '../rules/message';
import { isRuleId, type RuleId } from '../rules/catalog';
import type { EmbeddedSummary, ModelSummary, TrainingRowsSource } from './model-summary';

// Declared in model-summary.ts so that report/model.ts can use them without importing this file,
// which imports the report's types (no import circle); re-exported for the linter's callers.
export type { EmbeddedSummary, ModelSummary, TrainingRowsSource } from './model-summary';

export interface LintOptions {
  severities?: SeverityOverrides;
  /** Files larger than this are reported as too large instead of read; also the most a compressed model may inflate to. */
  maxFileBytes?: number;
  /** Keep the completed IR on the report for later analyses (costs memory on big models). */
  keepForest?: boolean;
  /** Wall-clock milliseconds the fast analyses may spend (bootstrap replay stops checking trees after it). */
  budgetMs?: number;
  /** A cache lookup by content hash; a hit skips reading and analysing the model again. */
  cached?: (contentHash: string) => FileReport | undefined;
  /** What the model's sidecar says (lintFile reads it): one-hot groups for conditions, rules disabled. */
  sidecar?: SidecarLintOptions;
}

export interface SidecarLintOptions {
  groups: readonly GroupDeclaration[];
  disable: readonly RuleId[];
  /** The sidecar's text ('' when none), so a cached report of another sidecar is not reused. */
  key: string;
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024 * 1024;

export interface FileReport {
  path: string;
  format: string;
  /** sha256 of the bytes analysed, so callers can cache and tell versions apart. */
  contentHash: string;
  model: ModelSummary | null;
  /** Further tree models in the file, beyond `model` (absent when there are none). */
  embedded?: EmbeddedSummary[];
  findings: Finding[];
  notes: string[];
  /** The reconstruction's summary, once it ran (CLI, or the server's background run). */
  recoverability?: Recoverability;
  /** The reconstruction scored against the true training data (CLI `--training-data`). */
  evaluation?: Evaluation;
  /** What-if simulations of the remedies (CLI `--advise`; server/src/advisor/). */
  advisor?: AdvisorReport;
  /** Membership of the candidates of `--membership` (aggregates only; server/src/membership/). */
  membership?: MembershipSummary;
  /** The completed IR, for analyses that run after the fast findings; not serialised. */
  forest?: Forest;
  /**
   * Rules the model's sidecar disables for this file (`"disable"` in `<model>.privacy.json`):
   * their findings are left out here, and later ones (the reconstruction's) must be too.
   */
  disabledRules?: RuleId[];
  /** The sidecar text this report was made with (see SidecarLintOptions.key); not serialised. */
  sidecarKey?: string;
}

/** The training-set size N and how it is known, or undefined when nothing establishes it. */
export interface TrainingRows {
  rows: number;
  source: TrainingRowsSource;
}

export function trainingRowsOf(forest: Forest, replay: ReplayCheck, probe: FirstTreeProbe | undefined): TrainingRows | undefined {
  if (forest.training.rows !== undefined) return { rows: forest.training.rows, source: 'file' };
  // Replay can establish N when the file does not state it (scikit-learn with max_samples set).
  if (replay.status === 'replayed' && replay.rowsAtMost === undefined) return { rows: replay.rows, source: 'replay' };
  // The first tree was grown on every row unless subsample < 1 drew some (then it counts the draw).
  const subsample = forest.hyperParameters.subsample;
  // A draw the file does not record shows in tree 1's cover (probe.ownDraw): tree 0's rows are not N then.
  if (probe && probe.status !== 'not-applicable' && probe.rows !== undefined && !(typeof subsample === 'number' && subsample < 1) && !squaredErrorRootsDiffer(forest) && !probe.ownDraw && !probe.weightedCounts) return { rows: probe.rows, source: 'probe' };
  return undefined;
}


export function summarize(forest: Forest, rows: TrainingRows | undefined, location?: string, probe?: FirstTreeProbe): ModelSummary {
  const columns = inputColumnCount(forest.features);
  return {
    library: forest.library.name,
    libraryVersion: forest.library.version ?? null,
    estimator: forest.estimator,
    task: summaryTask(forest, probe),
    // The file's trees: a binary GradientBoostingClassifier with subsample is analysed as its stage
    // 0, but holds every stage (logLoss.stages).
    trees: forest.logLoss?.stages?.length ?? forest.trees.length,
    // Classifiers read as row counts keep their labels beside the count column.
    classes: forest.classes.length > 0 ? forest.classes : forest.countedClasses?.classes ?? forest.logLoss?.classes ?? forest.countViewClasses ?? [],
    features: columns,
    ...(columns < forest.features.length ? { categorySetFeatures: forest.features.length - columns } : {}),
    trainingRows: rows?.rows ?? null,
    trainingRowsSource: rows?.source ?? null,
    bootstrap: forest.training.bootstrap,
    ...(forest.training.bootstrap && forest.training.withoutReplacement ? { withoutReplacement: true as const } : {}),
    maxDepth: forest.trees.reduce((deepest, tree) => Math.max(deepest, treeDepth(tree)), 0),
    location: location ?? null,
    outputs: forest.outputs ?? 1,
    ...(forest.training.heldOut ? { heldOut: { fraction: forest.training.heldOut.fraction, fitRows: forest.training.heldOut.fitRows ?? null } } : {}),
  };
}

/**
 * The task the summary states. Classifiers read as row counts (scikit-learn's gradient boosting)
 * are classifiers to the user. A dump states no objective and is read as one output; when the
 * first-tree probe finds its covers fit a logistic or softmax objective (the findings then name
 * it), the summary says classification too (sweep 17: a multi-class dump's JSON said regression
 * beside a finding about its classes).
 */
function summaryTask(forest: Forest, probe: FirstTreeProbe | undefined): ModelSummary['task'] {
  if (forest.countedClasses || forest.logLoss || forest.countViewClasses) return 'classification';
  const probedClassifier = forest.boosting?.objective === 'unknown' && probe !== undefined && probe.status !== 'not-applicable' && /^(binary|multi):|^reg:logistic$/.test(probe.objective);
  return probedClassifier ? 'classification' : forest.task;
}

export function hashContent(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function lintBytes(bytes: Uint8Array, path: string, options: LintOptions = {}): FileReport {
  const contentHash = hashContent(bytes);
  const hit = options.cached?.(contentHash);
  if (hit && (hit.sidecarKey ?? '') === (options.sidecar?.key ?? '')) return hit;
  const disabled = options.sidecar?.disable ?? [];
  return withoutDisabled(lintRead(bytes, path, contentHash, options), disabled, options.sidecar?.key);
}

/** Leaves out the findings of the rules the sidecar disables, and says which on the report. */
function withoutDisabled(report: FileReport, disabled: readonly RuleId[], sidecarKey: string | undefined): FileReport {
  return {
    ...report,
    findings: disabled.length ? report.findings.filter((f) => !disabled.includes(f.rule)) : report.findings,
    ...(disabled.length ? { disabledRules: [...disabled] } : {}),
    ...(sidecarKey ? { sidecarKey } : {}),
  };
}

function lintRead(bytes: Uint8Array, path: string, contentHash: string, options: LintOptions): FileReport {
  const severities = options.severities ?? {};
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const sideFiles = sideFilesBeside(path, maxBytes);
  const read = readModel(bytes, path, { maxBytes, sideFile: sideFiles });
  // Old joblib's side files are part of the model: a change of theirs is a change of the file.
  const base = { path, format: read.format, contentHash: withSideFiles(contentHash, sideFiles) };
  if (read.kind === 'unsafe') return { ...base, model: null, findings: unsafeFinding(read, severities), notes: [] };
  if (read.kind === 'unreadable') return { ...base, model: null, findings: unreadableFinding(read, severities), notes: [] };
  if (read.kind === 'no-model') {
    return { ...base, model: null, findings: [...scriptGlobalsFinding(read, severities), ...savedDataFindings(read, severities), ...(read.savedData?.some((d) => d.kind !== 'fitted-rows' && d.kind !== 'row-outputs') && read.unread.length === 0 ? [] : noModelFindings(read, severities)), ...unknownGlobalFindings(read, severities)], notes: read.notes };
  }

  const primary = analyseModel(read.forest, read, options);
  if (!primary.ok) {
    const tooLarge = primary.reason === 'too-large';
    const detail = tooLarge ? `the model is beyond this tool's limits: ${primary.problem}.` : `the model is inconsistent: ${primary.problem}.`;
    const findings = unreadableFinding({ kind: 'unreadable', format: read.format, reason: tooLarge ? 'too-large' : 'corrupt', detail }, severities);
    return { ...base, model: null, findings, notes: read.notes };
  }
  // A model inside a Pipeline, a search, a container: its findings say where it sits, in the detail.
  const findings = read.location ? primary.findings.map((finding) => placed(finding, read.location!, primary.forest.estimator)) : [...primary.findings];
  const embedded: EmbeddedSummary[] = [];
  const notes = [...read.notes];
  const analysedForests = [primary.forest];
  for (const other of read.others ?? []) {
    const analysed = analyseEmbedded(other, read, options);
    if (!analysed.ok) {
      notes.push(`${other.location} could not be analysed: ${analysed.problem}`);
      continue;
    }
    embedded.push({ ...analysed.summary, location: other.location });
    analysedForests.push(analysed.forest);
    findings.push(...analysed.findings);
  }
  withFoldRows([primary.summary, ...embedded], analysedForests);
  // Sibling models (a multi-output model's forests, calibration folds) fire the same rules: one finding a rule.
  const foldedFindings = foldAcrossModels(findings, read.location ?? 'model');
  foldedFindings.unshift(...scriptGlobalsFinding(read, severities));
  foldedFindings.push(...savedDataFindings(read, severities), ...unsupportedModelFindings(read.unread ?? [], severities), ...unknownGlobalFindings(read, severities));
  return {
    ...base,
    model: primary.summary,
    ...(embedded.length ? { embedded } : {}),
    findings: foldedFindings,
    notes,
    ...(options.keepForest ? { forest: primary.forest } : {}),
  };
}

/**
 * CalibratedClassifierCV's fold models (training.crossValidationFold): each states the folds, and
 * the rows given to fit when every fold model's N is known and the folds partition the rows (each
 * row is in every fold model but its own fold's: the N's sum to (folds - 1) x the rows given to fit).
 */
function withFoldRows(summaries: ModelSummary[], forests: readonly Forest[]): void {
  const groups = new Map<string, number[]>();
  forests.forEach((forest, i) => {
    const fold = forest.training.crossValidationFold;
    if (fold) groups.set(fold.group, [...(groups.get(fold.group) ?? []), i]);
  });
  for (const members of groups.values()) {
    const { folds, partition } = forests[members[0]].training.crossValidationFold!;
    const rows = members.map((i) => summaries[i].trainingRows);
    const sum = rows.reduce<number>((a, r) => a + (r ?? NaN), 0);
    const fitRows = partition && members.length === folds && Number.isInteger(sum / (folds - 1)) ? sum / (folds - 1) : null;
    for (const i of members) summaries[i].crossValidation = { folds, fitRows };
  }
}

type Analysed = { ok: true; forest: Forest; summary: ModelSummary; findings: Finding[] } | { ok: false; problem: string; reason?: 'corrupt' | 'too-large' };

/**
 * The most the bootstrap replay of the fast findings takes: past it, N is what the search found so
 * far and the trees not yet replayed are left unchecked (the finding says how many were).
 */
const REPLAY_MS = 3_000;

/** Completes one model's IR, replays its bootstrap within the budget and runs the model rules. */
function analyseModel(input: ModelRead['forest'], read: ModelRead, options: LintOptions): Analysed {
  const completed = completeForest(input);
  if (!completed.ok) return completed;
  const forest = completed.forest;
  // The replay is a fast finding: at most REPLAY_MS whatever the budget (the command line gave it
  // none, and a forest whose N it searched for ran past the read timeout as "unreadable").
  const replay = checkReplay(forest, Date.now() + Math.min(options.budgetMs ?? REPLAY_MS, REPLAY_MS));
  // Probed once here: the first-tree-exposes-counts rule reports it, the summary states its N.
  const probe = forest.boosting ? probeFirstTrees(forest) : undefined;
  const rows = trainingRowsOf(forest, replay, probe);
  const categories = categoriesOf(forest, options.sidecar?.groups ?? []);
  const findings = runModelRules(forest, replay, read, options.severities ?? {}, probe, categories);
  return { ok: true, forest, summary: summarize(forest, rows, read.location, probe), findings };
}

/** A further model of the file: the same analysis, its findings marked and worded with where it sits. */
function analyseEmbedded(other: EmbeddedModel, read: ModelRead, options: LintOptions): Analysed {
  // Text locations belong to the primary model's file positions; an embedded model has none of its own.
  const analysed = analyseModel(other.forest, { ...read, locate: undefined, location: other.location }, options);
  if (!analysed.ok) return analysed;
  // The first line stays the short one the Problems panel shows; where the model sits leads the detail.
  const findings = analysed.findings.map((finding) => {
    const moved = placed(finding, other.location, analysed.forest.estimator);
    return { ...moved, location: { ...moved.location, model: other.location } };
  });
  return { ...analysed, findings };
}

/** The first line stays the short one the Problems panel shows; where the model sits leads the detail. */
function placed(finding: Finding, location: string, estimator: string): Finding {
  return { ...finding, message: placedIn(finding.message, location, estimator) };
}

export async function lintFile(path: string, options: LintOptions = {}): Promise<FileReport> {
  const limit = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  // The model's bytes first, then its sidecar: the model is what a rewrite races with.
  const sidecar = async () => options.sidecar ?? (await sidecarOptions(path));
  let bytes: Uint8Array;
  try {
    const stat = await fs.stat(path);
    if (stat.size > limit) {
      const { disable, key } = await sidecar();
      return withoutDisabled(tooLarge(path, stat.size, limit, options), disable, key);
    }
    bytes = await fs.readFile(path);
  } catch (error) {
    const findings = unreadableFinding(
      { kind: 'unreadable', format: 'unknown', reason: 'corrupt', detail: `the file could not be opened (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).` },
      options.severities ?? {},
    );
    const { disable, key } = await sidecar();
    return withoutDisabled({ path, format: 'unknown', contentHash: '', model: null, findings, notes: [] }, disable, key);
  }
  return lintBytes(bytes, path, { ...options, sidecar: await sidecar() });
}

/** The sidecar's groups (for one-hot conditions) and disabled rules; a bad sidecar disables nothing. */
export async function sidecarOptions(modelPath: string): Promise<SidecarLintOptions> {
  const sidecar = await readSidecar(modelPath);
  return { groups: sidecar.declarations, disable: (sidecar.disable ?? []).filter(isRuleId), key: sidecar.text ?? '' };
}

function tooLarge(path: string, size: number, limit: number, options: LintOptions): FileReport {
  const mib = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;
  const findings = unreadableFinding(
    {
      kind: 'unreadable',
      format: 'unknown',
      reason: 'too-large',
      detail: `the file has ${mib(size)}, above the ${mib(limit)} limit (setting modelPrivacyLint.maxFileSizeMB, CLI --max-file-mb).`,
    },
    options.severities ?? {},
  );
  return { path, format: 'unknown', contentHash: '', model: null, findings, notes: [] };
}
