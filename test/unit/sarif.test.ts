/**
 * The SARIF report as a code-scanning service receives it: the bundled CLI run on real models
 * (a binary joblib, a text XGBoost JSON, a hostile pickle, a cut-off file), validated against the
 * OASIS SARIF 2.1.0 schema (test/fixtures/sarif, offline) and checked for the fields GitHub code
 * scanning reads (docs: "SARIF support for code scanning"), plus the exit-code policy for CI.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv from 'ajv';
import type * as Sarif from 'sarif';
import { DIST, EXAMPLES, FIXTURES, REPO_ROOT } from '../support/paths';
import { RULES, RULE_IDS } from '../../server/src/rules/catalog';
import { SARIF_RULES, fullDescriptionFromDoc } from '../../server/src/report/sarif-rules';
import { FINGERPRINT_KEY, toSarif, type RelatedLocation } from '../../server/src/report/sarif';
import { lintFile } from '../../server/src/linter/linter';

const COMPAS = join(EXAMPLES, 'models', 'compas_no_bagging.joblib');
const STUMP = join(EXAMPLES, 'models', 'private_stump.forest.json');
const XGB_JSON = join(FIXTURES, 'xgboost', 'bin_pima.json');
const EVIL = join(FIXTURES, 'sklearn', 'evil_os_system.pkl');

function cli(args: string[]) {
  const result = spawnSync(process.execPath, [join(DIST, 'cli.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The OASIS schema is draft-04; Ajv 8 reads it once `id` is spelled `$id` (its only draft-04-ism). */
function sarifValidator() {
  const schema = JSON.parse(readFileSync(join(FIXTURES, 'sarif', 'sarif-schema-2.1.0.json'), 'utf8'));
  delete schema.$schema;
  schema.$id = schema.id;
  delete schema.id;
  const isUri = (value: string) => URL.canParse(value);
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    formats: {
      uri: isUri,
      'uri-reference': (value: string) => URL.canParse(value, 'file:///base/'),
      'date-time': (value: string) => !Number.isNaN(Date.parse(value)),
    },
  });
  return ajv.compile(schema);
}
const validate = sarifValidator();

function assertValid(log: unknown) {
  const ok = validate(log);
  assert.ok(ok, `schema errors: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`);
}

