/**
 * SARIF 2.1.0, the format code-scanning services ingest (GitHub code scanning, GitLab, Azure DevOps,
 * the SARIF viewers). Shaped after GitHub's "SARIF support for code scanning" page and what its
 * upload action does with a file:
 * - paths are relative to the directory the CLI runs in (`%SRCROOT%`, run it from the repository
 *   root); files outside it get absolute file: URIs;
 * - text model files get a region (1-based, UTF-16 columns as the editor's ranges); binary files
 *   (joblib, pickle, UBJSON) get none, as SARIF asks for results about a whole file. GitHub accepts
 *   that and shows the alert at line 1;
 * - every result carries a fingerprint of rule, file and tree/node (never the message, whose
 *   figures change between runs), so a retrained model keeps its alerts.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';
import type * as Sarif from 'sarif';
import type { FileReport } from '../linter/linter';
import type { SourceRange } from '../formats/types';
import { RULES, RULE_IDS, type RuleId } from '../rules/catalog';
import type { Finding } from '../rules/types';
import { packageRoot, packageVersion, ruleDocText, ruleDocUrl } from '../util/package-info';
import { fullDescriptionFromDoc, SARIF_RULES, SARIF_RULE_FALLBACK } from './sarif-rules';

export interface SarifOptions {
  /** Results' paths are made relative to this directory (`%SRCROOT%`). */
  baseDir: string;
  docsBaseUrl?: string;
  /**
   * `automationDetails.id`, GitHub's analysis category. Left out unless given, because the upload
   * action only fills in its own (`category:` input, or one per workflow job) when the file has none.
   */
  category?: string;
  /** False when the run hit an I/O or input error (exit code 2): the results may be incomplete. */
  executionSuccessful?: boolean;
  /** Problems of the run itself (missing paths, unwritable outputs), as tool notifications. */
  notifications?: string[];
}

/**
 * A place elsewhere that a finding points to, e.g. the training script line that set a parameter.
 * Findings do not carry these yet; a rule that adds `related` to its findings gets them in SARIF.
 */
export interface RelatedLocation {
  /** Defaults to the model file itself. */
  path?: string;
  range?: SourceRange;
  message: string;
}

const LEVEL: Record<Finding['severity'], Sarif.ReportingConfiguration.level> = {
  error: 'error',
  warning: 'warning',
  information: 'note',
  hint: 'note',
};

const TOOL_NAME = 'model-privacy-lint';
/** Our own fingerprint, for any consumer; versioned so a change of recipe is visible. */
export const FINGERPRINT_KEY = 'modelPrivacyLint/v1';

