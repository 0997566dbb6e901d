/**
 * Candidates with missing values (an empty cell, `nan`, `NA`, ... in the candidate file). Each is
 * walked as the model walks it: a missing value follows the split's direction for it
 * (forest/structure.ts `missingGoesLeft`), so its leaves and score are the model's own.
 *
 * Nothing about such a candidate is stated as proven. A cell proof reads the candidate's leaves as
 * the intersection of intervals, and a missing value is no interval: the real values the same side
 * holds are the model's twins of it, and which side a missing value takes is the file's word only
 * where it states a direction (older scikit-learn refuses missing values; a direction the reader
 * rewrote for a feature without missing values, missing-directions.ts, is not the model's). So the
 * proven verdicts of these candidates are read as likely ones, and the result counts them.
 */
import type { Forest } from '../forest/schema';
import { LEAF } from '../forest/schema';
import type { Candidate, MembershipResult } from './types';

/** Per candidate: whether a feature some tree splits on is missing (NaN). */
export function missingOnSplits(forest: Pick<Forest, 'trees' | 'features'>, candidates: readonly Candidate[]): boolean[] {
  const split = new Uint8Array(forest.features.length);
  for (const tree of forest.trees) {
    for (let n = 0; n < tree.left.length; n++) if (tree.left[n] !== LEAF && tree.feature[n] >= 0) split[tree.feature[n]] = 1;
  }
  return candidates.map((c) => c.values.some((v, f) => Number.isNaN(v) && split[f] === 1));
}

/** The result with every proven verdict of a flagged candidate read as the likely one. */
export function withoutProofsForMissing(result: MembershipResult, missing: readonly boolean[]): MembershipResult {
  const count = missing.filter(Boolean).length;
  if (count === 0) return result;
  const candidates = result.candidates.map((v, i) => {
    if (!missing[i]) return v;
    if (v.verdict === 'member') return { ...v, verdict: 'likely-member' as const };
    if (v.verdict === 'non-member') return { ...v, verdict: 'likely-non-member' as const };
    return v;
  });
  return { ...result, candidates, missingValues: count };
}
