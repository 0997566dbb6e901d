/**
 * Categorical splits (a set of categories sent one way) read as 0/1 features of their own
 * (forest/set-splits.ts), on real models (test/fixtures/categorical/generate.py: 600 Stroke rows,
 * five category columns): scikit-learn's HistGradientBoostingClassifier with categorical_features,
 * the same as scikit-learn 1.4+ stores it with its own encoder of string columns (`_preprocessor`,
 * category columns first), the same behind a Pipeline's OrdinalEncoder (before 1.4), and XGBoost
 * with enable_categorical. Before, each was `unsupported-model`
 * and nothing was analysed. Checked against the libraries' own output: every training row walks to
 * the leaves that give scikit-learn's raw prediction and XGBoost's pred_leaf; every proven row pairs
 * with a distinct true row (which found an unsound reading of missing marks, certified-check.ts).
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { checkCertifiedRows } from '../../server/src/evaluate/certified-check';
import { alignTrainingData, readTrainingData } from '../../server/src/evaluate/training-data';
import { completeForest } from '../../server/src/forest/complete';
import { readModel } from '../../server/src/formats';
import type { Forest } from '../../server/src/forest/schema';
import { leafOf } from '../../server/src/forest/structure';
import { lintFile } from '../../server/src/linter/linter';
import { formatCondition } from '../../server/src/rules/conditions';
import { FIXTURES } from '../support/paths';

const DIR = join(FIXTURES, 'categorical');
const truthOf = (name: string) => JSON.parse(readFileSync(join(DIR, `${name}.truth.json`), 'utf8'));

async function load(file: string) {
  const report = await lintFile(join(DIR, file), { keepForest: true });
  assert.ok(report.forest, report.findings.map((f) => f.message).join('\n'));
  assert.ok(!report.findings.some((f) => f.rule === 'unsupported-model'), 'read, not refused');
  const forest = report.forest;
  const data = await readTrainingData(join(DIR, file.replace(/\.(joblib|json)$/, '.train.csv')), 'stroke');
  const fit = alignTrainingData(data, forest);
  assert.ok(fit.ok, fit.ok ? '' : fit.problem);
  return { report, forest, rows: fit.aligned.rows, throughPipeline: fit.aligned.throughPipeline };
}

/** scikit-learn's raw prediction: the baseline plus every tree's leaf value where the row lands. */
function rawPrediction(forest: Forest, values: readonly number[]): number {
  let sum = forest.logLoss!.initialMargins[0];
  for (const tree of forest.trees) sum += tree.boosting!.leafValue![leafOf(tree, values, forest.splitRule)];
  return sum;
}

