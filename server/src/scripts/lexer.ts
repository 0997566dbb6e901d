/**
 * A Python tokenizer, just enough to find estimator constructions and saves in training scripts
 * without executing anything. It knows what makes naive text search wrong: strings (all prefixes,
 * triple quotes, escapes, f-strings), comments, brackets (a call spans lines inside them) and
 * backslash continuations. It never throws: unterminated strings and stray characters become
 * tokens, so a half-typed script still yields what can be read from it.
 */

export type TokenKind = 'name' | 'number' | 'string' | 'op' | 'comment' | 'newline';

export interface Token {
  kind: TokenKind;
  /** Source text of the token. */
  text: string;
  /** Offsets into the source: [start, end). */
  start: number;
  end: number;
  /** Strings: the literal's value (escapes decoded for non-raw strings; f-strings with `{{` folded). */
  value?: string;
  /** f-strings: whether they contain a `{...}` placeholder (then `value` is not the runtime value). */
  placeholders?: boolean;
}

const STRING_START = /^([rRbBuUfF]{0,2})('''|"""|'|")/;
const NAME = /^[A-Za-z_\u00c0-\uffff][A-Za-z0-9_\u00c0-\uffff]*/;
const NUMBER = /^(?:0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJ]?)/;
const OPERATORS = ['**=', '//=', '>>=', '<<=', '...', '->', ':=', '**', '//', '<<', '>>', '<=', '>=', '==', '!=',
  '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '@='];
const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);

function decodeEscapes(body: string): string {
  return body.replace(/\\(\r\n|[\s\S])/g, (_, c: string) => {
    switch (c) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case '0': return '\0';
      case '\n': case '\r\n': return '';
      default: return c; // \\ \' \" and unknown escapes (Python keeps the backslash for those; paths rarely have them)
    }
  });
}

/**
 * Tokens of `source`, with a `newline` token at the end of every logical line (not inside
 * brackets, not after a backslash continuation), so statements are the runs between them.
 */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  const n = source.length;
  // Whether the logical line so far holds code (a comment-only or blank line makes no statement).
  let code = false;
  const endLogicalLine = (at: number) => {
    if (code) tokens.push({ kind: 'newline', text: '', start: at, end: at });
    code = false;
  };
  while (i < n) {
    const c = source[i];
    if (c === '\n' || c === '\r') {
      if (depth === 0) endLogicalLine(i);
      i += c === '\r' && source[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\f') { i++; continue; }
    if (c === '\\' && (source[i + 1] === '\n' || source[i + 1] === '\r')) {
      i += source[i + 1] === '\r' && source[i + 2] === '\n' ? 3 : 2; // continuation: same logical line
      continue;
    }
    if (c === '#') {
      let j = source.indexOf('\n', i);
      if (j < 0) j = n;
      if (source[j - 1] === '\r') j--;
      tokens.push({ kind: 'comment', text: source.slice(i, j), start: i, end: j });
      i = j;
      continue;
    }
    const rest = source.slice(i, i + 6);
    const str = STRING_START.exec(rest);
    if (str && (str[1] === '' || NAME.exec(source.slice(i, i + 3))?.[0] === str[1])) {
      const prefix = str[1].toLowerCase();
      const quote = str[2];
      const bodyStart = i + str[0].length;
      let j = bodyStart;
      let closed = false;
      while (j < n) {
        const d = source[j];
        if (d === '\\') { j += 2; continue; }
        if (quote.length === 1 && (d === '\n' || d === '\r')) break; // unterminated: stop at the line end
        if (source.startsWith(quote, j)) { closed = true; break; }
        j++;
      }
      j = Math.min(j, n);
      const body = source.slice(bodyStart, j);
      const end = closed ? j + quote.length : j;
      let value = prefix.includes('r') ? body : decodeEscapes(body);
      const token: Token = { kind: 'string', text: source.slice(i, end), start: i, end, value };
      if (prefix.includes('f')) {
        token.placeholders = /(^|[^{])\{(?!\{)/.test(body.replace(/\{\{/g, ''));
        value = value.replace(/\{\{/g, '{').replace(/\}\}/g, '}');
        token.value = value;
      }
      code = true;
      tokens.push(token);
      i = end;
      continue;
    }
    const name = NAME.exec(source.slice(i, i + 200));
    if (name) {
      code = true;
      tokens.push({ kind: 'name', text: name[0], start: i, end: i + name[0].length });
      i += name[0].length;
      continue;
    }
    const num = /[0-9.]/.test(c) ? NUMBER.exec(source.slice(i, i + 100)) : null;
    if (num && num[0] !== '.' && num[0].length > 0) {
      code = true;
      tokens.push({ kind: 'number', text: num[0], start: i, end: i + num[0].length });
      i += num[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i)) ?? c;
    if (OPEN.has(op)) depth++;
    else if (CLOSE.has(op)) depth = Math.max(0, depth - 1);
    code = true;
    tokens.push({ kind: 'op', text: op, start: i, end: i + op.length });
    i += op.length;
  }
  endLogicalLine(n);
  return tokens;
}

/** Offset <-> (line, character) for one source text; characters are UTF-16 units, as in LSP. */
export class LineMap {
  private readonly starts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') this.starts.push(i + 1);
  }
  position(offset: number): { line: number; character: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo] };
  }
  offset(line: number, character: number): number {
    return Math.min(this.text.length, (this.starts[Math.min(line, this.starts.length - 1)] ?? 0) + character);
  }
  lineStart(offset: number): number {
    return this.starts[this.position(offset).line];
  }
  lineEnd(offset: number): number {
    let j = this.text.indexOf('\n', offset);
    if (j < 0) j = this.text.length;
    return this.text[j - 1] === '\r' ? j - 1 : j;
  }
  /** The whitespace that starts the line holding `offset`. */
  indentation(offset: number): string {
    const start = this.lineStart(offset);
    return /^[ \t]*/.exec(this.text.slice(start, start + 200))![0];
  }
  lineText(line: number): string {
    const start = this.starts[line] ?? this.text.length;
    return this.text.slice(start, this.lineEnd(start));
  }
}
