/**
 * The membership fixtures (test/fixtures/membership, written by generate.py): their manifest, and
 * one model with its candidates lined up to its features and the truth's members.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { alignCandidates, readCandidates } from '../../server/src/membership/candidates';
import { leavesOf } from '../../server/src/membership/leaves';
import type { Candidate } from '../../server/src/membership/types';
import { FIXTURES } from './paths';

export const MEMBERSHIP_FIXTURES = join(FIXTURES, 'membership');

export interface MembershipFixture { name: string; model: string; candidates: string; estimator: string; bootstrap: boolean; warmStart?: boolean; partOfFit?: boolean }

export const membershipFixtures: MembershipFixture[] = JSON.parse(readFileSync(join(MEMBERSHIP_FIXTURES, 'manifest.json'), 'utf8'));

export async function loadMembershipFixture(entry: MembershipFixture): Promise<{ forest: Forest; candidates: Candidate[]; member: boolean[] }> {
  const forest = (await lintFile(join(MEMBERSHIP_FIXTURES, entry.model), { keepForest: true })).forest!;
  const file = await readCandidates(join(MEMBERSHIP_FIXTURES, entry.candidates), 'label', 'member');
  // cell_member is truth, not a feature: drop it before lining the columns up.
  const cellColumn = file.data.header.indexOf('cell_member');
  const drop = (row: string[]) => row.filter((_, i) => i !== cellColumn);
  const aligned = alignCandidates({ ...file, data: { ...file.data, header: drop(file.data.header), rows: file.data.rows.map(drop) } }, forest);
  assert.ok(aligned.ok);
  return { forest, candidates: aligned.candidates, member: file.members! };
}

/** Candidates with the same label and leaves in every tree are one group to any score: asserts they got the same one. */
export function assertSameScoreInSameCell(forest: Forest, candidates: readonly Candidate[], scores: readonly { score: number }[]): void {
  const byCell = new Map<string, number>();
  candidates.forEach((c, i) => {
    const key = `${String(c.label)}|${leavesOf(forest, c.values).join(',')}`;
    const seen = byCell.get(key);
    if (seen === undefined) byCell.set(key, scores[i].score);
    else assert.equal(scores[i].score, seen, `candidate ${i}: its cell's other candidates scored ${seen}`);
  });
}
