/**
 * The editor's privacy report (issue 5): answers the client's `report` and `revealRows` requests
 * from what the server already holds for a file (its fast findings, its last reconstruction with
 * the progress timeline, or the running one's timeline so far, the advisor's simulations once there are any), and offers the
 * "Open privacy report" code action on model files' diagnostics.
 *
 * The reconstructed values leave the server only through `revealRows`, which the client sends
 * after the user confirmed the reveal; the report itself carries counts, never values.
 */
import { CodeActionKind, type CodeAction, type CodeActionParams } from 'vscode-languageserver/node';
import type { FileReport } from '../linter/linter';
import { SHOW_REPORT_COMMAND, type Settings } from '../lsp/protocol';
import type { ReconstructionOutcome } from './reconstruction-job';
import { buildReport, revealRows } from '../report/build';
import type { AdvisorReport, PrivacyReport, RevealedRows, ScriptReference, TimelinePoint } from '../report/model';

export interface ReportSources {
  /** The file's latest fast findings; undefined when it was not analysed (or was deleted). */
  lint(uri: string): FileReport | undefined;
  /** The file's last reconstruction, for its current version (rows included). */
  outcome(uri: string): ReconstructionOutcome | undefined;
  /** Whether the file's reconstruction is queued or running. */
  running(uri: string): boolean;
  /** The running reconstruction's timeline so far, for the live progress chart (no values). */
  liveTimeline?(uri: string): TimelinePoint[] | undefined;
  /** The advisor's what-if simulations, once they ran on the file's current version (background-reconstruction.ts). */
  advisor?(uri: string): AdvisorReport | undefined;
  /** Whether the advisor is queued or running for the file (undefined: it will not answer). */
  advisorPending?(uri: string): 'queued' | 'running' | undefined;
  /** The training-script lines that build and save this model (scripts/service.ts). */
  scripts?(uri: string): ScriptReference[];
  settings(): Settings;
}

export class ReportService {
  constructor(private readonly sources: ReportSources) {}

  /** The file's report; null when the server has not analysed it (the client asks for an analysis). */
  report(uri: string): PrivacyReport | null {
    const lint = this.sources.lint(uri);
    if (!lint) return null;
    const outcome = this.current(uri, lint);
    const advisor = this.sources.advisor?.(uri);
    const advisorPending = advisor ? undefined : this.sources.advisorPending?.(uri);
    const docsBaseUrl = this.sources.settings().docsBaseUrl;
    // The file as the CLI would report it: fast findings, then the reconstruction's (as published).
    // A rule the model's sidecar disables stays out, the reconstruction's finding as well.
    const later = outcome ? outcome.findings.filter((f) => !lint.disabledRules?.includes(f.rule)) : [];
    const file: FileReport = outcome
      ? { ...lint, findings: [...lint.findings, ...later], recoverability: outcome.recoverability, ...(outcome.membership ? { membership: outcome.membership } : {}) }
      : lint;
    return buildReport({
      file,
      ...(outcome
        ? { features: outcome.features, timeline: outcome.timeline, ...(outcome.result ? { reconstruction: outcome.result } : {}), ...(outcome.inputColumns ? { inputColumns: outcome.inputColumns } : {}) }
        : this.sources.running(uri)
          ? { running: true, timeline: this.sources.liveTimeline?.(uri) ?? [] }
          : { running: false }),
      ...(advisor ? { advisor } : {}),
      ...(advisorPending ? { advisorPending } : {}),
      scripts: this.sources.scripts?.(uri) ?? [],
      ...(docsBaseUrl ? { docsBaseUrl } : {}),
    });
  }

  /** The last reconstruction's values, in the report's row order; null when none ended. */
  revealRows(uri: string): RevealedRows | null {
    const lint = this.sources.lint(uri);
    const outcome = lint ? this.current(uri, lint) : undefined;
    if (!outcome?.result) return null;
    return revealRows(outcome.features, outcome.result);
  }

  /**
   * The reconstruction of the bytes the findings are about: an answer for other bytes (the file
   * changed between the two reads) is not this version's and must not be shown with it.
   */
  private current(uri: string, lint: FileReport): ReconstructionOutcome | undefined {
    const outcome = this.sources.outcome(uri);
    return outcome && outcome.contentHash === lint.contentHash ? outcome : undefined;
  }
}

/**
 * "Open privacy report" on the diagnostics of an analysed model file. One action per request,
 * whichever diagnostic the cursor is on: the report is about the whole file.
 */
export function reportCodeActions(params: CodeActionParams, isModelFile: (uri: string) => boolean): CodeAction[] {
  const uri = params.textDocument.uri;
  if (!isModelFile(uri)) return [];
  const ours = params.context.diagnostics.filter((d) => d.source === 'model-privacy-lint');
  if (ours.length === 0) return [];
  if (params.context.only && !params.context.only.some((kind) => CodeActionKind.QuickFix.startsWith(kind))) return [];
  return [
    {
      title: 'Open privacy report',
      kind: CodeActionKind.QuickFix,
      diagnostics: ours,
      command: { title: 'Open privacy report', command: SHOW_REPORT_COMMAND, arguments: [uri] },
    },
  ];
}
