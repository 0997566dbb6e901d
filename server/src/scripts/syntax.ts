/**
 * Statements and expressions of a Python source, parsed from its tokens as far as a training
 * script needs: names, attributes, calls with their arguments' exact ranges, string and number
 * literals, dict literals, `/` (pathlib), subscripts. Anything else becomes an `other` node
 * that covers its tokens, so an unfamiliar construct never stops the rest from being read.
 */
import { tokenize, type Token } from './lexer';

export type Expr =
  | { kind: 'name'; id: string; start: number; end: number }
  | { kind: 'attr'; object: Expr; name: string; start: number; end: number }
  | { kind: 'call'; func: Expr; args: Arg[]; open: number; close: number; start: number; end: number }
  | { kind: 'str'; value: string; placeholders: boolean; start: number; end: number }
  | { kind: 'num'; value: number; start: number; end: number }
  | { kind: 'const'; value: null | boolean; start: number; end: number }
  | { kind: 'dict'; entries: { key: Expr; value: Expr }[]; start: number; end: number }
  | { kind: 'binop'; op: string; left: Expr; right: Expr; start: number; end: number }
  | { kind: 'subscript'; object: Expr; start: number; end: number }
  | { kind: 'other'; start: number; end: number; children: Expr[] };

export interface Arg {
  /** Keyword name, for `name=value`; `*` / `**` for unpacking. */
  keyword?: string;
  star?: '*' | '**';
  value: Expr;
  /** Whole argument, keyword included. */
  start: number;
  end: number;
}

export interface Statement {
  /** `assign`: `targets = value`; `for`: `for target in value:`; `with`: items `value as target`. */
  kind: 'expr' | 'assign' | 'for' | 'with' | 'import' | 'other';
  targets: Expr[];
  value?: Expr;
  /** with-statements: each `expr as name`. */
  items?: { value: Expr; target?: Expr }[];
  /** import statements: local name -> qualified name. */
  imports?: { local: string; qualified: string }[];
  /** Offsets of the statement's first token and end. */
  start: number;
  end: number;
  /** Column of the line's first token (its indentation) and the line's leading whitespace. */
  indent: string;
  /** Expressions in the statement, outermost first (for finding calls anywhere). */
  exprs: Expr[];
}

const COMPOUND = new Set(['if', 'elif', 'else', 'while', 'try', 'except', 'finally', 'def', 'class', 'async', 'match', 'case']);
const CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

class Parser {
  pos = 0;
  constructor(private readonly t: Token[], private readonly end: number) {}

  peek(offset = 0): Token | undefined {
    const k = this.pos + offset;
    return k < this.end ? this.t[k] : undefined;
  }
  isOp(text: string, offset = 0): boolean {
    const tok = this.peek(offset);
    return tok?.kind === 'op' && tok.text === text;
  }
  isName(text: string, offset = 0): boolean {
    const tok = this.peek(offset);
    return tok?.kind === 'name' && tok.text === text;
  }

  /** Skips one balanced bracket group starting at the current `(`, `[` or `{`. */
  skipGroup(): void {
    const stack: string[] = [];
    while (this.pos < this.end) {
      const tok = this.t[this.pos++];
      if (tok.kind !== 'op') continue;
      if (CLOSERS[tok.text]) stack.push(CLOSERS[tok.text]);
      else if (tok.text === stack[stack.length - 1]) {
        stack.pop();
        if (stack.length === 0) return;
      }
    }
  }

