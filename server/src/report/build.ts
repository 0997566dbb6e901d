/**
 * TEMPORARY PLACEHOLDER (branch webview): the html branch owns this module. This stand-in has the
 * same exports and signatures as the html branch's (ReportInput, FeatureUse, featureUse,
 * buildReport, revealRows), with a minimal body, so the editor's report service compiles and its
 * tests run before that lands. On merge, take the html branch's version of this file.
 */
import { basename } from 'node:path';
import type { ReconstructionResult } from '../attacks/reconstruction/types';
import type { Forest } from '../forest/schema';
import type { FileReport } from '../linter';
import { packageVersion, ruleDocUrl } from '../package-info';
import type { Recoverability } from '../recoverability/summary';
import { RULES } from '../rules/catalog';
import { REPORT_SCHEMA_VERSION, type AdvisorReport, type PrivacyReport, type RevealedRows, type ScriptReference, type TimelinePoint } from './model';

export interface FeatureUse {
  name: string;
  used: boolean;
}

export interface ReportInput {
  file: FileReport;
  features?: readonly FeatureUse[];
  reconstruction?: ReconstructionResult;
  recoverability?: Recoverability;
  running?: boolean;
  timeline?: TimelinePoint[];
  advisor?: AdvisorReport;
  scripts?: ScriptReference[];
  docsBaseUrl?: string;
  generatedAt?: Date;
}

export function featureUse(forest: Pick<Forest, 'features' | 'trees'>): FeatureUse[] {
  const used = new Set<number>();
  for (const tree of forest.trees) for (let node = 0; node < tree.left.length; node++) if (tree.left[node] !== -1) used.add(tree.feature[node]);
  return forest.features.map((feature, f) => ({ name: feature.name, used: used.has(f) }));
}

const ORDER = ['error', 'warning', 'information', 'hint'] as const;

export function buildReport(input: ReportInput): PrivacyReport {
  const { file } = input;
  const r = input.running ? undefined : (input.recoverability ?? file.recoverability);
  const findings = file.findings.map((f) => ({
    rule: f.rule,
    severity: f.severity,
    title: RULES[f.rule].title,
    message: f.message,
    docsUrl: ruleDocUrl(f.rule, input.docsBaseUrl),
    ...(f.location.range ? { line: f.location.range.start.line + 1 } : {}),
  }));
  const rows = r?.rows ?? file.model?.trainingRows ?? null;
  const certified = r?.certifiedRows ?? 0;
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: (input.generatedAt ?? new Date()).toISOString(),
    tool: { name: 'model-privacy-lint', version: packageVersion() },
    file: { path: file.path, name: basename(file.path), format: file.format, contentHash: file.contentHash },
    model: file.model,
    headline: {
      rows,
      certifiedRows: certified,
      reconstructedRows: r?.reconstructedRows ?? 0,
      certifiedShare: r && rows ? certified / rows : null,
      determinedValueShare: null,
      status: input.running ? 'running' : (r?.status ?? 'not-run'),
      method: r?.method ?? 'none',
      seconds: r?.seconds ?? 0,
      claim: certified > 0 ? 'certified' : (r?.reconstructedRows ?? 0) > 0 ? 'estimate' : 'none',
      summary: r ? `${certified} of ${rows ?? '?'} training rows proven recoverable from the model alone.` : 'No reconstruction yet.',
      worstSeverity: ORDER.find((s) => findings.some((f) => f.severity === s)) ?? null,
    },
    findings,
    features: [],
    rows: (input.reconstruction?.reconstruction ?? []).map((row, i) => ({
      row: i,
      certified: row.certified,
      determinedFeatures: row.values.filter((v) => v !== null).length,
      features: row.values.length,
    })),
    timeline: input.timeline ?? [],
    ...(input.advisor ? { advisor: input.advisor } : {}),
    scripts: input.scripts ?? [],
    notes: file.notes,
  };
}

export function revealRows(features: readonly { name: string }[], result: Pick<ReconstructionResult, 'reconstruction' | 'method'>): RevealedRows {
  return { features: features.map((f) => f.name), rows: result.reconstruction.map((row) => ({ values: row.values, label: row.label, certified: row.certified })) };
}
