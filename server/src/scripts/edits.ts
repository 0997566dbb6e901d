/**
 * The text edits of the quick fixes, on the script's own text, keeping its formatting: a keyword
 * argument goes where its siblings are (same line, or its own line indented like them, with the
 * trailing-comma style kept), and the seed-stripping snippet goes right before the save, at the
 * save's indentation, with the file's line endings.
 */
import { LineMap } from './lexer';
import type { Call } from './analyze';

export interface TextEdit {
  /** Offsets into the script text: [start, end) is replaced by newText. */
  start: number;
  end: number;
  newText: string;
}

/** Sets `keyword=value` in the call: replaces an existing value, or inserts the argument. */
export function setKeyword(source: string, call: Call, keyword: string, value: string): TextEdit[] {
  const existing = call.args.find((a) => a.keyword === keyword);
  if (existing) return [{ start: existing.value.start, end: existing.value.end, newText: value }];
  const text = `${keyword}=${value}`;
  const lines = new LineMap(source);
  const args = call.args;
  if (args.length === 0) return [{ start: call.open + 1, end: call.open + 1, newText: text }];
  const last = args[args.length - 1];
  const closeLine = lines.position(call.close).line;
  if (lines.position(last.end).line === closeLine) return [{ start: last.end, end: last.end, newText: `, ${text}` }];
  // One argument per line: the new one gets its own line, indented like the last argument.
  const lastStart = lines.position(last.start);
  const lineIndent = lines.indentation(last.start);
  const indent = lineIndent.length === lastStart.character ? lineIndent : ' '.repeat(lastStart.character);
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const after = source.slice(last.end, call.close);
  const comma = /^[ \t]*,/.exec(after);
  if (comma) {
    const at = lines.lineEnd(last.end + comma[0].length);
    return [{ start: at, end: at, newText: `${eol}${indent}${text},` }];
  }
  const lineEnd = lines.lineEnd(last.end);
  if (lineEnd === last.end) return [{ start: last.end, end: last.end, newText: `,${eol}${indent}${text}` }];
  // a comment follows the last argument: the comma goes after the argument, the new line after the comment
  return [
    { start: last.end, end: last.end, newText: ',' },
    { start: lineEnd, end: lineEnd, newText: `${eol}${indent}${text}` },
  ];
}

/** The lines inserted before a save so that the saved forest holds no seeds. */
export function seedStrippingSnippet(object: string, indent: string, unit: string, eol: string): string {
  return [
    `# Model Privacy Lint: drop the seeds that replay each tree's bootstrap sample (and the forest's`,
    `# seed they are drawn from) before saving; predictions never use them.`,
    `for _tree in ${object}.estimators_:`,
    `${unit}_tree.random_state = None`,
    `${object}.random_state = None`,
  ].map((line) => `${indent}${line}${eol}`).join('');
}

/** Inserts the seed-stripping snippet on its own lines right before the statement at `statementStart`. */
export function insertSeedStripping(source: string, statementStart: number, object: string): TextEdit[] {
  const lines = new LineMap(source);
  const at = lines.lineStart(statementStart);
  const indent = lines.indentation(statementStart);
  const unit = indent.includes('\t') ? '\t' : /^( +)\S/m.exec(source)?.[1]?.length === 2 ? '  ' : '    ';
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  return [{ start: at, end: at, newText: seedStrippingSnippet(object, indent, unit, eol) }];
}

/** Applies non-overlapping edits (as an editor would) and returns the new text. */
export function applyEdits(source: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = source;
  for (const e of sorted) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}
