#!/usr/bin/env node
/**
 * The command line: the same linter as the language server, for CI.
 *   model-privacy-lint [paths...] --format text|json|sarif|html --fail-on error|warning|never --out FILE
 * Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage or I/O error
 * (the report is still written when the error comes after the linting). README: "Exit codes".
 * Only arguments live here; the reconstruction step is cli/reconstruction.ts. Each model is read and
 * reconstructed in worker processes with a memory ceiling and a watchdog (cli/workers.ts), so one
 * model that exhausts them becomes a finding or a failed reconstruction, and the others are reported.
 */
import { promises as fs } from 'node:fs';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import type { FileReport } from './linter/linter';
import { collectModelFiles } from './linter/model-files';
import { isRuleId, SEVERITIES, type RuleId, type Severity } from './rules/catalog';
import { writeJson } from './report/json';
import { writeSarif, type SarifOptions } from './report/sarif';
import { writeText } from './report/text';
import { shouldFail, type FailOn } from './report/severity';
import { packageVersion } from './util/package-info';
import { groupsFromFlags, type GroupDeclaration } from './recoverability/declared-groups';
import { DEFAULT_THRESHOLDS, type ReconstructionThresholds } from './rules/reconstructable-training-set';
import { readTrainingData, TrainingDataError, type TrainingData } from './evaluate/training-data';
import type { ReconstructionStepOutcome } from './cli/reconstruction';
import { CliWorkers } from './cli/workers';
import type { MembershipStepOutcome } from './cli/membership';
import { readCandidates, type CandidateFile } from './membership/candidates';
import { emitPaths } from './cli/emit-paths';
import { progressLine } from './report/progress';
import { buildReport, revealRows } from './report/build';
import { loadReportAssets, standaloneReportHtml } from './report/html-assets';

const USAGE = `Usage: model-privacy-lint [paths...] [options]

Reads scikit-learn model files (joblib, pickle), XGBoost models and dumps, and *.forest.json
files without executing them and reports what they give away about their training data.
Directories are searched for *.joblib, *.pkl, *.pickle, *.sav (also compressed: *.pkl.gz, ...,
*.pbz2), *.forest.json, *.ubj, *xgb*.json, *.dump.txt, XGBoost's legacy binary *.xgb,
*xgb*.model and *xgb*.bin files, other *.txt, *.model, *.bin, *.dump and *.json files whose
first bytes are an XGBoost (or LightGBM, CatBoost) model's, and skops archives (*.skops:
recognised, not read yet). Default path: the current directory.

Options:
  --format text|json|sarif|html
                             what to print (default: text). html: one self-contained page per
                             model (charts, findings, recovery per feature and row, progress);
                             printed only for a single model, else use --out FILE.html
  --out FILE                 also write a report; its format follows the extension
                             (.json, .sarif, .txt, .html), else --format. An HTML report goes
                             to FILE.html for one model, FILE.<model file name>.html for several
                             (the terminal then gets the text report)
  --report-values            put the reconstructed values (personal data) into the HTML report,
                             hidden until the reader clicks "Reveal"; off by default
  --fail-on error|warning|never
                             exit 1 when a finding is at least this severe (default: error)
  --severity RULE=LEVEL      override a rule's severity (error, warning, information, hint, off);
                             repeatable
  --max-file-mb N            report larger files as too large instead of reading them (default: 1024)
  --docs-base-url URL        link rule pages under URL instead of the copies in the package
  --sarif-category ID        SARIF automationDetails.id (GitHub's analysis category); by default
                             none, so the upload action's own category applies
  --max-memory-mb N          memory ceiling of each model's worker process (reading, reconstruction,
                             advisor), its JavaScript heap and its whole resident memory; a model
                             that needs more is reported as such and the others go on (default: 1024)
  --read-timeout SECONDS     reading a model may take this long plus 2 s per MB of the file, then it
                             is stopped and reported as unreadable (default: 5)

Reconstruction (after the findings above, one model at a time):
  --budget SECONDS           time to rebuild each model's training set (default: 30; 0: do not)
  --one-hot a,b,c            features (names or indices) that encode one attribute: exactly one
                             is 1 in every row; repeatable. Also read from <model>.privacy.json
  --at-most-one a,b          features of which at most one is 1; repeatable
  --error-share X            reconstructable-training-set is an error from this certified share
                             of the rows (default: ${DEFAULT_THRESHOLDS.errorShare})
  --warning-rows N           ... and a warning from this many certified rows (default: ${DEFAULT_THRESHOLDS.warningRows})
  --emit-reconstruction FILE.csv
                             write the reconstructed rows (personal data) as CSV: features, label,
                             certified; empty where the model does not determine a value. With
                             several model files: FILE.<model file name>.csv for each
  --training-data FILE.csv --label COLUMN
                             score the reconstruction against the true training rows (error after
                             matching, perfect rows, random baseline, TimberStrike's reconstruction
                             accuracy on all and on the top features); columns are matched to the
                             model's features by name, or by position when the model has no names;
                             --label may be left out for a model without labels (IsolationForest)
  --categorical a,b          features (names or indices) the reconstruction accuracy scores as
                             categories (exact match), e.g. integer-coded ones the model does not
                             declare; repeatable; with --training-data
  --membership FILE.csv --label COLUMN
                             score each row of FILE.csv (candidates: the model's features and the
                             label) as a member of the training set or not; a verdict member or
                             non-member is proven by the model, likely-member / likely-non-member
                             is a guess (docs: membership). Columns matched as for --training-data;
                             --label may be left out for a model without labels (IsolationForest)
  --members-column COLUMN    FILE.csv's column saying who was in the training set (1/0): accuracy,
                             AUC, TPR at 1% FPR, and the paper's range attack side by side
  --emit-membership FILE.csv write row, score and verdict per candidate (personal data) to FILE.csv;
                             with several model files FILE.<model file name>.csv for each
  --advise                   after the reconstruction, simulate the remedies (differential privacy
                             at several epsilons, larger leaves, bootstrap without seeds), rebuild
                             the training set from each simulated model and score it against the
                             truth next to the random baseline; its own budget: twice --budget
  --version, --help
`;

