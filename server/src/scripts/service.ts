/**
 * The language server's side of training scripts: reads the workspace's .py and .ipynb files,
 * publishes their diagnostics (on open, change, save, and change on disk), adds to model
 * diagnostics the script lines that train and save the model and the fix available there, and
 * answers code actions (quick fixes and `source.fixAll.modelPrivacyLint`).
 */
import { promises as fs } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  DiagnosticSeverity,
  type CodeAction,
  type CodeActionParams,
  type Connection,
  type Diagnostic,
  type DiagnosticRelatedInformation,
  type TextDocuments,
  type TextEdit as LspTextEdit,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { collectModelFiles } from '../linter/model-files';
import type { ScriptReference } from '../report/model';
import { RULES, type RuleId, type Severity } from '../rules/catalog';
import type { TextEdit } from './edits';
import type { ScriptFinding } from './rules';
import { isScriptPath, ScriptIndex, type ScriptEntry } from './workspace';
import { disableInScriptEdit } from './directives';
import { capitalised } from '../util/wording';

export const FIX_ALL_KIND = 'source.fixAll.modelPrivacyLint';
/** Scripts larger than this are not read (generated code, data dumped as .py). */
const MAX_SCRIPT_BYTES = 2 * 1024 * 1024;
const MAX_SCRIPTS = 5000;
const DEBOUNCE_MS = 150;

const SEVERITY: Record<Exclude<Severity, 'off'>, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export interface ScriptServiceOptions {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  /** Absolute paths of the model files the server knows. */
  knownModels: () => string[];
  severity: (rule: RuleId) => Severity | undefined;
  docUrl: (rule: RuleId) => string;
  /** Called when scripts changed in a way that can change model diagnostics (links, fixes). */
  onLinksChanged: () => void;
  log: (message: string) => void;
}

export class ScriptService {
  readonly index: ScriptIndex;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Per model URI, what its last published diagnostics said about scripts (see `stale`). */
  private readonly published = new Map<string, string>();

  constructor(private readonly options: ScriptServiceOptions) {
    this.index = new ScriptIndex(options.knownModels);
  }

  isScript(path: string): boolean {
    return isScriptPath(path);
  }

  /** Reads every script of the workspace folders and publishes their diagnostics. */
  async scan(roots: string[]): Promise<void> {
    const { files } = await collectModelFiles(roots, (path) => isScriptPath(path), false);
    for (const path of files.slice(0, MAX_SCRIPTS)) await this.load(path, false);
    this.options.log(`workspace scan: ${Math.min(files.length, MAX_SCRIPTS)} training script(s)/notebook(s)`);
    this.publishAll();
    this.options.onLinksChanged();
  }

  /** The script's current text: the open editor's, else the file on disk. */
  private async read(path: string): Promise<string | undefined> {
    const open = this.options.documents.get(pathToFileURL(path).href);
    if (open) return open.getText();
    try {
      const stat = await fs.stat(path);
      if (!stat.isFile() || stat.size > MAX_SCRIPT_BYTES) return undefined;
      return await fs.readFile(path, 'utf8');
    } catch {
      return undefined;
    }
  }

  private async load(path: string, publish = true): Promise<void> {
    const text = await this.read(path);
    if (text === undefined) {
      if (this.index.remove(path) && publish) await this.options.connection.sendDiagnostics({ uri: pathToFileURL(path).href, diagnostics: [] });
      return;
    }
    const entry = this.index.update(path, text);
    if (publish) await this.publish(entry);
  }

  /** A script was opened, edited, saved or changed on disk: read it again (debounced). */
  changed(uri: string): void {
    if (!uri.startsWith('file:')) return;
    const path = fileURLToPath(uri);
    if (!isScriptPath(path)) return;
    clearTimeout(this.timers.get(path));
    this.timers.set(path, setTimeout(() => {
      this.timers.delete(path);
      this.load(path)
        .then(() => this.options.onLinksChanged())
        .catch((error) => this.options.log(`${path}: ${(error as Error).stack ?? error}`));
    }, DEBOUNCE_MS));
  }

  /** Re-checks a script now (a save: no debounce, so its diagnostics follow at once). */
  async saved(uri: string): Promise<void> {
    if (!uri.startsWith('file:') || !isScriptPath(fileURLToPath(uri))) return;
    clearTimeout(this.timers.get(fileURLToPath(uri)));
    await this.load(fileURLToPath(uri));
    this.options.onLinksChanged();
  }

