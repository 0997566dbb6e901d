/**
 * How well membership scores separate members from non-members, as membership papers report it:
 *  - AUC: the probability that a random member scores above a random non-member, ties counting
 *    half (the Mann-Whitney statistic; 0.5 is guessing);
 *  - TPR at 1% FPR: the largest share of members caught by a score threshold that flags at most 1%
 *    of non-members (candidates tied at the threshold are flagged together);
 *  - accuracy: the share of candidates whose decision (member or likely-member: yes) is right.
 */
import type { MembershipVerdict } from './types';

export interface MembershipMetrics {
  members: number;
  nonMembers: number;
  accuracy: number;
  auc: number | null;
  tprAt1Fpr: number | null;
  /**
   * Proven verdicts the truth contradicts: a proven non-member that is a member, or a proven member
   * that is a non-member with no member of its label in its cell among the candidates. Should be 0.
   */
  provenWrong: number;
  /**
   * Proven members that are non-members sharing their cell (the same leaf in every tree) and label
   * with a member: right at the model's resolution, which cannot tell the two apart.
   */
  twins: number;
}

export function isMemberDecision(verdict: MembershipVerdict): boolean {
  return verdict === 'member' || verdict === 'likely-member';
}

/** Scores sorted descending, grouped by equal score: [members, non-members] per group. */
function tiedGroups(scores: readonly number[], truth: readonly boolean[]): [number, number][] {
  const order = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a]);
  const groups: [number, number][] = [];
  let last = NaN;
  for (const i of order) {
    if (groups.length === 0 || scores[i] !== last) groups.push([0, 0]);
    groups[groups.length - 1][truth[i] ? 0 : 1]++;
    last = scores[i];
  }
  return groups;
}

export function auc(scores: readonly number[], truth: readonly boolean[]): number | null {
  const groups = tiedGroups(scores, truth);
  const positives = truth.filter(Boolean).length;
  const negatives = truth.length - positives;
  if (positives === 0 || negatives === 0) return null;
  // Walk from the top score down: each member beats every non-member below it, ties half.
  let negativesBelow = negatives;
  let wins = 0;
  for (const [p, n] of groups) {
    negativesBelow -= n;
    wins += p * (negativesBelow + n / 2);
  }
  return wins / (positives * negatives);
}

export function tprAtFpr(scores: readonly number[], truth: readonly boolean[], fpr = 0.01): number | null {
  const positives = truth.filter(Boolean).length;
  const negatives = truth.length - positives;
  if (positives === 0 || negatives === 0) return null;
  let tp = 0;
  let fp = 0;
  let best = 0;
  for (const [p, n] of tiedGroups(scores, truth)) {
    tp += p;
    fp += n;
    if (fp / negatives > fpr) break;
    best = tp / positives;
  }
  return best;
}

/**
 * `cells`, when given: per candidate a key of its cell and label (equal keys: the model cannot tell
 * the rows apart), to check proven members that the truth calls non-members.
 */
export function membershipMetrics(scores: readonly number[], verdicts: readonly MembershipVerdict[], truth: readonly boolean[], cells?: readonly string[]): MembershipMetrics {
  const memberCells = new Set(cells?.filter((_, i) => truth[i]));
  const usable = scores.map((_, i) => i).filter((i) => !Number.isNaN(scores[i]));
  const s = usable.map((i) => scores[i]);
  const t = usable.map((i) => truth[i]);
  let right = 0;
  let provenWrong = 0;
  let twins = 0;
  for (let i = 0; i < truth.length; i++) {
    if (isMemberDecision(verdicts[i]) === truth[i]) right++;
    if (verdicts[i] === 'non-member' && truth[i]) provenWrong++;
    if (verdicts[i] === 'member' && !truth[i]) {
      if (cells && memberCells.has(cells[i])) twins++;
      else provenWrong++;
    }
  }
  const members = truth.filter(Boolean).length;
  return {
    members,
    nonMembers: truth.length - members,
    accuracy: truth.length ? right / truth.length : 0,
    auc: auc(s, t),
    tprAt1Fpr: tprAtFpr(s, t),
    provenWrong,
    twins,
  };
}