  /** An expression up to a `,`, `:`, `=`, closing bracket or keyword it cannot use, at this level. */
  expr(): Expr {
    const first = this.peek();
    const start = first?.start ?? 0;
    let left = this.unary();
    for (;;) {
      const tok = this.peek();
      if (!tok) break;
      if (tok.kind === 'op' && ['/', '+', '-', '*', '%', '@', '|', '&', '**', '//', '<', '>', '<=', '>=', '==', '!=', '^', '<<', '>>'].includes(tok.text)) {
        this.pos++;
        const right = this.unary();
        left = { kind: 'binop', op: tok.text, left, right, start: left.start, end: right.end };
        continue;
      }
      if (tok.kind === 'name' && ['and', 'or', 'if', 'else', 'in', 'not', 'is', 'for', 'lambda', 'async'].includes(tok.text)) {
        // conditional expressions, comprehensions, boolean logic: keep the parts, not the meaning
        const children = [left];
        while (this.peek() && !this.atStop()) {
          if (this.peek()!.kind === 'name' && ['and', 'or', 'if', 'else', 'in', 'not', 'is', 'for', 'lambda', 'async'].includes(this.peek()!.text)) this.pos++;
          else children.push(this.unary());
        }
        left = { kind: 'other', start, end: this.t[this.pos - 1]?.end ?? left.end, children };
        continue;
      }
      break;
    }
    return left;
  }

  atStop(): boolean {
    const tok = this.peek();
    return !tok || (tok.kind === 'op' && [',', ':', '=', ')', ']', '}', ';', ':='].includes(tok.text)) || tok.kind === 'newline';
  }

  unary(): Expr {
    const tok = this.peek();
    if (tok?.kind === 'op' && ['-', '+', '~'].includes(tok.text)) {
      this.pos++;
      const operand = this.unary();
      if (tok.text === '-' && operand.kind === 'num') return { ...operand, value: -operand.value, start: tok.start };
      return { kind: 'other', start: tok.start, end: operand.end, children: [operand] };
    }
    if (tok?.kind === 'name' && (tok.text === 'not' || tok.text === 'await')) {
      this.pos++;
      const operand = this.unary();
      return { kind: 'other', start: tok.start, end: operand.end, children: [operand] };
    }
    return this.postfix(this.atom());
  }

  atom(): Expr {
    const tok = this.peek();
    if (!tok) return { kind: 'other', start: this.t[this.end - 1]?.end ?? 0, end: this.t[this.end - 1]?.end ?? 0, children: [] };
    if (tok.kind === 'name') {
      this.pos++;
      if (tok.text === 'None') return { kind: 'const', value: null, start: tok.start, end: tok.end };
      if (tok.text === 'True' || tok.text === 'False') return { kind: 'const', value: tok.text === 'True', start: tok.start, end: tok.end };
      if (tok.text === 'lambda') {
        const children: Expr[] = [];
        while (!this.atStop() || this.isOp(':') || this.isOp(',')) {
          if (this.isOp(':')) { this.pos++; children.push(this.expr()); break; }
          this.pos++;
        }
        return { kind: 'other', start: tok.start, end: this.t[this.pos - 1].end, children };
      }
      return { kind: 'name', id: tok.text, start: tok.start, end: tok.end };
    }
    if (tok.kind === 'number') {
      this.pos++;
      return { kind: 'num', value: Number(tok.text.replace(/_/g, '')), start: tok.start, end: tok.end };
    }
    if (tok.kind === 'string') {
      // adjacent literals concatenate
      let value = tok.value ?? '';
      let placeholders = Boolean(tok.placeholders);
      let end = tok.end;
      this.pos++;
      while (this.peek()?.kind === 'string') {
        const next = this.t[this.pos++];
        value += next.value ?? '';
        placeholders ||= Boolean(next.placeholders);
        end = next.end;
      }
      return { kind: 'str', value, placeholders, start: tok.start, end };
    }
    if (tok.kind === 'op' && tok.text === '{') return this.dict();
    if (tok.kind === 'op' && (tok.text === '(' || tok.text === '[')) {
      const close = CLOSERS[tok.text];
      this.pos++;
      const children: Expr[] = [];
      while (this.peek() && !this.isOp(close)) {
        if (this.isOp(',') || this.isOp(':') || this.isOp('=') || this.peek()!.kind === 'comment') { this.pos++; continue; }
        const before = this.pos;
        children.push(this.starred());
        if (this.pos === before) this.pos++;
      }
      const end = this.peek()?.end ?? tok.end;
      if (this.peek()) this.pos++;
      // `(x)` is x; tuples and lists are kept as a group of their parts
      if (tok.text === '(' && children.length === 1) return { ...children[0] };
      return { kind: 'other', start: tok.start, end, children };
    }
    // a stray token: consume it so parsing always advances
    this.pos++;
    return { kind: 'other', start: tok.start, end: tok.end, children: [] };
  }

