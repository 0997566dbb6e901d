/**
 * The quick-fix menu's own entries on a model file's diagnostics, beside the fixes: "Show
 * documentation" (the client opens the rule's page rendered: client/src/rule-docs.ts) and "Disable
 * this rule for this file".
 *
 * A model file is usually binary, so a rule cannot be silenced with a comment in it. It is turned
 * off in the model's sidecar, `<model>.privacy.json` (the file the reconstruction already reads its
 * one-hot groups from), as `"disable": ["rule-id"]`; the linter leaves the rule's findings out
 * (linter.ts), and the server lints the model again when the sidecar changes (server.ts). The
 * action is a WorkspaceEdit, so the user sees the change and can undo it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CodeActionKind, type CodeAction, type CodeActionParams, type Diagnostic, type WorkspaceEdit } from 'vscode-languageserver/node';
import { isRuleId, type RuleId } from '../rules/catalog';
import { sidecarPaths } from '../recoverability/declared-groups';
import { SHOW_RULE_DOCS_COMMAND } from './protocol';

const SOURCE = 'model-privacy-lint';

/** Our diagnostics in the request, one per rule (the actions are per rule, not per finding). */
function ruleDiagnostics(params: CodeActionParams): Map<RuleId, Diagnostic[]> {
  const byRule = new Map<RuleId, Diagnostic[]>();
  for (const d of params.context.diagnostics) {
    const rule = String(d.code ?? '');
    if (d.source !== SOURCE || !isRuleId(rule)) continue;
    byRule.set(rule, [...(byRule.get(rule) ?? []), d]);
  }
  return byRule;
}

function wantsQuickFix(params: CodeActionParams): boolean {
  return !params.context.only || params.context.only.some((kind) => CodeActionKind.QuickFix.startsWith(kind));
}

/** "Show documentation for <rule>" for each rule among the diagnostics (model files and scripts). */
export function docsCodeActions(
  params: CodeActionParams,
  docUrl: (rule: RuleId) => string,
  /** Whether the file is one the server reports `rule` on (a model file its rules, a script the script rules). */
  reports: (uri: string, rule: RuleId) => boolean = () => true,
): CodeAction[] {
  if (!wantsQuickFix(params)) return [];
  return [...ruleDiagnostics(params)].filter(([rule]) => reports(params.textDocument.uri, rule)).map(([rule, diagnostics]) => ({
    title: `Show documentation for ${rule}`,
    kind: CodeActionKind.QuickFix,
    diagnostics,
    command: { title: `Show documentation for ${rule}`, command: SHOW_RULE_DOCS_COMMAND, arguments: [rule, docUrl(rule)] },
  }));
}

/** "Disable <rule> for this file" on an analysed model file's diagnostics. */
export function disableCodeActions(params: CodeActionParams, isModelFile: (uri: string) => boolean): CodeAction[] {
  const uri = params.textDocument.uri;
  if (!uri.startsWith('file:') || !isModelFile(uri) || !wantsQuickFix(params)) return [];
  const modelPath = fileURLToPath(uri);
  const actions: CodeAction[] = [];
  for (const [rule, diagnostics] of ruleDiagnostics(params)) {
    const edit = disableRuleEdit(modelPath, rule);
    if (!edit) continue;
    actions.push({ title: `Disable ${rule} for ${basename(modelPath)} (in its .privacy.json)`, kind: CodeActionKind.QuickFix, diagnostics, edit });
  }
  return actions;
}

/**
 * The edit that adds `rule` to the model's sidecar `disable` list: the existing sidecar rewritten
 * with its other keys kept, or a new `<model file>.privacy.json`. None when the sidecar is not a
 * JSON object (the user's file is not overwritten; the linter reports it as it is).
 */
export function disableRuleEdit(modelPath: string, rule: RuleId): WorkspaceEdit | undefined {
  const existing = sidecarPaths(modelPath).find((path) => existsSync(path));
  if (!existing) {
    const target = pathToFileURL(sidecarPaths(modelPath)[0]).href;
    return {
      documentChanges: [
        { kind: 'create', uri: target, options: { ignoreIfExists: true } },
        { textDocument: { uri: target, version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: sidecarText({}, rule) }] },
      ],
    };
  }
  let text: string;
  let parsed: unknown;
  try {
    text = readFileSync(existing, 'utf8');
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const lines = text.split('\n');
  const end = { line: lines.length - 1, character: lines[lines.length - 1].length };
  const target = pathToFileURL(existing).href;
  return {
    documentChanges: [{ textDocument: { uri: target, version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end }, newText: sidecarText(parsed as Record<string, unknown>, rule) }] }],
  };
}

function sidecarText(sidecar: Record<string, unknown>, rule: RuleId): string {
  const disabled = Array.isArray(sidecar.disable) ? sidecar.disable.filter((r): r is string => typeof r === 'string') : [];
  return `${JSON.stringify({ ...sidecar, disable: [...new Set([...disabled, rule])] }, null, 2)}\n`;
}
