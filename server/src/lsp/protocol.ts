/**
 * Types the client and the server share: settings and custom notifications.
 * The client imports this file only for types, so nothing here may pull in server code.
 */
import type { RuleId, Severity } from '../rules/catalog';
import type { GroupDeclaration } from '../recoverability/declared-groups';
import type { Recoverability } from '../recoverability/summary';
import { DEFAULT_MODEL_GLOBS } from '../linter/model-files';

/** When analyses run. `always`: on start-up for every model file, on open, on save and on disk change. */
export type RunMode = 'always' | 'onSave' | 'manual';

/** `modelPrivacyLint.*` settings, as declared in package.json `contributes.configuration`. */
export interface Settings {
  files: string[];
  run: RunMode;
  timeBudgetSeconds: number;
  severity: Partial<Record<RuleId, Severity>>;
  maxFileSizeMB: number;
  /** Memory ceiling of each analysis worker process, in MB (its V8 heap and its resident memory). */
  maxMemoryMB: number;
  /** Reading a model may take this many seconds plus 2 s per MB of the file (lint worker's watchdog). */
  readTimeoutSeconds: number;
  docsBaseUrl: string;
  reconstruction: ReconstructionSettings;
  advisor: AdvisorSettings;
}

/**
 * `modelPrivacyLint.advisor.*`: the what-if advisor after a file's reconstruction (its remedies
 * simulated within twice `timeBudgetSeconds`), for the report and the quick fixes' values.
 */
export interface AdvisorSettings {
  enabled: boolean;
}

/** `modelPrivacyLint.reconstruction.*`: the background reconstruction after the fast findings. */
export interface ReconstructionSettings {
  enabled: boolean;
  /** Categorical groups applied to every model that has their features (sidecars add their own). */
  groups: GroupDeclaration[];
  /** Share of the training rows (0-1) from which certified rows are an error. */
  errorShare: number;
  /** Certified rows from which the finding is a warning. */
  warningRows: number;
}

export const DEFAULT_SETTINGS: Settings = {
  files: DEFAULT_MODEL_GLOBS,
  run: 'always',
  timeBudgetSeconds: 30,
  severity: {},
  maxFileSizeMB: 1024,
  maxMemoryMB: 1024,
  readTimeoutSeconds: 5,
  docsBaseUrl: '',
  reconstruction: { enabled: true, groups: [], errorShare: 0.1, warningRows: 1 },
  advisor: { enabled: true },
};

/** Server -> client: what the server is doing, for the language status item. */
export const STATUS_NOTIFICATION = 'modelPrivacyLint/status';
export interface StatusParams {
  state: 'idle' | 'busy' | 'error';
  /** Short text for the status item. */
  text: string;
  /** Longer text: the file being analysed, or totals. */
  detail: string;
  /** Set when a file's background reconstruction starts, ends, fails or is cancelled. */
  reconstruction?: ReconstructionStatusParams;
}

export interface ReconstructionStatusParams {
  uri: string;
  state: 'running' | 'done' | 'cancelled';
  /** The summary, once done (status `failed` when the worker crashed or ran out of memory). */
  recoverability?: Pick<Recoverability, 'status' | 'method' | 'rows' | 'certifiedRows' | 'reconstructedRows' | 'seconds' | 'reason'>;
}

/** Client -> server: analyse every model file in the workspace again (command). */
export const ANALYZE_WORKSPACE_REQUEST = 'modelPrivacyLint/analyzeWorkspace';
export interface AnalyzeWorkspaceParams {
  /** Ignore the cached answers: read, reconstruct and advise again ("Re-run Analysis"). */
  fresh?: boolean;
}
/** Client -> server: analyse one file now, whatever the run mode (command, opening a binary model). */
export const ANALYZE_FILE_REQUEST = 'modelPrivacyLint/analyzeFile';
export interface AnalyzeFileParams {
  uri: string;
  /** Ignore the cached answers for this file. */
  fresh?: boolean;
}

/**
 * Client -> server: the privacy report of a model file (`PrivacyReport`, server/src/report/model.ts),
 * or null when the file has not been analysed. It never holds the reconstructed values.
 */
export const REPORT_REQUEST = 'modelPrivacyLint/report';
/**
 * Client -> server: the reconstructed values of a model file's last reconstruction (`RevealedRows`),
 * or null when none ran. Sent only after the user confirmed the reveal: they are personal data.
 */
export const REVEAL_ROWS_REQUEST = 'modelPrivacyLint/revealRows';
export interface ReportParams {
  uri: string;
}
/** Server -> client: a file's report changed (findings, reconstruction started or ended); ask again. */
export const REPORT_CHANGED_NOTIFICATION = 'modelPrivacyLint/reportChanged';
export interface ReportChangedParams {
  uri: string;
}
/** The command that opens a model file's privacy report (argument: the file's URI as a string). */
export const SHOW_REPORT_COMMAND = 'modelPrivacyLint.showReport';
/** Client command: a rule's page rendered read-only (arguments: rule id, the page's URL). */
export const SHOW_RULE_DOCS_COMMAND = 'modelPrivacyLint.showRuleDocs';
