/**
 * Membership engine (issue 14) on real scikit-learn forests (test/fixtures/membership, written by
 * generate.py: members = a seeded sample, candidates = those members and as many non-members):
 *  - every proven verdict agrees with the truth at the model's resolution (`cell_member`, computed
 *    by scikit-learn's own `apply`), and a proven non-member is never a training row;
 *  - the proofs reach the counts measured when the fixtures were made (floors: a weaker proof fails);
 *  - without usable seeds a bootstrap forest proves no non-member; DP forests prove nothing and
 *    their scores stay inside what the noise allows; boosted models say what they are scored on;
 *  - the metrics' arithmetic on a case checked by hand.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { alignCandidates, readCandidates } from '../../server/src/membership/candidates';
import { assessMembership } from '../../server/src/membership/engine';
import { reconstruct } from '../../server/src/attacks/reconstruction';
import { auc, membershipMetrics, tprAtFpr } from '../../server/src/membership/metrics';
import type { Candidate, MembershipVerdict } from '../../server/src/membership/types';
import { FIXTURES } from '../support/paths';

const DIR = join(FIXTURES, 'membership');
interface Entry { name: string; model: string; candidates: string; estimator: string; bootstrap: boolean; members: number; subsample?: number; warmStart?: boolean; partOfFit?: boolean }
const manifest: Entry[] = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));

/** Proven verdicts measured when the fixtures were made (floors). */
const PROVEN_AT_LEAST: Record<string, { member: number; nonMember: number }> = {
  compas_rows_t10: { member: 14, nonMember: 50 },
  pima_rows_t10: { member: 0, nonMember: 79 },
  pima_extra_t10: { member: 0, nonMember: 66 },
  compas_boot_t10: { member: 0, nonMember: 21 },
  pima_boot_t10: { member: 0, nonMember: 15 },
  wine_gb_multi: { member: 0, nonMember: 13 },
  wine_hgb_multi: { member: 0, nonMember: 0 },
  pima_xgb: { member: 0, nonMember: 0 },
  wine_xgb_multi: { member: 0, nonMember: 0 },
  diabetes_xgb_reg: { member: 0, nonMember: 0 },
  diabetes_gb_reg: { member: 0, nonMember: 0 },
  diabetes_hgb_reg: { member: 0, nonMember: 0 },
  pima_gb: { member: 0, nonMember: 10 },
  breast_cancer_xgb: { member: 0, nonMember: 0 },
  pima_gb_sub: { member: 0, nonMember: 0 },
  pima_xgb_spw: { member: 0, nonMember: 0 },
  pima_tree: { member: 0, nonMember: 0 },
  // warm_start=True: nothing proven (the trees may not share one training set).
  pima_warm_t10: { member: 0, nonMember: 0 },
  // The model analysed saw part of the file's rows, or recoded labels, or other values: nothing proven.
  wine_ovo_dt: { member: 0, nonMember: 0 },
  wine_ecoc_dt: { member: 0, nonMember: 0 },
  pima_calib_rf: { member: 0, nonMember: 0 },
  pima_log1p_rf: { member: 0, nonMember: 0 },
  pima_gb_warm: { member: 0, nonMember: 0 },
};

async function readForest(path: string): Promise<Forest> {
  const report = await lintFile(path, { keepForest: true });
  assert.ok(report.forest, `${path}: ${report.findings.map((f) => f.message).join('; ')}`);
  return report.forest;
}

async function load(entry: Entry): Promise<{ forest: Forest; candidates: Candidate[]; member: boolean[]; cell: boolean[] }> {
  const forest = await readForest(join(DIR, entry.model));
  const path = join(DIR, entry.candidates);
  const file = await readCandidates(path, 'label', 'member');
  // cell_member is truth too: set it aside like the members column.
  const cellColumn = file.data.header.indexOf('cell_member');
  const cell = file.data.rows.map((row) => row[cellColumn] === '1');
  const drop = (row: string[]) => row.filter((_, i) => i !== cellColumn);
  const aligned = alignCandidates({ ...file, data: { ...file.data, header: drop(file.data.header), rows: file.data.rows.map(drop) } }, forest);
  assert.ok(aligned.ok, aligned.ok ? '' : aligned.problem);
  return { forest, candidates: aligned.candidates, member: file.members!, cell };
}

