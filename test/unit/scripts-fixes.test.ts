/**
 * Each quick fix applied to a real script text, the result checked character for character, and
 * the script checked again: the finding the fix answers is gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeScript } from '../../server/src/scripts/analyze';
import { applyEdits } from '../../server/src/scripts/edits';
import { checkScript, type ScriptFinding, type ScriptRuleId } from '../../server/src/scripts/rules';
import { DEFAULT_EPSILON, DEFAULT_MIN_SAMPLES_LEAF, recordAdvice } from '../../server/src/scripts/advice';
import { ScriptIndex } from '../../server/src/scripts/workspace';
import { mergeEdits } from '../../server/src/scripts/service';
import { EXAMPLES } from '../support/paths';

const check = (source: string) => checkScript(source, analyzeScript(source));
const rules = (source: string) => check(source).map((f) => f.rule);

function fixOf(source: string, rule: ScriptRuleId, nth = 0): ScriptFinding {
  const found = check(source).filter((f) => f.rule === rule)[nth];
  assert.ok(found, `${rule} #${nth} is reported`);
  assert.ok(found.fix, `${rule} has a fix`);
  return found;
}
const apply = (source: string, f: ScriptFinding) => applyEdits(source, f.fix!.edits);

const HEADER = 'import joblib\nfrom sklearn.ensemble import RandomForestClassifier, ExtraTreesClassifier\n';

test('add bootstrap=True on examples/train.py replaces the value and nothing else', () => {
  const source = readFileSync(join(EXAMPLES, 'train.py'), 'utf8');
  const finding = fixOf(source, 'script-no-bootstrap');
  assert.equal(finding.fix!.title, 'add bootstrap=True');
  const fixed = apply(source, finding);
  assert.equal(fixed, source.replace('n_estimators=10, bootstrap=False, max_depth=6', 'n_estimators=10, bootstrap=True, max_depth=6'));
  // that forest is now bagged: no longer script-no-bootstrap, and its seeds are the next finding
  const after = check(fixed).filter((f) => f.save.objectName === 'no_bagging').map((f) => f.rule);
  assert.ok(!after.includes('script-no-bootstrap'));
  assert.ok(after.includes('script-stored-seeds'));
});

test('add bootstrap=True inserts the argument in the call\'s own style', () => {
  const cases: [string, string][] = [
    // one line
    ['m = ExtraTreesClassifier(n_estimators=5)\n', 'm = ExtraTreesClassifier(n_estimators=5, bootstrap=True)\n'],
    // no arguments
    ['m = ExtraTreesClassifier()\n', 'm = ExtraTreesClassifier(bootstrap=True)\n'],
    // one per line, trailing comma kept
    ['m = ExtraTreesClassifier(\n    n_estimators=5,\n    max_depth=3,\n)\n', 'm = ExtraTreesClassifier(\n    n_estimators=5,\n    max_depth=3,\n    bootstrap=True,\n)\n'],
    // one per line, no trailing comma, 8-space indent
    ['m = ExtraTreesClassifier(\n        n_estimators=5,\n        max_depth=3\n)\n', 'm = ExtraTreesClassifier(\n        n_estimators=5,\n        max_depth=3,\n        bootstrap=True\n)\n'],
    // a comment after the last argument stays on its line
    ['m = ExtraTreesClassifier(\n    n_estimators=5,\n    max_depth=3  # shallow\n)\n', 'm = ExtraTreesClassifier(\n    n_estimators=5,\n    max_depth=3,  # shallow\n    bootstrap=True\n)\n'],
    // arguments aligned after the bracket, closing on the last line: same line
    ['m = ExtraTreesClassifier(n_estimators=5,\n                         max_depth=3)\n', 'm = ExtraTreesClassifier(n_estimators=5,\n                         max_depth=3, bootstrap=True)\n'],
    // Windows line endings
    ['m = ExtraTreesClassifier(\r\n    n_estimators=5,\r\n)\r\n', 'm = ExtraTreesClassifier(\r\n    n_estimators=5,\r\n    bootstrap=True,\r\n)\r\n'],
  ];
  for (const [ctor, expected] of cases) {
    const source = HEADER + ctor + 'joblib.dump(m, "m.joblib")\n';
    const fixed = apply(source, fixOf(source, 'script-no-bootstrap'));
    assert.equal(fixed, HEADER + expected + 'joblib.dump(m, "m.joblib")\n', JSON.stringify(ctor));
    assert.ok(!rules(fixed).includes('script-no-bootstrap'), `fixed: ${JSON.stringify(ctor)}`);
  }
});

test('strip the stored seeds inserts the commented snippet before the save, at its indentation, and the finding goes away', () => {
  const source = HEADER + [
    'def train(X, y, path):',
    '    forest = RandomForestClassifier(n_estimators=20).fit(X, y)',
    '    with open(path, "wb") as f:',
    '        pickle.dump(forest, f)  # publish',
    '    return forest',
    '',
  ].join('\n');
  const finding = fixOf(source, 'script-stored-seeds');
  assert.equal(finding.fix!.title, 'strip the stored seeds before saving');
  const fixed = apply(source, finding);
  assert.equal(fixed, HEADER + [
    'def train(X, y, path):',
    '    forest = RandomForestClassifier(n_estimators=20).fit(X, y)',
    '    with open(path, "wb") as f:',
    "        # Model Privacy Lint: drop the seeds that replay each tree's bootstrap sample (and the forest's",
    '        # seed they are drawn from) before saving; predictions never use them.',
    '        for _tree in forest.estimators_:',
    '            _tree.random_state = None',
    '        forest.random_state = None',
    '        pickle.dump(forest, f)  # publish',
    '    return forest',
    '',
  ].join('\n'));
  assert.ok(!rules(fixed).includes('script-stored-seeds'), 'the rule recognises its own snippet');
});

test('raise min_samples_leaf: the documented default, or the advisor\'s value once it ran for that model', () => {
  const source = HEADER + 'm = RandomForestClassifier(min_samples_leaf=2, random_state=0)\njoblib.dump(m, "/models/m.joblib")\n';
  const finding = fixOf(source, 'script-small-leaves');
  assert.equal(finding.fix!.title, `raise min_samples_leaf to ${DEFAULT_MIN_SAMPLES_LEAF}`);
  assert.match(finding.message, /documented default/);
  assert.equal(apply(source, finding), source.replace('min_samples_leaf=2', `min_samples_leaf=${DEFAULT_MIN_SAMPLES_LEAF}`));

  recordAdvice('/models/m.joblib', [{ kind: 'larger-leaves', parameter: 12, text: 'leaves of 12 rows: no better than guessing' }]);
  try {
    const index = new ScriptIndex(() => ['/models/m.joblib']);
    const entry = index.update('/w/train.py', source);
    const advised = index.findings(entry).find((f) => f.rule === 'script-small-leaves')!;
    assert.equal(advised.fix!.title, 'raise min_samples_leaf to 12');
    assert.match(advised.message, /the advisor's value for this model/);
    const fixed = applyEdits(source, advised.fix!.edits);
    assert.equal(fixed, source.replace('min_samples_leaf=2', 'min_samples_leaf=12'));
    assert.ok(!index.findings(index.update('/w/train.py', fixed)).some((f) => f.rule === 'script-small-leaves'));
  } finally {
    recordAdvice('/models/m.joblib', []);
  }
  // inserted when absent (the default 1)
  const absent = HEADER + 'm = RandomForestClassifier(random_state=0)\njoblib.dump(m, "m.joblib")\n';
  assert.equal(apply(absent, fixOf(absent, 'script-small-leaves')), absent.replace('random_state=0)', `random_state=0, min_samples_leaf=${DEFAULT_MIN_SAMPLES_LEAF})`));
});

test('lower epsilon: to the advisor\'s value (advisedEpsilon), else to the documented default', () => {
  const source = 'import joblib\nimport diffprivlib.models as dp\nclf = dp.RandomForestClassifier(n_estimators=10, epsilon=5.0, bounds=b)\nclf.fit(X, y)\njoblib.dump(clf, "out/dp.joblib")\n';
  const finding = fixOf(source, 'script-dp-epsilon');
  assert.equal(finding.fix!.title, `lower epsilon to ${DEFAULT_EPSILON}`);
  assert.equal(apply(source, finding), source.replace('epsilon=5.0', `epsilon=${DEFAULT_EPSILON}`));
  assert.ok(!rules(apply(source, finding)).includes('script-dp-epsilon'));

  recordAdvice('/runs/out/dp.joblib', [{ kind: 'differential-privacy', parameter: 0.5, text: 'largest epsilon no better than guessing' }]);
  try {
    const index = new ScriptIndex(() => ['/runs/out/dp.joblib']);
    const advised = index.findings(index.update('/src/train.py', source)).find((f) => f.rule === 'script-dp-epsilon')!;
    assert.equal(applyEdits(source, advised.fix!.edits), source.replace('epsilon=5.0', 'epsilon=0.5'));
  } finally {
    recordAdvice('/runs/out/dp.joblib', []);
  }
  // diffprivlib's default epsilon (1.0) is above the default advice: the argument is added
  const implicit = 'from diffprivlib.models import RandomForestClassifier\nclf = RandomForestClassifier()\npickle.dump(clf, open("dp.pkl", "wb"))\n';
  assert.equal(apply(implicit, fixOf(implicit, 'script-dp-epsilon')), implicit.replace('RandomForestClassifier()\n', `RandomForestClassifier(epsilon=${DEFAULT_EPSILON})\n`));
  assert.ok(!rules(implicit).includes('script-stored-seeds'), 'diffprivlib forests are not scikit-learn\'s seeded bagging');
});

test('dump XGBoost models without statistics', () => {
  const source = 'import xgboost as xgb\nmodel = xgb.XGBClassifier(n_estimators=3).fit(X, y)\nmodel.get_booster().dump_model("dump.txt", with_stats=True)\nbooster = xgb.train({"max_depth": 2}, dtrain)\nbooster.dump_model(fout="raw.txt", dump_format="json", with_stats=True)\n';
  const findings = check(source).filter((f) => f.rule === 'script-dump-with-stats');
  assert.equal(findings.length, 2);
  assert.equal(apply(source, findings[0]), source.replace('"dump.txt", with_stats=True', '"dump.txt", with_stats=False'));
  const all = applyEdits(source, mergeEdits(findings.flatMap((f) => f.fix!.edits)));
  assert.equal(all, source.replaceAll('with_stats=True', 'with_stats=False'));
  assert.deepEqual(rules(all), []);
});

test('fix all applies the safe fixes together (bootstrap, seeds, statistics), not the accuracy trade-offs', () => {
  const source = HEADER + [
    'forest = ExtraTreesClassifier(',
    '    n_estimators=50,',
    '    min_samples_leaf=1,',
    ')',
    'forest.fit(X, y)',
    'joblib.dump(forest, "forest.joblib")',
    '',
  ].join('\n');
  const safe = check(source).filter((f) => f.fix?.fixAll);
  assert.deepEqual(safe.map((f) => f.rule), ['script-no-bootstrap']);
  const once = applyEdits(source, mergeEdits(safe.flatMap((f) => f.fix!.edits)));
  // with bagging on, the seeds are the next safe fix: a second run applies it
  const next = check(once).filter((f) => f.fix?.fixAll);
  assert.deepEqual(next.map((f) => f.rule), ['script-stored-seeds']);
  const twice = applyEdits(once, mergeEdits(next.flatMap((f) => f.fix!.edits)));
  assert.equal(twice, HEADER + [
    'forest = ExtraTreesClassifier(',
    '    n_estimators=50,',
    '    min_samples_leaf=1,',
    '    bootstrap=True,',
    ')',
    'forest.fit(X, y)',
    "# Model Privacy Lint: drop the seeds that replay each tree's bootstrap sample (and the forest's",
    '# seed they are drawn from) before saving; predictions never use them.',
    'for _tree in forest.estimators_:',
    '    _tree.random_state = None',
    'forest.random_state = None',
    'joblib.dump(forest, "forest.joblib")',
    '',
  ].join('\n'));
  assert.deepEqual(rules(twice), ['script-small-leaves'], 'only the accuracy trade-off is left, for a person to decide');
});
