/**
 * Benchmark: a larger fuzz corpus than the unit tests run. Seeded fast-check mutants of every
 * committed fixture of every format (test/support/fuzz.ts: byte flips, truncations, splices,
 * insertions, edge numbers in text, damage packed again under zlib/gzip), each linted in this
 * process by lintBytes, the linter's entry point, with the CI limits. Then every fixture with a
 * hostile pickle appended (a loader's second pickle.load), which must all come out unsafe.
 *
 *   node out/test/bench/fuzz.bench.js [mutants per family, default 2500] [seed]
 *
 * Prints per family and in all: tried, models read, unreadable (by reason), unsafe, no tree model,
 * crashes (lintBytes threw), reader exceptions (a reader threw and the registry's guard turned it
 * into `corrupt`: bugs, though not crashes), overruns of time and memory, and time per file.
 */
import fc from 'fast-check';
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { BUDGET_MS, FILE_MS, FUZZ_SEED, MAX_RSS_BYTES, concat, lintChecked, mutate, mutationArb, seedCorpus, type Checked, type Family, type Seed } from '../support/fuzz';
import { MARK, REDUCE, STOP, TUPLE, global, pk, unicode } from '../support/pickle-bytes';

const perFamily = Number(process.argv[2] ?? 2500);
const seed = Number(process.argv[3] ?? FUZZ_SEED);

interface Tally {
  tried: number;
  models: number;
  unreadable: Record<string, number>;
  unsafe: number;
  noModel: number;
  crashes: number;
  readerExceptions: number;
  timeOverruns: number;
  memoryOverruns: number;
  otherFailures: number;
  ms: number[];
}

const newTally = (): Tally => ({ tried: 0, models: 0, unreadable: {}, unsafe: 0, noModel: 0, crashes: 0, readerExceptions: 0, timeOverruns: 0, memoryOverruns: 0, otherFailures: 0, ms: [] });
const examples: string[] = [];

