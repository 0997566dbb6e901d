import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completeForest } from '../../server/src/forest/complete';
import type { ForestInput } from '../../server/src/forest/schema';
import { runModelRules } from '../../server/src/rules';
import { checkReplay } from '../../server/src/attacks/bootstrap-replay';
import type { ModelRead } from '../../server/src/formats/types';
import { forest, stump, twoLevel } from '../support/forests';

function lint(input: ForestInput, severities = {}) {
  const completed = completeForest(input);
  assert.ok(completed.ok, completed.ok ? '' : completed.problem);
  const read: ModelRead = { kind: 'model', format: 'test', forest: input, notes: [] };
  return runModelRules(completed.forest, checkReplay(completed.forest), read, severities);
}

test('no-bootstrap names the trees and rows', () => {
  const findings = lint(forest([stump(30.5, [3, 2], [1, 4]), stump(40, [4, 1], [0, 5])]));
  const finding = findings.find((f) => f.rule === 'no-bootstrap');
  assert.ok(finding);
  assert.equal(finding.severity, 'warning');
  assert.match(finding.message, /All 2 trees were trained on every one of the 10 training rows/);
});

test('no-bootstrap stays quiet for bagged forests', () => {
  const findings = lint(forest([stump(30.5, [3, 2], [1, 4])], { training: { bootstrap: true, rows: 10 } }));
  assert.equal(findings.filter((f) => f.rule === 'no-bootstrap').length, 0);
});

test('singleton-leaf counts leaves with one row and describes the most specific one', () => {
  // Leaves: [1,0] (one row), [0,3], [5,1]; and a second tree with no singleton.
  const findings = lint(forest([twoLevel([[1, 0], [0, 3], [5, 1]]), stump(40, [4, 1], [2, 3])]));
  const finding = findings.find((f) => f.rule === 'singleton-leaf');
  assert.ok(finding);
  assert.match(finding.message, /^A leaf describes a single training row: raise min_samples_leaf\.\n1 of 5 leaves \(20%\) holds exactly one training row/);
  assert.match(finding.message, /tree 0 node 2, pins one row of class 0 to: age <= 30\.5, priors_count <= 2\.5\./);
  assert.deepEqual({ tree: finding.location.tree, node: finding.location.node }, { tree: 0, node: 2 });
});

test('a model of one tree names its nodes without "tree 0"', () => {
  // A DecisionTreeClassifier read "The most specific, tree 0 node 2" (sweep 13).
  const findings = lint(forest([twoLevel([[1, 0], [0, 3], [5, 1]])]));
  const finding = findings.find((f) => f.rule === 'singleton-leaf');
  assert.ok(finding);
  assert.match(finding.message, /The most specific, node 2, pins one row of class 0/);
  assert.doesNotMatch(finding.message, /tree 0/);
});

test('singleton-leaf uses distinct rows when the format stores them', () => {
  // With bootstrap a leaf of weight 3 can be one row drawn three times.
  const tree = stump(30.5, [3, 0], [2, 5], { distinctRows: [6, 1, 5] });
  const findings = lint(forest([tree], { training: { bootstrap: true, rows: 6 } }));
  const finding = findings.find((f) => f.rule === 'singleton-leaf');
  assert.ok(finding);
  assert.match(finding.message, /\n1 of 2 leaves/);
  assert.match(finding.message, /age <= 30\.5/);
});

test('exact-counts says counts per class for classifiers, row counts for regressors and count views', () => {
  const classifier = lint(forest([stump(30.5, [3, 2], [1, 4])])).find((f) => f.rule === 'exact-counts');
  assert.match(classifier?.message ?? '', /^Leaves store exact training counts per class:/);
  // One count per node (a regressor, a boosted classifier read as row counts).
  const rows = lint(forest([{ ...stump(30.5, [5], [5]) }], { classes: [] })).find((f) => f.rule === 'exact-counts');
  assert.match(rows?.message ?? '', /^Leaves store exact training row counts:/);
});

test('exact-counts is a hint (off the Problems panel) and severities can be overridden or turned off', () => {
  const input = forest([stump(30.5, [3, 2], [1, 4])]);
  const exact = lint(input).find((f) => f.rule === 'exact-counts');
  assert.equal(exact?.severity, 'hint');
  assert.match(exact!.message, /3 nodes in 1 tree/);
  const tuned = lint(input, { 'exact-counts': 'off', 'no-bootstrap': 'error' });
  assert.equal(tuned.find((f) => f.rule === 'exact-counts'), undefined);
  assert.equal(tuned.find((f) => f.rule === 'no-bootstrap')?.severity, 'error');
});

test('noised forests are not said to hold singleton leaves or exact counts', () => {
  const input = forest([stump(30.5, [1, 0], [2, 5])], { privacy: { mechanism: 'laplace-leaf-counts', epsilon: 1 } });
  const rules = lint(input).map((f) => f.rule);
  assert.ok(!rules.includes('singleton-leaf'));
  assert.ok(!rules.includes('exact-counts'));
  assert.match(lint(input).find((f) => f.rule === 'no-bootstrap')!.message, /noised \(epsilon 1\)/);
});

test('completeForest refuses trees whose children loop back', () => {
  const bad = stump(1, [1, 0], [0, 1]);
  bad.left = [1, 0, -1];
  bad.right = [2, -1, -1];
  const result = completeForest(forest([bad]));
  assert.equal(result.ok, false);
});

test('completeForest refuses class weights that do not fit the classes', () => {
  const result = completeForest(forest([stump(1, [1, 0], [0, 1])], { classes: [0, 1, 2] }));
  assert.equal(result.ok, false);
});
