/**
 * What the reports say about membership: counts per verdict, the score distribution, and, when
 * the truth is given, the metrics, ours and the paper's side by side on the same held-out part.
 * Aggregates only: the per-candidate scores and verdicts are personal data and go to the file
 * named with --emit-membership, never here. JSON field `membership` of a file (additive to v1).
 */
import type { BaselineResult, BaselineSplit } from './baseline';
import { auc, isMemberDecision, membershipMetrics, tprAtFpr, type MembershipMetrics } from './metrics';
import type { MembershipBasis, MembershipResult, MembershipVerdict } from './types';

export interface VerdictCounts {
  member: number;
  nonMember: number;
  likelyMember: number;
  likelyNonMember: number;
  unknown: number;
}

export interface HeldOutScores {
  accuracy: number;
  auc: number | null;
  tprAt1Fpr: number | null;
}

export interface MembershipSummary {
  /** The candidate file. */
  candidates: string;
  rows: number;
  /** The candidates' label column; null when --label was left out (an outlier detector's rows have none). */
  labelColumn: string | null;
  matchedBy: 'name' | 'position' | null;
  /** The candidates were the Pipeline's input, turned into the model's values by its fitted steps. */
  throughPipeline?: true;
  basis: MembershipBasis | null;
  reason?: string;
  /** Score at and above which an unproven candidate is likely-member. */
  threshold: number | null;
  verdicts: VerdictCounts;
  /** Candidates in a cell proven to hold a training row of their label that does not pin their values: scored, not proven (absent when none). */
  inProvenCells?: number;
  /** Candidates missing a value of a feature the model splits on: walked as the model walks them, scored, never proven (absent when none). */
  missingValues?: number;
  /** Candidates per score decile [0, 0.1), ..., [0.9, 1]; unscored candidates left out. */
  histogram: number[];
  seconds: number;
  /** With --members-column: ours on every candidate. */
  metrics?: MembershipMetrics & { membersColumn: string };
  /**
   * With --members-column: the paper's attack trained on a seeded, stratified 70% of the candidates
   * and both attacks scored on the other 30% (`paper.reason` when it does not apply).
   */
  comparison?: { heldOut: number; ours: HeldOutScores; paper: (HeldOutScores & { numericFeatures: number; seconds: number }) | { reason: string } };
  /** Why the file could not be used for this model. */
  problem?: string;
}

const KEYS: Record<MembershipVerdict, keyof VerdictCounts> = {
  member: 'member',
  'non-member': 'nonMember',
  'likely-member': 'likelyMember',
  'likely-non-member': 'likelyNonMember',
  unknown: 'unknown',
};

export function emptyCounts(): VerdictCounts {
  return { member: 0, nonMember: 0, likelyMember: 0, likelyNonMember: 0, unknown: 0 };
}

export function histogram(scores: readonly number[], bins = 10): number[] {
  const out = new Array(bins).fill(0);
  for (const s of scores) if (Number.isFinite(s)) out[Math.min(bins - 1, Math.max(0, Math.floor(s * bins)))]++;
  return out;
}

export function summarizeMembership(
  base: { candidates: string; labelColumn: string | null; matchedBy: 'name' | 'position'; throughPipeline?: true },
  result: MembershipResult,
  truth?: { column: string; members: boolean[]; split: BaselineSplit; baseline: BaselineResult; cells?: string[] },
): MembershipSummary {
  const verdicts = emptyCounts();
  for (const c of result.candidates) verdicts[KEYS[c.verdict]]++;
  const scores = result.candidates.map((c) => c.score);
  const summary: MembershipSummary = {
    candidates: base.candidates,
    rows: result.candidates.length,
    labelColumn: base.labelColumn,
    matchedBy: base.matchedBy,
    ...(base.throughPipeline ? { throughPipeline: true } : {}),
    basis: result.basis,
    ...(result.reason ? { reason: result.reason } : {}),
    threshold: result.threshold,
    verdicts,
    ...(result.inProvenCells ? { inProvenCells: result.inProvenCells } : {}),
    ...(result.missingValues ? { missingValues: result.missingValues } : {}),
    histogram: histogram(scores),
    seconds: result.seconds,
  };
  if (truth) {
    const decisions = result.candidates.map((c) => c.verdict);
    summary.metrics = { membersColumn: truth.column, ...membershipMetrics(scores, decisions, truth.members, truth.cells) };
    const test = truth.split.test;
    const s = test.map((i) => scores[i]);
    const t = test.map((i) => truth.members[i]);
    const ours = {
      accuracy: test.length ? test.filter((i) => isMemberDecision(decisions[i]) === truth.members[i]).length / test.length : 0,
      auc: auc(s, t),
      tprAt1Fpr: tprAtFpr(s, t),
    };
    const b = truth.baseline;
    summary.comparison = {
      heldOut: test.length,
      ours,
      paper: b.applies ? { accuracy: b.accuracy, auc: b.auc, tprAt1Fpr: b.tprAt1Fpr, numericFeatures: b.numericFeatures, seconds: b.seconds } : { reason: b.reason },
    };
  }
  return summary;
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${(100 * v).toFixed(1)}%`);
const num = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : v.toFixed(3));

/** The text report's lines. */
export function membershipLines(m: MembershipSummary): string[] {
  if (m.problem) return [`membership: ${m.candidates} not used (${m.problem})`];
  const v = m.verdicts;
  const lines = [
    `membership of ${m.rows} candidates (${m.candidates}${m.throughPipeline ? ", the Pipeline's input through its fitted steps" : ''}; ${m.basis}${m.reason ? `: ${m.reason}` : ''}): ` +
      `proven ${v.member} member, ${v.nonMember} non-member; likely ${v.likelyMember} member, ${v.likelyNonMember} non-member; ${v.unknown} unknown` +
      (m.inProvenCells ? ` (${m.inProvenCells} of them in a cell proven to hold a training row of their label, which does not pin their values: scored, not proven)` : ''),
  ];
  if (m.missingValues) lines.push(`membership: ${m.missingValues} candidates miss a value the model splits on: each follows the split's direction for a missing value, and is scored, never proven`);
  if (m.metrics) {
    lines.push(`membership against ${m.metrics.membersColumn}: AUC ${num(m.metrics.auc)}, accuracy ${pct(m.metrics.accuracy)}, TPR at 1% FPR ${pct(m.metrics.tprAt1Fpr)}, proven verdicts contradicted by the truth ${m.metrics.provenWrong} (proven members that are a member's twin up to the model's splits: ${m.metrics.twins})`);
  }
  if (m.comparison) {
    const p = m.comparison.paper;
    const paper = 'reason' in p ? `n/a (${p.reason})` : `AUC ${num(p.auc)}, accuracy ${pct(p.accuracy)}, TPR at 1% FPR ${pct(p.tprAt1Fpr)}`;
    lines.push(`membership on the held-out ${m.comparison.heldOut} (the 30% of candidates the paper's attack does not train its inference model on, both attacks scored there): ours AUC ${num(m.comparison.ours.auc)}, accuracy ${pct(m.comparison.ours.accuracy)}, TPR at 1% FPR ${pct(m.comparison.ours.tprAt1Fpr)}; the paper's range attack ${paper}`);
  }
  return lines;
}
