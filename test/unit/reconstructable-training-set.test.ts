/**
 * The `reconstructable-training-set` rule on real reconstructions of a scikit-learn forest
 * (test/fixtures/reconstruction): its level follows the certified count and the thresholds, an
 * override wins, and skipped or failed runs are not findings.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { RunContext } from '../../server/src/attacks/reconstruction/context';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { summarizeReconstruction, type Recoverability } from '../../server/src/recoverability/summary';
import { reconstructionFindings } from '../../server/src/rules';
import { DEFAULT_THRESHOLDS } from '../../server/src/rules/reconstructable-training-set';
import { FIXTURES } from '../support/paths';
import type { FixtureEntry } from '../support/reconstruction-truth';

const DIR = join(FIXTURES, 'reconstruction');
const COMPAS = (JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as FixtureEntry[]).find((e) => e.name === 'rf_compas_t20')!;
const NO_GROUPS = { declared: 0, sources: [], problems: [] };

let forest: Forest;
let summary: Recoverability;
before(async () => {
  const report = await lintFile(join(DIR, COMPAS.model), { keepForest: true });
  forest = report.forest!;
  summary = summarizeReconstruction(forest, await reconstruct(forest, { groups: COMPAS.groups }), NO_GROUPS);
});

describe('reconstructable-training-set', () => {
  it('states the certified count, and its level follows the thresholds', () => {
    const { certifiedRows: certified, rows } = summary;
    assert.ok(certified > 0 && rows !== null && certified < rows, 'a partial certificate (precondition)');
    const level = (errorShare: number, warningRows: number) => reconstructionFindings(forest, summary, { errorShare, warningRows }, {})[0]?.severity;
    assert.equal(level(DEFAULT_THRESHOLDS.errorShare, DEFAULT_THRESHOLDS.warningRows), certified >= DEFAULT_THRESHOLDS.errorShare * rows ? 'error' : 'warning');
    assert.equal(level(certified / rows, 1), 'error');
    assert.equal(level((certified + 1) / rows, certified), 'warning');
    assert.equal(level((certified + 1) / rows, certified + 1), 'information');
    const [finding] = reconstructionFindings(forest, summary, DEFAULT_THRESHOLDS, {});
    assert.match(finding.message, new RegExp(`At least ${certified} training rows of ${rows}`));
    assert.equal(finding.data?.certifiedRows, certified);
  });

  it('boxes that narrow nothing on the median make it a warning at most, and say so', () => {
    const { rows } = summary;
    const boxed = (medianWidth: number): Recoverability => ({ ...summary, boxes: { rows: summary.certifiedRows, pinnedRows: 0, medianWidth, features: [{ name: forest.features[0].name, medianWidth }] } });
    const [wide] = reconstructionFindings(forest, boxed(1), { errorShare: 0, warningRows: 1 }, {});
    assert.equal(wide.severity, 'warning');
    assert.match(wide.message, /the median box still spans 95% or more of a feature's range, so this is a warning/);
    // Nearly the whole range (a public model's 99.25%) is not narrowed either: before stop 34, an error.
    assert.equal(reconstructionFindings(forest, boxed(0.9925), { errorShare: 0, warningRows: 1 }, {})[0].severity, 'warning');
    const [narrow] = reconstructionFindings(forest, boxed(0.4), { errorShare: 0, warningRows: 1 }, {});
    assert.equal(narrow.severity, 'error');
    assert.doesNotMatch(narrow.message, /so this is a warning/);
    assert.ok(rows! > 0);
  });

  it('one row of a training set of unknown size is "1 training row is", not "1 rows" (sweep 19)', () => {
    const one: Recoverability = { ...summary, rows: null, certifiedRows: 1 };
    const [finding] = reconstructionFindings(forest, one, DEFAULT_THRESHOLDS, {});
    assert.match(finding.message, /^1 training row is proven from the model/);
    assert.match(finding.message, /At least 1 training row \(of a training set of unknown size\) is uniquely determined/);
    assert.doesNotMatch(finding.message, /\b1 rows\b/);
    // With N known: "1 of 200 training rows are".
    const [known] = reconstructionFindings(forest, { ...summary, certifiedRows: 1 }, DEFAULT_THRESHOLDS, {});
    assert.match(known.message, new RegExp(`^1 of ${summary.rows} training rows are proven`));
  });

  it('an explicit severity wins over the thresholds, and off removes it', () => {
    assert.equal(reconstructionFindings(forest, summary, DEFAULT_THRESHOLDS, { 'reconstructable-training-set': 'hint' })[0].severity, 'hint');
    assert.deepEqual(reconstructionFindings(forest, summary, DEFAULT_THRESHOLDS, { 'reconstructable-training-set': 'off' }), []);
  });

  it('an estimate without certified rows is information, whatever the thresholds', () => {
    const estimate: Recoverability = { ...summary, status: 'bounded', certifiedRows: 0 };
    const [finding] = reconstructionFindings(forest, estimate, { errorShare: 0, warningRows: 0 }, {});
    assert.equal(finding.severity, 'information');
    assert.match(finding.message, /estimate/);
  });

  it('skipped and failed reconstructions are not findings', () => {
    for (const status of ['skipped', 'failed'] as const) {
      const result = new RunContext({ budgetMs: 0 }).answer({ status, reason: 'test', rows: 100, certifiedRows: 0 });
      assert.deepEqual(reconstructionFindings(forest, summarizeReconstruction(forest, result, NO_GROUPS), DEFAULT_THRESHOLDS, {}), []);
    }
  });
});
