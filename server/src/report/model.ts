/**
 * The privacy report: ONE model of what a person needs to decide what to change, rendered by the
 * extension's webview and by the CLI's `--format html` (report/html/). Every number shown in
 * either place comes from here, so the two can never disagree.
 *
 * Built by report/build.ts from a file's lint report, its reconstruction and the advisor. Pure
 * data (JSON-serialisable), no functions: the server sends it to the client over LSP.
 *
 * Personal data: the reconstructed rows' VALUES are not part of `PrivacyReport`. They travel
 * separately (`RevealedRows`), only after an explicit request (the webview's "reveal" click, the
 * CLI's `--report-values`), so that a report can be shared without leaking what it describes.
 */
import type { ModelSummary } from '../linter/model-summary';
import type { RuleId, Severity } from '../rules/catalog';
import type { ReconstructionMethod, ReconstructionStatus } from '../attacks/reconstruction/types';
import type { Evaluation } from '../evaluate/evaluation';
import type { MembershipSummary } from '../membership/summary';
import type { RecoverableBoxes } from '../recoverability/summary';

export const REPORT_SCHEMA_VERSION = 1;

export interface PrivacyReport {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  /** ISO time the report was built. */
  generatedAt: string;
  tool: { name: string; version: string };
  file: {
    /** Absolute path (CLI) or fsPath (editor). */
    path: string;
    /** Base name, for titles. */
    name: string;
    format: string;
    contentHash: string;
  };
  /** Null when the file could not be read as a model (the findings say why). */
  model: ModelSummary | null;
  headline: ReportHeadline;
  findings: ReportFinding[];
  /** Recovery per feature (empty when no reconstruction ran). */
  features: FeatureRecovery[];
  /**
   * A model at the end of a Pipeline whose steps the reader followed: what the certified rows
   * prove per column of the Pipeline's input (only beside a certified claim).
   */
  inputColumns?: InputColumnRecovery[];
  /** Exposure per reconstructed row, without its values (see the module comment). */
  rows: RowExposure[];
  /** The reconstruction's progress over time, for the progress chart (empty when none ran). */
  timeline: TimelinePoint[];
  /** What-if simulations of the remedies; absent until the advisor ran. */
  advisor?: AdvisorReport;
  /**
   * The advisor has not answered yet but will: `queued` behind the running reconstruction (the
   * editor runs it after the reconstruction when `modelPrivacyLint.advisor.enabled`), `running`.
   * Absent when it will not run (disabled, the CLI without `--advise`, nothing to simulate) or
   * has answered: the report then announces no advisor at all.
   */
  advisorPending?: 'queued' | 'running';
  /** The reconstruction scored against the true training data (CLI `--training-data`). */
  evaluation?: Evaluation;
  /** Membership of the candidates (CLI `--membership`): counts per verdict and the score histogram, never the rows. */
  membership?: MembershipSummary;
  /**
   * Numeric forests whose rows are certified as boxes (`row-boxes`): how tight the boxes are
   * (pinned rows, median relative width, per numeric feature). Absent for every other method and
   * for a claim that is not certified. Aggregate widths only: no row's values.
   */
  boxes?: RecoverableBoxes;
  /** Training scripts that write this model file (issue 5, item 3), for links and quick fixes. */
  scripts: ScriptReference[];
  notes: string[];
}

