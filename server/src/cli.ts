#!/usr/bin/env node
/**
 * The command line: the same linter as the language server, for CI.
 *   model-privacy-lint [paths...] --format text|json|sarif --fail-on error|warning|never --out FILE
 * Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage or I/O error.
 */
import { promises as fs } from 'node:fs';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import { lintFile, type FileReport } from './linter';
import { collectModelFiles } from './model-files';
import { isRuleId, SEVERITIES, type RuleId, type Severity } from './rules/catalog';
import { writeJson } from './report/json';
import { writeSarif } from './report/sarif';
import { writeText } from './report/text';
import { shouldFail, type FailOn } from './report/severity';
import { packageVersion } from './package-info';

const USAGE = `Usage: model-privacy-lint [paths...] [options]

Reads scikit-learn model files (joblib, pickle) and *.forest.json files without executing them
and reports what they give away about their training data. Directories are searched for
*.joblib, *.pkl, *.pickle and *.forest.json files. Default path: the current directory.

Options:
  --format text|json|sarif   what to print (default: text)
  --out FILE                 also write a report; its format follows the extension
                             (.json, .sarif, .txt), else --format
  --fail-on error|warning|never
                             exit 1 when a finding is at least this severe (default: error)
  --severity RULE=LEVEL      override a rule's severity (error, warning, information, hint, off);
                             repeatable
  --max-file-mb N            report larger files as too large instead of reading them (default: 1024)
  --docs-base-url URL        link rule pages under URL instead of the copies in the package
  --version, --help
`;

type Format = 'text' | 'json' | 'sarif';
const FORMATS: readonly Format[] = ['text', 'json', 'sarif'];

class UsageError extends Error {}

interface CliOptions {
  paths: string[];
  format: Format;
  out?: string;
  failOn: FailOn;
  severities: Partial<Record<RuleId, Severity>>;
  maxFileBytes?: number;
  docsBaseUrl?: string;
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
  return {
    paths: positionals.length ? positionals : ['.'],
    format,
    out: values.out,
    failOn,
    severities,
    maxFileBytes,
    docsBaseUrl: values['docs-base-url'],
  };
}

function render(files: FileReport[], format: Format, docsBaseUrl?: string): string {
  switch (format) {
    case 'json':
      return writeJson(files);
    case 'sarif':
      return writeSarif(files, { baseDir: process.cwd(), docsBaseUrl });
    default:
      return writeText(files);
  }
}

function formatForFile(file: string, fallback: Format): Format {
  const ext = extname(file).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.sarif') return 'sarif';
  if (ext === '.txt') return 'text';
  return fallback;
}

export async function main(argv: string[]): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv);
  } catch (error) {
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
  if (missing.length > 0 && files.length === 0) return 2;

  const reports: FileReport[] = [];
  for (const file of files) {
    reports.push(await lintFile(file, { severities: options.severities, maxFileBytes: options.maxFileBytes }));
  }
  process.stdout.write(render(reports, options.format, options.docsBaseUrl));
  if (options.out) {
    await fs.writeFile(options.out, render(reports, formatForFile(options.out, options.format), options.docsBaseUrl));
    process.stderr.write(`model-privacy-lint: report written to ${options.out}\n`);
  }
  return shouldFail(reports, options.failOn) ? 1 : 0;
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
