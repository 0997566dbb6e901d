/**
 * Relative links of markdown files, and whether they resolve: the file (or folder) must exist, and
 * an `#anchor` into a markdown file must name one of its headings, slugged as GitHub slugs them
 * (the pages are read on GitHub and in VS Code's preview, which follows the same rule).
 *
 * Deliberately small, not a markdown parser: fenced code blocks and code spans are blanked out
 * (a link shown as code is not a link), then inline links and images, reference definitions and
 * HTML `href`/`src` attributes are found with regular expressions over the whole text, so a link
 * whose text wraps onto the next line is still found, at the line where it starts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

export interface MarkdownLink {
  line: number;
  /** The link as written, `[text](target)`, for the message. */
  source: string;
  target: string;
}

export interface BrokenLink extends MarkdownLink {
  file: string;
  problem: string;
}

/** Fenced blocks (``` or ~~~, any indent: they also sit in list items) blanked, line breaks kept. */
function blankFences(text: string): string {
  const lines = text.split('\n');
  let fence: string | undefined;
  return lines
    .map((line) => {
      const opener = /^\s*(`{3,}|~{3,})/.exec(line);
      if (fence === undefined) {
        if (opener) {
          fence = opener[1]!;
          return '';
        }
        return line;
      }
      if (opener && opener[1]![0] === fence[0] && opener[1]!.length >= fence.length && line.trim() === opener[1]) fence = undefined;
      return '';
    })
    .join('\n');
}

/** Code spans (`x`, ``x``) replaced by spaces of the same length, so offsets and lines stay. */
function blankCodeSpans(text: string): string {
  // A span may wrap onto the next line but not cross a blank line (a paragraph's end).
  return text.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (span, _ticks, body: string) => (/\n[ \t]*\n/.test(body) ? span : span.replace(/[^\n]/g, ' ')));
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export function markdownLinks(text: string): MarkdownLink[] {
  const plain = blankCodeSpans(blankFences(text));
  const links: MarkdownLink[] = [];
  const add = (offset: number, source: string, target: string) => links.push({ line: lineAt(plain, offset), source: source.replace(/\s+/g, ' '), target });
  // Inline links and images: [text](target "title") or [text](<target with spaces>); the text may
  // hold one level of brackets (an image inside a link: [![alt](img)](page)).
  const inline = /!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*(<[^>\n]*>|[^\s)]*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
  for (const match of plain.matchAll(inline)) {
    add(match.index!, match[0], match[2]!.replace(/^<|>$/g, ''));
    // The image inside a link's text is a link of its own.
    for (const inner of match[1]!.matchAll(/!\[[^\]]*\]\(\s*([^\s)]*)[^)]*\)/g)) add(match.index! + 1 + inner.index!, inner[0], inner[1]!);
  }
  for (const match of plain.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm)) add(match.index!, match[0], match[1]!.replace(/^<|>$/g, ''));
  for (const match of plain.matchAll(/<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*("([^"]*)"|'([^']*)')/gi)) add(match.index!, match[0], match[2] ?? match[3]!);
  return links.sort((a, b) => a.line - b.line);
}

/**
 * GitHub's heading anchor: the heading's text as rendered (inline code, links and emphasis reduced
 * to their text), lower-cased, every character that is not a letter, mark, digit, connector
 * (`_`), hyphen or space dropped, each space a hyphen; a repeated slug gets `-1`, `-2`, ...
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`+/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\\(.)/g, '$1');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a markdown file offers: its ATX headings' slugs (duplicates numbered) and HTML ids. */
export function markdownAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const plain = blankFences(text);
  for (const match of plain.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const slug = githubSlug(match[1]!);
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${times}`);
  }
  for (const match of plain.matchAll(/<[a-z]+\b[^>]*?\b(?:id|name)\s*=\s*"([^"]+)"/gi)) anchors.add(match[1]!);
  return anchors;
}

/** The links of `file` that do not resolve; `root` bounds absolute (`/x`) links, as GitHub's repository root. */
export function brokenLinks(file: string, root: string): BrokenLink[] {
  const text = readFileSync(file, 'utf8');
  const broken: BrokenLink[] = [];
  for (const link of markdownLinks(text)) {
    const { target } = link;
    // Web links (http:, mailto:, vscode:) and protocol-relative ones are not this test's business.
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
    if (target === '') {
      broken.push({ ...link, file, problem: 'empty link target' });
      continue;
    }
    const hash = target.indexOf('#');
    let path: string;
    let anchor: string | undefined;
    try {
      path = decodeURIComponent((hash < 0 ? target : target.slice(0, hash)).split('?')[0]!);
      anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    } catch {
      broken.push({ ...link, file, problem: 'not valid percent-encoding' });
      continue;
    }
    const resolved = path === '' ? file : path.startsWith('/') ? resolve(root, `.${path}`) : resolve(dirname(file), path);
    if (!existsSync(resolved)) {
      broken.push({ ...link, file, problem: `${relative(root, resolved)} does not exist` });
      continue;
    }
    // Anchors are checked in markdown files only (`file.ts#L10` is GitHub's line anchor).
    if (anchor === undefined || !/\.md$/i.test(resolved) || statSync(resolved).isDirectory()) continue;
    if (!markdownAnchors(readFileSync(resolved, 'utf8')).has(anchor)) {
      broken.push({ ...link, file, problem: `${relative(root, resolved)} has no heading with the anchor #${anchor}` });
    }
  }
  return broken;
}