export interface ReportHeadline {
  /** Training rows N: stated by the file, or found by probing / the reconstruction (`rowsSource`); null when nobody knows. */
  rows: number | null;
  /** Where `rows` comes from; absent when `rows` is null. The model header shows the same N with this source. */
  rowsSource?: RowsSource;
  /** Rows proven from the model alone to be in the training data. */
  certifiedRows: number;
  /** Rows proven to be in the training data whose label is only estimated (regression); absent when none. */
  certifiedWithoutLabel?: number;
  /** Rows of the reconstruction (certified or not). */
  reconstructedRows: number;
  /**
   * certifiedRows / rows: the share proven recoverable. Null when N is unknown or no
   * reconstruction ran.
   */
  certifiedShare: number | null;
  /**
   * Share of all feature values of the training set the model determines in certified rows (0-1);
   * null when unknown.
   */
  determinedValueShare: number | null;
  /** `not-run`: the reconstruction is disabled, pending, or has not finished yet. */
  status: ReconstructionStatus | 'not-run' | 'running';
  method: ReconstructionMethod;
  seconds: number;
  /** Why the status is not exact, in words. */
  reason?: string;
  /**
   * `certified`: the numbers are proven from the model alone; `estimate`: a best reconstruction
   * without proof; `none`: nothing was reconstructed.
   */
  claim: 'certified' | 'estimate' | 'none';
  /** One plain sentence: what a reader should take away. */
  summary: string;
  /** The most severe finding, for the headline's colour. */
  worstSeverity: Exclude<Severity, 'off'> | null;
  /**
   * What the headline says, from status x claim x worst severity (report/html/verdict.ts has the
   * table). Optional for reports made before it: `headlineVerdict` derives it from the other fields.
   *
   * `certified` / `estimate`: rows were reconstructed; `nothing-found`: the reconstruction ran to
   * completion and recovered nothing; `not-measured`: skipped, failed, not run, or the budget ran
   * out with nothing; `not-measured-yet`: running or queued.
   */
  verdict?: HeadlineVerdict;
  /**
   * Its colour: `exposed` (certified rows), `estimate`, `warning` (not measured or nothing found,
   * but a warning or error finding stands), `neutral` (not measured, nothing stands), `safe` (ran
   * to completion, recovered nothing, and no finding is a warning or an error). Nothing else is `safe`.
   */
  look?: HeadlineLook;
}

export type RowsSource = 'file' | 'bootstrap-replay' | 'first-tree-probe' | 'reconstruction';
export type HeadlineVerdict = 'certified' | 'estimate' | 'nothing-found' | 'not-measured' | 'not-measured-yet';
export type HeadlineLook = 'exposed' | 'estimate' | 'warning' | 'neutral' | 'safe';

export interface ReportFinding {
  rule: RuleId;
  severity: Exclude<Severity, 'off'>;
  title: string;
  message: string;
  /** The rule page (file: URL to the packaged copy, or under the docs base URL). */
  docsUrl: string;
  /** 1-based line in a text model file; absent for binary files. */
  line?: number;
  tree?: number;
  node?: number;
}

export interface FeatureRecovery {
  name: string;
  /** Whether any tree splits on it (a feature never split on is never determined). */
  used: boolean;
  /** Certified rows in which its value is determined. */
  determinedRows: number;
  /** determinedRows / headline.rows (or / reconstructedRows when N is unknown); 0-1. */
  determinedShare: number;
}

/**
 * What the certified rows prove about one input column of a Pipeline the reader followed
 * (report/input-columns.ts): the columns its user holds, in their own units, where `features`
 * speaks in the model's scaled and one-hot columns.
 */
export interface InputColumnRecovery {
  /** The column's name in the data the Pipeline was fitted on. */
  name: string;
  /** `numeric`: scaled, imputed or passed through; `encoded`: one-hot or ordinal categories; `unread`: dropped before the model. */
  kind: 'numeric' | 'encoded' | 'unread';
  /** Certified rows whose value the box proves: a numeric one bounded on both sides or proven missing, an encoded one's single category. */
  provenRows: number;
  /** Certified rows whose value the box narrows at all (a bound, missing or not, fewer categories than all). */
  narrowedRows: number;
  /** Numeric: the median width of the intervals bounded on both sides, in the column's own units. */
  medianWidth?: number;
  /** Numeric: certified rows proven missing (the imputer's indicator). */
  missingRows?: number;
  /** Encoded: how many categories the encoder knows. */
  categories?: number;
}

