/**
 * Leaf conditions as people read them (rules/conditions.ts): one-hot columns as the category they
 * encode, from the `attribute:value` naming convention or from declared groups; numeric features
 * unchanged; and the COMPAS example's singleton-leaf message in those words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { categoriesOf, conditionsText, formatCondition, formatConditions, MAX_LISTED_CONDITIONS } from '../../server/src/rules/conditions';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { join } from 'node:path';
import { EXAMPLES } from '../support/paths';

const named = (names: string[], splitRule: Forest['splitRule'] = 'less-or-equal') =>
  ({ features: names.map((name) => ({ name, kind: 'unknown' })), splitRule }) as unknown as Forest;

test('a one-hot column named attribute:value reads as the category, either side of the split', () => {
  const forest = named(['sex:Male', 'priors:>3', 'age', 'ratio:x', 'priors:=1']);
  const categories = categoriesOf(forest);
  assert.equal(formatCondition(forest, { feature: 0, lower: 0.5 }, categories), 'sex = Male');
  assert.equal(formatCondition(forest, { feature: 0, upper: 0.5 }, categories), 'sex ≠ Male');
  assert.equal(formatCondition(forest, { feature: 1, upper: 0.5 }, categories), 'priors ≠ >3');
  assert.equal(formatCondition(forest, { feature: 1, lower: 0.5 }, categories), 'priors >3');
  assert.equal(formatCondition(forest, { feature: 4, lower: 0.5 }, categories), 'priors = 1');
  // not a 0/1 split: the numeric form stays, whatever the name
  assert.equal(formatCondition(forest, { feature: 3, upper: 3.5 }, categories), 'ratio:x <= 3.5');
  assert.equal(formatCondition(forest, { feature: 2, lower: 30, upper: 45.5 }, categories), '30 < age <= 45.5');
  // without categories (the old behaviour), the raw threshold
  assert.equal(formatCondition(forest, { feature: 0, lower: 0.5 }), 'sex:Male > 0.5');
});

test('a column named as a comparison is an indicator read whole, not cut at its =', () => {
  // Default Credit's numeric data names its 0/1 columns PAY_0_Pay_delay>=1: cut at the '=' they
  // read 'PAY_0_Pay_delay> ≠ 1'.
  const forest = named(['PAY_0_Pay_delay>=1', 'age<=30', 'x!=0', 'LIMIT_BAL']);
  const categories = categoriesOf(forest);
  assert.equal(formatCondition(forest, { feature: 0, lower: 0.5 }, categories), 'PAY_0_Pay_delay>=1');
  assert.equal(formatCondition(forest, { feature: 0, upper: 0.5 }, categories), 'not PAY_0_Pay_delay>=1');
  assert.equal(formatCondition(forest, { feature: 1, upper: 0.5 }, categories), 'not age<=30');
  assert.equal(formatCondition(forest, { feature: 2, lower: 0.5 }, categories), 'x!=0');
  // not a 0/1 split: the numeric form
  assert.equal(formatCondition(forest, { feature: 0, upper: 3.5 }, categories), 'PAY_0_Pay_delay>=1 <= 3.5');
  assert.equal(formatCondition(forest, { feature: 3, upper: 5000 }, categories), 'LIMIT_BAL <= 5000');
});

test("XGBoost's strict split (x < 1 goes left) reads the same", () => {
  const forest = named(['sex:Male'], 'less');
  const categories = categoriesOf(forest);
  assert.equal(formatCondition(forest, { feature: 0, upper: 1 }, categories), 'sex ≠ Male');
  assert.equal(formatCondition(forest, { feature: 0, lower: 1 }, categories), 'sex = Male');
  assert.equal(formatCondition(forest, { feature: 0, lower: 1.5 }, categories), 'sex:Male >= 1.5');
});

test('declared groups name categories that follow no convention, and a one-hot group completes itself', () => {
  const forest = named(['race_Black', 'race_White', 'race_Other', 'Male', 'Female', 'age']);
  const categories = categoriesOf(forest, [
    { kind: 'one-hot', features: ['race_Black', 'race_White', 'race_Other'] },
    { kind: 'at-most-one', features: ['Male', 'Female'] },
  ]);
  assert.equal(formatCondition(forest, { feature: 1, lower: 0.5 }, categories), 'race = White');
  assert.equal(formatCondition(forest, { feature: 3, upper: 0.5 }, categories), 'not Male');
  // two categories excluded of three: exactly one is 1, so it is the third
  assert.deepEqual(formatConditions(forest, [{ feature: 0, upper: 0.5 }, { feature: 5, lower: 40 }, { feature: 2, upper: 0.5 }], categories), ['race = White', 'age > 40']);
  // the = of an attribute makes its ≠ redundant; several ≠ of an undeclared attribute merge
  const convention = named(['age:18-20', 'age:21-22', 'age:>45', 'sex:Male']);
  const byName = categoriesOf(convention);
  assert.deepEqual(formatConditions(convention, [{ feature: 0, upper: 0.5 }, { feature: 3, lower: 0.5 }, { feature: 2, upper: 0.5 }], byName), ['age ∉ {18-20, >45}', 'sex = Male']);
  assert.deepEqual(formatConditions(convention, [{ feature: 0, upper: 0.5 }, { feature: 1, lower: 0.5 }], byName), ['age = 21-22']);
});

test("the COMPAS example's singleton leaf reads as categories (sidecar groups and column names)", async () => {
  const report = await lintFile(join(EXAMPLES, 'models', 'compas_no_bagging.joblib'));
  const message = report.findings.find((f) => f.rule === 'singleton-leaf')?.message ?? '';
  assert.match(message, /sex = Male/);
  assert.doesNotMatch(message, /[:=][^ ,]* (<=|>) 0\.5/, `no raw one-hot threshold left: ${message}`);
  // the sidecar declares age and priors one-hot: the excluded categories name the one left
  assert.match(message, /age = 21-22/);
  assert.match(message, /priors = 0/);
});

test('an interval whose ends round alike prints enough digits to tell them apart', () => {
  // float32 thresholds a hair apart, as a public DecisionTreeClassifier split them: before,
  // "1.34864 < x7 <= 1.34864", an interval that read as empty.
  const forest = named(['x7']);
  const lower = Math.fround(1.348637);
  const upper = Math.fround(1.3486372);
  const text = formatCondition(forest, { feature: 0, lower, upper });
  const [lo, hi] = text.split(' < x7 <= ');
  assert.notEqual(lo, hi, text);
  assert.ok(Number(lo) < Number(hi) && Math.abs(Number(lo) - lower) < 1e-7 && Math.abs(Number(hi) - upper) < 1e-7, text);
  // the usual six digits where they suffice
  assert.equal(formatCondition(forest, { feature: 0, lower: 1.2345678, upper: 2.3456789 }), '1.23457 < x7 <= 2.34568');
});

test('a message lists at most 12 conditions, then how many more (a leaf over ~400 columns was one 5,589-character line)', () => {
  const forest = named(Array.from({ length: 20 }, (_, f) => `x${f}`));
  const box = Array.from({ length: 20 }, (_, feature) => ({ feature, upper: feature + 0.5 }));
  assert.equal(conditionsText(forest, box.slice(0, MAX_LISTED_CONDITIONS)), formatConditions(forest, box.slice(0, MAX_LISTED_CONDITIONS)).join(', '));
  const text = conditionsText(forest, box);
  assert.ok(text.startsWith(formatConditions(forest, box).slice(0, 12).join(', ')), text);
  assert.ok(text.endsWith(' and 8 more conditions'), text);
  assert.ok(!text.includes('x12 <='), text);
  assert.ok(conditionsText(forest, box.slice(0, 13)).endsWith(' and 1 more condition'));
});

test('a column named by a number is quoted, so its condition does not read as a comparison of numbers', () => {
  // Sweep 18: a public XGBoost JSON whose columns are named "60", "61", ... read "node 57 (60 < 1, ...)".
  const forest = named(['60', 'x60', '1.5e3'], 'less');
  assert.equal(formatCondition(forest, { feature: 0, upper: 1 }), '"60" < 1');
  assert.equal(formatCondition(forest, { feature: 1, upper: 1 }), 'x60 < 1');
  assert.equal(formatCondition(forest, { feature: 2, lower: 2, upper: 3 }), '2 <= "1.5e3" < 3');
});
