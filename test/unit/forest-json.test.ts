import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { forestJsonReader } from '../../server/src/formats/forest-json';
import { REPO_ROOT } from '../support/paths';
import { lintBytes } from '../../server/src/linter/linter';
import { forest, twoLevel } from '../support/forests';

const encode = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value, null, 2));

test('a valid *.forest.json is read through the shared schema', () => {
  const bytes = encode(forest([twoLevel([[1, 0], [0, 3], [5, 1]])]));
  assert.ok(forestJsonReader.sniff(bytes, 'm.forest.json'));
  const read = forestJsonReader.read(bytes, 'm.forest.json');
  assert.equal(read.kind, 'model');
  if (read.kind !== 'model') return;
  assert.equal(read.forest.trees.length, 1);
  assert.equal(read.forest.format, 'model-privacy-lint/forest', 'defaults come from the schema');
});

test('findings in a *.forest.json point at the node they are about', () => {
  const text = JSON.stringify(forest([twoLevel([[1, 0], [0, 3], [5, 1]])]), null, 2);
  const report = lintBytes(encode(text), 'm.forest.json');
  const singleton = report.findings.find((f) => f.rule === 'singleton-leaf');
  assert.ok(singleton?.location.range, 'has a range');
  const { start, end } = singleton.location.range;
  const line = text.split('\n')[start.line];
  // Node 2's entry in trees[0].left is the value -1, third element of the `left` array.
  assert.equal(line.slice(start.character, end.character), '-1');
  const leftLine = text.split('\n').findIndex((l) => l.includes('"left"'));
  assert.equal(start.line, leftLine + 3);
});

test('schema violations and bad JSON are clear unreadable results', () => {
  const missing = forestJsonReader.read(encode({ format: 'model-privacy-lint/forest', trees: [] }), 'x.forest.json');
  assert.equal(missing.kind, 'unreadable');
  if (missing.kind === 'unreadable') assert.equal(missing.reason, 'not-a-model');
  const broken = forestJsonReader.read(encode('{"trees": ['), 'x.forest.json');
  assert.equal(broken.kind, 'unreadable');
  if (broken.kind === 'unreadable') assert.equal(broken.reason, 'corrupt');
  const cyclic = forest([twoLevel([[1, 0], [0, 3], [5, 1]])]);
  cyclic.trees[0].left[1] = 0;
  const report = lintBytes(encode(cyclic), 'c.forest.json');
  assert.deepEqual(report.findings.map((f) => f.rule), ['unreadable-model']);
  assert.match(report.findings[0].message, /children must come after their parent/);
});

test('the example in docs/forest-json.md is a valid forest file', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs/forest-json.md'), 'utf8');
  const example = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(example);
  const read = forestJsonReader.read(encode(example), 'doc.forest.json');
  assert.equal(read.kind, 'model', read.kind === 'unreadable' ? read.detail : '');
  const report = lintBytes(encode(example), 'doc.forest.json');
  assert.equal(report.model?.trainingRows, 10);
});