  starred(): Expr {
    if (this.isOp('*') || this.isOp('**')) this.pos++;
    return this.expr();
  }

  dict(): Expr {
    const open = this.t[this.pos++];
    const entries: { key: Expr; value: Expr }[] = [];
    const children: Expr[] = [];
    while (this.peek() && !this.isOp('}')) {
      if (this.isOp(',') || this.peek()!.kind === 'comment') { this.pos++; continue; }
      const before = this.pos;
      if (this.isOp('**')) { this.pos++; children.push(this.expr()); continue; }
      const key = this.expr();
      if (this.isOp(':')) {
        this.pos++;
        const value = this.expr();
        entries.push({ key, value });
      } else children.push(key);
      if (this.pos === before) this.pos++;
    }
    const end = this.peek()?.end ?? open.end;
    if (this.peek()) this.pos++;
    if (children.length) return { kind: 'other', start: open.start, end, children: [...children, ...entries.flatMap((e) => [e.key, e.value])] };
    return { kind: 'dict', entries, start: open.start, end };
  }

  postfix(base: Expr): Expr {
    let e = base;
    for (;;) {
      if (this.isOp('.') && this.peek(1)?.kind === 'name') {
        const name = this.t[this.pos + 1];
        this.pos += 2;
        e = { kind: 'attr', object: e, name: name.text, start: e.start, end: name.end };
      } else if (this.isOp('(')) {
        e = this.call(e);
      } else if (this.isOp('[')) {
        const open = this.t[this.pos];
        this.skipGroup();
        e = { kind: 'subscript', object: e, start: e.start, end: this.t[this.pos - 1]?.end ?? open.end };
      } else return e;
    }
  }

  call(func: Expr): Expr {
    const open = this.t[this.pos++];
    const args: Arg[] = [];
    while (this.peek() && !this.isOp(')')) {
      const tok = this.peek()!;
      if ((tok.kind === 'op' && tok.text === ',') || tok.kind === 'comment') { this.pos++; continue; }
      const before = this.pos;
      let arg: Arg;
      if (tok.kind === 'op' && (tok.text === '*' || tok.text === '**')) {
        this.pos++;
        const value = this.expr();
        arg = { star: tok.text, value, start: tok.start, end: value.end };
      } else if (tok.kind === 'name' && this.isOp('=', 1)) {
        this.pos += 2;
        const value = this.expr();
        arg = { keyword: tok.text, value, start: tok.start, end: value.end };
      } else {
        const value = this.expr();
        arg = { value, start: value.start, end: value.end };
      }
      args.push(arg);
      // skip whatever this parser could not use up to the next comma (e.g. a generator's `for`)
      while (this.peek() && !this.isOp(',') && !this.isOp(')')) {
        if (this.peek()!.kind === 'op' && CLOSERS[this.peek()!.text]) this.skipGroup();
        else this.pos++;
      }
      if (this.pos === before) this.pos++;
    }
    const close = this.peek();
    if (close) this.pos++;
    const end = close?.end ?? this.t[this.pos - 1]?.end ?? open.end;
    return { kind: 'call', func, args, open: open.start, close: close?.start ?? end, start: func.start, end };
  }
}

function dotted(tokens: Token[], from: number, to: number): { name: string; next: number } {
  let name = '';
  let k = from;
  // name (. name)*, or leading dots of a relative import
  while (k < to && tokens[k].kind === 'op' && tokens[k].text === '.') name += tokens[k++].text;
  while (k < to && tokens[k].kind === 'name') {
    name += tokens[k++].text;
    if (k + 1 < to && tokens[k].kind === 'op' && tokens[k].text === '.' && tokens[k + 1].kind === 'name') name += tokens[k++].text;
    else break;
  }
  return { name, next: k };
}

