/**
 * A file of three or more sibling models fires each rule once, not once per model (sweep 10: a
 * 12-output MultiOutputRegressor gave 49 findings, the same four rules twelve times). Checked on
 * real scikit-learn containers: a one-vs-rest of three trees and a calibrated Pipeline's three folds
 * fold; a two-output model keeps one finding per model.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { lintBytes } from '../../server/src/linter/linter';
import { foldAcrossModels, indexRuns, FOLD_AT } from '../../server/src/linter/fold-findings';
import { readSklearn } from '../../server/src/formats/sklearn';
import { detailOf, lead, summaryOf } from '../../server/src/rules/message';
import type { Finding } from '../../server/src/rules/types';
import { MODEL_RULES } from '../../server/src/rules';
import { toSarif } from '../../server/src/report/sarif';
import { FIXTURES } from '../support/paths';

const DIR = path.join(FIXTURES, 'containers');
const MODEL_RULE_IDS = new Set<string>(MODEL_RULES.map((rule) => rule.id));

function lint(file: string) {
  const bytes = fs.readFileSync(path.join(DIR, file));
  const read = readSklearn(bytes, file);
  assert.equal(read.kind, 'model');
  const places = read.kind === 'model' ? [read.location ?? 'model', ...(read.others ?? []).map((o) => o.location)] : [];
  return { report: lintBytes(bytes, file), places, primary: read.kind === 'model' ? (read.location ?? 'model') : 'model' };
}

describe('findings folded across sibling models', () => {
  for (const file of ['one_vs_rest.joblib', 'calibrated_pipeline.joblib']) {
    it(`${file}: one finding a rule, naming every model it holds for`, () => {
      const { report, places, primary } = lint(file);
      assert.ok(places.length >= FOLD_AT, places.join());
      const modelFindings = report.findings.filter((f) => MODEL_RULE_IDS.has(f.rule));
      assert.ok(modelFindings.length > 0);
      for (const rule of new Set(modelFindings.map((f) => f.rule))) {
        const ofRule = modelFindings.filter((f) => f.rule === rule);
        assert.equal(ofRule.length, 1, `${rule}: ${ofRule.length} findings`);
        const [finding] = ofRule;
        const covered = [finding.location.model ?? primary, ...(finding.location.alsoIn ?? [])];
        // Every rule these models fire fires for all of them (same data, same settings).
        assert.deepEqual([...covered].sort(), [...places].sort(), rule);
        // The detail names the others, by place or as a run of indices.
        const detail = detailOf(finding.message);
        assert.match(detail, new RegExp(`The same holds for ${places.length - 1} other models of this file: `));
        for (const place of finding.location.alsoIn ?? []) assert.ok(detail.includes(place) || /\bto \[\d+\]/.test(detail), `${place} not named in: ${detail}`);
        // The first line is still one line, the panel's.
        assert.ok(!summaryOf(finding.message).includes('same holds'));
      }
    });
  }

  it("a folded finding keeps each other model's own figures when they differ (the calibrated folds' single-row leaves)", () => {
    const { report } = lint('calibrated_pipeline.joblib');
    const singleton = report.findings.find((f) => f.rule === 'singleton-leaf');
    assert.ok(singleton, report.findings.map((f) => f.rule).join());
    // The folds hold 4, 2 and 4 single-row leaves: the other two are listed with theirs.
    const listed = [...detailOf(singleton.message).matchAll(/\((\d+) leaves describe a single training row each\)/g)].map((m) => Number(m[1]));
    assert.equal(listed.length, 2, singleton.message);
  });

  it('SARIF results carry the model and the others a folded finding holds for', () => {
    const { report } = lint('one_vs_rest.joblib');
    const results = toSarif([report], { baseDir: DIR }).runs[0].results ?? [];
    const noBootstrap = results.find((r) => r.ruleId === 'no-bootstrap');
    assert.ok(noBootstrap?.properties, JSON.stringify(results.map((r) => r.ruleId)));
    const held = [noBootstrap.properties.model, ...(noBootstrap.properties.alsoIn as string[])];
    assert.deepEqual(held.sort(), ['model.estimators_[0]', 'model.estimators_[1]', 'model.estimators_[2]']);
  });

  it('two models keep a finding each', () => {
    const { report, places } = lint('multi_output.joblib');
    assert.equal(places.length, 2);
    const exact = report.findings.filter((f) => f.rule === 'exact-counts');
    assert.equal(exact.length, 2);
    assert.ok(exact.every((f) => f.location.alsoIn === undefined));
  });

  it('models that state the same fact (differing in the remedy only) are one entry, their places as a run', () => {
    // Sweep 16: 35 AdaBoost members' no-bootstrap findings differ after the colon only, and read
    // "(Trees saw every training row once, counts rebuild it)" once per member.
    const finding = (model: string, summary: string): Finding => ({ rule: 'no-bootstrap', severity: 'warning', message: lead(summary, 'detail'), location: { model } });
    const same = 'Trees saw every training row once, counts rebuild it';
    const findings = [
      finding('m.estimators_[0]', `${same}: use bootstrap=True.`),
      ...Array.from({ length: 12 }, (_, i) => finding(`m.estimators_[${i + 1}]`, `${same}: set subsample below 1.`)),
      finding('m.other', 'Trees saw 90% of the rows: lower max_samples.'),
    ];
    const [folded] = foldAcrossModels(findings, 'm');
    const detail = detailOf(folded.message);
    assert.match(detail, /The same holds for 13 other models of this file: m\.estimators_\[1\] to \[12\] \(Trees saw every training row once, counts rebuild it\); m\.other \(Trees saw 90% of the rows\)\./);
    assert.deepEqual(folded.location.alsoIn, findings.slice(1).map((f) => f.location.model));
  });

  it('runs of indexed siblings read as ranges, other places as they are', () => {
    assert.deepEqual(indexRuns(['m.estimators_[0]', 'm.estimators_[1]', 'm.estimators_[2]', 'm.x', 'm.estimators_[4]', 'm.a[5]', 'm.a[6]']), [
      'm.estimators_[0] to [2]',
      'm.x',
      'm.estimators_[4]',
      'm.a[5] to [6]',
    ]);
  });
});
