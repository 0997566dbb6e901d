/** Where the installed package lives (bundled dist/, compiled out/, or sources), and its version. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ruleDocPath, type RuleId } from '../rules/catalog';

let root: string | undefined;

export function packageRoot(): string {
  if (root) return root;
  let dir = __dirname;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if (JSON.parse(readFileSync(manifest, 'utf8')).name === 'model-privacy-lint') return (root = dir);
      } catch {
        // not ours; keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return (root = __dirname);
    dir = parent;
  }
}

export function packageVersion(): string {
  try {
    return JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * The link to a rule's page. With a base URL (setting or --docs-base-url) it is `<base><id>.md`;
 * otherwise the page shipped inside the package, so links work offline and match the version.
 */
export function ruleDocUrl(id: RuleId, baseUrl?: string): string {
  if (baseUrl) return `${baseUrl.replace(/\/?$/, '/')}${id}.md`;
  return pathToFileURL(join(packageRoot(), ruleDocPath(id))).href;
}

export function ruleDocText(id: RuleId): string | undefined {
  try {
    return readFileSync(join(packageRoot(), ruleDocPath(id)), 'utf8');
  } catch {
    return undefined;
  }
}