type Format = 'text' | 'json' | 'sarif' | 'html';
const FORMATS: readonly Format[] = ['text', 'json', 'sarif', 'html'];

class UsageError extends Error {}

/** Each worker's ceiling by default: with an idle worker's and the main process's memory, the whole stays under 1.5 GB. */
const DEFAULT_MEMORY_MB = 1024;

interface CliOptions {
  paths: string[];
  format: Format;
  out?: string;
  failOn: FailOn;
  severities: Partial<Record<RuleId, Severity>>;
  maxFileBytes?: number;
  docsBaseUrl?: string;
  sarifCategory?: string;
  budgetMs: number;
  groups: GroupDeclaration[];
  thresholds: ReconstructionThresholds;
  emitReconstruction?: string;
  trainingData?: string;
  label?: string;
  /** --categorical: features scored as categories by the reconstruction accuracy. */
  categorical: string[];
  reportValues: boolean;
  advise: boolean;
  /** --max-memory-mb: each worker process's ceiling. */
  memoryMb: number;
  /** --read-timeout, in ms: the base of the reading watchdog (plus 2 s per MB). */
  readBaseMs: number;
  membership?: string;
  membersColumn?: string;
  emitMembership?: string;
}

function parse(argv: string[]): CliOptions | 'help' | 'version' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string', default: 'text' },
      out: { type: 'string' },
      'fail-on': { type: 'string', default: 'error' },
      severity: { type: 'string', multiple: true, default: [] },
      'max-file-mb': { type: 'string' },
      'docs-base-url': { type: 'string' },
      'sarif-category': { type: 'string' },
      budget: { type: 'string', default: '30' },
      'one-hot': { type: 'string', multiple: true, default: [] },
      'at-most-one': { type: 'string', multiple: true, default: [] },
      'error-share': { type: 'string' },
      'warning-rows': { type: 'string' },
      'emit-reconstruction': { type: 'string' },
      'training-data': { type: 'string' },
      label: { type: 'string' },
      categorical: { type: 'string', multiple: true, default: [] },
      'report-values': { type: 'boolean', default: false },
      advise: { type: 'boolean', default: false },
      'max-memory-mb': { type: 'string', default: String(DEFAULT_MEMORY_MB) },
      'read-timeout': { type: 'string', default: '5' },
      membership: { type: 'string' },
      'members-column': { type: 'string' },
      'emit-membership': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.help) return 'help';
  if (values.version) return 'version';
  const format = values.format as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  const failOn = values['fail-on'] as FailOn;
  if (!['error', 'warning', 'never'].includes(failOn)) throw new UsageError('--fail-on must be error, warning or never');
  const severities: Partial<Record<RuleId, Severity>> = {};
  for (const pair of values.severity ?? []) {
    const [rule, level] = pair.split('=');
    if (!isRuleId(rule)) throw new UsageError(`--severity: unknown rule '${rule}'`);
    if (!SEVERITIES.includes(level as Severity)) throw new UsageError(`--severity: level must be one of ${SEVERITIES.join(', ')}`);
    severities[rule] = level as Severity;
  }
  let maxFileBytes: number | undefined;
  if (values['max-file-mb'] !== undefined) {
    const mb = Number(values['max-file-mb']);
    if (!(mb > 0)) throw new UsageError('--max-file-mb takes a positive number');
    maxFileBytes = mb * 1024 * 1024;
  }
  const memoryMb = Number(values['max-memory-mb']);
  // Below 64 MB a Node process cannot even start its worker code.
  if (!/^\d+$/.test(values['max-memory-mb'].trim()) || memoryMb < 64) throw new UsageError('--max-memory-mb takes a whole number of MB, 64 or more');
  const readSeconds = Number(values['read-timeout']);
  if (values['read-timeout'].trim() === '' || !(readSeconds > 0) || !Number.isFinite(readSeconds)) throw new UsageError('--read-timeout takes a positive number of seconds');
  const budget = Number(values.budget);
  if (values.budget.trim() === '' || !(budget >= 0) || !Number.isFinite(budget)) throw new UsageError('--budget takes a number of seconds, 0 or more');
  const groups = [...groupsFromFlags('one-hot', values['one-hot'] ?? []), ...groupsFromFlags('at-most-one', values['at-most-one'] ?? [])];
  for (const group of groups) {
    if (group.features.length < 2) throw new UsageError(`--${group.kind} takes at least two features separated by commas (got '${group.features.join(',')}')`);
  }
  const thresholds = { ...DEFAULT_THRESHOLDS };
  if (values['error-share'] !== undefined) {
    thresholds.errorShare = Number(values['error-share']);
    if (values['error-share'].trim() === '' || !(thresholds.errorShare >= 0 && thresholds.errorShare <= 1)) throw new UsageError('--error-share takes a share between 0 and 1');
  }
  if (values['warning-rows'] !== undefined) {
    thresholds.warningRows = Number(values['warning-rows']);
    if (!/^\d+$/.test(values['warning-rows'].trim())) throw new UsageError('--warning-rows takes a whole number of rows, 0 or more');
  }
  // An outlier detector's training rows have no label, so --training-data and --membership may
  // come without one; a model with labels then says which column is missing.
  if (values.label !== undefined && values['training-data'] === undefined && values.membership === undefined) {
    throw new UsageError('--label names the label column of --training-data FILE.csv or --membership FILE.csv');
  }
  if ((values['members-column'] !== undefined || values['emit-membership'] !== undefined) && values.membership === undefined) {
    throw new UsageError('--members-column and --emit-membership apply to --membership CANDIDATES.csv');
  }
  const categorical = (values.categorical ?? []).flatMap((list) => list.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  if (categorical.length && values['training-data'] === undefined) throw new UsageError('--categorical applies to the scoring against --training-data');
  const html = format === 'html' || (values.out !== undefined && formatForFile(values.out, format) === 'html');
  if (values['report-values'] && !html) throw new UsageError('--report-values only applies to the HTML report (--format html, or --out FILE.html)');
  return {
    paths: positionals.length ? positionals : ['.'],
    format,
    out: values.out,
    failOn,
    severities,
    maxFileBytes,
    docsBaseUrl: values['docs-base-url'],
    sarifCategory: values['sarif-category'],
    budgetMs: budget * 1000,
    groups,
    thresholds,
    emitReconstruction: values['emit-reconstruction'],
    trainingData: values['training-data'],
    label: values.label,
    categorical,
    reportValues: values['report-values'] ?? false,
    advise: values.advise === true,
    memoryMb,
    readBaseMs: readSeconds * 1000,
    membership: values.membership,
    membersColumn: values['members-column'],
    emitMembership: values['emit-membership'],
  };
}

