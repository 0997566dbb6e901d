// Measures web-tree-sitter + tree-sitter-python against the hand-written script reader
// (server/src/scripts/lexer.ts + syntax.ts) on a folder of training scripts and notebooks: what
// analyzeScript/checkScript extract with each (adapter.mjs turns tree-sitter's tree into the same
// Statement[]), parse time, and tolerance of broken code. Results: docs/tree-sitter.md.
// tree-sitter is not a dependency of this project; install it outside the repository:
//   mkdir -p /tmp/ts && cd /tmp/ts && npm init -y && npm install web-tree-sitter@0.27.2 tree-sitter-python@0.25.0
//   npx tsc -b && TS_DIR=/tmp/ts node scripts/tree-sitter-eval/eval.mjs /tmp/ts/corpus
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parser, parseStatementsTS } from './adapter.mjs';
const require = createRequire(import.meta.url);
const WT = new URL('../..', import.meta.url).pathname;
const syntax = require(`${WT}/out/server/src/scripts/syntax.js`);
const { analyzeScript } = require(`${WT}/out/server/src/scripts/analyze.js`);
const { checkScript } = require(`${WT}/out/server/src/scripts/rules.js`);
const { describePath } = require(`${WT}/out/server/src/scripts/paths.js`);
const { parseNotebook } = require(`${WT}/out/server/src/scripts/notebook.js`);
const handParse = syntax.parseStatements;
const tsParse = (source) => { const tree = parser.parse(source); try { return parseStatementsTS(source, tree); } finally { tree.delete(); } };

function extract(source, which) {
  syntax.parseStatements = which === 'hand' ? handParse : tsParse;
  try {
    const model = analyzeScript(source);
    const findings = checkScript(source, model);
    const estimators = model.estimators.map((e) => `${e.estimator}@${e.call.start}-${e.call.end} var=${e.variable} args=[${e.call.args.map((a) => `${a.keyword ?? a.star ?? ''}:${a.start}-${a.end}`).join(' ')}] params=${e.params?.start}`);
    const saves = model.saves.map((s) => `${s.method}@${s.call.start} path=${describePath(s.path)} est=${s.estimator?.call.start} obj=${s.objectName} stripped=${s.seedsStripped}`);
    const found = findings.map((f) => `${f.rule}@${f.start}-${f.end} ${f.message} fix=${JSON.stringify(f.fix?.edits ?? [])}`);
    // what a damaged copy is compared on: offsets move, the code's text does not
    const identity = [
      ...model.estimators.map((e) => `estimator ${e.estimator} ${source.slice(e.call.start, e.call.end)} ${e.variable}`),
      ...model.saves.map((v) => `save ${v.method} ${source.slice(v.call.start, v.call.end)} ${describePath(v.path)}`),
      ...findings.map((f) => `finding ${f.rule} ${source.slice(f.start, f.end)}`),
    ];
    return { estimators, saves, findings: found, identity };
  } catch (error) {
    return { error: String(error.stack ?? error), estimators: [], saves: [], findings: [], identity: [] };
  } finally {
    syntax.parseStatements = handParse;
  }
}

/** Median ms of each function, runs interleaved so that both see the same machine load. */
function times(fns, runs) {
  for (let k = 0; k < 3; k++) for (const fn of fns) fn(); // warm up (JIT, wasm)
  const t = fns.map(() => []);
  for (let k = 0; k < runs; k++) fns.forEach((fn, i) => { const s = performance.now(); fn(); t[i].push(performance.now() - s); });
  return t.map((x) => x.sort((a, b) => a - b)[Math.floor(x.length / 2)]);
}

const dir = process.argv[2] ?? '/tmp/ts/corpus';
const corpus = readdirSync(dir).sort().map((name) => {
  const text = readFileSync(join(dir, name), 'utf8');
  return { name, source: name.endsWith('.ipynb') ? parseNotebook(text)?.text ?? '' : text };
});

// 1. agreement
let same = 0; const diffs = [];
let counts = { hand: { estimators: 0, saves: 0, findings: 0 }, ts: { estimators: 0, saves: 0, findings: 0 } };
for (const { name, source } of corpus) {
  const h = extract(source, 'hand'); const t = extract(source, 'ts');
  for (const [k, r] of [['hand', h], ['ts', t]]) { counts[k].estimators += r.estimators.length; counts[k].saves += r.saves.length; counts[k].findings += r.findings.length; if (r.error) console.log(`${k} threw on ${name}: ${r.error}`); }
  const a = JSON.stringify([h.estimators, h.saves, h.findings]); const b = JSON.stringify([t.estimators, t.saves, t.findings]);
  if (a === b) same++;
  else diffs.push({ name, hand: h, ts: t });
}
console.log(`\n== agreement: ${same} of ${corpus.length} files extract the same estimators, saves and findings`);
for (const { name, source } of corpus) { const f = extract(source, 'hand').findings; if (f.length) console.log(`   ${name}: ${f.map((x) => x.split('@')[0]).join(', ')}`); }
console.log(JSON.stringify(counts));
for (const d of diffs) {
  console.log(`-- ${d.name}`);
  for (const key of ['estimators', 'saves', 'findings']) {
    const onlyH = d.hand[key].filter((x) => !d.ts[key].includes(x)); const onlyT = d.ts[key].filter((x) => !d.hand[key].includes(x));
    for (const x of onlyH) console.log(`   hand only ${key}: ${x.slice(0, 220)}`);
    for (const x of onlyT) console.log(`   ts   only ${key}: ${x.slice(0, 220)}`);
  }
}

