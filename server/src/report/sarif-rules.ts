/**
 * What code-scanning services need to know about each rule beyond the catalog: tags, precision and
 * GitHub's `security-severity` (a CVSS-like score, 0.1-10; GitHub ranks alerts by it: 9.0 and over
 * critical, 7.0-8.9 high, 4.0-6.9 medium, 0.1-3.9 low). The scores are CVSS 3.1 base scores of the
 * exposure each rule reports, written out below so they can be argued with; they rank alerts, they
 * do not measure a particular model (the reconstruction finding's own level does that).
 */
import type { RuleId } from '../rules/catalog';

export interface SarifRuleMeta {
  /** GitHub filters by tags (at most 10 shown); `security` makes the rule a security rule. */
  tags: string[];
  /** How often a result is a true positive, GitHub's scale. */
  precision: 'very-high' | 'high' | 'medium' | 'low';
  /** CVSS 3.1 base score as a string, as GitHub wants it; absent for rules that are not about security. */
  securitySeverity?: string;
}

// Every rule states a fact read from the file (counts, seeds, opcodes), not a guess: hence the high
// precisions. CWE-359 is "Exposure of Private Personal Information", CWE-200 "Exposure of
// Sensitive Information", CWE-502 "Deserialization of Untrusted Data".
const PRIVACY = ['security', 'privacy', 'training-data'];

export const SARIF_RULES: Partial<Record<RuleId, SarifRuleMeta>> = {
  // AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H = 8.8: whoever loads the file in Python runs the named
  // code (user interaction: someone has to load it). Only globals on the curated dangerous list
  // (formats/pickle/dangerous-globals.ts) count; a conservative rule also counts dotted and
  // malformed names, which a benign file rarely has: high, not very-high.
  'unsafe-pickle': { tags: ['security', 'external/cwe/cwe-502', 'deserialization'], precision: 'high', securitySeverity: '8.8' },
  // AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:L = 5.0: loading imports (and may call) code of modules the
  // linter does not know; harm needs a gadget in an installed library (attack complexity high).
  // Precision medium: most such globals are another library's harmless classes.
  'unknown-pickle-global': { tags: ['security', 'external/cwe/cwe-502', 'deserialization'], precision: 'medium', securitySeverity: '5.0' },
  // Not a security finding: the file could not be checked. Reported so a CI run does not pass silently.
  'unreadable-model': { tags: ['reliability', 'correctness'], precision: 'very-high' },
  // AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N = 7.5: the rows (personal data) are in the file as they are,
  // no attack needed; precision high: a saved table need not be the training set.
  'saved-data': { tags: [...PRIVACY, 'external/cwe/cwe-359'], precision: 'high', securitySeverity: '7.5' },
  // Notes: what the file is, so a CI log shows it was looked at; nothing leaks that the tool measured.
  'no-tree-model': { tags: ['reliability'], precision: 'very-high' },
  'unsupported-model': { tags: ['reliability'], precision: 'very-high' },
  'no-training-counts': { tags: ['reliability'], precision: 'very-high' },
  // AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N = 5.9: the whole training set can follow, but only through a
  // solver run (attack complexity high); the measured outcome is reconstructable-training-set.
  'no-bootstrap': { tags: [...PRIVACY, 'external/cwe/cwe-359'], precision: 'very-high', securitySeverity: '5.9' },
  'replayable-bootstrap': { tags: [...PRIVACY, 'external/cwe/cwe-359'], precision: 'very-high', securitySeverity: '5.9' },
  // AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N = 5.3: a leaf with one row states that one person with
  // these attributes and this label is in the data (membership, partial attributes), no solver needed.
  'singleton-leaf': { tags: [...PRIVACY, 'external/cwe/cwe-359', 'membership-inference'], precision: 'very-high', securitySeverity: '5.3' },
  // AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N = 3.7: raw material for attacks, nothing disclosed by itself.
  'exact-counts': { tags: [...PRIVACY, 'external/cwe/cwe-200'], precision: 'very-high', securitySeverity: '3.7' },
  // 5.3 as singleton-leaf: rows and labels per leaf are read off directly (exact only under the
  // rule's stated conditions, hence high).
  'first-tree-exposes-counts': { tags: [...PRIVACY, 'external/cwe/cwe-200'], precision: 'high', securitySeverity: '5.3' },
  // 5.3 as singleton-leaf, plus the person's exact target value (an attribute disclosure).
  'leaf-reveals-target': { tags: [...PRIVACY, 'external/cwe/cwe-359', 'attribute-inference'], precision: 'very-high', securitySeverity: '5.3' },
  // 5.3: the dump's first-tree cover is the same count disclosure, shared in a readable file.
  'exported-statistics': { tags: [...PRIVACY, 'external/cwe/cwe-200'], precision: 'very-high', securitySeverity: '5.3' },
  // AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N = 7.5: training rows (personal data) are rebuilt and, when
  // certified, proven to be real rows. The result's level (error/warning/note) follows how many are
  // proven; estimates come out as notes.
  'reconstructable-training-set': { tags: [...PRIVACY, 'external/cwe/cwe-359', 'reconstruction'], precision: 'very-high', securitySeverity: '7.5' },
  // 5.3 as singleton-leaf: a person's presence in (or absence from) the data is proven from the model alone.
  'membership-exposure': { tags: [...PRIVACY, 'external/cwe/cwe-359', 'membership-inference'], precision: 'very-high', securitySeverity: '5.3' },
  // Training-script rules (the editor's script analysis; the CLI does not read scripts yet). They
  // flag the line that WILL produce a leaking model, so they rank a step below the model's own
  // findings: AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N = 5.3 for the settings that let the whole training
  // set be rebuilt (no bagging, stored seeds, a weak epsilon), 3.1 (C:L) for small leaves and dumped
  // statistics, which expose counts. Precision medium: the script is read, not run, so a value set
  // elsewhere (a config file, a variable) can make a finding wrong.
  'script-no-bootstrap': { tags: [...PRIVACY, 'external/cwe/cwe-359', 'training-script'], precision: 'medium', securitySeverity: '5.3' },
  'script-stored-seeds': { tags: [...PRIVACY, 'external/cwe/cwe-359', 'training-script'], precision: 'medium', securitySeverity: '5.3' },
  'script-dp-epsilon': { tags: [...PRIVACY, 'external/cwe/cwe-359', 'training-script'], precision: 'medium', securitySeverity: '5.3' },
  'script-small-leaves': { tags: [...PRIVACY, 'external/cwe/cwe-200', 'training-script'], precision: 'medium', securitySeverity: '3.1' },
  'script-dump-with-stats': { tags: [...PRIVACY, 'external/cwe/cwe-200', 'training-script'], precision: 'medium', securitySeverity: '3.1' },
};