/** `import a.b as c, d` and `from a import (b as c, d)`: local name -> qualified name. */
function parseImport(tokens: Token[], from: number, to: number): { local: string; qualified: string }[] {
  const out: { local: string; qualified: string }[] = [];
  const items = (k: number, prefix: string) => {
    while (k < to) {
      const tok = tokens[k];
      if (tok.kind === 'op' || tok.kind === 'comment') { k++; continue; }
      const { name, next } = dotted(tokens, k, to);
      if (!name) { k++; continue; }
      k = next;
      let local = prefix ? name : name.split('.')[0];
      let qualified = prefix ? `${prefix}.${name}` : local;
      if (tokens[k]?.kind === 'name' && tokens[k].text === 'as' && tokens[k + 1]?.kind === 'name') {
        local = tokens[k + 1].text;
        qualified = prefix ? `${prefix}.${name}` : name;
        k += 2;
      }
      out.push({ local, qualified });
    }
  };
  if (tokens[from].text === 'import') items(from + 1, '');
  else {
    const { name, next } = dotted(tokens, from + 1, to);
    const k = tokens[next]?.text === 'import' ? next + 1 : next;
    items(k, name.replace(/^\.+/, '') || name);
  }
  return out;
}

/** Parses `source` into statements (one per logical line, `;` and compound headers split off). */
export function parseStatements(source: string, tokens: Token[] = tokenize(source)): Statement[] {
  const statements: Statement[] = [];
  const indentOf = (offset: number) => {
    const lineStart = source.lastIndexOf('\n', offset - 1) + 1;
    return /^[ \t]*/.exec(source.slice(lineStart, offset))![0];
  };
  let k = 0;
  while (k < tokens.length) {
    // one logical line: tokens up to the next newline token
    let lineEnd = k;
    while (lineEnd < tokens.length && tokens[lineEnd].kind !== 'newline') lineEnd++;
    let s = k;
    while (s < lineEnd) {
      while (s < lineEnd && tokens[s].kind === 'comment') s++;
      if (s >= lineEnd) break;
      const stmtStart = s;
      // the statement ends at `;` at depth 0, at a compound header's `:`, or at the line end
      let e = s;
      let depth = 0;
      const first = tokens[s];
      const compoundHeader = first.kind === 'name' && (COMPOUND.has(first.text) || first.text === 'for' || first.text === 'with');
      while (e < lineEnd) {
        const tok = tokens[e];
        if (tok.kind === 'op') {
          if (CLOSERS[tok.text]) depth++;
          else if (tok.text === ')' || tok.text === ']' || tok.text === '}') depth = Math.max(0, depth - 1);
          else if (depth === 0 && (tok.text === ';' || (compoundHeader && tok.text === ':' && !(first.text === 'lambda')))) break;
        }
        e++;
      }
      statements.push(parseOne(tokens, stmtStart, e, indentOf(tokens[stmtStart].start)));
      s = e + 1;
    }
    k = lineEnd + 1;
  }
  return statements;
}