function render(files: FileReport[], format: Exclude<Format, 'html'>, docsBaseUrl?: string, run?: Omit<SarifOptions, 'baseDir' | 'docsBaseUrl'>): string {
  switch (format) {
    case 'json':
      return writeJson(files);
    case 'sarif':
      return writeSarif(files, { baseDir: process.cwd(), docsBaseUrl, ...run });
    default:
      return writeText(files);
  }
}

function formatForFile(file: string, fallback: Format): Format {
  const ext = extname(file).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.sarif') return 'sarif';
  if (ext === '.txt') return 'text';
  if (ext === '.html' || ext === '.htm') return 'html';
  return fallback;
}

export async function main(argv: string[]): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv);
  } catch (error) {
    // parseArgs's own errors (unknown option, missing value) are usage errors too.
    process.stderr.write(`model-privacy-lint: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const { files, missing } = await collectModelFiles(options.paths);
  for (const path of missing) process.stderr.write(`model-privacy-lint: no such file or directory: ${path}\n`);
  const problems = missing.map((path) => `no such file or directory: ${path}`); // for SARIF's notifications
  if (missing.length > 0 && files.length === 0) return 2;
  // HTML is one document per model: to the terminal only for one model, else to files (--out).
  const htmlOut = options.out !== undefined && formatForFile(options.out, options.format) === 'html' ? options.out : undefined;
  const stdoutFormat: Format = options.format === 'html' && htmlOut !== undefined ? 'text' : options.format;
  if (stdoutFormat === 'html' && files.length !== 1) {
    process.stderr.write(`model-privacy-lint: --format html prints one model's report; ${files.length} model files were found: name a file with --out FILE.html (one FILE.<model>.html each)\n`);
    return 2;
  }
  const wantsHtml = stdoutFormat === 'html' || htmlOut !== undefined;
  if (wantsHtml && loadReportAssets().missing.length) {
    process.stderr.write(`model-privacy-lint: not found in the package: ${loadReportAssets().missing.join(', ')}; the HTML report is written without them (no charts or styles)\n`);
  }

  let trainingData: TrainingData | undefined;
  if (options.trainingData !== undefined) {
    try {
      trainingData = await readTrainingData(options.trainingData, options.label);
    } catch (error) {
      if (!(error instanceof TrainingDataError)) throw error;
      process.stderr.write(`model-privacy-lint: ${error.message}\n`);
      return 2;
    }
  }
  let candidates: CandidateFile | undefined;
  if (options.membership !== undefined) {
    try {
      candidates = await readCandidates(options.membership, options.label!, options.membersColumn);
    } catch (error) {
      if (!(error instanceof TrainingDataError)) throw error;
      process.stderr.write(`model-privacy-lint: ${error.message}\n`);
      return 2;
    }
  }
  const log = (message: string) => process.stderr.write(`model-privacy-lint: ${message}\n`);
  const emitTo = options.emitReconstruction !== undefined ? emitPaths(options.emitReconstruction, files) : undefined;
  const emitMembershipTo = options.emitMembership !== undefined ? emitPaths(options.emitMembership, files) : undefined;
  let membershipFits = 0;
  const progress = progressLine();

  const reports: FileReport[] = [];
  const htmlPages = new Map<string, string>();
  // A named path that does not exist is an input error too (a CI typo must not pass quietly),
  // but the paths that do exist are still linted and reported.
  let ioError = missing.length > 0;
  let fitted = 0;
  const workers = new CliWorkers({ memoryMb: options.memoryMb, readBaseMs: options.readBaseMs, log });
  try {
    for (const file of files) {
      const report = await workers.read(file, { severities: options.severities, ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}) });
      // A model was read (the reading worker keeps no IR): reconstruct it in the other worker.
      const outcome: ReconstructionStepOutcome & { membership?: MembershipStepOutcome } =
        report.model === null
          ? {}
          : await workers.reconstruct(
              report,
              {
                budgetMs: options.budgetMs,
                flagGroups: options.groups,
                thresholds: options.thresholds,
                severities: options.severities,
                ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
                ...(emitTo?.get(file) !== undefined ? { emitPath: emitTo.get(file) } : {}),
                ...(trainingData ? { trainingData } : {}),
                categorical: options.categorical,
                forReport: wantsHtml,
                advise: options.advise,
                ...(candidates ? { membership: { file: candidates, ...(emitMembershipTo?.get(file) !== undefined ? { emitPath: emitMembershipTo.get(file) } : {}) } } : {}),
              },
              {
                ...(progress ? { onProgress: (p: Parameters<typeof progress.update>[1]) => progress.update(file, p) } : {}),
                log: (message) => {
                  progress?.clear();
                  log(message);
                },
              },
            );
      progress?.clear();
      if (outcome.writeFailed) {
        ioError = true;
        problems.push(`could not write the reconstruction of ${file}`);
      }
      if (outcome.trainingDataFits) fitted++;
      if (outcome.membership?.fits) membershipFits++;
      if (outcome.membership?.writeFailed) {
        ioError = true;
        problems.push(`could not write the membership of ${file}`);
      }
      reports.push(report);
      if (wantsHtml) htmlPages.set(file, htmlPage(report, outcome.forReport, options));
    }
  } finally {
    workers.dispose();
  }
  if (trainingData && fitted === 0) {
    log(`--training-data: ${trainingData.path} fits none of the models read`);
    problems.push(`--training-data: ${trainingData.path} fits none of the models read`);
    ioError = true;
  }
  if (candidates && membershipFits === 0) {
    log(`--membership: ${candidates.data.path} fits none of the models read`);
    problems.push(`--membership: ${candidates.data.path} fits none of the models read`);
    ioError = true;
  }
  const run = { category: options.sarifCategory, executionSuccessful: !ioError, notifications: problems };
  process.stdout.write(stdoutFormat === 'html' ? htmlPages.get(files[0])! : render(reports, stdoutFormat, options.docsBaseUrl, run));
  if (htmlOut !== undefined) {
    const targets = emitPaths(htmlOut, files, extname(htmlOut).toLowerCase());
    for (const file of files) {
      const target = targets.get(file)!;
      try {
        await fs.writeFile(target, htmlPages.get(file)!);
        log(`report written to ${target}`);
      } catch (error) {
        log(`cannot write ${target} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
        ioError = true;
      }
    }
  } else if (options.out) {
    await fs.writeFile(options.out, render(reports, formatForFile(options.out, options.format) as Exclude<Format, 'html'>, options.docsBaseUrl, run));
    process.stderr.write(`model-privacy-lint: report written to ${options.out}\n`);
  }
  if (ioError) return 2;
  return shouldFail(reports, options.failOn) ? 1 : 0;
}

/** One model's standalone HTML report; the values only with --report-values. */
function htmlPage(report: FileReport, kept: ReconstructionStepOutcome['forReport'], options: CliOptions): string {
  const assets = loadReportAssets();
  const privacyReport = buildReport({
    file: report,
    ...(kept ? { features: kept.features, reconstruction: kept.result, timeline: kept.timeline, ...(kept.inputColumns ? { inputColumns: kept.inputColumns } : {}) } : {}),
    ...(report.advisor ? { advisor: report.advisor } : {}),
    ...(options.docsBaseUrl ? { docsBaseUrl: options.docsBaseUrl } : {}),
  });
  const revealed = options.reportValues && kept && kept.result.reconstruction.length > 0 ? revealRows(kept.features, kept.result) : undefined;
  return standaloneReportHtml(privacyReport, revealed, assets);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`model-privacy-lint: ${(error as Error).stack ?? error}\n`);
      process.exitCode = 2;
    },
  );
}
