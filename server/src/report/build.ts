/**
 * TEMPORARY PLACEHOLDER (branch webview): the html branch owns this module. This stand-in only
 * exists so the editor's report service compiles and its tests run before that lands; the merge
 * takes the html branch's version and adapts report-service.ts's one call site (`buildReport`,
 * `revealRows`) to its signature.
 */
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import type { FileReport } from '../linter';
import { packageVersion, ruleDocUrl } from '../package-info';
import type { Recoverability } from '../recoverability/summary';
import { RULES } from '../rules/catalog';
import type { AdvisorReport, PrivacyReport, ReportHeadline, RevealedRows, ScriptReference, TimelinePoint } from './model';
import { REPORT_SCHEMA_VERSION } from './model';

export interface ReportInputs {
  /** The file's fast findings (lint report). */
  report: FileReport;
  /** The reconstruction, once it ended; `running` while it runs. */
  reconstruction?: { recoverability: Recoverability; rows: ReconstructedRow[]; features: string[]; timeline: TimelinePoint[] } | 'running';
  advisor?: AdvisorReport;
  scripts?: ScriptReference[];
  docsBaseUrl?: string;
  name: string;
}

const ORDER = ['error', 'warning', 'information', 'hint'] as const;

export function buildReport(inputs: ReportInputs): PrivacyReport {
  const { report } = inputs;
  const recon = inputs.reconstruction === 'running' ? undefined : inputs.reconstruction;
  const r = recon?.recoverability;
  const findings = report.findings.map((f) => ({
    rule: f.rule,
    severity: f.severity,
    title: RULES[f.rule].title,
    message: f.message,
    docsUrl: ruleDocUrl(f.rule, inputs.docsBaseUrl || undefined),
    ...(f.location.range ? { line: f.location.range.start.line + 1 } : {}),
    ...(f.location.tree !== undefined ? { tree: f.location.tree } : {}),
    ...(f.location.node !== undefined ? { node: f.location.node } : {}),
  }));
  const rows = r?.rows ?? report.model?.trainingRows ?? null;
  const certified = r?.certifiedRows ?? 0;
  const headline: ReportHeadline = {
    rows,
    certifiedRows: certified,
    reconstructedRows: r?.reconstructedRows ?? 0,
    certifiedShare: r && rows ? certified / rows : null,
    determinedValueShare: null,
    status: inputs.reconstruction === 'running' ? 'running' : (r?.status ?? 'not-run'),
    method: r?.method ?? 'none',
    seconds: r?.seconds ?? 0,
    ...(r?.reason ? { reason: r.reason } : {}),
    claim: certified > 0 ? 'certified' : (r?.reconstructedRows ?? 0) > 0 ? 'estimate' : 'none',
    summary: r ? `${certified} of ${rows ?? '?'} training rows certified from the model alone.` : 'No reconstruction yet.',
    worstSeverity: ORDER.find((s) => findings.some((f) => f.severity === s)) ?? null,
  };
  const features = recon?.features ?? [];
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: new Date().toISOString(),
    tool: { name: 'model-privacy-lint', version: packageVersion() },
    file: { path: report.path, name: inputs.name, format: report.format, contentHash: report.contentHash },
    model: report.model,
    headline,
    findings,
    features: features.map((name) => ({ name, used: true, determinedRows: r?.determinedFeatures[name] ?? 0, determinedShare: rows ? (r?.determinedFeatures[name] ?? 0) / rows : 0 })),
    rows: (recon?.rows ?? []).map((row, i) => ({
      row: i,
      ...(row.index !== undefined ? { trainingIndex: row.index } : {}),
      certified: row.certified,
      determinedFeatures: row.values.filter((v) => v !== null).length,
      features: row.values.length,
    })),
    timeline: recon?.timeline ?? [],
    ...(inputs.advisor ? { advisor: inputs.advisor } : {}),
    scripts: inputs.scripts ?? [],
    notes: report.notes,
  };
}

export function revealRows(features: string[], rows: ReconstructedRow[]): RevealedRows {
  return { features, rows: rows.map((row) => ({ values: row.values, label: row.label, certified: row.certified })) };
}