function parseOne(tokens: Token[], from: number, to: number, indent: string): Statement {
  const first = tokens[from];
  const last = tokens[to - 1] ?? first;
  const base = { start: first.start, end: last.end, indent, targets: [] as Expr[], exprs: [] as Expr[] };
  if (first.kind === 'name' && (first.text === 'import' || (first.text === 'from' && tokens.slice(from, to).some((t) => t.text === 'import')))) {
    return { ...base, kind: 'import', imports: parseImport(tokens, from, to) };
  }
  const p = new Parser(tokens, to);
  p.pos = from;
  if (first.kind === 'name' && first.text === 'with') {
    p.pos++;
    const items: { value: Expr; target?: Expr }[] = [];
    while (p.pos < to) {
      if (p.isOp(',')) { p.pos++; continue; }
      const before = p.pos;
      const value = p.expr();
      let target: Expr | undefined;
      if (p.isName('as')) { p.pos++; target = p.expr(); }
      items.push({ value, target });
      if (p.pos === before) p.pos++;
    }
    return { ...base, kind: 'with', items, exprs: items.map((i) => i.value) };
  }
  if (first.kind === 'name' && first.text === 'for') {
    p.pos++;
    // the target stops at `in` (expr() would read `t in xs` as a comparison)
    const target = p.unary();
    while (p.pos < to && !p.isName('in')) p.pos++;
    if (p.isName('in')) p.pos++;
    const value = p.expr();
    return { ...base, kind: 'for', targets: [target], value, exprs: [value] };
  }
  if (first.kind === 'name' && (COMPOUND.has(first.text) || ['return', 'del', 'assert', 'raise', 'yield', 'global', 'nonlocal', 'print'].includes(first.text)) && !(first.text === 'print' && tokens[from + 1]?.text === '=')) {
    // keep the expressions of `if cond:`, `return x`, `print(...)`...: calls inside still count
    if (first.text !== 'print') p.pos++;
    const exprs: Expr[] = [];
    while (p.pos < to) {
      const before = p.pos;
      if (p.isOp(',') || p.isOp(':') || p.isOp('=')) { p.pos++; continue; }
      exprs.push(p.expr());
      if (p.pos === before) p.pos++;
    }
    return { ...base, kind: 'other', exprs };
  }
  // expression statement or assignment chain `a = b = value`, with tuple targets `a, b = ...`
  const parts: Expr[][] = [[]];
  while (p.pos < to) {
    const before = p.pos;
    if (p.isOp(',')) { p.pos++; continue; }
    if (p.isOp('=')) { p.pos++; parts.push([]); continue; }
    if (p.isOp(':') && parts.length === 1) {
      // annotated assignment `x: T = value`: skip the annotation
      p.pos++;
      p.expr();
      continue;
    }
    if (p.peek()?.kind === 'op' && /^[-+*/%@&|^<>]{1,3}=$/.test(p.peek()!.text)) { p.pos++; parts.push([]); continue; }
    parts[parts.length - 1].push(p.expr());
    if (p.pos === before) p.pos++;
  }
  if (parts.length === 1) return { ...base, kind: 'expr', value: parts[0][0], exprs: parts[0] };
  const valueParts = parts[parts.length - 1];
  const value: Expr = valueParts.length === 1 ? valueParts[0] : { kind: 'other', start: valueParts[0]?.start ?? base.start, end: valueParts[valueParts.length - 1]?.end ?? base.end, children: valueParts };
  return { ...base, kind: 'assign', targets: parts.slice(0, -1).flat(), value, exprs: [value] };
}

/** Every call inside `expr`, outermost first. */
export function callsIn(expr: Expr | undefined, out: Extract<Expr, { kind: 'call' }>[] = []): Extract<Expr, { kind: 'call' }>[] {
  if (!expr) return out;
  switch (expr.kind) {
    case 'call':
      out.push(expr);
      callsIn(expr.func, out);
      for (const arg of expr.args) callsIn(arg.value, out);
      break;
    case 'attr':
    case 'subscript':
      callsIn(expr.object, out);
      break;
    case 'binop':
      callsIn(expr.left, out);
      callsIn(expr.right, out);
      break;
    case 'dict':
      for (const e of expr.entries) { callsIn(e.key, out); callsIn(e.value, out); }
      break;
    case 'other':
      for (const c of expr.children) callsIn(c, out);
      break;
    default:
  }
  return out;
}

/** `a.b.c` as a string, or undefined when `expr` is not a plain dotted name. */
export function dottedName(expr: Expr): string | undefined {
  if (expr.kind === 'name') return expr.id;
  if (expr.kind === 'attr') {
    const base = dottedName(expr.object);
    return base === undefined ? undefined : `${base}.${expr.name}`;
  }
  return undefined;
}

export function keywordArg(call: Extract<Expr, { kind: 'call' }>, name: string): Arg | undefined {
  return call.args.find((a) => a.keyword === name);
}