function artifactLocation(path: string, baseDir: string): Sarif.ArtifactLocation {
  const absolute = resolve(baseDir, path);
  const rel = relative(resolve(baseDir), absolute);
  if (rel && !rel.startsWith('..') && !isAbsolute(rel)) {
    return { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
  }
  return { uri: pathToFileURL(absolute).href };
}

function directoryUri(dir: string): string {
  const href = pathToFileURL(resolve(dir)).href;
  return href.endsWith('/') ? href : `${href}/`;
}

/** LSP ranges are 0-based with an exclusive end; SARIF's are 1-based, endColumn also exclusive. */
function region(range: SourceRange): Sarif.Region {
  return {
    startLine: range.start.line + 1,
    startColumn: range.start.character + 1,
    endLine: range.end.line + 1,
    endColumn: range.end.character + 1,
  };
}

function physicalLocation(path: string, range: SourceRange | undefined, baseDir: string): Sarif.PhysicalLocation {
  return { artifactLocation: artifactLocation(path, baseDir), ...(range ? { region: region(range) } : {}) };
}

/** `helpUri`/`informationUri` are offline file links unless a docs base URL is given. */
function informationUri(docsBaseUrl: string | undefined): string {
  // The base points at a copy of this package's docs/rules/, so the README is two levels up.
  if (docsBaseUrl) return new URL('../../README.md', docsBaseUrl.replace(/\/?$/, '/')).href;
  return pathToFileURL(resolve(packageRoot(), 'README.md')).href;
}

function reportingDescriptor(id: RuleId, docsBaseUrl: string | undefined): Sarif.ReportingDescriptor {
  const meta = SARIF_RULES[id] ?? SARIF_RULE_FALLBACK;
  const markdown = ruleDocText(id);
  const helpUri = ruleDocUrl(id, docsBaseUrl);
  const description = (markdown && fullDescriptionFromDoc(markdown)) || RULES[id].title;
  return {
    id,
    name: id.replace(/(^|-)([a-z])/g, (_m, _dash, c: string) => c.toUpperCase()),
    shortDescription: { text: RULES[id].title },
    fullDescription: { text: description },
    helpUri,
    help: { text: `${description}\n\nFull page: ${helpUri}`, ...(markdown ? { markdown } : {}) },
    defaultConfiguration: { level: LEVEL[RULES[id].defaultSeverity] },
    properties: {
      tags: meta.tags,
      precision: meta.precision,
      ...(meta.securitySeverity
        ? { 'security-severity': meta.securitySeverity }
        : { 'problem.severity': RULES[id].defaultSeverity === 'error' ? 'error' : RULES[id].defaultSeverity === 'warning' ? 'warning' : 'recommendation' }),
    },
  };
}

/**
 * Rule, file and tree/node, hashed; `:n` numbers findings that share all three (GitHub's own
 * fingerprints use the same suffix). The message is left out on purpose: it holds figures
 * (certified rows, seconds) that change from run to run.
 */
function fingerprinter(): (rule: RuleId, uri: string, finding: Finding) => string {
  const seen = new Map<string, number>();
  return (rule, uri, finding) => {
    const key = [rule, uri, finding.location.tree ?? '', finding.location.node ?? ''].join('\u0000');
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    return `${createHash('sha256').update(key).digest('hex').slice(0, 16)}:${occurrence}`;
  };
}

function result(file: FileReport, finding: Finding, options: SarifOptions, fingerprint: ReturnType<typeof fingerprinter>): Sarif.Result {
  const { tree, node, range } = finding.location;
  const primary = physicalLocation(file.path, range, options.baseDir);
  const id = fingerprint(finding.rule, primary.artifactLocation!.uri!, finding);
  const related = (finding as Finding & { related?: RelatedLocation[] }).related ?? [];
  const ruleIndex = RULE_IDS.indexOf(finding.rule);
  return {
    ruleId: finding.rule,
    ...(ruleIndex >= 0 ? { ruleIndex } : {}),
    level: LEVEL[finding.severity],
    message: { text: finding.message },
    locations: [
      {
        physicalLocation: primary,
        ...(tree !== undefined
          ? { logicalLocations: [{ name: node !== undefined ? `node ${node}` : `tree ${tree}`, fullyQualifiedName: node !== undefined ? `trees[${tree}].nodes[${node}]` : `trees[${tree}]`, kind: 'element' }] }
          : {}),
      },
    ],
    partialFingerprints: {
      [FINGERPRINT_KEY]: id,
      // GitHub tracks alerts by this key only. Its upload action computes it from the file's text
      // for results with a line, and warns when ours differs, so we set it only where the action
      // does not: results about a whole (usually binary) file.
      ...(range ? {} : { primaryLocationLineHash: id }),
    },
    ...(related.length
      ? {
          relatedLocations: related.map((place, index) => ({
            id: index + 1,
            physicalLocation: physicalLocation(place.path ?? file.path, place.range, options.baseDir),
            message: { text: place.message },
          })),
        }
      : {}),
    properties: {
      ...(tree !== undefined ? { tree, node } : {}),
      // Which model of a file of several, and the others a folded finding holds for (linter/fold-findings.ts).
      // The primary model's findings carry no place of their own: a folded one names the file's model.
      ...(finding.location.model || finding.location.alsoIn ? { model: finding.location.model ?? file.model?.location ?? 'model' } : {}),
      ...(finding.location.alsoIn ? { alsoIn: finding.location.alsoIn } : {}),
      ...(finding.data ? { data: finding.data } : {}),
    },
  };
}

export function toSarif(files: FileReport[], options: SarifOptions): Sarif.Log {
  const fingerprint = fingerprinter();
  const version = packageVersion();
  const notifications = options.notifications ?? [];
  const run: Sarif.Run = {
    tool: {
      driver: {
        name: TOOL_NAME,
        version,
        semanticVersion: version,
        informationUri: informationUri(options.docsBaseUrl),
        rules: RULE_IDS.map((id) => reportingDescriptor(id, options.docsBaseUrl)),
      },
    },
    ...(options.category ? { automationDetails: { id: options.category.endsWith('/') ? options.category : `${options.category}/` } } : {}),
    invocations: [
      {
        executionSuccessful: options.executionSuccessful ?? true,
        workingDirectory: { uri: directoryUri(options.baseDir) },
        ...(notifications.length ? { toolExecutionNotifications: notifications.map((text) => ({ level: 'error' as const, message: { text } })) } : {}),
      },
    ],
    originalUriBaseIds: { '%SRCROOT%': { uri: directoryUri(options.baseDir), description: { text: 'The directory the CLI ran in.' } } },
    // Ranges come from the editor's positions, which count UTF-16 code units.
    columnKind: 'utf16CodeUnits',
    results: files.flatMap((file) => file.findings.map((finding) => result(file, finding, options, fingerprint))),
  };
  return { $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs: [run] };
}

export function writeSarif(files: FileReport[], options: SarifOptions): string {
  return `${JSON.stringify(toSarif(files, options), null, 2)}\n`;
}