/** For a rule added to the catalog without an entry above (the unit test asks for one). */
export const SARIF_RULE_FALLBACK: SarifRuleMeta = { tags: ['privacy'], precision: 'high' };

/** GitHub limits rule descriptions to 1024 characters. */
const DESCRIPTION_LIMIT = 1024;

/**
 * The first prose paragraph of a rule page, as plain text: what GitHub shows as the rule's full
 * description. Skips the title, the "Default severity" line, headings, tables and lists.
 */
export function fullDescriptionFromDoc(markdown: string): string | undefined {
  const paragraphs = markdown.replace(/\r\n/g, '\n').split(/\n\s*\n/);
  for (const paragraph of paragraphs) {
    const lines = paragraph
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    if (lines.length === 0) continue;
    const first = lines[0];
    if (first.startsWith('**Default severity') || first.startsWith('|') || /^([-*+]|\d+\.)\s/.test(first) || first.startsWith('```')) continue;
    const text = lines
      .join(' ')
      .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
      .replace(/\*\*?([^*]+)\*\*?/g, '$1')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/\s+/g, ' ');
    return clip(text, DESCRIPTION_LIMIT);
  }
  return undefined;
}

/** Cuts at the last sentence end within the limit (or the last space), so nothing ends mid-word. */
function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit - 1);
  const sentence = head.lastIndexOf('. ');
  if (sentence > limit / 2) return head.slice(0, sentence + 1);
  return `${head.slice(0, head.lastIndexOf(' '))}…`;
}
