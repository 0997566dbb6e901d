/**
 * Property-based fuzzing of the training-script side (server/src/scripts): examples/train.py and
 * a notebook built from it, mutated (byte flips, truncations, splices, insertions of Python
 * punctuation), then read as the language server reads them (ScriptIndex.update, findings,
 * references) and analysed directly (analyzeScript + checkScript, which ScriptIndex shields).
 * The property: nothing throws and each file takes under FILE_MS. Plus 100,000-deep brackets,
 * strings left open and a 100,000-deep notebook JSON.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { analyzeScript } from '../../server/src/scripts/analyze';
import { checkScript } from '../../server/src/scripts/rules';
import { ScriptIndex } from '../../server/src/scripts/workspace';
import { EXAMPLES } from '../support/paths';
import { FILE_MS, FUZZ_SEED, mutate, mutationArb } from '../support/fuzz';

const TRAIN = readFileSync(join(EXAMPLES, 'train.py'), 'utf8');
const notebookOf = (source: string) =>
  JSON.stringify({ cells: source.split('\n\n').map((chunk) => ({ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source: chunk.split(/(?<=\n)/) })), metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1);
const MODELS = () => ['/w/models/compas_forest.joblib', '/w/models/diabetes_xgb.json'];

/**
 * Reads one script as the language server does (ScriptIndex, which the CLI does not use) and, when
 * `direct`, analyses it without ScriptIndex's guard too; returns what went wrong.
 */
function exercise(path: string, text: string, direct = true): string[] {
  const problems: string[] = [];
  const start = performance.now();
  try {
    const index = new ScriptIndex(MODELS);
    const entry = index.update(path, text);
    index.findings(entry);
    for (const model of MODELS()) index.references(model);
    // ScriptIndex catches analysis errors (safeAnalyze); on ordinary damage the analysis must not need it.
    if (direct) checkScript(entry.text, analyzeScript(entry.text));
  } catch (error) {
    problems.push(`crash: ${(error as Error)?.stack ?? String(error)}`);
  }
  const ms = performance.now() - start;
  if (ms > FILE_MS) problems.push(`time: ${ms.toFixed(0)} ms`);
  return problems;
}

const PYTHON_BITS = ['(', ')', '[', ']', '{', '}', '"""', "'", '"', '\\', ':', '=', ',', '\n', '    ', '#', 'lambda', 'def ', 'f"{', '@'].map((s) => [...Buffer.from(s)]);

test('fuzz: mutated training scripts and notebooks never throw and stay fast', { timeout: 300_000 }, () => {
  assert.ok(exercise('/w/train.py', TRAIN).length === 0);
  const seeds = [
    { path: '/w/train.py', bytes: new TextEncoder().encode(TRAIN) },
    { path: '/w/train.ipynb', bytes: new TextEncoder().encode(notebookOf(TRAIN)) },
  ];
  const punctuation = fc.record({ at: fc.nat(), bits: fc.array(fc.constantFrom(...PYTHON_BITS), { minLength: 1, maxLength: 6 }) });
  fc.assert(
    fc.property(fc.constantFrom(...seeds), mutationArb('forest-json'), punctuation, (seed, mutation, extra) => {
      let bytes = mutate(seed.bytes, mutation);
      const at = extra.at % (bytes.length + 1);
      bytes = new Uint8Array([...bytes.subarray(0, at), ...extra.bits.flat(), ...bytes.subarray(at)]);
      const text = Buffer.from(bytes).toString('utf8');
      assert.deepEqual(exercise(seed.path, text), [], `${seed.path} after ${JSON.stringify({ mutation, extra })}`);
    }),
    { seed: FUZZ_SEED, numRuns: 600, endOnFailure: true },
  );
});

test('fuzz: 100,000-deep brackets, unterminated strings and a 100,000-deep notebook', { timeout: 120_000 }, () => {
  // CPython refuses more than 200 nested brackets ("too many nested parentheses"): that deep, the
  // analysis itself must cope; deeper (not Python), ScriptIndex must, and the file gets no findings.
  const python = 200;
  assert.deepEqual(exercise('/w/python-limit.py', `from sklearn.ensemble import RandomForestClassifier\nm = RandomForestClassifier(${'('.repeat(python)}1${')'.repeat(python)})\n`), []);
  assert.deepEqual(exercise('/w/python-limit-lists.py', `x = ${'['.repeat(python)}${']'.repeat(python)}\n`), []);
  const deep = 100_000;
  const cases: [string, string][] = [
    ['/w/parens.py', `from sklearn.ensemble import RandomForestClassifier\nm = RandomForestClassifier(${'('.repeat(deep)}1${')'.repeat(deep)})\n`],
    ['/w/open-parens.py', `m = RandomForestClassifier(${'(['.repeat(deep)}\n`],
    ['/w/lists.py', `x = ${'['.repeat(deep)}${']'.repeat(deep)}\n`],
    ['/w/unterminated.py', `x = """${'a'.repeat(deep)}\nRandomForestClassifier(bootstrap=False)\n`],
    ['/w/calls.py', `from sklearn.ensemble import RandomForestClassifier as R\n${'R('.repeat(deep)}${')'.repeat(deep)}\n`],
    ['/w/deep.ipynb', `{"cells":${'['.repeat(deep)}${']'.repeat(deep)}}`],
    ['/w/deep-source.ipynb', `{"cells":[{"cell_type":"code","source":${'['.repeat(deep)}"x"${']'.repeat(deep)}}]}`],
  ];
  for (const [path, text] of cases) assert.deepEqual(exercise(path, text, false), [], path);
});
