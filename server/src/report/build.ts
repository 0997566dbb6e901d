/**
 * Builds the privacy report (report/model.ts) from what the linter and the engine produced: the
 * file's lint report, the reconstruction (its full result when at hand, else the `recoverability`
 * summary), the progress timeline, the advisor and the training scripts.
 *
 * The headline's claim is the honesty rule of the whole product: `certified` only when rows are
 * PROVEN from the model alone, which only the methods that certify can do (`aggregated`,
 * `replayed-bootstrap`, `boosting-counts`, whose certificate is aggregated's). Every other method's rows are a best reconstruction, labelled `estimate`,
 * even if a future method reported certified rows by mistake.
 *
 * The rows' values never enter the report; `revealRows` makes them on explicit request.
 */
import { basename } from 'node:path';
import type { FileReport } from '../linter/linter';
import type { Forest } from '../forest/schema';
import type { ReconstructionMethod, ReconstructionResult } from '../attacks/reconstruction/types';
import { determined, rowsText, type Recoverability } from '../recoverability/summary';
import { RULES } from '../rules/catalog';
import type { Finding } from '../rules/types';
import { packageVersion, ruleDocUrl } from '../util/package-info';
import {
  REPORT_SCHEMA_VERSION,
  type AdvisorReport,
  type FeatureRecovery,
  type InputColumnRecovery,
  type PrivacyReport,
  type ReportFinding,
  type ReportHeadline,
  type RevealedRows,
  type RowsSource,
  type RowExposure,
  type ScriptReference,
  type TimelinePoint,
} from './model';
import { headlineLook, headlineVerdict } from './html/verdict';
import { hasNoLabels } from '../forest/task';

/**
 * The methods whose certified rows are proofs; the others only estimate. `row-boxes` proves each
 * row's box (an interval per numeric feature) and label, not the point written for it: its
 * certified rows count as proven, and the report says "as boxes" with their width (`boxes`);
 * `box-estimate` proves the boxes of single-class leaves the same way (its other rows are estimates).
 */
export const CERTIFYING_METHODS: readonly ReconstructionMethod[] = ['aggregated', 'replayed-bootstrap', 'boosting-counts', 'row-boxes', 'box-estimate', 'leaf-regions'];

/** A feature of the model and whether any tree splits on it. */
export interface FeatureUse {
  name: string;
  used: boolean;
}

export interface ReportInput {
  file: FileReport;
  /**
   * The model's features and whether a tree splits on each (`featureUse(forest)`). Without it the
   * names come from the recoverability summary, and a feature counts as used when it is determined
   * in some row (true but incomplete: a feature split on can still be determined in no row).
   */
  features?: readonly FeatureUse[];
  /** What the certified rows prove per Pipeline input column (`inputColumnRecovery(forest, result)`), when the model has one. */
  inputColumns?: readonly InputColumnRecovery[];
  /** The engine's full result; without it, `file.recoverability` (or `recoverability`) alone. */
  reconstruction?: ReconstructionResult;
  /** Defaults to `file.recoverability`. */
  recoverability?: Recoverability;
  /** The reconstruction is still running (the webview shows a report while it runs). */
  running?: boolean;
  timeline?: TimelinePoint[];
  advisor?: AdvisorReport;
  /** The advisor will answer later (the editor's queue); see `PrivacyReport.advisorPending`. */
  advisorPending?: 'queued' | 'running';
  scripts?: ScriptReference[];
  /** Rule pages under this URL instead of the packaged copies. */
  docsBaseUrl?: string;
  /** Defaults to now. */
  generatedAt?: Date;
}

/** Which features a tree splits on, for `ReportInput.features`. */
export function featureUse(forest: Pick<Forest, 'features' | 'trees'>): FeatureUse[] {
  const used = new Set<number>();
  for (const tree of forest.trees) {
    for (let node = 0; node < tree.left.length; node++) if (tree.left[node] !== -1) used.add(tree.feature[node]);
  }
  return forest.features.map((feature, f) => ({ name: feature.name, used: used.has(f) }));
}