  async deleted(uri: string): Promise<void> {
    const path = fileURLToPath(uri);
    clearTimeout(this.timers.get(path));
    if (this.index.remove(path)) {
      await this.options.connection.sendDiagnostics({ uri, diagnostics: [] });
      this.options.onLinksChanged();
    }
  }

  publishAll(): void {
    for (const entry of this.index.all()) void this.publish(entry);
  }

  private severityOf(rule: RuleId): Exclude<Severity, 'off'> | undefined {
    const level = this.options.severity(rule) ?? RULES[rule].defaultSeverity;
    return level === 'off' ? undefined : level;
  }

  private diagnostic(entry: ScriptEntry, finding: ScriptFinding): Diagnostic | undefined {
    const severity = this.severityOf(finding.rule);
    if (!severity) return undefined;
    // The lines that build and save the model are named in the detail, not as related information:
    // they are in the same file, and each related row is one more row in the Problems panel.
    const lines: string[] = [];
    if (finding.estimator && finding.estimator.call.start !== finding.start) lines.push(`built at ${this.index.label(entry, finding.estimator.call.start)}`);
    if (finding.save.call.start !== finding.start) lines.push(`saved at ${this.index.label(entry, finding.save.call.start)}`);
    const where = lines.length ? ` (${capitalised(lines.join(', '))}.)` : '';
    return {
      range: this.index.range(entry, finding.start, finding.end),
      severity: SEVERITY[severity],
      source: 'model-privacy-lint',
      code: finding.rule,
      codeDescription: { href: this.options.docUrl(finding.rule) },
      message: finding.message + where,
      data: { rule: finding.rule, fix: finding.fix?.title },
    };
  }

  private async publish(entry: ScriptEntry): Promise<void> {
    const diagnostics = this.index.findings(entry).map((f) => this.diagnostic(entry, f)).filter((d): d is Diagnostic => d !== undefined);
    await this.options.connection.sendDiagnostics({ uri: entry.uri, diagnostics });
  }

  /**
   * A model's diagnostics, with the script lines that train and save it as related information,
   * and the fix available in the script. The links are about the file, not one finding: they go
   * once, under its most severe diagnostic, so the Problems panel lists them once per model file.
   * The fix leads the second line, right under the short first line, where the panel shows it.
   */
  decorate(modelUri: string, diagnostics: Diagnostic[]): Diagnostic[] {
    if (!modelUri.startsWith('file:')) return diagnostics;
    this.published.set(modelUri, this.signature(modelUri));
    const links = this.index.links(fileURLToPath(modelUri));
    if (links.length === 0) return diagnostics;
    // One related row per script that saves the model: at the estimator (where the fixes go) when
    // the script builds it, else at the save, naming both lines.
    const related: DiagnosticRelatedInformation[] = links.map(({ entry, save, estimator }) => {
      const saved = `saved by ${this.index.label(entry, save.call.start)}`;
      return estimator
        ? { location: { uri: entry.uri, range: this.index.range(entry, estimator.call.start, estimator.call.end) }, message: `trained by ${this.index.label(entry, estimator.call.start)}, ${saved}` }
        : { location: { uri: entry.uri, range: this.index.range(entry, save.call.start, save.call.end) }, message: saved };
    });
    const severity = (d: Diagnostic) => d.severity ?? DiagnosticSeverity.Error;
    const carrier = diagnostics.reduce((best, d, i) => (severity(d) < severity(diagnostics[best]) ? i : best), 0);
    return diagnostics.map((d, i) => {
      let fixLine = '';
      for (const link of links) {
        const fix = this.index.fixFor(link, String(d.code));
        if (fix && this.severityOf(fix.rule)) {
          const where = this.index.label(link.entry, fix.start);
          fixLine = fix.fix ? `Quick fix in ${where}: ${fix.fix.title}.` : `See ${where} (${fix.rule}).`;
          break;
        }
      }
      const [first, ...rest] = d.message.split('\n');
      const message = fixLine ? `${first}\n${[fixLine, ...rest].join(' ')}` : d.message;
      const ownRelated = [...(d.relatedInformation ?? []), ...(i === carrier ? related : [])];
      return { ...d, message, ...(ownRelated.length ? { relatedInformation: ownRelated } : {}) };
    });
  }

