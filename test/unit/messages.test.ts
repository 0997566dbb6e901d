/**
 * Every finding's message starts with a line of at most 80 characters (what leaks, what to do),
 * the line the Problems panel shows, then the detail (rules/message.ts). Checked on what the
 * linter says about every example model and every model fixture, on the script rules, and on the
 * findings made from a reconstruction or a failed read, with large numbers in them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { lintFile } from '../../server/src/linter/linter';
import { isModelFileName } from '../../server/src/linter/model-files';
import { SUMMARY_LIMIT, summaryOf, detailOf } from '../../server/src/rules/message';
import { noModelFindings, reconstructionFindings, unreadableFinding, unsafeFinding, unsupportedModelFindings } from '../../server/src/rules';
import { DEFAULT_THRESHOLDS } from '../../server/src/rules/reconstructable-training-set';
import type { Recoverability } from '../../server/src/recoverability/summary';
import type { Forest } from '../../server/src/forest/schema';
import { analyzeScript } from '../../server/src/scripts/analyze';
import { checkScript } from '../../server/src/scripts/rules';
import { EXAMPLES, FIXTURES } from '../support/paths';

function modelFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return modelFiles(path);
    return isModelFileName(name) ? [path] : [];
  });
}

/** The layout every message must have; returns what is wrong, '' when nothing. */
function layoutProblem(message: string): string {
  const first = summaryOf(message);
  if (first.length === 0) return 'empty first line';
  if (first.length > SUMMARY_LIMIT) return `first line of ${first.length} characters: ${first}`;
  if (!/[.]$/.test(first)) return `first line is not a sentence: ${first}`;
  // what to do: the sentence names an action after its colon (`...: raise min_samples_leaf.`)
  if (!/: \S/.test(first)) return `first line says no action: ${first}`;
  if (detailOf(message).trim().length === 0) return `no detail after the first line: ${first}`;
  // two rows in the panel: the summary, then the detail cut at the panel's width
  if (message.split('\n').length !== 2) return `${message.split('\n').length} lines: ${first}`;
  return '';
}

test('every finding on the example models and the model fixtures starts with a short line, then the detail', { timeout: 300_000 }, async () => {
  const files = [...modelFiles(join(EXAMPLES, 'models')), ...modelFiles(FIXTURES)];
  const rules = new Set<string>();
  const problems: string[] = [];
  let findings = 0;
  for (const path of files) {
    const report = await lintFile(path, { budgetMs: 2000 });
    for (const finding of report.findings) {
      findings++;
      rules.add(finding.rule);
      const problem = layoutProblem(finding.message);
      if (problem) problems.push(`${path} [${finding.rule}]: ${problem}`);
    }
  }
  assert.deepEqual(problems, []);
  // not vacuous: the files exercise most rules, unsafe and unreadable files included
  for (const rule of ['no-bootstrap', 'replayable-bootstrap', 'singleton-leaf', 'exact-counts', 'first-tree-exposes-counts', 'exported-statistics', 'unsafe-pickle', 'unreadable-model']) {
    assert.ok(rules.has(rule), `no file gave ${rule} (${[...rules].join(', ')})`);
  }
  assert.ok(findings > 100, `${findings} findings on ${files.length} files`);
});

test('the script rules start with a short line too', () => {
  const src = [
    'import joblib',
    'from sklearn.ensemble import RandomForestClassifier',
    'from sklearn.tree import DecisionTreeClassifier',
    'from diffprivlib.models import RandomForestClassifier as DPForest',
    'import xgboost as xgb',
    'a = RandomForestClassifier(n_estimators=10, bootstrap=False)',
    'a.fit(X, y)',
    'joblib.dump(a, "a.joblib")',
    'b = RandomForestClassifier(n_estimators=10, min_samples_leaf=2)',
    'b.fit(X, y)',
    'joblib.dump(b, "b.joblib")',
    'c = DecisionTreeClassifier()',
    'c.fit(X, y)',
    'joblib.dump(c, "c.joblib")',
    'd = DPForest(epsilon=12.125)',
    'd.fit(X, y)',
    'joblib.dump(d, "d.joblib")',
    'booster = xgb.train(params, dtrain)',
    'booster.dump_model("dump.txt", with_stats=True)',
    '',
  ].join('\n');
  const findings = checkScript(src, analyzeScript(src));
  assert.deepEqual(
    [...new Set(findings.map((f) => f.rule))].sort(),
    ['script-dp-epsilon', 'script-dump-with-stats', 'script-no-bootstrap', 'script-small-leaves', 'script-stored-seeds'],
  );
  assert.deepEqual(findings.map((f) => layoutProblem(f.message)).filter(Boolean), []);
});

test('findings of failed reads, files without a tree model and reconstructions start with a short line, large numbers included', () => {
  const messages = [
    ...unsafeFinding({ kind: 'unsafe', format: 'pickle', globals: Array.from({ length: 40 }, (_, i) => `some.very.long.module.path.function_${i}`) } as never, {}),
    ...unreadableFinding({ kind: 'unreadable', format: 'pickle', reason: 'truncated', detail: 'the pickle ends in the middle of an opcode at byte 123456789.' } as never, {}),
    ...noModelFindings({ kind: 'no-model', format: 'pickle', holds: 'a StandardScaler and a LogisticRegression', unread: [], notes: [] } as never, {}),
    ...unsupportedModelFindings(Array.from({ length: 12 }, (_, i) => ({ estimator: 'LGBMClassifier', location: `model.estimators_[${i}]`, reason: 'LightGBM is not read yet' })) as never, {}),
  ].map((f) => f.message);
  const forest = { features: Array.from({ length: 30 }, (_, i) => ({ name: `feature_${i}`, kind: 'numeric' })) } as unknown as Forest;
  const base: Recoverability = {
    status: 'timeout', method: 'bounded-search', rows: 1_234_567, certifiedRows: 0, reconstructedRows: 1_234_567, seconds: 12.5,
    determinedFeatures: { feature_0: 5 }, groups: { declared: 0, sources: [], problems: [] },
  };
  for (const r of [
    { ...base, status: 'exact' as const, certifiedRows: 1_234_567 },
    { ...base, certifiedRows: 1_234_500 },
    { ...base, certifiedWithoutLabel: 1_234_500 },
    base,
    // N unknown (a boosted model's first tree drew an unrecorded subsample): the detail says so, not the first line.
    { ...base, rows: null, certifiedRows: 1_234_500, boxes: { rows: 1_234_500, pinnedRows: 0, medianWidth: 1, features: [{ name: 'feature_0', medianWidth: 0.5 }] } },
    { ...base, rows: null, certifiedRows: 1_234_500, certifiedWithoutLabel: 5_000, boxes: { rows: 1_234_500, pinnedRows: 0, medianWidth: 1, features: [{ name: 'feature_0', medianWidth: 0.5 }] } },
    { ...base, rows: null, certifiedWithoutLabel: 1_234_500 },
  ]) {
    messages.push(...reconstructionFindings(forest, r, DEFAULT_THRESHOLDS, {}).map((f) => f.message));
  }
  assert.equal(messages.length, 11);
  assert.deepEqual(messages.map(layoutProblem).filter(Boolean), []);
});