function count(t: Tally, c: Checked, what: string): void {
  t.tried++;
  t.ms.push(c.ms);
  const findings = c.report?.findings ?? [];
  if (c.report?.model) t.models++;
  for (const f of findings) {
    if (f.rule === 'unreadable-model') {
      const reason = /\(([a-z-]+)\)/.exec(f.message)?.[1] ?? 'other';
      t.unreadable[reason] = (t.unreadable[reason] ?? 0) + 1;
      if (/ reader failed: /.test(f.message)) {
        t.readerExceptions++;
        if (examples.length < 20) examples.push(`reader exception: ${what}: ${f.message.replace(/\s+/g, ' ').slice(0, 300)}`);
      }
    }
  }
  if (findings.some((f) => f.rule === 'unsafe-pickle')) t.unsafe++;
  if (findings.some((f) => f.rule === 'no-tree-model')) t.noModel++;
  for (const failure of c.failures) {
    if (failure.startsWith('crash')) t.crashes++;
    else if (failure.startsWith('time')) t.timeOverruns++;
    else if (failure.startsWith('memory')) t.memoryOverruns++;
    else t.otherFailures++;
    if (examples.length < 20) examples.push(`${failure.split('\n')[0]}: ${what}`);
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0;
}

function row(name: string, t: Tally): string {
  const unreadable = Object.values(t.unreadable).reduce((a, b) => a + b, 0);
  const cells = [name, t.tried, t.models, unreadable, t.unsafe, t.noModel, t.crashes, t.readerExceptions, t.timeOverruns, t.memoryOverruns, percentile(t.ms, 0.5).toFixed(1), percentile(t.ms, 0.99).toFixed(1), Math.max(0, ...t.ms).toFixed(0)];
  return `| ${cells.join(' | ')} |`;
}

function merge(into: Tally, t: Tally): void {
  for (const k of ['tried', 'models', 'unsafe', 'noModel', 'crashes', 'readerExceptions', 'timeOverruns', 'memoryOverruns', 'otherFailures'] as const) into[k] += t[k];
  for (const [k, v] of Object.entries(t.unreadable)) into.unreadable[k] = (into.unreadable[k] ?? 0) + v;
  into.ms.push(...t.ms);
}

/**
 * A fixture with a hostile pickle after its own, as a loader's second pickle.load would meet it:
 * appended to plain pickles, inside the stream of zlib and gzip files (bytes after a compressed
 * stream are not read by joblib). Only fixtures that read cleanly on their own: after a damaged
 * pickle, or bytes that begin no pickle, Python stops before the tail, and so does the linter.
 */
function withHostileTail(s: Seed): Uint8Array | undefined {
  if (s.family !== 'pickle' && s.family !== 'joblib' && s.family !== 'joblib-compressed') return undefined;
  const alone = lintChecked(s.bytes, s.name).report;
  if (!alone || alone.findings.some((f) => f.rule === 'unreadable-model' || f.rule === 'unsafe-pickle') || alone.notes.some((n) => /ignored/.test(n))) return undefined;
  const tail = pk(global('os', 'system'), MARK, unicode('touch /nonexistent/marker'), TUPLE, REDUCE, STOP);
  try {
    if (s.bytes[0] === 0x78) return new Uint8Array(deflateSync(concat(new Uint8Array(inflateSync(s.bytes)), tail)));
    if (s.bytes[0] === 0x1f && s.bytes[1] === 0x8b) return new Uint8Array(gzipSync(concat(new Uint8Array(gunzipSync(s.bytes)), tail)));
  } catch {
    return undefined;
  }
  return s.family === 'joblib-compressed' ? undefined : concat(s.bytes, tail);
}

function main(): void {
  const corpus = seedCorpus();
  const families = [...new Set(corpus.map((s) => s.family))] as Family[];
  console.log(`fuzz corpus: ${corpus.length} fixtures in ${families.length} families, ${perFamily} mutants per family, seed ${seed}`);
  console.log(`limits: ${FILE_MS} ms per file, ${MAX_RSS_BYTES / 2 ** 20} MiB resident, bootstrap replay budget ${BUDGET_MS} ms\n`);
  console.log('| family | tried | models | unreadable | unsafe | no tree model | crashes | reader exceptions | time overruns | memory overruns | p50 ms | p99 ms | max ms |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const total = newTally();
  const started = performance.now();
  for (const [i, family] of families.entries()) {
    const seeds = corpus.filter((s) => s.family === family);
    const t = newTally();
    const samples = fc.sample(fc.tuple(fc.constantFrom(...seeds), mutationArb(family)), { seed: seed + i, numRuns: perFamily });
    for (const [s, mutation] of samples) count(t, lintChecked(mutate(s.bytes, mutation), s.name), `${s.name} ${JSON.stringify(mutation)}`);
    console.log(row(family, t));
    merge(total, t);
  }
  const hostile = newTally();
  let hostileExpected = 0;
  for (const s of corpus) {
    const bytes = withHostileTail(s);
    if (!bytes) continue;
    hostileExpected++;
    const checked = lintChecked(bytes, s.name);
    count(hostile, checked, `${s.name} + os.system tail`);
    if (!checked.report?.findings.some((f) => f.rule === 'unsafe-pickle') && examples.length < 20) examples.push(`hostile tail not unsafe: ${s.name}`);
  }
  console.log(row('fixtures + hostile tail', hostile));
  merge(total, hostile);
  console.log(row('**all**', total));
  console.log(`\nunreadable by reason: ${JSON.stringify(total.unreadable)}`);
  console.log(`hostile tails: ${hostile.unsafe} of ${hostileExpected} unsafe-pickle`);
  console.log(`wall time ${((performance.now() - started) / 1000).toFixed(1)} s, peak resident ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  if (examples.length) console.log(`\nfirst problems:\n${examples.map((e) => `- ${e}`).join('\n')}`);
  const broken = total.crashes + total.timeOverruns + total.memoryOverruns + total.otherFailures + (hostileExpected - hostile.unsafe);
  process.exit(broken ? 1 : 0);
}

main();