  /** What the scripts currently say about a model: its links, their lines and their fixes. */
  private signature(modelUri: string): string {
    return JSON.stringify(this.index.links(fileURLToPath(modelUri)).map((link) => [
      link.entry.path,
      this.index.label(link.entry, link.save.call.start),
      link.estimator && this.index.label(link.entry, link.estimator.call.start),
      this.index.findings(link.entry).filter((f) => f.save === link.save || f.estimator === link.estimator).map((f) => [f.rule, f.fix?.title, this.severityOf(f.rule)]),
    ]));
  }

  /**
   * Models whose published diagnostics no longer say what the scripts say (a script changed its
   * lines or fixes): only those are published again, with the report they already have.
   */
  stale(modelUris: Iterable<string>): string[] {
    return [...modelUris].filter((uri) => uri.startsWith('file:') && this.published.get(uri) !== this.signature(uri));
  }

  references(modelPath: string): ScriptReference[] {
    return this.index.references(modelPath);
  }

  codeActions(params: CodeActionParams): CodeAction[] {
    const uri = params.textDocument.uri;
    if (!uri.startsWith('file:')) return [];
    const path = fileURLToPath(uri);
    if (!/\.py$/i.test(path)) return [];
    // the fixes must fit the text in the editor now, not the one last analysed
    const open = this.options.documents.get(uri);
    let entry = this.index.get(path);
    if (open && entry?.text !== open.getText()) entry = this.index.update(path, open.getText());
    if (!entry) return [];
    const doc = open;
    const toLsp = (edits: TextEdit[]): LspTextEdit[] =>
      edits.map((e) => ({ range: this.index.range(entry!, e.start, e.end), newText: e.newText }));
    const findings = this.index.findings(entry).filter((f) => f.fix && this.severityOf(f.rule));
    const only = params.context.only;
    const wants = (kind: string) => !only || only.some((k) => kind === k || kind.startsWith(`${k}.`));
    const actions: CodeAction[] = [];
    if (wants(CodeActionKind.QuickFix)) {
      const { start, end } = params.range;
      for (const f of findings) {
        const range = this.index.range(entry, f.start, f.end);
        const overlaps = !(range.end.line < start.line || (range.end.line === start.line && range.end.character < start.character) ||
          range.start.line > end.line || (range.start.line === end.line && range.start.character > end.character));
        if (!overlaps) continue;
        const matching = params.context.diagnostics.filter((d) => d.code === f.rule && d.range.start.line === range.start.line);
        actions.push({
          title: `${capitalised(f.fix!.title)} (${basename(path)})`,
          kind: CodeActionKind.QuickFix,
          diagnostics: matching,
          isPreferred: f.fix!.fixAll,
          edit: { documentChanges: [{ textDocument: { uri, version: doc?.version ?? null }, edits: toLsp(f.fix!.edits) }] },
        });
      }
    }
    if (wants(CodeActionKind.QuickFix)) {
      // "Disable <rule> for this file": a comment the script index honours (directives.ts)
      const rules = [...new Set(params.context.diagnostics.filter((d) => d.source === 'model-privacy-lint' && String(d.code).startsWith('script-')).map((d) => String(d.code)))];
      for (const rule of rules) {
        actions.push({
          title: `Disable ${rule} for ${basename(path)} (comment)`,
          kind: CodeActionKind.QuickFix,
          diagnostics: params.context.diagnostics.filter((d) => d.code === rule),
          edit: { documentChanges: [{ textDocument: { uri, version: doc?.version ?? null }, edits: toLsp([disableInScriptEdit(entry.text, rule)]) }] },
        });
      }
    }
    if (wants(FIX_ALL_KIND) && (only?.length || findings.some((f) => f.fix!.fixAll))) {
      const edits = mergeEdits(findings.filter((f) => f.fix!.fixAll).flatMap((f) => f.fix!.edits));
      if (edits.length) {
        actions.push({
          title: 'Fix all Model Privacy Lint issues that have safe fixes',
          kind: FIX_ALL_KIND,
          edit: { documentChanges: [{ textDocument: { uri, version: doc?.version ?? null }, edits: toLsp(edits) }] },
        });
      }
    }
    return actions;
  }
}

/** Edits sorted, with any that overlap an earlier one dropped (the next fix-all run applies them). */
export function mergeEdits(edits: TextEdit[]): TextEdit[] {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: TextEdit[] = [];
  for (const e of sorted) {
    const prev = out[out.length - 1];
    if (prev && e.start < prev.end) continue;
    out.push(e);
  }
  return out;
}