// 2. speed
const lines = (s) => s.split('\n').length;
console.log('\n== parse time, median ms (hand: tokenize + parseStatements; tree-sitter: parse + convert + delete; bare: parse + delete only)');
let totalH = 0, totalT = 0, totalB = 0;
const rows = [];
const bare = (source) => parser.parse(source).delete();
for (const { name, source } of corpus) {
  const [h, t, b] = times([() => handParse(source), () => tsParse(source), () => bare(source)], 15);
  totalH += h; totalT += t; totalB += b; rows.push([name, lines(source), h, t, b]);
}
for (const [name, n, h, t, b] of rows.sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`   ${name.padEnd(60)} ${String(n).padStart(5)} lines  hand ${h.toFixed(2)}  ts ${t.toFixed(2)}  bare ${b.toFixed(2)}`);
console.log(`   whole corpus (${corpus.length} files, ${rows.reduce((a, r) => a + r[1], 0)} lines): hand ${totalH.toFixed(1)} ms, tree-sitter ${totalT.toFixed(1)} ms, bare parse ${totalB.toFixed(1)} ms`);
let big = '';
for (const { name, source } of corpus) if (name.endsWith('.py') && lines(big) < 2000) big += `${source}\n`;
big = big.split('\n').slice(0, 2000).join('\n');
// whole files, cut at 2,000 lines (the cut may fall inside a construct; both parsers get the same text)
const [bigH, bigT, bigTreeOnly] = times([() => handParse(big), () => tsParse(big), () => parser.parse(big).delete()], 30);
console.log(`   2,000-line script (${big.length} chars): hand ${bigH.toFixed(2)} ms, tree-sitter ${bigT.toFixed(2)} ms (of which parse ${bigTreeOnly.toFixed(2)} ms)`);
const [fullH, fullT] = times([() => extract(big, 'hand'), () => extract(big, 'ts')], 15);
console.log(`   2,000-line script, analyzeScript + checkScript: hand ${fullH.toFixed(2)} ms, tree-sitter ${fullT.toFixed(2)} ms`);
const bigAgree = JSON.stringify(extract(big, 'hand').findings) === JSON.stringify(extract(big, 'ts').findings);
console.log(`   2,000-line script: same findings: ${bigAgree} (${extract(big, 'hand').findings.length} hand, ${extract(big, 'ts').findings.length} tree-sitter)`);

// 3. tolerance: findings of the intact file still found in damaged copies
const damages = {
  'truncated at 60%': (s) => s.split('\n').slice(0, Math.ceil(s.split('\n').length * 0.6)).join('\n'),
  // at the first top-level line from the middle on: a statement being typed
  'unclosed ( mid-file': (s) => { const l = s.split('\n'); let k = Math.floor(l.length / 2); while (k < l.length && /^\s/.test(l[k])) k++; l.splice(k, 0, 'half_written = compute(1, '); return l.join('\n'); },
  'Python 2 print at top': (s) => `print "training"\n${s}`,
  'stray indent mid-file': (s) => { const l = s.split('\n'); l.splice(Math.floor(l.length / 2), 0, '        orphan = 1'); return l.join('\n'); },
  'unclosed string at top': (s) => `label = "unfinished\n${s}`,
};
console.log('\n== tolerance: of the estimators, saves and findings read from the intact files, how many are still read from damaged copies');
for (const [label, damage] of Object.entries(damages)) {
  const tally = { hand: [0, 0, 0], ts: [0, 0, 0] };
  for (const { source } of corpus) {
    for (const which of ['hand', 'ts']) {
      const intact = extract(source, which).identity;
      if (!intact.length) continue;
      const damaged = extract(damage(source), which);
      if (damaged.error) console.log(`   ${which} threw on a damaged file (${label}): ${damaged.error.split('\n')[0]}`);
      const broken = damaged.identity;
      tally[which][0] += intact.length;
      tally[which][1] += intact.filter((f) => broken.includes(f)).length;
      tally[which][2] += broken.filter((f) => !intact.includes(f)).length;
    }
  }
  const fmt = ([n, kept, extra]) => `${kept}/${n} kept${extra ? `, ${extra} new` : ''}`;
  console.log(`   ${label.padEnd(26)} hand ${fmt(tally.hand).padEnd(22)} tree-sitter ${fmt(tally.ts)}`);
}
