/**
 * The command line's membership step (`--membership FILE.csv --label COLUMN`, issue 14), run for
 * each model after its reconstruction (whose certified rows can prove membership): lines the
 * candidates up with the model, scores them (membership/engine.ts), runs the paper's attack beside
 * it when the truth is given (`--members-column`), fills `report.membership` (aggregates only) and
 * writes the per-candidate scores and verdicts to `--emit-membership` (personal data: only there).
 */
import { promises as fs } from 'node:fs';
import type { FileReport } from '../linter/linter';
import type { Forest } from '../forest/schema';
import type { ReconstructedRow } from '../attacks/reconstruction/types';
import { alignCandidates, type CandidateFile } from '../membership/candidates';
import { assessMembership } from '../membership/engine';
import { runBaseline, splitKnown } from '../membership/baseline';
import { emptyCounts, summarizeMembership } from '../membership/summary';
import { leavesOf } from '../membership/leaves';
import { csvLine } from '../util/csv';
import type { RuleId, Severity } from '../rules/catalog';
import type { Finding } from '../rules/types';
import { lead } from '../rules/message';
import type { MembershipSummary } from '../membership/summary';
import type { MembershipResult } from '../membership/types';

export interface MembershipStepOptions {
  file: CandidateFile;
  /** Rows of this model's reconstruction, if it ran, and the training rows N it states. */
  reconstruction?: readonly ReconstructedRow[];
  trainingRows?: number | null;
  /** The reconstruction's `contradiction` when it found the counts contradictory (then nothing is proven). */
  countsContradict?: string;
  emitPath?: string;
  /** --severity overrides (the finding's level, or off). */
  severities?: Partial<Record<RuleId, Severity>>;
  log: (message: string) => void;
}

export interface MembershipStepOutcome {
  fits: boolean;
  writeFailed?: boolean;
}

export async function membershipStep(report: FileReport, forest: Forest, options: MembershipStepOptions): Promise<MembershipStepOutcome> {
  const { file } = options;
  const scored = scoreMembership(forest, file, options);
  report.membership = scored.summary;
  if (!scored.result) {
    options.log(`${report.path}: --membership does not fit this model: ${scored.summary.problem}`);
    return { fits: false };
  }
  if (scored.finding && !report.disabledRules?.includes('membership-exposure')) report.findings.push(scored.finding);
  if (!options.emitPath) return { fits: true };
  const { result } = scored;
  const lines = [csvLine(['row', 'score', 'verdict']), ...result.candidates.map((c, i) => csvLine([String(i + 1), Number.isNaN(c.score) ? '' : String(c.score), c.verdict]))];
  try {
    await fs.writeFile(options.emitPath, lines.join(''));
  } catch (error) {
    options.log(`${report.path}: cannot write ${options.emitPath} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    return { fits: true, writeFailed: true };
  }
  options.log(`${report.path}: membership of ${result.candidates.length} candidates written to ${options.emitPath}`);
  return { fits: true };
}

export interface ScoredMembership {
  /** The aggregates (with `problem` when the file does not fit the model). */
  summary: MembershipSummary;
  /** The `membership-exposure` finding, when anything is proven and the rule is not off. */
  finding?: Finding;
  /** Per-candidate scores and verdicts (personal data: the caller writes them only to --emit-membership); absent when the file does not fit. */
  result?: MembershipResult;
}

/**
 * The one membership computation, shared by the command line (above) and the editor's background
 * job (jobs/reconstruction-worker.ts): aligns the candidates, scores them, runs the paper's attack
 * beside ours when the truth is given, and states the finding. Touches no file.
 */
export function scoreMembership(
  forest: Forest,
  file: CandidateFile,
  options: Pick<MembershipStepOptions, 'reconstruction' | 'trainingRows' | 'countsContradict' | 'severities'>,
): ScoredMembership {
  const aligned = alignCandidates(file, forest);
  if (!aligned.ok) {
    return {
      summary: {
        candidates: file.data.path,
        rows: file.data.rows.length,
        labelColumn: file.data.labelColumn ?? null,
        matchedBy: null,
        basis: null,
        threshold: null,
        verdicts: emptyCounts(),
        histogram: [],
        seconds: 0,
        problem: aligned.problem,
      },
    };
  }
  const result = assessMembership(forest, aligned.candidates, { certifiedRows: options.reconstruction?.filter((row) => row.certified) ?? [], trainingRows: options.trainingRows, ...(options.countsContradict ? { countsContradict: options.countsContradict } : {}) });
  let truth;
  if (file.members) {
    const split = splitKnown(file.members);
    // Cell keys, to tell a wrong proven member from a non-member the model cannot tell from a member.
    const cells = aligned.candidates.map((c) => `${String(c.label)}|${leavesOf(forest, c.values).join(',')}`);
    truth = { column: file.membersColumn!, members: file.members, split, baseline: runBaseline(forest, aligned.candidates, file.members, split), cells };
  }
  const summary = summarizeMembership({ candidates: file.data.path, labelColumn: file.data.labelColumn ?? null, matchedBy: aligned.matchedBy, ...(aligned.throughPipeline ? { throughPipeline: true as const } : {}) }, result, truth);
  const finding = exposureFinding(summary, options.severities?.['membership-exposure']);
  return { summary, result, ...(finding ? { finding } : {}) };
}

/** `membership-exposure`: how many candidates the model proves in or out; none when it proves nothing. */
export function exposureFinding(m: MembershipSummary, severity: Severity | undefined): Finding | undefined {
  const { member, nonMember } = m.verdicts;
  if (member + nonMember === 0 || severity === 'off') return undefined;
  const summary = member > 0 ? `${member} of ${m.rows} candidates are proven members of the training data.` : `${nonMember} of ${m.rows} candidates are proven absent from the training data.`;
  const detail =
    `From ${m.candidates}, the model alone proves ${member} candidate${member === 1 ? '' : 's'} a member (a training row with the label lies in the candidate's cell, the same leaf in every tree, and has the candidate's values on every feature the model splits on) ` +
    `and ${nonMember} a non-member (${m.basis}). Scores and verdicts per person are written only by the command line (--emit-membership), never shown in the editor.`;
  return { rule: 'membership-exposure', severity: severity ?? 'warning', message: lead(summary, detail), location: {}, data: { candidates: m.rows, member, nonMember, basis: m.basis } };
}
