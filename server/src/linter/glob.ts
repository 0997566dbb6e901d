/**
 * Workspace glob patterns (the `modelPrivacyLint.files` setting) as regular expressions, for the
 * server's start-up scan. VS Code evaluates the same patterns for the client's file watchers.
 * Supports `**`, `*`, `?`, `{a,b}` and character classes `[...]`.
 */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  let inGroup = false;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches any number of directories, including none.
        const slash = glob[i + 2] === '/';
        out += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else {
        out += '[^/]*';
      }
    } else if (ch === '?') out += '[^/]';
    else if (ch === '{') {
      inGroup = true;
      out += '(?:';
    } else if (ch === '}' && inGroup) {
      inGroup = false;
      out += ')';
    } else if (ch === ',' && inGroup) out += '|';
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) out += '\\[';
      else {
        out += `[${glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += ch.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Whether a workspace-relative path (with `/` separators) matches any of the globs. */
export function matchesAny(relativePath: string, globs: readonly RegExp[]): boolean {
  return globs.some((glob) => glob.test(relativePath));
}