export interface RowExposure {
  /** Position in the reconstruction (not the training set, unless `trainingIndex`). */
  row: number;
  /** Position in the training set, when the model reveals it (replayed bootstrap). */
  trainingIndex?: number;
  certified: boolean;
  /** Features whose value is determined (proven for certified rows), out of `features`. */
  determinedFeatures: number;
  features: number;
}

export interface TimelinePoint {
  /** Milliseconds since the reconstruction started. */
  ms: number;
  phase: string;
  /** Rows certified / reconstructed by then, when known at this point. */
  certifiedRows?: number;
  reconstructedRows?: number;
  /** The engine's progress counters at this point (`ReconstructionProgress`), when it gave them. */
  cells?: number;
  done?: number;
  total?: number;
}

/** The reconstructed values, sent only after an explicit request. */
export interface RevealedRows {
  features: string[];
  /** Same order as `PrivacyReport.rows`; null where the model does not determine a value. */
  rows: { values: (number | string | null)[]; label: string | number | boolean; certified: boolean }[];
}

export type RemedyKind = 'bootstrap-without-seeds' | 'larger-leaves' | 'differential-privacy';

export interface AdvisorReport {
  /**
   * What the simulated reconstructions are scored against: the true training data (CLI
   * `--training-data`), the certified reconstruction of this model (exact, so it IS the training
   * set up to undetermined values), or nothing (then only certified rows are compared).
   */
  truth: 'training-data' | 'certified-reconstruction' | 'none';
  /** Mean error of random guesses (the papers' baseline); null when it cannot be computed. */
  baselineError: number | null;
  /**
   * What `error` and `baselineError` measure: `draft`, the papers' mean share of wrong 0/1 values
   * after matching, against uniform random guesses; `timberstrike` (numeric features, scored
   * against the true training data), 1 - TimberStrike's reconstruction accuracy, against N
   * rows whose values and label are each drawn from the true data's columns. Absent: `draft`.
   */
  errorMeasure?: 'draft' | 'timberstrike';
  /** The model as it is. */
  current: RemedyOutcome;
  scenarios: RemedyOutcome[];
  /** The advice, derived from the scenarios. */
  recommendations: Recommendation[];
  seconds: number;
  /** The advisor stopped early (budget or cancel): scenarios not run are missing. */
  partial: boolean;
}

export interface RemedyOutcome {
  kind: RemedyKind | 'current';
  /** Short label for charts, e.g. "ε = 2", "min_samples_leaf = 5". */
  label: string;
  /** The setting's value (epsilon, leaf size); absent for `current` and bootstrap. */
  parameter?: number;
  /** Always true except for `current`: the numbers come from a simulated model, not a trained one. */
  simulation: boolean;
  status: ReconstructionStatus;
  method: ReconstructionMethod;
  certifiedRows: number;
  reconstructedRows: number;
  /** Error after matching against `truth` (0 = perfect); null when there is no truth to score against. */
  error: number | null;
  /** error >= baselineError: reconstruction no better than guessing. */
  noBetterThanBaseline: boolean | null;
  seconds: number;
  /** How the simulation was made, in words (e.g. "sibling leaves below 5 rows merged"). */
  description: string;
  /** Membership AUC of the candidates on this (simulated) model, when candidates of known membership were given (issue 14). */
  membershipAuc?: number | null;
}

export interface Recommendation {
  kind: RemedyKind;
  /** e.g. the largest epsilon no better than the baseline, or the smallest safe leaf size. */
  parameter?: number;
  text: string;
}

/** A line of a training script that builds or saves this model (see server/src/scripts/). */
export interface ScriptReference {
  /** file: URI of the script (.py or .ipynb). */
  uri: string;
  /** 0-based line; in a notebook, within the code cell `cell`. */
  line: number;
  /** Notebooks only: index of the cell in the .ipynb's `cells` array. */
  cell?: number;
  /** What is there: 'estimator' (the constructor call) or 'save' (joblib.dump etc.). */
  role: 'estimator' | 'save';
  /** The code on that line, trimmed, for display. */
  text: string;
}