export function buildReport(input: ReportInput): PrivacyReport {
  const { file } = input;
  const recoverability = input.recoverability ?? file.recoverability;
  // Most severe first, as the Problems panel lists them (stable: a rule's findings keep their order).
  const findings = sortBySeverity(file.findings).map((finding): ReportFinding => ({
    rule: finding.rule,
    severity: finding.severity,
    title: RULES[finding.rule].title,
    message: finding.message,
    docsUrl: ruleDocUrl(finding.rule, input.docsBaseUrl),
    ...(finding.location.range ? { line: finding.location.range.start.line + 1 } : {}),
    ...(finding.location.tree !== undefined ? { tree: finding.location.tree } : {}),
    ...(finding.location.node !== undefined ? { node: finding.location.node } : {}),
  }));
  const headline = buildHeadline(input, recoverability, findings);
  const rows = input.reconstruction ? rowExposure(input.reconstruction) : [];
  const notes = [...file.notes];
  if (recoverability?.groups.problems.length) notes.push(...recoverability.groups.problems.map((p) => `Declared groups: ${p}`));
  if (recoverability && recoverability.groups.declared > 0) {
    notes.push(`${recoverability.groups.declared} categorical group${recoverability.groups.declared === 1 ? '' : 's'} declared (${recoverability.groups.sources.join(', ')}); the certificate trusts them.`);
  }
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: (input.generatedAt ?? new Date()).toISOString(),
    tool: { name: 'model-privacy-lint', version: packageVersion() },
    file: { path: file.path, name: basename(file.path), format: file.format, contentHash: file.contentHash },
    model: file.model,
    headline,
    findings,
    features: featureRecovery(input, recoverability, headline),
    ...(input.inputColumns && headline.claim === 'certified' && !input.running ? { inputColumns: [...input.inputColumns] } : {}),
    rows,
    timeline: input.timeline ?? [],
    ...(input.advisor ? { advisor: input.advisor } : !input.advisorPending ? {} : { advisorPending: input.advisorPending }),
    ...(file.evaluation ? { evaluation: file.evaluation } : {}),
    ...(file.membership ? { membership: file.membership } : {}),
    // The tightness of proven boxes, only beside a certified claim: an unproven box says nothing.
    ...(recoverability?.boxes && headline.claim === 'certified' ? { boxes: recoverability.boxes } : {}),
    scripts: input.scripts ?? [],
    notes,
  };
}

const SEVERITY_ORDER = ['error', 'warning', 'information', 'hint'] as const;

function sortBySeverity(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity));
}

/**
 * The training rows N, one number for the model header and the headline, and where it comes from:
 * the reconstruction's N when it ran (the engine takes the file's, or probes the first trees of a
 * boosted model), else the file's, else the `first-tree-exposes-counts` finding's probe. The source
 * is the first of these that states the same number: the file, the probe, or the reconstruction.
 */
export function trainingRows(file: Pick<FileReport, 'model' | 'findings'>, recoverability: Pick<Recoverability, 'rows'> | undefined): { rows: number | null; rowsSource?: RowsSource } {
  // The linter's summary says how it knows N (linter.ts trainingRowsOf); the probe's finding is a
  // fallback for summaries made before that field existed. A summary that has it and says null
  // decided N is unknown (subsample < 1: the first tree counts a draw), so the probe is not used.
  const stated = file.model?.trainingRows ?? null;
  const statedSource: RowsSource = file.model?.trainingRowsSource === 'probe' ? 'first-tree-probe' : file.model?.trainingRowsSource === 'replay' ? 'bootstrap-replay' : 'file';
  const probed = file.model?.trainingRowsSource === null ? null : probedRows(file.findings);
  const rows = recoverability?.rows ?? stated ?? probed;
  if (rows === null) return { rows };
  return { rows, rowsSource: rows === stated ? statedSource : rows === probed ? 'first-tree-probe' : 'reconstruction' };
}

/** N as the first trees of a boosted model state it (rules/first-tree-exposes-counts.ts puts it in the finding's data). */
function probedRows(findings: readonly Finding[]): number | null {
  const rows = findings.find((f) => f.rule === 'first-tree-exposes-counts')?.data?.rows;
  return typeof rows === 'number' && Number.isInteger(rows) && rows >= 0 ? rows : null;
}

