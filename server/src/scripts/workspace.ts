/**
 * The workspace's training scripts and notebooks, read statically, and the links from model files
 * to the script lines that build and save them. Pure (no LSP): the server feeds it file texts and
 * asks it for findings, positions, links and references.
 */
import { disabledInScript } from './directives';
import { basename, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ScriptReference } from '../report/model';
import { analyzeScript, type EstimatorSite, type SaveSite, type ScriptModel } from './analyze';
import { LineMap } from './lexer';
import { cellPosition, parseNotebook, type Notebook } from './notebook';
import { pathMatches } from './paths';
import { checkScript, type ScriptFinding, type ScriptRuleId } from './rules';

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

export interface ScriptEntry {
  path: string;
  uri: string;
  kind: 'python' | 'notebook';
  /** The Python text analysed (a notebook's code cells joined). */
  text: string;
  /** The file's own text (a notebook's JSON). */
  fileText: string;
  notebook?: Notebook;
  model: ScriptModel;
}

export interface ModelLink {
  entry: ScriptEntry;
  save: SaveSite;
  estimator?: EstimatorSite;
}

export function isScriptPath(path: string): boolean {
  return /\.(py|ipynb)$/i.test(path);
}

/** Which script rule a model rule's fix lives under, in order of preference. */
const FIX_FOR_MODEL_RULE: Record<string, ScriptRuleId[]> = {
  'no-bootstrap': ['script-no-bootstrap'],
  'replayable-bootstrap': ['script-stored-seeds'],
  'singleton-leaf': ['script-small-leaves'],
  'leaf-reveals-target': ['script-small-leaves'],
  'exported-statistics': ['script-dump-with-stats'],
  'exact-counts': ['script-dp-epsilon'],
  'reconstructable-training-set': ['script-no-bootstrap', 'script-stored-seeds', 'script-dp-epsilon', 'script-small-leaves'],
};

export class ScriptIndex {
  private readonly entries = new Map<string, ScriptEntry>();

  /** @param knownModels absolute paths of the model files, to resolve saves written under unknown folders. */
  constructor(private readonly knownModels: () => string[] = () => []) {}

  /** Reads `fileText` as the script at `path` (a notebook when it ends in .ipynb). Never throws. */
  update(path: string, fileText: string): ScriptEntry {
    const uri = pathToFileURL(path).href;
    let entry: ScriptEntry;
    if (/\.ipynb$/i.test(path)) {
      const notebook = parseNotebook(fileText);
      const text = notebook?.text ?? '';
      entry = { path, uri, kind: 'notebook', text, fileText, notebook, model: safeAnalyze(text) };
    } else {
      entry = { path, uri, kind: 'python', text: fileText, fileText, model: safeAnalyze(fileText) };
    }
    this.entries.set(path, entry);
    return entry;
  }

  remove(path: string): boolean {
    return this.entries.delete(path);
  }

  get(path: string): ScriptEntry | undefined {
    return this.entries.get(path);
  }

  all(): ScriptEntry[] {
    return [...this.entries.values()];
  }

  /** The model file a save writes, when it can be told. */
  modelPathOf(entry: ScriptEntry, save: SaveSite): string | undefined {
    const dir = dirname(entry.path);
    return this.knownModels().find((model) => pathMatches(save.path, model, dir));
  }

  findings(entry: ScriptEntry): ScriptFinding[] {
    const disabled = disabledInScript(entry.text);
    const findings = checkScript(entry.text, entry.model, { modelPathOf: (save) => this.modelPathOf(entry, save) }).filter((f) => !disabled.has(f.rule));
    // Notebook edits would have to rewrite the .ipynb's JSON: notebooks get diagnostics, not fixes.
    return entry.kind === 'notebook' ? findings.map((f) => ({ ...f, fix: undefined })) : findings;
  }

  /** Saves in every script that write `modelPath`. */
  links(modelPath: string): ModelLink[] {
    const links: ModelLink[] = [];
    for (const entry of this.entries.values()) {
      const dir = dirname(entry.path);
      for (const save of entry.model.saves) {
        if (pathMatches(save.path, modelPath, dir)) links.push({ entry, save, estimator: save.estimator });
      }
    }
    return links;
  }

  /** The finding whose fix answers a model finding of `modelRule`, among a link's findings. */
  fixFor(link: ModelLink, modelRule: string): ScriptFinding | undefined {
    const wanted = FIX_FOR_MODEL_RULE[modelRule];
    if (!wanted) return undefined;
    const own = this.findings(link.entry).filter((f) => f.save === link.save || (link.estimator && f.estimator === link.estimator));
    for (const rule of wanted) {
      const found = own.find((f) => f.rule === rule);
      if (found) return found;
    }
    return undefined;
  }

  /** Range of [start, end) of the analysed text, in the file (for a notebook: in the .ipynb's JSON). */
  range(entry: ScriptEntry, start: number, end: number): Range {
    if (entry.kind === 'python') {
      const lines = new LineMap(entry.text);
      return { start: lines.position(start), end: lines.position(end) };
    }
    const lines = new LineMap(entry.fileText);
    const at = (offset: number) => {
      const where = entry.notebook && cellPosition(entry.notebook, offset);
      return where?.cell.lineRanges[where.line] ?? where?.cell.lineRanges[0];
    };
    const a = at(start);
    const b = at(end) ?? a;
    if (!a || !b) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    return { start: lines.position(a[0]), end: lines.position(Math.max(b[1], a[0])) };
  }

  /** Where an offset is for people: "train.py:37" or "analysis.ipynb cell 3, line 2" (1-based lines). */
  label(entry: ScriptEntry, offset: number): string {
    const name = basename(entry.path);
    const ref = this.reference(entry, offset, 'save');
    return entry.kind === 'python' ? `${name}:${ref.line + 1}` : `${name} cell ${(ref.cell ?? 0) + 1}, line ${ref.line + 1}`;
  }

  reference(entry: ScriptEntry, offset: number, role: ScriptReference['role']): ScriptReference {
    if (entry.kind === 'notebook' && entry.notebook) {
      const where = cellPosition(entry.notebook, offset);
      if (where) {
        const lineText = where.cell.source.split('\n')[where.line] ?? '';
        return { uri: entry.uri, line: where.line, cell: where.cell.index, role, text: lineText.trim() };
      }
    }
    const lines = new LineMap(entry.text);
    const line = lines.position(offset).line;
    return { uri: entry.uri, line, role, text: lines.lineText(line).trim() };
  }

  /** The report's `scripts`: the estimator and save lines of every script that writes `modelPath`. */
  references(modelPath: string): ScriptReference[] {
    const refs: ScriptReference[] = [];
    for (const link of this.links(modelPath)) {
      if (link.estimator) refs.push(this.reference(link.entry, link.estimator.call.start, 'estimator'));
      refs.push(this.reference(link.entry, link.save.call.start, 'save'));
    }
    return refs;
  }
}

function safeAnalyze(text: string): ScriptModel {
  try {
    return analyzeScript(text);
  } catch {
    // a parser bug must cost this script's findings, never the server
    return { estimators: [], saves: [], statements: [] };
  }
}