describe('categorical splits as 0/1 features', () => {
  for (const name of ['hgb_cat', 'hgb_cat_pre', 'hgb_cat_pipe']) {
    it(`${name}: every training row lands where scikit-learn's raw prediction says`, async () => {
      const { forest, rows, throughPipeline } = await load(`${name}.joblib`);
      const sets = forest.features.filter((f) => f.setOf);
      assert.ok(sets.length > 0);
      for (const f of sets) assert.equal(f.kind, 'binary');
      const truth = truthOf(name);
      assert.equal(rows.length, truth.rawPrediction.length);
      rows.forEach((row, i) => {
        const got = rawPrediction(forest, row.values.map((v) => v ?? NaN));
        assert.ok(Math.abs(got - truth.rawPrediction[i]) < 1e-6, `row ${i + 1}: ${got} against ${truth.rawPrediction[i]}`);
      });
      if (name === 'hgb_cat_pipe') {
        // Before 1.4: the user's own ColumnTransformer ordinal-encodes the strings; the set-split
        // features are named from its columns and categories, and the raw CSV goes through it.
        assert.deepEqual(forest.features.filter((f) => !f.setOf).map((f) => f.name), truth.treeColumns);
        assert.equal(throughPipeline, true);
        assert.ok(sets.every((f) => /^cat__\w+ [∉∈] \{/.test(f.name)), sets.map((f) => f.name).join(' | '));
        assert.ok(sets.some((f) => /\{[^}]*[a-z]{3,}/i.test(f.name)), `categories named by their strings: ${sets.map((f) => f.name).join(' | ')}`);
      }
      if (name === 'hgb_cat_pre') {
        // The trees index the encoder's output (category columns first), named from it; the raw CSV's strings go through it.
        assert.deepEqual(forest.features.filter((f) => !f.setOf).map((f) => f.name), truth.treeColumns);
        assert.equal(throughPipeline, true);
        assert.ok(sets.some((f) => /^smoking_status [∉∈] \{[a-z ,]+\}/i.test(f.name)), sets.map((f) => f.name).join(' | '));
      }
    });
  }

  it("xgb_cat: every training row reaches XGBoost's own leaf in every tree", async () => {
    const { forest, rows } = await load('xgb_cat.json');
    assert.ok(forest.features.some((f) => f.setOf?.side === 'right'));
    const { leaves } = truthOf('xgb_cat');
    rows.forEach((row, i) => forest.trees.forEach((tree, t) => assert.equal(leafOf(tree, row.values.map((v) => v ?? NaN), forest.splitRule), leaves[i][t], `row ${i + 1}, tree ${t}`)));
  });

  for (const file of ['hgb_cat.joblib', 'hgb_cat_pre.joblib', 'hgb_cat_pipe.joblib', 'xgb_cat.json']) {
    it(`${file}: reconstructed, and every proven row is a distinct true row inside its proven box`, async () => {
      const { forest, rows } = await load(file);
      const result = await reconstruct(forest, { budgetMs: 6_000 });
      assert.ok(result.status !== 'skipped' && result.status !== 'failed', result.reason);
      const proven = result.reconstruction.filter((r) => r.certified || r.certifiedValues?.some((x) => x)).length;
      assert.ok(result.certifiedRows > 0, result.reason);
      assert.deepEqual(checkCertifiedRows(forest, result.reconstruction, rows), { proven, held: proven });
    });
  }

  it('damaged categorical columns of an XGBoost file are a clear "corrupt", never a crash or a misread', () => {
    const model = JSON.parse(readFileSync(join(DIR, 'xgb_cat.json'), 'utf8').replace(/\bNaN\b/g, '0.5'));
    const tree = model.learner.gradient_booster.model.trees.find((t: { split_type: number[] }) => t.split_type.some((x) => x === 1));
    const damage: [string, (t: Record<string, unknown[]>) => void, RegExp][] = [
      ['segments past the list', (t) => (t.categories_segments = t.categories_segments.map(() => 10_000)), /outside the list/],
      ['a node that is no categorical split', (t) => (t.categories_nodes = [0, ...t.categories_nodes.slice(1)]), /not a categorical split|without categories/],
      ['a category that is no code', (t) => (t.categories = t.categories.map(() => -1)), /not a code/],
      ['columns of different lengths', (t) => (t.categories_sizes = t.categories_sizes.slice(1)), /without their categories/],
    ];
    for (const [what, edit, reason] of damage) {
      const copy = JSON.parse(JSON.stringify(model));
      const t = copy.learner.gradient_booster.model.trees.find((x: { id: number }) => x.id === tree.id);
      edit(t);
      const read = readModel(new TextEncoder().encode(JSON.stringify(copy)), 'damaged.json');
      assert.equal(read.kind, 'unreadable', what);
      if (read.kind === 'unreadable') assert.match(read.detail, reason, what);
    }
  });

  it('a set-split feature in a hand-written forest must name one of the model\'s own columns, after them', () => {
    const tree = { left: [1, -1, -1], right: [2, -1, -1], feature: [1, -2, -2], threshold: [0.5, -2, -2], classWeights: [4, 2, 2] };
    const forest = (features: unknown[]) => ({ format: 'model-privacy-lint/forest', formatVersion: 1, library: { name: 'scikit-learn' }, estimator: 'DecisionTreeRegressor', task: 'regression', classes: [], features, splitRule: 'less-or-equal', hyperParameters: {}, training: { bootstrap: false }, trees: [tree] });
    const good = completeForest(forest([{ name: 'c' }, { name: 'c ∉ {1}', setOf: { feature: 0, categories: [1], side: 'left', missingLeft: false } }]) as never);
    assert.ok(good.ok, good.ok ? '' : good.problem);
    for (const bad of [
      [{ name: 'c' }, { name: 's', setOf: { feature: 1, categories: [1], side: 'left', missingLeft: false } }],
      [{ name: 's', setOf: { feature: 0, categories: [1], side: 'left', missingLeft: false } }, { name: 'c' }],
      [{ name: 'c' }, { name: 's', setOf: { feature: 0, categories: ['a'], side: 'left', missingLeft: false } }],
      [{ name: 'c' }, { name: 's', setOf: { feature: 0, categories: [1], side: 'up', missingLeft: false } }],
    ]) {
      const result = completeForest(forest(bad) as never);
      assert.ok(!result.ok, JSON.stringify(bad));
    }
  });

  it('a set split reads as its set (`x ∈ {..}` or `x ∉ {..}`), and its missing side is no evidence of missing values (sweep 12: 7,468 characters)', async () => {
    for (const file of ['xgb_cat.json', 'hgb_cat.joblib']) {
      const { report, forest } = await load(file);
      const sets = forest.features.flatMap((f, i) => (f.setOf ? [i] : []));
      assert.ok(sets.length > 0, `${file}: no set split (precondition)`);
      for (const f of sets) {
        const name = forest.features[f].name;
        const other = name.includes(' ∈ {') ? name.replace(' ∈ {', ' ∉ {') : name.replace(' ∉ {', ' ∈ {');
        assert.notEqual(other, name);
        // Value 1 (a row the split sends right) is the name; value 0 its negation.
        assert.equal(formatCondition(forest, { feature: f, lower: 0.5 }), name, file);
        assert.equal(formatCondition(forest, { feature: f, upper: 0.5 }), other, file);
      }
      // No message lists a set split as a feature whose end interval stands for a missing value.
      const text = report.findings.map((x) => x.message).join('\n');
      assert.doesNotMatch(text, /interval of [^.;]*[∈∉] \{/, file);
      assert.doesNotMatch(text, /[∈∉] \{[^}]*\} (>=|<=|<|>) 0\.5/, file);
      const r = await reconstruct(forest, { budgetMs: 3_000 });
      assert.doesNotMatch(r.reason ?? '', /interval of [^.;]*[∈∉] \{/, file);
    }
  });

  it("the summary counts the model's columns, the set splits' 0/1 features apart (a public 4-column model read 23)", async () => {
    for (const file of ['xgb_cat.json', 'hgb_cat.joblib']) {
      const { report, forest } = await load(file);
      const sets = forest.features.filter((f) => f.setOf).length;
      assert.ok(sets > 0, `${file}: no set split (precondition)`);
      assert.equal(report.model!.features, forest.features.length - sets, file);
      assert.equal(report.model!.categorySetFeatures, sets, file);
    }
  });
});