function tally(verdicts: readonly MembershipVerdict[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of verdicts) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

describe('membership: a TransformedTargetRegressor (targets fitted as func(y))', () => {
  const CONTAINERS = join(FIXTURES, 'containers');
  async function scored(name: string) {
    const forest = await readForest(join(CONTAINERS, `${name}.joblib`));
    const file = await readCandidates(join(CONTAINERS, `${name}.candidates.csv`), 'y', 'member');
    const aligned = alignCandidates(file, forest);
    assert.ok(aligned.ok, aligned.ok ? '' : aligned.problem);
    return { forest, candidates: aligned.candidates, result: assessMembership(forest, aligned.candidates), member: file.members! };
  }
  it('log1p: each candidate\'s target is tested in the trees\' scale; no member is a proven non-member, and non-members still are', async () => {
    // Sweep 16: the raw targets against log1p leaves made all 150 members "proven non-members".
    const { forest, candidates, result, member } = await scored('transformed_target_tree');
    assert.equal(forest.targetTransform, 'numpy.log1p');
    // Read as if fitted on y itself, the pure leaves "prove" members absent (112 of 150 when made).
    const raw = assessMembership({ ...forest, targetTransform: undefined }, candidates);
    assert.ok(raw.candidates.filter((c, i) => member[i] && c.verdict === 'non-member').length > 50);
    assert.equal(result.basis, 'regression-targets');
    result.candidates.forEach((c, i) => assert.ok(!(member[i] && c.verdict === 'non-member'), `member ${i + 1} proven a non-member`));
    assert.ok(result.candidates.some((c, i) => !member[i] && c.verdict === 'non-member'), 'no non-member proven: the test would not see the scale');
  });
  it('a StandardScaler on the target (not applied here): no verdict from the targets, the reason says why', async () => {
    const { result } = await scored('transformed_target_scaled');
    assert.equal(result.basis, 'unsupported');
    assert.match(result.reason ?? '', /transformed by StandardScaler before fitting/);
    assert.ok(result.candidates.every((c) => c.verdict === 'unknown'));
  });
});

describe('membership: a proven member has the values its cell pins', () => {
  it('compas_rows_t10: a proven member with one of its 1s made 0.7 or 2 is no longer proven (no training row has that value)', async () => {
    // Soundness sweep 16: 230 of 300 such candidates were "proven members" of a COMPAS forest.
    const { forest, candidates } = await load(manifest.find((e) => e.name === 'compas_rows_t10')!);
    const result = assessMembership(forest, candidates);
    const proven = candidates.filter((_, i) => result.candidates[i].verdict === 'member');
    assert.ok(proven.length >= 10, `${proven.length} proven members`);
    for (const value of [0.7, 2]) {
      const changed = proven.map((c) => {
        const values = [...c.values];
        values[values.findIndex((v) => v === 1)] = value;
        return { ...c, values };
      });
      const again = assessMembership(forest, [...candidates, ...changed]);
      const verdicts = again.candidates.slice(candidates.length).map((c) => c.verdict);
      assert.ok(verdicts.every((v) => v !== 'member'), `${value}: ${JSON.stringify(tally(verdicts))}`);
    }
  });
});

describe('membership: trees of several fit calls (warm_start=True)', () => {
  it('pima_warm_t10: no verdict is proven and the reason says why; read as one training set, the counts would "prove" members absent', async () => {
    const { forest, candidates, member } = await load(manifest.find((e) => e.name === 'pima_warm_t10')!);
    assert.equal(forest.hyperParameters.warm_start, true);
    const result = assessMembership(forest, candidates);
    assert.ok(result.candidates.every((c) => c.verdict !== 'member' && c.verdict !== 'non-member'), JSON.stringify(tally(result.candidates.map((c) => c.verdict))));
    assert.equal(result.basis, 'bootstrap-draws');
    assert.match(result.reason ?? '', /^warm_start=True.*the counts only score/);
    // The same trees as if fitted once: members of one half are "proven" absent from the other half's trees.
    const once = assessMembership({ ...forest, hyperParameters: { ...forest.hyperParameters, warm_start: false } }, candidates);
    assert.ok(once.candidates.some((c, i) => c.verdict === 'non-member' && member[i]), 'the fixture no longer shows the wrong proofs the guard prevents');
  });
  it('read as one training set, the counts contradict each other; handed that, membership proves nothing either', async () => {
    const { forest, candidates, member } = await load(manifest.find((e) => e.name === 'pima_warm_t10')!);
    const once = { ...forest, hyperParameters: { ...forest.hyperParameters, warm_start: false } };
    const rebuilt = await reconstruct(once, { budgetMs: 5_000 });
    assert.equal(rebuilt.status, 'failed');
    assert.match(rebuilt.contradiction ?? '', /the leaf counts contradict each other/);
    const result = assessMembership(once, candidates, { countsContradict: rebuilt.contradiction });
    assert.equal(result.basis, 'bootstrap-draws');
    assert.match(result.reason ?? '', /the leaf counts contradict one training set/);
    assert.ok(result.candidates.every((c, i) => c.verdict !== 'non-member' || !member[i]));
    assert.ok(result.candidates.every((c) => c.verdict !== 'non-member' && c.verdict !== 'member'));
  });
  it('pima_warm_t10: the reconstruction certifies from one tree per class, every certified box a distinct true member, N at least', async () => {
    const { forest, candidates, member } = await load(manifest.find((e) => e.name === 'pima_warm_t10')!);
    const result = await reconstruct(forest, { budgetMs: 5_000 });
    assert.equal(result.method, 'box-estimate', result.reason);
    assert.match(result.reason ?? '', /^warm_start=True/);
    assert.equal(result.rowsKind, 'at-least');
    assert.ok(result.certifiedRows > 0 && (result.rows ?? 0) >= result.certifiedRows);
    // The words give N as a lower bound too, never below the rows certified (sweep 19: "313 of 300 rows").
    const claim = /([\d,]+) of at least ([\d,]+) rows \(training-set size: the last fit call's [\d,]+ stated by the model, or the rows certified if more\)/.exec(result.reason ?? '');
    assert.ok(claim, result.reason);
    assert.ok(Number(claim[2].replace(/,/g, '')) >= Number(claim[1].replace(/,/g, '')), claim[0]);
    // Each certified box (and label) holds a member of its own.
    const members = candidates.filter((_, i) => member[i]);
    const used = new Set<number>();
    for (const row of result.reconstruction.filter((r) => r.certified)) {
      const at = members.findIndex((m, k) => !used.has(k) && m.label === row.label && m.values.every((v, f) => { const box = row.intervals?.[f]; return !box || (Math.fround(Number(v)) > box[0] && Math.fround(Number(v)) <= box[1]); }));
      assert.ok(at >= 0, `a certified box holds no member of its own: ${JSON.stringify(row.intervals)}`);
      used.add(at);
    }
  });
});

describe("membership: models fitted on part of the file's rows, on recoded labels or on other values (soundness sweep 19)", () => {
  // What the guard removes, to show the fixture still makes the wrong proofs it prevents.
  const unguarded: Record<string, (forest: Forest) => Forest> = {
    pima_calib_rf: (f) => ({ ...f, training: { ...f.training, crossValidationFold: undefined } }),
    wine_ovo_dt: (f) => ({ ...f, recoded: undefined }),
    pima_log1p_rf: (f) => ({ ...f, stepsNotFollowed: undefined }),
  };
  for (const entry of manifest.filter((e) => e.partOfFit)) {
    it(`${entry.name}: no verdict is proven, the reason says why`, async () => {
      const { forest, candidates, member } = await load(entry);
      const result = assessMembership(forest, candidates);
      assert.deepEqual(result.candidates.filter((c) => c.verdict === 'member' || c.verdict === 'non-member'), []);
      assert.match(result.reason ?? '', /no verdict is proven: (the model analysed is|the model sits behind Pipeline steps|warm_start=True)/);
      // Gradient boosting states warm_start too (it was not read before stop 44; on this small
      // fixture the second fit's rows happen to leave no zero count against them).
      if (entry.warmStart) assert.equal(forest.hyperParameters.warm_start, true);
      const strip = unguarded[entry.name];
      if (strip) {
        const wrong = assessMembership(strip(forest), candidates).candidates.filter((c, i) => c.verdict === 'non-member' && member[i]).length;
        assert.ok(wrong > 0, `${entry.name}: without the guard no member is "proven" absent: the fixture no longer shows the problem`);
      }
    });
  }

  it("wine_ovo_dt: the member read is one pair's model, its classes the pair's, its certified rows true rows of the pair", async () => {
    const entry = manifest.find((e) => e.name === 'wine_ovo_dt')!;
    const { forest, candidates, member } = await load(entry);
    assert.equal(forest.recoded?.by, 'OneVsOneClassifier');
    assert.equal(forest.classes.length, 2);
    assert.deepEqual(forest.classes, forest.recoded!.classes);
    const pair = new Set(forest.classes.map(String));
    const rows = candidates.filter((c, i) => member[i] && pair.has(String(c.label)));
    assert.equal(forest.training.rows, rows.length, 'N is the rows of the pair');
    const result = await reconstruct(forest, { budgetMs: 5_000 });
    const used = new Set<number>();
    for (const row of result.reconstruction.filter((r) => r.certified)) {
      const at = rows.findIndex((m, k) => !used.has(k) && String(m.label) === String(row.label) && m.values.every((v, f) => row.values[f] === null || row.intervals?.[f] === null || (row.intervals ? Math.fround(Number(v)) > (row.intervals[f]![0] ?? -Infinity) && Math.fround(Number(v)) <= (row.intervals[f]![1] ?? Infinity) : Math.fround(Number(v)) === Math.fround(Number(row.values[f])))));
      assert.ok(at >= 0, `a certified row holds no true row of the pair with its label: ${JSON.stringify(row)}`);
      used.add(at);
    }
    assert.ok(used.size > 0);
  });

  it("wine_ecoc_dt: the member's classes say which classes each code value stands for", async () => {
    const { forest } = await load(manifest.find((e) => e.name === 'wine_ecoc_dt')!);
    assert.equal(forest.recoded?.by, 'OutputCodeClassifier');
    assert.deepEqual(forest.classes, forest.recoded!.classes);
    // Every one of wine's three classes is in exactly one group.
    const groups = forest.classes.map((c) => String(c).split(' or '));
    assert.deepEqual(groups.flat().sort(), ['0', '1', '2']);
  });
});

describe('membership: proven verdicts on scikit-learn fixtures', () => {
  for (const entry of manifest) {
    it(`${entry.name}: every proven verdict is true, and the proofs reach their floor`, async () => {
      const { forest, candidates, member, cell } = await load(entry);
      const result = assessMembership(forest, candidates);
      // Multi-class boosting is read as row counts with one class tree per class; XGBoost is fitted by its sums.
      if (entry.partOfFit) return; // below: 'models fitted on part of the file's rows'
      const basis = /XGB|GradientBoostingRegressor/.test(entry.estimator)
        ? 'boosted-hessians'
        : /GradientBoosting/.test(entry.estimator)
          ? entry.subsample !== undefined ? 'newton-steps' : 'class-trees'
          : entry.bootstrap ? 'replayed-bootstrap' : entry.warmStart ? 'bootstrap-draws' : 'row-counts';
      assert.equal(result.basis, basis);
      assert.equal(result.candidates.length, candidates.length);
      result.candidates.forEach(({ verdict, score }, i) => {
        assert.ok(score >= 0 && score <= 1, `score ${score}`);
        if (verdict === 'member') assert.ok(cell[i], `candidate ${i + 1}: proven member, but no training row with its label shares its cell`);
        if (verdict === 'non-member') {
          assert.ok(!cell[i], `candidate ${i + 1}: proven non-member, but a training row with its label shares its cell`);
          assert.ok(!member[i], `candidate ${i + 1}: proven non-member is a training row`);
        }
      });
      const counts = tally(result.candidates.map((c) => c.verdict));
      const floor = PROVEN_AT_LEAST[entry.name];
      assert.ok((counts.member ?? 0) >= floor.member, `${counts.member ?? 0} proven members, measured ${floor.member}`);
      assert.ok((counts['non-member'] ?? 0) >= floor.nonMember, `${counts['non-member'] ?? 0} proven non-members, measured ${floor.nonMember}`);
      // Members are never excluded, so they all score above every proven non-member (the boosted
      // fit proves nothing: its mass may reach 0 for a member).
      const minMember = Math.min(...result.candidates.filter((_, i) => member[i]).map((c) => c.score));
      if (basis !== 'boosted-hessians' && basis !== 'newton-steps') assert.ok(minMember > 0, 'a member scored 0');
    });
  }

  it('multi-class gradient boosting (class trees): members ranked above non-members (AUC measured 0.854 and 0.791)', async () => {
    for (const [name, floor] of [['wine_gb_multi', 0.8], ['wine_hgb_multi', 0.7]] as const) {
      const { forest, candidates, member } = await load(manifest.find((e) => e.name === name)!);
      const result = assessMembership(forest, candidates);
      assert.match(result.reason ?? '', /first round's tree/);
      const area = auc(result.candidates.map((c) => c.score), member)!;
      assert.ok(area >= floor, `${name}: AUC ${area}`);
    }
  });

  it("log-loss gradient boosting: every leaf's Newton step ranks members above the fit to the rows alone", async () => {
    // Measured: pima_gb (binary GradientBoostingClassifier, 100 stages) 0.969 -> 0.982,
    // wine_hgb_multi (three classes, HistGradientBoostingClassifier) 0.745 -> 0.791.
    for (const [name, floor] of [['pima_gb', 0.975], ['wine_hgb_multi', 0.77]] as const) {
      const { forest, candidates, member } = await load(manifest.find((e) => e.name === name)!);
      assert.ok(forest.logLoss, `${name}: read without its log-loss steps`);
      const result = assessMembership(forest, candidates);
      assert.match(result.reason ?? '', /Newton steps/);
      const { logLoss: _steps, ...rowsOnly } = forest;
      const without = assessMembership(rowsOnly, candidates);
      assert.doesNotMatch(without.reason ?? '', /Newton steps/);
      const [withSteps, alone] = [auc(result.candidates.map((c) => c.score), member)!, auc(without.candidates.map((c) => c.score), member)!];
      assert.ok(withSteps >= floor && withSteps > alone + 0.01, `${name}: AUC ${withSteps} with the steps, ${alone} without`);
      // The same proofs either way: the steps only score.
      assert.deepEqual(result.candidates.map((c) => c.verdict === 'non-member'), without.candidates.map((c) => c.verdict === 'non-member'));
    }
  });

  it('log-loss steps from a broken file (an infinite leaf value) leave those entries out: every score finite, in [0, 1]', async () => {
    const { forest, candidates, member } = await load(manifest.find((e) => e.name === 'pima_gb')!);
    const trees = forest.trees.map((tree, t) => (t === 3 ? { ...tree, boosting: { ...tree.boosting!, leafValue: tree.boosting!.leafValue.map(() => Infinity) } } : tree));
    const result = assessMembership({ ...forest, trees }, candidates);
    assert.equal(result.candidates.length, candidates.length);
    for (const c of result.candidates) assert.ok(Number.isFinite(c.score) && c.score >= 0 && c.score <= 1, `score ${c.score}`);
    // The rest still ranks (measured 0.638); NaN entries would freeze every mass in their leaves (0.522).
    assert.ok(auc(result.candidates.map((c) => c.score), member)! > 0.6);
  });

  it('gradient boosting with subsample: read as stage 0, scored on every stage\'s rows and Newton steps scaled to its draw, nothing proven', async () => {
    // Measured 0.911; on stage 0's draw alone (the basis before, bootstrap-draws) 0.537.
    const { forest, candidates, member } = await load(manifest.find((e) => e.name === 'pima_gb_sub')!);
    assert.equal(forest.trees.length, 1);
    assert.equal(forest.logLoss?.stages?.length, 100);
    const result = assessMembership(forest, candidates);
    assert.equal(result.basis, 'newton-steps');
    assert.match(result.reason ?? '', /subsample 0\.8/);
    for (const c of result.candidates) assert.ok(c.verdict === 'likely-member' || c.verdict === 'likely-non-member', c.verdict);
    const { logLoss: _steps, ...stageZero } = forest;
    const before = assessMembership(stageZero, candidates);
    const [area, alone] = [auc(result.candidates.map((c) => c.score), member)!, auc(before.candidates.map((c) => c.score), member)!];
    assert.ok(area >= 0.88 && area > alone + 0.2, `AUC ${area} on every stage, ${alone} on stage 0`);
  });

  it('a bootstrap forest whose seeds are gone proves no non-member, and says why', async () => {
    const entry = manifest.find((e) => e.name === 'compas_boot_t10')!;
    const { forest, candidates, member, cell } = await load(entry);
    const seedless: Forest = { ...forest, trees: forest.trees.map((t) => ({ ...t, training: {} })) };
    const result = assessMembership(seedless, candidates);
    assert.equal(result.basis, 'bootstrap-draws');
    assert.match(result.reason ?? '', /seeds/);
    assert.equal(result.candidates.filter((c) => c.verdict === 'non-member').length, 0);
    // Proven members need a whole leaf inside the cell; whatever is proven is still true.
    result.candidates.forEach((c, i) => {
      if (c.verdict === 'member') assert.ok(cell[i], `candidate ${i + 1}: proven member without a training row in its cell`);
    });
    const metrics = membershipMetrics(result.candidates.map((c) => c.score), result.candidates.map((c) => c.verdict), member);
    assert.ok(metrics.auc! > 0.5, `AUC ${metrics.auc}`);
  });

  it('trees whose root counts differ were not grown on the same rows: no proofs from zero counts', async () => {
    const entry = manifest.find((e) => e.name === 'pima_rows_t10')!;
    const { forest, candidates } = await load(entry);
    const trees = forest.trees.map((tree, t) => (t === 1 ? { ...tree, classWeights: tree.classWeights.map((w, i) => (i === 0 ? w + 1 : w)) } : tree));
    const result = assessMembership({ ...forest, trees }, candidates);
    assert.equal(result.basis, 'bootstrap-draws');
    assert.match(result.reason ?? '', /root counts differ/);
    assert.equal(result.candidates.filter((c) => c.verdict === 'non-member').length, 0);
  });

  it('one decision tree on numeric features: a training row in a candidate\'s cell (one leaf\'s box) proves no member, so those candidates are scored and counted, not proven', async () => {
    const entry = manifest.find((e) => e.name === 'pima_tree')!;
    const { forest, candidates, member, cell } = await load(entry);
    // The leaves hold non-members beside members: a "member" at the cell's resolution would be wrong for them.
    const sharing = cell.filter((c, i) => c && !member[i]).length;
    assert.ok(sharing > 20, `${sharing} non-members share a leaf and label with a member`);
    const result = assessMembership(forest, candidates);
    assert.equal(result.candidates.filter((c) => c.verdict === 'member').length, 0);
    // Every candidate the counts place in a leaf with rows of its label is in a proven cell; with one tree, that is every non-excluded one.
    const notExcluded = result.candidates.filter((c) => c.verdict !== 'non-member').length;
    assert.equal(result.inProvenCells, notExcluded);
    for (const [i, c] of result.candidates.entries()) if (c.verdict === 'non-member') assert.ok(!member[i]);
  });

  it('a label the model never saw is a proven non-member', async () => {
    const entry = manifest.find((e) => e.name === 'pima_rows_t10')!;
    const { forest, candidates } = await load(entry);
    const result = assessMembership(forest, [{ values: candidates[0].values, label: 7 }]);
    assert.deepEqual(result.candidates[0], { score: 0, verdict: 'non-member' });
  });

  it('certified reconstruction rows prove membership only for candidates whose cell holds their box', async () => {
    const entry = manifest.find((e) => e.name === 'pima_rows_t10')!;
    const { forest, candidates, member } = await load(entry);
    const i = member.indexOf(true);
    const j = member.indexOf(false);
    const row = { values: [...candidates[i].values], label: candidates[i].label, certified: true };
    const result = assessMembership(forest, [candidates[i], candidates[j]], { certifiedRows: [row] });
    assert.equal(result.candidates[0].verdict, 'member');
    assert.notEqual(result.candidates[1].verdict, 'member');
    // The same row with a wider box (one feature undetermined) proves nothing.
    const vague = { ...row, values: row.values.map((v, f) => (f === forest.trees[0].feature[0] ? null : v)) };
    assert.notEqual(assessMembership(forest, [candidates[i]], { certifiedRows: [vague] }).candidates[0].verdict, 'member');
    // A row with intervals is proven only by them: a null interval is unconstrained, the value beside it an estimate.
    const estimateOnly = { ...row, intervals: row.values.map(() => null) };
    assert.notEqual(assessMembership(forest, [candidates[i]], { certifiedRows: [estimateOnly] }).candidates[0].verdict, 'member');
  });

  it('a complete certificate (every training row certified) proves non-members outside every box, and only then', async () => {
    const entry = manifest.find((e) => e.name === 'pima_rows_t10')!;
    const { forest, candidates, member, cell } = await load(entry);
    const members = candidates.filter((_, i) => member[i]);
    // The true rows as certified points (rows without intervals are proven at their values).
    const rows = members.map((c) => ({ values: [...c.values], label: c.label, certified: true }));
    const complete = assessMembership(forest, candidates, { certifiedRows: rows, trainingRows: rows.length });
    complete.candidates.forEach((c, i) => {
      // Members: their own point lies in their cell. Non-members: proven exactly when no member of their label shares the cell.
      if (member[i]) assert.equal(c.verdict, 'member', `member ${i + 1}`);
      else assert.equal(c.verdict === 'non-member', !cell[i], `non-member ${i + 1}: ${c.verdict}`);
    });
    // One row short of N: nothing more is proven than without the rows.
    const partial = assessMembership(forest, candidates, { certifiedRows: rows.slice(1), trainingRows: rows.length });
    const plain = assessMembership(forest, candidates);
    assert.equal(partial.candidates.filter((c) => c.verdict === 'non-member').length, plain.candidates.filter((c) => c.verdict === 'non-member').length);
  });
});

describe('membership: DP and boosted models', () => {
  for (const name of ['dp_compas_t10_d5_e1_s0', 'dp_compas_t10_d5_e30_s0']) {
    it(`${name}: no proven verdict; scores bounded by the noise`, async () => {
      const forest = await readForest(join(FIXTURES, 'dp', `${name}.forest.json`));
      const file = await readCandidates(join(FIXTURES, 'dp', 'compas_s0_n100.train.csv'), 'recidivate-within-two-years:1');
      const aligned = alignCandidates(file, forest);
      assert.ok(aligned.ok);
      const result = assessMembership(forest, aligned.candidates);
      assert.equal(result.basis, 'dp-noise');
      const eps = forest.privacy!.epsilon;
      // Per tree the log-likelihood ratio is at most epsLeaf + log 2.
      const bound = eps + forest.trees.length * Math.LN2;
      for (const c of result.candidates) {
        assert.ok(c.verdict === 'likely-member' || c.verdict === 'likely-non-member', c.verdict);
        const llr = Math.log(c.score / (1 - c.score));
        assert.ok(Math.abs(llr) <= bound + 1e-9, `LLR ${llr} beyond ${bound}`);
      }
    });
  }

  it('DP scores separate members from non-members, more so at a larger epsilon', async () => {
    // Members: the 100 rows dp_compas_*_s0 was trained on; non-members: rows of another COMPAS sample not among them.
    const members = await readCandidates(join(FIXTURES, 'dp', 'compas_s0_n100.train.csv'), 'recidivate-within-two-years:1');
    const other = await readCandidates(join(FIXTURES, 'dp', 'compas_s1_n40.train.csv'), 'recidivate-within-two-years:1');
    const seen = new Set(members.data.rows.map((r) => r.join(',')));
    const outside = { data: { ...other.data, rows: other.data.rows.filter((r) => !seen.has(r.join(','))) } };
    assert.ok(outside.data.rows.length >= 10);
    const aucAt = async (eps: number) => {
      const forest = await readForest(join(FIXTURES, 'dp', `dp_compas_t10_d5_e${eps}_s0.forest.json`));
      const m = alignCandidates(members, forest);
      const o = alignCandidates(outside, forest);
      assert.ok(m.ok && o.ok);
      const result = assessMembership(forest, [...m.candidates, ...o.candidates]);
      return auc(result.candidates.map((c) => c.score), [...m.candidates.map(() => true), ...o.candidates.map(() => false)])!;
    };
    const [weak, strong] = [await aucAt(1), await aucAt(30)];
    assert.ok(strong > 0.6, `AUC ${strong} at epsilon 30`);
    assert.ok(strong > weak, `AUC ${strong} at epsilon 30, ${weak} at 1`);
  });

  it("XGBoost (binary, three classes, squared error) and scikit-learn's squared-error boosting: every tree's sums fitted across candidates rank members above non-members, nothing proven", async () => {
    // Floors below the AUC measured (0.971, 0.836, 1.000, 0.958, 0.794: 30 histogram rounds); tree 0's counts alone (the basis before) ranked pima_xgb at 0.484 and
    // left the others unscored. breast_cancer_xgb, 0.734, needs each tree weighed by its share of
    // the hessian mass (boosted-hessians.ts): without that weighting it ranks at 0.698.
    const floors = [['pima_xgb', 0.9], ['wine_xgb_multi', 0.75], ['diabetes_xgb_reg', 0.95], ['diabetes_gb_reg', 0.9], ['diabetes_hgb_reg', 0.7], ['breast_cancer_xgb', 0.72]] as const;
    for (const [name, floor] of floors) {
      const { forest, candidates, member } = await load(manifest.find((e) => e.name === name)!);
      const result = assessMembership(forest, candidates);
      assert.equal(result.basis, 'boosted-hessians');
      assert.match(result.reason ?? '', /hessian and gradient sums/);
      for (const c of result.candidates) assert.ok(c.verdict !== 'member' && c.verdict !== 'non-member');
      const area = auc(result.candidates.map((c) => c.score), member)!;
      assert.ok(area >= floor, `${name}: AUC ${area}`);
    }
  });

  it('XGBoost with a fractional scale_pos_weight: every positive row\'s hessian and gradient weighted by it, which ranks members far better than counting it as 1', async () => {
    const { forest, candidates, member } = await load(manifest.find((e) => e.name === 'pima_xgb_spw')!);
    assert.ok(Math.abs((forest.hyperParameters.scale_pos_weight as number) - 1.86) < 1e-6, 'the weight is read');
    const aucOf = (model: Forest) => auc(assessMembership(model, candidates).candidates.map((c) => c.score), member)!;
    const weighted = aucOf(forest);
    const unweighted = aucOf({ ...forest, hyperParameters: { ...forest.hyperParameters, scale_pos_weight: 1 } });
    assert.ok(weighted >= 0.9, `AUC ${weighted}`);
    assert.ok(weighted > unweighted + 0.05, `AUC ${weighted} with the weight, ${unweighted} counting it as 1`);
  });

  it('XGBoost dart: later trees were fitted with trees dropped, so it is scored on the first tree, the reason stated', async () => {
    const forest = await readForest(join(FIXTURES, 'xgboost', 'dart_pima.json'));
    const file = await readCandidates(join(FIXTURES, 'xgboost', 'bin_pima.train.csv'), 'label');
    const aligned = alignCandidates(file, forest);
    assert.ok(aligned.ok, aligned.ok ? '' : aligned.problem);
    const result = assessMembership(forest, aligned.candidates);
    assert.equal(result.basis, 'boosted-first-tree');
    assert.match(result.reason ?? '', /first tree/);
    for (const c of result.candidates) assert.ok(c.verdict !== 'member' && c.verdict !== 'non-member');
  });
});

describe('membership metrics', () => {
  it('AUC, TPR at 1% FPR and accuracy on a hand-checked case', () => {
    const scores = [0.9, 0.8, 0.8, 0.1];
    const truth = [true, false, true, false];
    // Pairs (member, non-member): 0.9>0.8, 0.9>0.1, 0.8=0.8 (half), 0.8>0.1: 3.5 of 4.
    assert.equal(auc(scores, truth), 0.875);
    // The top score flags one member and no non-member; the tie at 0.8 flags a non-member (50% FPR).
    assert.equal(tprAtFpr(scores, truth), 0.5);
    const m = membershipMetrics(scores, ['member', 'likely-member', 'likely-non-member', 'non-member'], truth);
    // Right: 0 (member, yes), 3 (non-member, no); wrong: 1 and 2.
    assert.equal(m.accuracy, 0.5);
    assert.equal(m.provenWrong, 0);
    // A proven member on a non-member counts as wrong unless a member shares its cell key.
    assert.equal(membershipMetrics([1, 1], ['member', 'member'], [true, false]).provenWrong, 1);
    const twin = membershipMetrics([1, 1], ['member', 'member'], [true, false], ['a', 'a']);
    assert.deepEqual([twin.provenWrong, twin.twins], [0, 1]);
    assert.equal(m.members, 2);
    assert.equal(auc([1, 1], [true, false]), 0.5);
    assert.equal(auc([1, 0], [true, true]), null);
  });
});
