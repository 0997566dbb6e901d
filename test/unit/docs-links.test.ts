/**
 * Every relative link and image in README.md and docs/**\/*.md resolves (issue 15): the file or
 * folder exists, and an `#anchor` into a markdown file names one of its headings by GitHub's slug
 * rule. A failure names the file and line of each broken link. docs/_incoming/ is left out: it
 * holds drafts for pages elsewhere, whose links are written for where they will go.
 *
 * The checker itself (test/support/markdown-links.ts) is tested first on pages written here, so a
 * checker that found nothing could not pass for docs without broken links.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../support/paths';
import { brokenLinks, githubSlug, markdownAnchors, markdownLinks } from '../support/markdown-links';

const DRAFTS = join(REPO_ROOT, 'docs', '_incoming');

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === DRAFTS) continue;
    if (statSync(path).isDirectory()) out.push(...markdownFiles(path));
    else if (name.endsWith('.md')) out.push(path);
  }
  return out;
}

test('GitHub slugs: punctuation dropped, spaces to hyphens, inline code and links reduced to text', () => {
  assert.equal(githubSlug('JSON output (a contract)'), 'json-output-a-contract');
  assert.equal(githubSlug('What "certified" means'), 'what-certified-means');
  assert.equal(githubSlug('Numeric forests (issue 12)'), 'numeric-forests-issue-12');
  assert.equal(githubSlug('Sidecar: declared groups, disabled rules'), 'sidecar-declared-groups-disabled-rules');
  assert.equal(githubSlug('The `--budget` option'), 'the---budget-option');
  assert.equal(githubSlug('[`boosting-counts`](engine.md) and more'), 'boosting-counts-and-more');
  assert.equal(githubSlug('What-if advisor'), 'what-if-advisor');
  assert.equal(githubSlug('Café & min_samples_leaf'), 'café--min_samples_leaf');
  // Repeated headings are numbered; a heading inside a code block is no heading.
  assert.deepEqual([...markdownAnchors('# A\n## A\n### A!\n```\n# B\n```\n<a id="here"></a>\n')], ['a', 'a-1', 'a-2', 'here']);
});

test('links are found outside code, with their lines; images, references, wrapped text and HTML too', () => {
  const text = [
    'See [one](a.md) and ![pic](img/p.png "title").', // 1
    'Not this: `[code](nope.md)`.', // 2
    '```', // 3
    '[fenced](nope.md)', // 4
    '```', // 5
    'A link whose text [wraps', // 6
    'onto the next line](b.md#part) and [![badge](c.png)](d.md).', // 7
    '[ref]: e.md', // 8
    '<img src="f.png"> <a href="https://example.com">web</a>', // 9
  ].join('\n');
  const found = markdownLinks(text).map((link) => `${link.line}:${link.target}`);
  assert.deepEqual(found.sort(), ['1:a.md', '1:img/p.png', '6:b.md#part', '7:c.png', '7:d.md', '8:e.md', '9:f.png', '9:https://example.com'].sort());
});

test('the checker reports a missing file, a missing anchor and a broken image, with file and line', () => {
  const root = mkdtempSync(join(tmpdir(), 'docs-links-'));
  try {
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'page.md'), '# Page\n\n## Exit codes\n\ntext\n');
    writeFileSync(join(root, 'pic.png'), '');
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Title', // 1
        '[ok](docs/page.md#exit-codes) [ok too](#title) [folder](docs/) ![ok](pic.png) [web](https://x.org/y)', // 2
        '[gone](docs/missing.md)', // 3
        '[bad anchor](docs/page.md#exit-code)', // 4
        '![gone](img/none.png)', // 5
        '[own bad anchor](#nothing)', // 6
      ].join('\n'),
    );
    const broken = brokenLinks(join(root, 'README.md'), root).map((link) => `${relative(root, link.file)}:${link.line}: ${link.problem}`);
    assert.deepEqual(broken, [
      'README.md:3: docs/missing.md does not exist',
      'README.md:4: docs/page.md has no heading with the anchor #exit-code',
      'README.md:5: img/none.png does not exist',
      'README.md:6: README.md has no heading with the anchor #nothing',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('every relative link and image in README.md and docs/ resolves', () => {
  const files = [join(REPO_ROOT, 'README.md'), ...markdownFiles(join(REPO_ROOT, 'docs'))];
  assert.ok(files.length > 20, `only ${files.length} markdown files found`);
  const linkCount = files.reduce((sum, file) => sum + markdownLinks(readFileSync(file, 'utf8')).length, 0);
  assert.ok(linkCount > 100, `only ${linkCount} links found: is the link finder broken?`);
  const broken = files.flatMap((file) => brokenLinks(file, REPO_ROOT));
  const lines = broken.map((link) => `${relative(REPO_ROOT, link.file)}:${link.line}: ${link.source} -> ${link.problem}`);
  assert.deepEqual(lines, [], `broken links:\n${lines.join('\n')}`);
});
