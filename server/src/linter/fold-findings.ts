/**
 * A file of many sibling models (a MultiOutputRegressor's twelve forests, a calibrated model's five
 * folds, a search's candidates) fires the same rules once per model: sweep 10 read 49 findings for
 * one 12-output file, the same four rules twelve times. Where a rule fires for FOLD_AT or more of the
 * file's models, its findings become one: the most severe of them (the primary model's on a tie,
 * since it comes first), its detail followed by the others' places and first lines, so no model's
 * figures are lost; `location.alsoIn` lists their places for JSON and SARIF consumers.
 */
import type { Finding } from '../rules/types';
import { detailOf, lead, summaryOf } from '../rules/message';

/** Fewer findings of a rule than this stay apart (two models' findings read fine side by side). */
export const FOLD_AT = 3;

/** How many of the other models' first lines are written out before "and N more". */
const LISTED = 8;

const SEVERITY_ORDER = ['error', 'warning', 'information', 'hint'] as const;

/**
 * `findings`, with each rule that fired for FOLD_AT or more models folded into its first most
 * severe finding. `primary`: where the file's primary model sits (its findings have no
 * `location.model`), `model` when it is the file itself.
 */
export function foldAcrossModels(findings: readonly Finding[], primary: string): Finding[] {
  const modelOf = (finding: Finding) => finding.location.model ?? primary;
  const byRule = new Map<string, Finding[]>();
  for (const finding of findings) byRule.set(finding.rule, [...(byRule.get(finding.rule) ?? []), finding]);
  const folded = new Map<Finding, Finding | null>();
  for (const group of byRule.values()) {
    const models = new Set(group.map(modelOf));
    // Only rules about a model (a finding about the file itself, unsafe globals, has no model) and
    // only when one finding per model: a rule that fires twice for one model keeps its findings.
    if (models.size < FOLD_AT || models.size !== group.length || !group.some((f) => f.location.model !== undefined)) continue;
    const kept = group.reduce((best, f) => (rank(f) < rank(best) ? f : best));
    const others = group.filter((f) => f !== kept);
    folded.set(kept, foldedFinding(kept, others, modelOf));
    for (const other of others) folded.set(other, null);
  }
  const out: Finding[] = [];
  for (const finding of findings) {
    const replaced = folded.get(finding);
    if (replaced === undefined) out.push(finding);
    else if (replaced !== null) out.push(replaced);
  }
  return out;
}

function foldedFinding(kept: Finding, others: readonly Finding[], modelOf: (finding: Finding) => string): Finding {
  const keptSummary = summaryOf(kept.message);
  // Where every other model's first line says what the kept one's says, they are named only, and
  // runs of indexed siblings as one range (`model.estimators_[0] to [10]`).
  const same = others.every((f) => summaryOf(f.message) === keptSummary);
  let listed: string;
  if (same) listed = indexRuns(others.map(modelOf)).join(', ');
  else {
    // Models whose first lines state the same fact (they differ in the remedy only, or not at all)
    // are one entry, their places as runs: 35 AdaBoost members of one file read "(Trees saw every
    // training row once, counts rebuild it)" eight times over before (sweep 16).
    const byFact = new Map<string, string[]>();
    for (const f of others) {
      const key = fact(summaryOf(f.message));
      byFact.set(key, [...(byFact.get(key) ?? []), modelOf(f)]);
    }
    const entries = [...byFact].map(([said, places]) => ({ text: `${indexRuns(places).join(', ')} (${said})`, models: places.length }));
    listed = entries
      .slice(0, LISTED)
      .map((entry) => entry.text)
      .join('; ');
    const rest = entries.slice(LISTED).reduce((n, entry) => n + entry.models, 0);
    if (rest > 0) listed += `; and ${rest} more`;
  }
  const also = `The same holds for ${others.length} other model${others.length === 1 ? '' : 's'} of this file: ${listed}.`;
  const detail = detailOf(kept.message);
  return {
    ...kept,
    message: lead(keptSummary, `${detail ? `${detail} ` : ''}${also}`),
    location: { ...kept.location, alsoIn: others.map(modelOf) },
  };
}

/**
 * Places in order, consecutive indices of one expression written as a range:
 * [`m.estimators_[0]`, `m.estimators_[1]`, `m.estimators_[2]`, `m.x`] -> [`m.estimators_[0] to [2]`, `m.x`].
 */
export function indexRuns(places: readonly string[]): string[] {
  const out: string[] = [];
  let run: { prefix: string; first: number; last: number; text: string } | undefined;
  const flush = () => {
    if (run) out.push(run.first === run.last ? run.text : `${run.text} to [${run.last}]`);
    run = undefined;
  };
  for (const place of places) {
    const m = /^(.*)\[(\d+)\]$/.exec(place);
    if (m && run && run.prefix === m[1] && Number(m[2]) === run.last + 1) {
      run.last++;
      continue;
    }
    flush();
    if (m) run = { prefix: m[1], first: Number(m[2]), last: Number(m[2]), text: place };
    else out.push(place);
  }
  flush();
  return out;
}

/** A first line's fact without its remedy: "1,765 leaves describe a single training row each". */
function fact(summary: string): string {
  const at = summary.lastIndexOf(': ');
  return (at > 0 ? summary.slice(0, at) : summary).replace(/[.]$/, '');
}

function rank(finding: Finding): number {
  return SEVERITY_ORDER.indexOf(finding.severity);
}
