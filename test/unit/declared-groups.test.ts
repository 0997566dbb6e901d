/**
 * Declared categorical groups (sidecar `<model>.privacy.json`, settings, CLI flags) resolved
 * against real models: names and indices, the sidecar's two names, and every way a declaration
 * can be wrong, each a problem with a reason and never an exception.
 */
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { declaredGroupsFor, groupsFromFlags, resolveGroups, sidecarPaths } from '../../server/src/recoverability/declared-groups';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { EXAMPLES, FIXTURES } from '../support/paths';
import type { FixtureEntry } from '../support/reconstruction-truth';

const DIR = join(FIXTURES, 'reconstruction');
const manifest: FixtureEntry[] = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));
const COMPAS = manifest.find((e) => e.name === 'rf_compas_t20')!;
const EXAMPLE = join(EXAMPLES, 'models', 'compas_no_bagging.joblib');

async function forestOf(path: string): Promise<Forest> {
  const report = await lintFile(path, { keepForest: true });
  assert.ok(report.forest, path);
  return report.forest;
}

let temp: string;
let model: string;
let forest: Forest;
before(async () => {
  temp = mkdtempSync(join(tmpdir(), 'mpl-groups-'));
  model = join(temp, COMPAS.model);
  copyFileSync(join(DIR, COMPAS.model), model);
  forest = await forestOf(model);
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe('sidecar files', () => {
  it('are looked for as <file>.privacy.json, then <stem>.privacy.json', () => {
    assert.deepEqual(sidecarPaths('/m/forest.joblib'), ['/m/forest.joblib.privacy.json', '/m/forest.privacy.json']);
    assert.deepEqual(sidecarPaths('/m/x.forest.json'), ['/m/x.forest.json.privacy.json', '/m/x.privacy.json']);
  });

  it('no sidecar: no groups, no problems', async () => {
    assert.deepEqual(await declaredGroupsFor(model, forest), { groups: [], sources: [], problems: [] });
  });

  it('the manifest\'s groups by index resolve to themselves; the more specific sidecar wins', async () => {
    const stem = join(temp, `${basename(model, '.joblib')}.privacy.json`);
    writeFileSync(stem, JSON.stringify({ groups: [{ kind: 'one-hot', features: [0, 1] }] }));
    writeFileSync(`${model}.privacy.json`, JSON.stringify({ groups: COMPAS.groups }));
    const resolved = await declaredGroupsFor(model, forest);
    assert.deepEqual(resolved.groups, COMPAS.groups);
    assert.deepEqual(resolved.sources, [`${basename(model)}.privacy.json`]);
    rmSync(`${model}.privacy.json`);
    assert.deepEqual((await declaredGroupsFor(model, forest)).groups, [{ kind: 'one-hot', features: [0, 1] }]);
    rmSync(stem);
  });

  it('the example\'s sidecar names features as the model stores them', async () => {
    const example = await forestOf(EXAMPLE);
    const resolved = await declaredGroupsFor(EXAMPLE, example);
    assert.deepEqual(resolved.problems, []);
    const names = resolved.groups.map((g) => g.features.map((f) => example.features[f].name));
    const declared = JSON.parse(readFileSync(join(EXAMPLES, 'models', 'compas_no_bagging.privacy.json'), 'utf8')).groups.map((g: { features: string[] }) => g.features);
    assert.deepEqual(names, declared);
  });

  for (const [what, content, problem] of [
    ['not JSON', '{ "groups": ', /not valid JSON/],
    ['a group of one feature', '{ "groups": [{ "kind": "one-hot", "features": [1] }] }', /not a valid privacy sidecar \(groups\.0\.features/],
    ['an unknown kind', '{ "groups": [{ "kind": "two-hot", "features": [1, 2] }] }', /not a valid privacy sidecar \(groups\.0\.kind/],
    ['a negative index', '{ "groups": [{ "kind": "one-hot", "features": [-1, 2] }] }', /not a valid privacy sidecar/],
    ['groups that are not a list', '{ "groups": {} }', /not a valid privacy sidecar/],
  ] as const) {
    it(`${what}: a problem, and no groups`, async () => {
      writeFileSync(`${model}.privacy.json`, content);
      const resolved = await declaredGroupsFor(model, forest);
      rmSync(`${model}.privacy.json`);
      assert.deepEqual(resolved.groups, []);
      assert.equal(resolved.problems.length, 1);
      assert.match(resolved.problems[0], problem);
    });
  }
});

describe('resolving declarations against a model', () => {
  it('ignores groups with unknown names, indices out of range, or a feature twice, and keeps the rest', () => {
    const resolved = resolveGroups(forest, [
      {
        source: 'test',
        declarations: [
          { kind: 'one-hot', features: ['x1', 'x2', 'no-such'] },
          { kind: 'one-hot', features: [1, forest.features.length] },
          { kind: 'at-most-one', features: ['x3', 3] },
          { kind: 'one-hot', features: ['x9', 'x10', 'x11', 'x12'] },
        ],
      },
    ]);
    assert.deepEqual(resolved.groups, [{ kind: 'one-hot', features: [9, 10, 11, 12] }]);
    assert.deepEqual(resolved.sources, ['test']);
    assert.equal(resolved.problems.length, 3);
    assert.match(resolved.problems[0], /does not have \(no-such\)/);
    assert.match(resolved.problems[1], new RegExp(`does not have \\(${forest.features.length}\\)`));
    assert.match(resolved.problems[2], /twice/);
  });

  it('merges sidecar and flags, dropping a group declared in both', async () => {
    writeFileSync(`${model}.privacy.json`, JSON.stringify({ groups: [COMPAS.groups[0]] }));
    const flags = [...groupsFromFlags('one-hot', [COMPAS.groups[0].features.map((f) => `x${f}`).join(','), COMPAS.groups[1].features.join(', ')])];
    const resolved = await declaredGroupsFor(model, forest, [{ source: 'command line', declarations: flags }]);
    rmSync(`${model}.privacy.json`);
    assert.deepEqual(resolved.groups, COMPAS.groups);
    assert.deepEqual(resolved.sources, [`${basename(model)}.privacy.json`, 'command line']);
    assert.deepEqual(resolved.problems, []);
  });

  it('flags take names or indices, separated by commas', () => {
    assert.deepEqual(groupsFromFlags('at-most-one', ['a, b,3', 'x0,x1']), [
      { kind: 'at-most-one', features: ['a', 'b', 3] },
      { kind: 'at-most-one', features: ['x0', 'x1'] },
    ]);
  });
});
