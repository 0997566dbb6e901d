// tree-sitter-python's syntax tree -> the Statement[] of server/src/scripts/syntax.ts, so that
// analyzeScript/checkScript run unchanged on either parser's output (measurement only: see
// eval.mjs; web-tree-sitter and tree-sitter-python are loaded from $TS_DIR, default /tmp/ts).
const TS_DIR = process.env.TS_DIR ?? '/tmp/ts';
const { Parser, Language } = await import(`${TS_DIR}/node_modules/web-tree-sitter/web-tree-sitter.js`);
await Parser.init();
const language = await Language.load(`${TS_DIR}/node_modules/tree-sitter-python/tree-sitter-python.wasm`);
export const parser = new Parser();
parser.setLanguage(language);

const named = (n) => n.namedChildren.filter((c) => c.type !== 'comment');

function decodeString(node) {
  // string: string_start (string_content | interpolation)* string_end; escapes inside string_content
  let value = '';
  let placeholders = false;
  const prefix = node.child(0)?.text ?? '';
  const raw = /r/i.test(prefix.replace(/["']/g, ''));
  for (const c of node.namedChildren) {
    if (c.type === 'interpolation') { placeholders = true; value += c.text; }
    else if (c.type === 'string_content') value += raw ? c.text : c.text.replace(/\\(.)/gs, (_, ch) => ({ n: '\n', t: '\t', '\\': '\\', "'": "'", '"': '"', r: '\r', '\n': '' })[ch] ?? `\\${ch}`);
  }
  return { value, placeholders };
}

export function expr(n) {
  const base = { start: n.startIndex, end: n.endIndex };
  switch (n.type) {
    case 'identifier': return { kind: 'name', id: n.text, ...base };
    case 'none': return { kind: 'const', value: null, ...base };
    case 'true': case 'false': return { kind: 'const', value: n.type === 'true', ...base };
    case 'integer': case 'float': return { kind: 'num', value: Number(n.text.replace(/_/g, '')), ...base };
    case 'string': { const s = decodeString(n); return { kind: 'str', ...s, ...base }; }
    case 'concatenated_string': {
      let value = ''; let placeholders = false;
      for (const c of named(n)) if (c.type === 'string') { const s = decodeString(c); value += s.value; placeholders ||= s.placeholders; }
      return { kind: 'str', value, placeholders, ...base };
    }
    case 'attribute': {
      const object = n.childForFieldName('object'); const attr = n.childForFieldName('attribute');
      if (object && attr) return { kind: 'attr', object: expr(object), name: attr.text, ...base };
      break;
    }
    case 'call': return call(n);
    case 'dictionary': {
      const kids = named(n);
      if (kids.some((c) => c.type !== 'pair')) return other(n);
      return { kind: 'dict', entries: kids.map((p) => ({ key: expr(p.childForFieldName('key')), value: expr(p.childForFieldName('value')) })), ...base };
    }
    case 'binary_operator': {
      const left = n.childForFieldName('left'); const right = n.childForFieldName('right'); const op = n.childForFieldName('operator');
      if (left && right && op) return { kind: 'binop', op: op.text, left: expr(left), right: expr(right), ...base };
      break;
    }
    case 'comparison_operator': {
      const kids = named(n);
      const ops = n.children.filter((c) => !c.isNamed);
      if (kids.length === 2 && ops.length === 1 && /^[<>=!]=?$|^[<>]$/.test(ops[0].text)) return { kind: 'binop', op: ops[0].text, left: expr(kids[0]), right: expr(kids[1]), ...base };
      break;
    }
    case 'unary_operator': {
      const arg = n.childForFieldName('argument');
      const e = arg ? expr(arg) : undefined;
      if (e && e.kind === 'num' && n.child(0)?.text === '-') return { ...e, value: -e.value, start: n.startIndex };
      break;
    }
    case 'subscript': return { kind: 'subscript', object: expr(n.childForFieldName('value')), ...base };
    case 'parenthesized_expression': {
      const kids = named(n);
      if (kids.length === 1) return { ...expr(kids[0]) };
      break;
    }
    case 'keyword_argument': return expr(n.childForFieldName('value'));
    default:
  }
  return other(n);
}

function other(n) {
  return { kind: 'other', start: n.startIndex, end: n.endIndex, children: named(n).map(expr) };
}

function call(n) {
  const func = expr(n.childForFieldName('function'));
  const argsNode = n.childForFieldName('arguments');
  const args = [];
  let open = argsNode?.startIndex ?? n.endIndex;
  let close = n.endIndex;
  if (argsNode?.type === 'argument_list') {
    const last = argsNode.child(argsNode.childCount - 1);
    close = last && last.type === ')' && !last.isMissing ? last.startIndex : argsNode.endIndex;
    for (const a of named(argsNode)) {
      if (a.type === 'keyword_argument') {
        const name = a.childForFieldName('name'); const value = a.childForFieldName('value');
        args.push({ keyword: name.text, value: expr(value), start: a.startIndex, end: a.endIndex });
      } else if (a.type === 'list_splat' || a.type === 'dictionary_splat') {
        const inner = named(a)[0];
        args.push({ star: a.type === 'list_splat' ? '*' : '**', value: inner ? expr(inner) : other(a), start: a.startIndex, end: a.endIndex });
      } else {
        const value = expr(a);
        args.push({ value, start: value.start, end: value.end });
      }
    }
  } else if (argsNode) {
    const value = expr(argsNode); // a generator expression
    args.push({ value, start: value.start, end: value.end });
    close = argsNode.endIndex - 1;
  }
  return { kind: 'call', func, args, open, close, start: n.startIndex, end: n.endIndex };
}

function dotted(n) { return n.text.replace(/\s+/g, ''); }

function imports(n) {
  const out = [];
  if (n.type === 'import_statement') {
    for (const item of n.childrenForFieldName('name')) {
      if (item.type === 'aliased_import') {
        const name = dotted(item.childForFieldName('name'));
        out.push({ local: item.childForFieldName('alias').text, qualified: name });
      } else {
        const local = dotted(item).split('.')[0];
        out.push({ local, qualified: local });
      }
    }
  } else {
    const module = n.childForFieldName('module_name');
    const prefix = module ? (dotted(module).replace(/^\.+/, '') || dotted(module)) : '__future__';
    for (const item of n.childrenForFieldName('name')) {
      if (item.type === 'aliased_import') out.push({ local: item.childForFieldName('alias').text, qualified: `${prefix}.${dotted(item.childForFieldName('name'))}` });
      else out.push({ local: dotted(item), qualified: `${prefix}.${dotted(item)}` });
    }
  }
  return out;
}

const COMPOUND_BODIES = new Set(['block']);
const CLAUSES = new Set(['elif_clause', 'else_clause', 'except_clause', 'except_group_clause', 'finally_clause', 'case_clause']);

export function parseStatementsTS(source, tree = parser.parse(source)) {
  const statements = [];
  const indentOf = (offset) => {
    const lineStart = source.lastIndexOf('\n', offset - 1) + 1;
    return /^[ \t]*/.exec(source.slice(lineStart, offset))[0];
  };
  const push = (n, fields) => statements.push({ start: n.startIndex, end: fields.end ?? n.endIndex, indent: indentOf(n.startIndex), targets: [], exprs: [], ...fields });
  const headerEnd = (n) => {
    const colon = n.children.find((c) => c.type === ':');
    return colon ? (colon.previousSibling?.endIndex ?? colon.startIndex) : n.endIndex;
  };
  const bodies = (n) => {
    for (const c of n.namedChildren) {
      if (COMPOUND_BODIES.has(c.type)) block(c);
      else if (CLAUSES.has(c.type)) clause(c);
    }
  };
  const clause = (n) => {
    const exprs = named(n).filter((c) => c.type !== 'block' && !CLAUSES.has(c.type)).map(expr);
    push(n, { kind: 'other', exprs, end: headerEnd(n) });
    bodies(n);
  };
  const block = (n) => { for (const c of n.namedChildren) statement(c); };
  const statement = (n) => {
    switch (n.type) {
      case 'comment': return;
      case 'expression_statement': {
        const kids = named(n);
        if (kids.length === 1 && (kids[0].type === 'assignment' || kids[0].type === 'augmented_assignment')) {
          const targets = [];
          let a = kids[0];
          let value;
          for (;;) {
            const left = a.childForFieldName('left');
            if (left.type === 'pattern_list' || left.type === 'tuple_pattern') targets.push(...named(left).map(expr));
            else targets.push(expr(left));
            const right = a.childForFieldName('right');
            if (!right) { value = undefined; break; }
            if (right.type === 'assignment' || right.type === 'augmented_assignment') { a = right; continue; }
            value = right.type === 'expression_list' ? other(right) : expr(right);
            break;
          }
          if (!value) return push(n, { kind: 'expr', value: targets[0], exprs: targets });
          return push(n, { kind: 'assign', targets, value, exprs: [value] });
        }
        const exprs = kids.map(expr);
        return push(n, { kind: 'expr', value: exprs[0], exprs });
      }
      case 'import_statement': case 'import_from_statement': case 'future_import_statement':
        return push(n, { kind: 'import', imports: imports(n) });
      case 'for_statement': {
        const left = n.childForFieldName('left'); const right = n.childForFieldName('right');
        const value = right ? (right.type === 'expression_list' ? other(right) : expr(right)) : undefined;
        push(n, { kind: 'for', targets: left ? [expr(left)] : [], value, exprs: value ? [value] : [], end: headerEnd(n) });
        return bodies(n);
      }
      case 'with_statement': {
        const items = [];
        const clauseNode = n.namedChildren.find((c) => c.type === 'with_clause');
        for (const item of clauseNode ? named(clauseNode) : []) {
          const v = item.childForFieldName('value') ?? named(item)[0];
          if (v?.type === 'as_pattern') {
            const kids = named(v);
            const target = v.childForFieldName('alias') ?? kids[kids.length - 1];
            items.push({ value: expr(kids[0]), target: target ? expr(named(target)[0] ?? target) : undefined });
          } else if (v) items.push({ value: expr(v) });
        }
        push(n, { kind: 'with', items, exprs: items.map((i) => i.value), end: headerEnd(n) });
        return bodies(n);
      }
      case 'if_statement': case 'while_statement': case 'try_statement': case 'match_statement': {
        const header = named(n).filter((c) => c.type !== 'block' && !CLAUSES.has(c.type) && c.type !== 'case_clause');
        push(n, { kind: 'other', exprs: header.map(expr), end: headerEnd(n) });
        for (const c of n.namedChildren) if (c.type === 'block' && n.type === 'match_statement') { for (const k of c.namedChildren) if (k.type === 'case_clause') clause(k); }
        return bodies(n);
      }
      case 'function_definition': {
        const params = n.childForFieldName('parameters');
        const defaults = params ? named(params).filter((p) => p.type.includes('default')).map((p) => expr(p.childForFieldName('value'))) : [];
        push(n, { kind: 'other', exprs: defaults, end: headerEnd(n) });
        return bodies(n);
      }
      case 'class_definition': {
        const sup = n.childForFieldName('superclasses');
        push(n, { kind: 'other', exprs: sup ? named(sup).map(expr) : [], end: headerEnd(n) });
        return bodies(n);
      }
      case 'decorated_definition': {
        for (const c of n.namedChildren) {
          if (c.type === 'decorator') push(c, { kind: 'expr', exprs: named(c).map(expr), value: named(c)[0] && expr(named(c)[0]) });
          else statement(c);
        }
        return;
      }
      case 'block': return block(n);
      case 'ERROR': {
        // keep what tree-sitter recovered: statements inside, and expressions as one statement
        const loose = [];
        for (const c of n.namedChildren) {
          if (/_statement$|_definition$|^block$|^ERROR$/.test(c.type)) statement(c);
          else if (c.type !== 'comment') loose.push(expr(c));
        }
        if (loose.length) push(n, { kind: 'other', exprs: loose });
        return;
      }
      default: {
        // return, del, assert, raise, print (Python 2), global, pass, ...
        const exprs = named(n).map(expr);
        return push(n, { kind: 'other', exprs });
      }
    }
  };
  for (const c of tree.rootNode.namedChildren) statement(c);
  statements.sort((a, b) => a.start - b.start);
  return statements;
}