/** One run over a mix of real models; the JSON report of the same run rides along in --out. */
function runOn(paths: string[], extra: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'mpl-sarif-'));
  try {
    const jsonOut = join(dir, 'report.json');
    const { code, stdout, stderr } = cli([...paths, '--format', 'sarif', '--out', jsonOut, '--fail-on', 'never', ...extra]);
    return { code, stderr, log: JSON.parse(stdout) as Sarif.Log, json: JSON.parse(readFileSync(jsonOut, 'utf8')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const truncatedDir = mkdtempSync(join(tmpdir(), 'mpl-sarif-cut-'));
const TRUNCATED = join(truncatedDir, 'cut_off.joblib');
const compasBytes = readFileSync(COMPAS);
writeFileSync(TRUNCATED, compasBytes.subarray(0, compasBytes.length >> 1));
process.on('exit', () => rmSync(truncatedDir, { recursive: true, force: true }));

const main = runOn([COMPAS, STUMP, XGB_JSON, EVIL, TRUNCATED], ['--budget', '10']);
const run = main.log.runs[0];
const results = run.results!;
const uriOf = (result: Sarif.Result) => result.locations![0].physicalLocation!.artifactLocation!.uri!;
const resultsFor = (path: string) => results.filter((r) => uriOf(r) === path);

describe('SARIF output', () => {
  it('is valid SARIF 2.1.0 by the OASIS schema, and the validator does reject broken logs', () => {
    assertValid(main.log);
    const broken = structuredClone(main.log);
    broken.runs[0].results![0].locations![0].physicalLocation!.region = { startLine: 0 };
    (broken.runs[0].results![1] as { level: string }).level = 'critical';
    assert.equal(validate(broken), false);
    assert.ok(validate.errors!.some((e) => e.instancePath.endsWith('/region/startLine')));
    assert.ok(validate.errors!.some((e) => e.instancePath.endsWith('/level')));
  });

  it('describes the tool and every rule as GitHub code scanning reads them', () => {
    const driver = run.tool.driver;
    assert.equal(driver.name, 'model-privacy-lint');
    assert.match(driver.semanticVersion!, /^\d+\.\d+\.\d+/);
    assert.ok(URL.canParse(driver.informationUri!));
    assert.deepEqual(driver.rules!.map((r) => r.id), RULE_IDS);
    for (const rule of driver.rules!) {
      const id = rule.id as keyof typeof RULES;
      assert.ok(SARIF_RULES[id], `${id} has code-scanning metadata in sarif-rules.ts`);
      assert.equal(rule.shortDescription!.text, RULES[id].title);
      // GitHub: name up to 255, descriptions up to 1024 characters.
      assert.ok(rule.name!.length > 0 && rule.name!.length <= 255);
      assert.ok(rule.fullDescription!.text.length > 40 && rule.fullDescription!.text.length <= 1024, `${id} full description`);
      assert.doesNotMatch(rule.fullDescription!.text, /Default severity|^#/);
      assert.match(rule.help!.markdown!, new RegExp(`^# ${id}`));
      assert.ok(rule.help!.text.includes(rule.helpUri!));
      assert.ok(URL.canParse(rule.helpUri!));
      assert.equal(rule.defaultConfiguration!.level, { error: 'error', warning: 'warning', information: 'note', hint: 'note' }[RULES[id].defaultSeverity]);
      const props = rule.properties!;
      assert.ok(['very-high', 'high', 'medium', 'low'].includes(props.precision as string));
      const tags = props.tags as string[];
      assert.ok(tags.length > 0 && tags.length <= 10);
      const score = props['security-severity'];
      if (tags.includes('security')) {
        // A string, as GitHub wants it, in its scored range (0.0 means "no security severity").
        assert.equal(typeof score, 'string', `${id} security-severity`);
        assert.ok(Number(score) > 0 && Number(score) <= 10);
      } else {
        assert.equal(score, undefined, `${id} is not a security rule`);
        assert.ok(['error', 'warning', 'recommendation'].includes(props['problem.severity'] as string));
      }
    }
    // The ranking the scores encode: running code > proven rows > predicted leak > raw material.
    const score = (id: keyof typeof SARIF_RULES) => Number(SARIF_RULES[id]!.securitySeverity);
    assert.ok(score('unsafe-pickle') > score('reconstructable-training-set'));
    assert.ok(score('reconstructable-training-set') > score('no-bootstrap'));
    assert.ok(score('no-bootstrap') > score('exact-counts'));
  });

  it('lists every finding of the JSON report as a result with its rule, level and message', () => {
    const findings = main.json.files.flatMap((file: { findings: { rule: string; severity: string; message: string }[] }) => file.findings);
    assert.equal(results.length, findings.length);
    const level = { error: 'error', warning: 'warning', information: 'note', hint: 'note' } as Record<string, string>;
    for (const [i, result] of results.entries()) {
      assert.equal(result.ruleId, findings[i].rule);
      assert.equal(run.tool.driver.rules![result.ruleIndex!].id, result.ruleId);
      assert.equal(result.level, level[findings[i].severity]);
      assert.equal(result.message.text, findings[i].message);
      assert.equal(result.locations!.length, 1);
    }
    assert.deepEqual(run.invocations, [{ executionSuccessful: true, workingDirectory: { uri: `${pathToFileURL(REPO_ROOT).href}/` } }]);
    assert.equal(run.columnKind, 'utf16CodeUnits');
    assert.equal(run.originalUriBaseIds!['%SRCROOT%'].uri, `${pathToFileURL(REPO_ROOT).href}/`);
    assert.equal(run.automationDetails, undefined, 'left to the upload action unless --sarif-category is given');
  });

  it('locates binary models as whole files and text models by region, relative to the repository root', () => {
    const compas = resultsFor('examples/models/compas_no_bagging.joblib');
    assert.ok(compas.length >= 3);
    for (const result of compas) {
      const location = result.locations![0].physicalLocation!;
      assert.equal(location.artifactLocation!.uriBaseId, '%SRCROOT%');
      assert.equal(location.region, undefined, 'a joblib file has no lines');
    }
    const singleton = compas.find((r) => r.ruleId === 'singleton-leaf')!;
    const { tree, node } = singleton.properties as { tree: number; node: number };
    assert.equal(singleton.locations![0].logicalLocations![0].fullyQualifiedName, `trees[${tree}].nodes[${node}]`);

    // The XGBoost JSON is text, written by save_model on one long line: first-tree-exposes-counts
    // sits at the line's start, on its first key (not on one number deep in the line); the
    // logical location names the leaf.
    const xgb = resultsFor('test/fixtures/xgboost/bin_pima.json');
    const counts = xgb.find((r) => r.ruleId === 'first-tree-exposes-counts')!;
    const region = counts.locations![0].physicalLocation!.region!;
    const lines = readFileSync(XGB_JSON, 'utf8').split('\n');
    assert.equal(region.startLine, 1);
    assert.equal(region.endLine, 1);
    assert.equal(region.startColumn, 1);
    assert.equal(lines[0].slice(region.startColumn! - 1, region.endColumn! - 1), '{"learner"');
    const at = counts.properties as { tree: number; node: number };
    assert.equal(counts.locations![0].logicalLocations![0].fullyQualifiedName, `trees[${at.tree}].nodes[${at.node}]`);

    // A file outside the working directory gets an absolute file: URI and no base.
    const cut = results.find((r) => r.ruleId === 'unreadable-model')!;
    assert.deepEqual(cut.locations![0].physicalLocation!.artifactLocation, { uri: pathToFileURL(TRUNCATED).href });
  });

  it('fingerprints results by rule, file and node, stable across runs whose messages differ', () => {
    const keys = results.map((r) => r.partialFingerprints![FINGERPRINT_KEY]);
    assert.equal(new Set(keys).size, keys.length, 'distinct within a run');
    for (const result of results) {
      const hasRegion = result.locations![0].physicalLocation!.region !== undefined;
      // GitHub's upload action computes primaryLocationLineHash for results with a line; we give
      // it only for whole-file results, which the action skips.
      assert.equal(result.partialFingerprints!.primaryLocationLineHash, hasRegion ? undefined : result.partialFingerprints![FINGERPRINT_KEY]);
    }
    const again = runOn([COMPAS, STUMP, XGB_JSON, EVIL, TRUNCATED], ['--budget', '10', '--severity', 'exact-counts=warning', '--sarif-category', 'models']);
    const otherRun = again.log.runs[0];
    assert.deepEqual(
      otherRun.results!.map((r) => r.partialFingerprints![FINGERPRINT_KEY]),
      keys,
    );
    assert.notDeepEqual(otherRun.results!.map((r) => r.level), results.map((r) => r.level), 'the severity override changed levels');
    assert.deepEqual(otherRun.automationDetails, { id: 'models/' }, 'a category needs the trailing slash on GitHub');
    assertValid(again.log);
  });

  it('reports the COMPAS reconstruction as an error: all 100 true training rows certified', () => {
    const [finding] = resultsFor('examples/models/compas_no_bagging.joblib').filter((r) => r.ruleId === 'reconstructable-training-set');
    assert.equal(finding.level, 'error');
    const trueRows = readFileSync(join(EXAMPLES, 'data', 'compas_100.csv'), 'utf8').trim().split('\n').length - 1;
    const data = (finding.properties as { data: { status: string; rows: number; certifiedRows: number } }).data;
    assert.equal(data.status, 'exact');
    assert.equal(data.rows, trueRows);
    assert.equal(data.certifiedRows, trueRows);
    const rule = run.tool.driver.rules![finding.ruleIndex!];
    assert.equal(rule.properties!['security-severity'], '7.5');
  });

  it('turns a hostile pickle and a cut-off file into results, not crashes', () => {
    const evil = resultsFor('test/fixtures/sklearn/evil_os_system.pkl');
    assert.deepEqual(evil.map((r) => [r.ruleId, r.level]), [['unsafe-pickle', 'error']]);
    assert.match(evil[0].message.text!, /system/);
    const cut = results.filter((r) => uriOf(r) === pathToFileURL(TRUNCATED).href);
    assert.deepEqual(cut.map((r) => [r.ruleId, r.level]), [['unreadable-model', 'warning']]);
  });

  it('carries related locations when a finding has them', async () => {
    const report = await lintFile(XGB_JSON);
    const finding = report.findings.find((f) => f.rule === 'first-tree-exposes-counts')!;
    const related: RelatedLocation[] = [
      { path: join(REPO_ROOT, 'test', 'fixtures', 'xgboost', 'generate.py'), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } }, message: 'trained here' },
      { message: 'the model file itself' },
    ];
    Object.assign(finding, { related });
    const log = toSarif([report], { baseDir: REPO_ROOT });
    assertValid(log);
    const result = log.runs[0].results!.find((r) => r.ruleId === 'first-tree-exposes-counts')!;
    assert.deepEqual(
      result.relatedLocations!.map((l) => [l.id, l.physicalLocation!.artifactLocation!.uri, l.physicalLocation!.region?.startLine, l.message!.text]),
      [
        [1, 'test/fixtures/xgboost/generate.py', 1, 'trained here'],
        [2, 'test/fixtures/xgboost/bin_pima.json', undefined, 'the model file itself'],
      ],
    );
  });

  it('takes the full description from the rule page\'s first paragraph, within GitHub\'s limit', () => {
    const page = readFileSync(resolve(REPO_ROOT, 'docs', 'rules', 'no-bootstrap.md'), 'utf8');
    assert.match(fullDescriptionFromDoc(page)!, /^Every tree was grown on the whole training set/);
    const long = `# x\n\n**Default severity:** warning\n\n| a | b |\n\n${'A sentence that goes on. '.repeat(80)}`;
    const clipped = fullDescriptionFromDoc(long)!;
    assert.ok(clipped.length <= 1024 && clipped.endsWith('on.'));
  });
});

describe('exit codes for CI', () => {
  it('0 below --fail-on, 1 at or above it, for hostile and broken files too', () => {
    assert.equal(cli([EVIL, '--fail-on', 'error']).code, 1, 'unsafe-pickle is an error');
    assert.equal(cli([EVIL, '--fail-on', 'never']).code, 0);
    assert.equal(cli([TRUNCATED, '--fail-on', 'error']).code, 0, 'unreadable-model is a warning');
    assert.equal(cli([TRUNCATED, '--fail-on', 'warning']).code, 1);
    assert.equal(cli([TRUNCATED, '--fail-on', 'warning', '--severity', 'unreadable-model=information']).code, 0);
  });

  it('2 for input errors, with the SARIF still written and marked unsuccessful', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpl-sarif-exit-'));
    try {
      const out = join(dir, 'results.sarif');
      const missing = join(dir, 'no-such-model.joblib');
      const { code } = cli([EVIL, missing, '--out', out, '--fail-on', 'never']);
      assert.equal(code, 2, 'a named path that does not exist fails the run even with --fail-on never');
      const log = JSON.parse(readFileSync(out, 'utf8')) as Sarif.Log;
      assertValid(log);
      const invocation = log.runs[0].invocations![0];
      assert.equal(invocation.executionSuccessful, false);
      assert.match(invocation.toolExecutionNotifications![0].message.text!, /no-such-model\.joblib/);
      assert.deepEqual(log.runs[0].results!.map((r) => r.ruleId), ['unsafe-pickle'], 'the files that exist are still reported');
      assert.equal(cli(['--fail-on', 'sometimes']).code, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
