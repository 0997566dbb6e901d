/**
 * Issue 15's target for the docs: a newcomer finds any setting, command-line option or JSON field
 * in two clicks, README -> page. Each list is taken from where the program defines it (the
 * settings from package.json, the options from the CLI's parseArgs table, the JSON fields from
 * what the CLI really prints), so a new one without its documentation fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../support/paths';
import { markdownLinks } from '../support/markdown-links';

const README = join(REPO_ROOT, 'README.md');

/** The markdown pages README.md links to (one click), with README itself. */
function readmePages(): Map<string, string> {
  const pages = new Map<string, string>([[README, readFileSync(README, 'utf8')]]);
  for (const link of markdownLinks(readFileSync(README, 'utf8'))) {
    const path = link.target.split('#')[0]!;
    if (!path.endsWith('.md') || /^[a-z]+:/i.test(path)) continue;
    const file = resolve(dirname(README), decodeURIComponent(path));
    pages.set(file, readFileSync(file, 'utf8'));
  }
  return pages;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Names the pages do not mention in code (`name`, `name=...`, "name" in a JSON example, `a.name`). */
function unmentioned(names: Iterable<string>, texts: string[]): string[] {
  const all = texts.join('\n');
  return [...names].filter((name) => !new RegExp(`[\`".]${escape(name)}[\`".\\[/= ]`).test(all));
}

test('every setting in package.json is on a page the README links to', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  const settings = Object.keys(pkg.contributes.configuration.properties as object);
  assert.ok(settings.length >= 10, `only ${settings.length} settings read from package.json`);
  const missing = unmentioned(settings, [...readmePages().values()]);
  assert.deepEqual(missing, [], `settings not documented one click from the README: ${missing.join(', ')}`);
});

test('every command-line option is on a page the README links to', () => {
  const source = readFileSync(join(REPO_ROOT, 'server/src/cli.ts'), 'utf8');
  const table = /parseArgs\(\{[\s\S]*?options: \{([\s\S]*?)\n {4}\},/.exec(source);
  assert.ok(table, 'the options table of parseArgs was not found in server/src/cli.ts');
  const options = [...table[1]!.matchAll(/^\s+'?([a-z][a-z-]*)'?: \{/gm)].map((match) => `--${match[1]}`);
  assert.ok(options.length >= 20 && options.includes('--budget') && options.includes('--advise'), `options read: ${options.join(' ')}`);
  const pages = [...readmePages().values()].join('\n');
  // An option may sit inside a longer code span (`--training-data FILE.csv --label COLUMN`).
  const missing = options.filter((option) => !new RegExp(`(?<![\\w-])${escape(option)}(?![\\w-])`).test(pages));
  assert.deepEqual(missing, [], `options not documented one click from the README: ${missing.join(', ')}`);
});

test('every field of the CLI JSON is in the JSON contract the README links to', () => {
  const readme = readFileSync(README, 'utf8');
  const contract = markdownLinks(readme).find((link) => link.target.endsWith('#json-output-a-contract'));
  assert.ok(contract, 'the README does not link the JSON contract (#json-output-a-contract)');
  const page = resolve(REPO_ROOT, contract.target.split('#')[0]!);
  // Every kind of block the JSON has: recoverability with groups (the sidecar), evaluation, advisor;
  // a text model (ranges), a boosted one, a forest.json. Short budgets: the fields, not the figures, matter.
  const args = ['examples', '--format', 'json', '--budget', '1', '--advise', '--training-data', 'examples/data/compas_100.csv', '--label', 'recidivate-within-two-years:1', '--fail-on', 'never'];
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'out/server/src/cli.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(run.status, 0, run.stderr);
  const fields = new Map<string, string>();
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) return value.forEach((item) => walk(item, `${path}[]`));
    if (value === null || typeof value !== 'object') return;
    // Maps keyed by the model's feature names, and each rule's own figures (`data`), are not fields.
    if (/(\.determinedFeatures|\.data)$/.test(path)) return;
    for (const [key, item] of Object.entries(value)) {
      if (!fields.has(key)) fields.set(key, `${path}.${key}`);
      walk(item, `${path}.${key}`);
    }
  };
  walk(JSON.parse(run.stdout), '');
  for (const field of ['recoverability', 'groups', 'evaluation', 'accuracy', 'advisor', 'scenarios', 'range']) assert.ok(fields.has(field), `the run printed no ${field}`);
  const missing = unmentioned(fields.keys(), [readFileSync(page, 'utf8')]).map((key) => fields.get(key)!);
  assert.deepEqual(missing, [], `JSON fields not documented in ${relative(REPO_ROOT, page)}: ${missing.join(', ')}`);
});
