/**
 * A training script turns a rule off for itself with a comment, as linters do:
 *   # model-privacy-lint: disable=script-small-leaves, script-stored-seeds
 * anywhere in the file (a notebook: in any code cell). The quick-fix menu's "Disable ... for this
 * file" writes it at the top, below a shebang or encoding line, or extends the one there.
 */
import type { TextEdit } from './edits';

const DIRECTIVE = /^[ \t]*#[ \t]*model-privacy-lint:[ \t]*disable=([A-Za-z0-9_,\- \t]*)$/gm;

/** The rule ids the script's directives turn off. */
export function disabledInScript(text: string): Set<string> {
  const rules = new Set<string>();
  for (const match of text.matchAll(DIRECTIVE)) {
    for (const rule of match[1].split(',')) if (rule.trim()) rules.add(rule.trim());
  }
  return rules;
}

/** The edit that turns `rule` off in this Python text (offsets into `text`). */
export function disableInScriptEdit(text: string, rule: string): TextEdit {
  DIRECTIVE.lastIndex = 0;
  const existing = DIRECTIVE.exec(text);
  DIRECTIVE.lastIndex = 0;
  if (existing) {
    const end = existing.index + existing[0].length;
    const listed = existing[1].trimEnd();
    return { start: end - (existing[1].length - listed.length), end, newText: listed.trim() ? `, ${rule}` : rule };
  }
  // below a shebang and a coding line, which must stay first
  let at = 0;
  for (let i = 0; i < 2; i++) {
    const lineEnd = text.indexOf('\n', at);
    const line = text.slice(at, lineEnd < 0 ? text.length : lineEnd);
    if (!(/^#!/.test(line) || /^#.*coding[:=]/.test(line)) || lineEnd < 0) break;
    at = lineEnd + 1;
  }
  return { start: at, end: at, newText: `# model-privacy-lint: disable=${rule}\n` };
}