/** The verdict and look of a headline (html/verdict.ts has the whole table). */
function judged(headline: Omit<ReportHeadline, 'verdict' | 'look'>): ReportHeadline {
  const verdict = headlineVerdict(headline);
  return { ...headline, verdict, look: headlineLook(verdict, headline.worstSeverity) };
}

function buildHeadline(input: ReportInput, recoverability: Recoverability | undefined, findings: ReportFinding[]): ReportHeadline {
  const worstSeverity = SEVERITY_ORDER.find((s) => findings.some((f) => f.severity === s)) ?? null;
  if (!recoverability || input.running) {
    const status = input.running ? 'running' : 'not-run';
    return judged({
      ...trainingRows(input.file, recoverability),
      certifiedRows: 0,
      reconstructedRows: 0,
      certifiedShare: null,
      determinedValueShare: null,
      status,
      method: 'none',
      seconds: 0,
      claim: 'none',
      summary: input.running
        ? 'The reconstruction is running: the progress chart follows it, and the figures appear when it ends.'
        : input.file.model
          ? 'No reconstruction ran on this model: nothing is known yet about which training rows it gives away.'
          : 'The file could not be read as a model (see the findings).',
      worstSeverity,
    });
  }
  const { status, method, certifiedRows, reconstructedRows } = recoverability;
  const { rows, rowsSource } = trainingRows(input.file, recoverability);
  // Rows certified without their label (regression) are proven to be in the training data too.
  const withoutLabel = recoverability.certifiedWithoutLabel ?? 0;
  const proven = certifiedRows + withoutLabel > 0 && CERTIFYING_METHODS.includes(method);
  const claim = proven ? 'certified' : reconstructedRows > 0 ? 'estimate' : 'none';
  const featureCount = Object.keys(recoverability.determinedFeatures).length;
  const determined = Object.values(recoverability.determinedFeatures).reduce((a, b) => a + b, 0);
  return judged({
    rows,
    ...(rowsSource ? { rowsSource } : {}),
    // An estimate proves nothing: its rows are not counted as certified anywhere in the report.
    certifiedRows: proven ? certifiedRows : 0,
    ...(proven && withoutLabel > 0 ? { certifiedWithoutLabel: withoutLabel } : {}),
    reconstructedRows,
    certifiedShare: rows && rows > 0 && status !== 'skipped' ? (proven ? certifiedRows : 0) / rows : null,
    determinedValueShare: rows && rows > 0 && featureCount > 0 && status !== 'skipped' ? (proven ? determined : 0) / (rows * featureCount) : null,
    status,
    method,
    seconds: recoverability.seconds,
    ...(recoverability.reason ? { reason: recoverability.reason } : {}),
    claim,
    summary: summarySentence(claim, recoverability, rows, hasNoLabels(input.file.model)),
    worstSeverity,
  });
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/**
 * One honest sentence: proven vs estimated, and out of how many. When nothing was reconstructed it
 * says what that means, without the reason: the report shows `reason` once, on its own line.
 */
export function summarySentence(
  claim: ReportHeadline['claim'],
  r: Pick<Recoverability, 'status' | 'method' | 'certifiedRows' | 'certifiedWithoutLabel' | 'reconstructedRows' | 'reason' | 'boxes' | 'rowsKind'>,
  rows: number | null,
  /** The model's rows have no label (an outlier detector): none is claimed. */
  unlabelled = false,
): string {
  const outOf = (n: number) => (rows !== null ? `${n.toLocaleString('en-US')} of ${rowsText(rows, r.rowsKind)} training row${rows === 1 && !r.rowsKind ? '' : 's'}` : plural(n, 'training row'));
  const withoutLabel = r.certifiedWithoutLabel ?? 0;
  if (claim === 'certified' && r.boxes && r.certifiedRows > 0) {
    // Boxes: what is proven is an interval per numeric feature, as narrow as `boxes` says; never "recoverable" values.
    const when = r.status === 'timeout' ? ' by the time the budget ran out (more may be)' : '';
    const width = Math.round(r.boxes.medianWidth * 100);
    const more = withoutLabel > 0 ? ` ${plural(withoutLabel, 'more row')} ${withoutLabel === 1 ? 'is' : 'are'} proven to be in the training data with their feature intervals, their labels only estimated.` : '';
    return `${outOf(r.certifiedRows)} ${r.certifiedRows === 1 ? 'is' : 'are'} proven to be in the training data as boxes${unlabelled ? '' : ', with their label'}${when}: per numeric feature an interval the value lies in, ${width === 0 && r.boxes.medianWidth > 0 ? 'under 1' : width}% of the feature's threshold range wide (median).${more}`;
  }
  if (claim === 'certified' && withoutLabel > 0) {
    const when = r.status === 'timeout' ? ' by the time the budget ran out (more may be)' : '';
    const whole = r.certifiedRows > 0 ? `${outOf(r.certifiedRows)} ${r.certifiedRows === 1 ? 'is' : 'are'} proven recoverable from the model alone, label included; ${plural(withoutLabel, 'more row')}` : outOf(withoutLabel);
    return `${whole} ${withoutLabel === 1 ? 'is' : 'are'} proven to be in the training data with their feature intervals, their labels only estimated${when}.`;
  }
  if (claim === 'certified') {
    if (r.status === 'exact' && rows !== null && r.certifiedRows === rows) {
      return `All ${plural(rows, 'training row')} are proven recoverable from the model alone: it determines its whole training set, up to the values no tree looks at.`;
    }
    const when = r.status === 'timeout' ? ' by the time the budget ran out (more may be)' : '';
    return `${outOf(r.certifiedRows)} ${r.certifiedRows === 1 ? 'is' : 'are'} proven recoverable from the model alone${when}.`;
  }
  if (claim === 'estimate') {
    return `Estimate: a training set of ${plural(r.reconstructedRows, 'row')} consistent with the model was reconstructed (method ${r.method}), but no row is proven to be in the real training data.`;
  }
  const which = rows !== null ? `which of the ${plural(rows, 'training row')}` : 'which training rows';
  switch (r.status) {
    case 'skipped':
      return `The reconstruction was skipped, so it is not known ${which} this model gives away.`;
    case 'failed':
      return `The reconstruction failed, so it is not known ${which} this model gives away.`;
    case 'timeout':
      return 'The time budget ran out before any training row was reconstructed; a longer budget may find them.';
    default:
      return 'The reconstruction ran to completion and recovered no training row.';
  }
}

function featureRecovery(input: ReportInput, recoverability: Recoverability | undefined, headline: ReportHeadline): FeatureRecovery[] {
  if (!recoverability || input.running || recoverability.status === 'skipped') return [];
  const determined = recoverability.determinedFeatures;
  const features = input.features ?? Object.entries(determined).map(([name, count]) => ({ name, used: count > 0 }));
  const proven = headline.claim === 'certified';
  const denominator = headline.rows && headline.rows > 0 ? headline.rows : headline.reconstructedRows;
  return features.map(({ name, used }) => {
    const determinedRows = proven ? (determined[name] ?? 0) : 0;
    return { name, used, determinedRows, determinedShare: denominator > 0 ? determinedRows / denominator : 0 };
  });
}

/** Per reconstructed row: how many of its values the model determines, and whether it is certified. */
export function rowExposure(result: Pick<ReconstructionResult, 'reconstruction' | 'method'>): RowExposure[] {
  const proven = CERTIFYING_METHODS.includes(result.method);
  return result.reconstruction.map((row, i) => ({
    row: i,
    ...(row.index !== undefined ? { trainingIndex: row.index } : {}),
    certified: proven && row.certified,
    determinedFeatures: row.values.reduce<number>((n, _v, f) => (determined(row, f) ? n + 1 : n), 0),
    features: row.values.length,
  }));
}

/**
 * The reconstructed values (personal data), for an explicit reveal: same row order as
 * `PrivacyReport.rows`, null where the model does not determine a value.
 */
export function revealRows(features: readonly { name: string }[], result: Pick<ReconstructionResult, 'reconstruction' | 'method'>): RevealedRows {
  const proven = CERTIFYING_METHODS.includes(result.method);
  return {
    features: features.map((f) => f.name),
    rows: result.reconstruction.map((row) => ({
      values: row.values.map((v) => (v === null || v === undefined || !Number.isFinite(v) ? null : v)),
      label: row.label,
      certified: proven && row.certified,
    })),
  };
}
