/**
 * SARIF 2.1.0, the format code-scanning services ingest. Each rule carries its help text and link;
 * binary model files get a file-level location (no region), text files a region (1-based).
 */
import { relative, sep } from 'node:path';
import type { FileReport } from '../linter';
import { RULES, RULE_IDS } from '../rules/catalog';
import type { Finding } from '../rules/types';
import { packageVersion, ruleDocText, ruleDocUrl } from '../package-info';

const LEVEL: Record<Finding['severity'], 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  information: 'note',
  hint: 'note',
};

function artifactUri(path: string, baseDir: string): string {
  const rel = relative(baseDir, path);
  const usable = rel && !rel.startsWith('..') ? rel : path;
  return usable.split(sep).map(encodeURIComponent).join('/');
}

export function toSarif(files: FileReport[], options: { baseDir: string; docsBaseUrl?: string }): object {
  const rules = RULE_IDS.map((id) => {
    const markdown = ruleDocText(id);
    return {
      id,
      name: id.replace(/(^|-)([a-z])/g, (_m, _dash, c: string) => c.toUpperCase()),
      shortDescription: { text: RULES[id].title },
      helpUri: ruleDocUrl(id, options.docsBaseUrl),
      ...(markdown ? { help: { text: RULES[id].title, markdown } } : {}),
      defaultConfiguration: { level: LEVEL[RULES[id].defaultSeverity] },
    };
  });
  const results = files.flatMap((file) =>
    file.findings.map((finding) => {
      const range = finding.location.range;
      return {
        ruleId: finding.rule,
        ruleIndex: RULE_IDS.indexOf(finding.rule),
        level: LEVEL[finding.severity],
        message: { text: finding.message },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: artifactUri(file.path, options.baseDir), uriBaseId: '%SRCROOT%' },
              ...(range
                ? {
                    region: {
                      startLine: range.start.line + 1,
                      startColumn: range.start.character + 1,
                      endLine: range.end.line + 1,
                      endColumn: range.end.character + 1,
                    },
                  }
                : {}),
            },
          },
        ],
        ...(finding.location.tree !== undefined ? { properties: { tree: finding.location.tree, node: finding.location.node } } : {}),
      };
    }),
  );
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'model-privacy-lint', version: packageVersion(), semanticVersion: packageVersion(), rules } },
        results,
      },
    ],
  };
}

export function writeSarif(files: FileReport[], options: { baseDir: string; docsBaseUrl?: string }): string {
  return `${JSON.stringify(toSarif(files, options), null, 2)}\n`;
}
