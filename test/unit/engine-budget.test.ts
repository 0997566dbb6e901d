/**
 * The engine keeps its budget and its memory on a forest of real size (issue 13): scikit-learn's
 * default RandomForestClassifier on all 7,206 COMPAS rows (test/fixtures/scale, written by
 * generate.py), the model whose replayed-bootstrap formulation used to grow to 4.3 GB and crash
 * after 212 s. Unbounded, its candidate enumeration alone takes minutes and its formulation would
 * hold about 166M entries, so a phase that ignores the deadline or the memory cap fails here by
 * far, not by a margin.
 *
 *  - a 1 s budget, with and without the one-hot groups: within the brief's tolerance (10% + 1 s)
 *    plus one second for a loaded 2-core CI machine; with the groups the first rows project the
 *    formulation past its memory cap and the box estimate answers; without them the table of
 *    points may take the budget first (a timeout); whatever is certified is true;
 *  - the formulation's memory cap: the reason says so, the box estimate answers with certified
 *    rows, the process does not grow by hundreds of MB, and the answer is sound (each certified
 *    box holds a true row of its own);
 *  - bound propagation stops at its deadline with sound, partial bounds;
 *  - the table of points (bootstrap/point-candidates.ts) gives every row of the bootstrap fixtures
 *    the same candidates as the search it replaces (row-candidates.ts), with and without groups.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { MAX_RECONSTRUCTED_ROWS, reconstruct } from '../../server/src/attacks/reconstruction';
import { completeForest } from '../../server/src/forest/complete';
import { forest as forestOf, stump } from '../support/forests';
import type { CategoricalGroup, ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import { FORMULATION_ENTRY_CAP } from '../../server/src/attacks/reconstruction/memory';
import { MEMORY_SHARE } from '../../server/src/attacks/reconstruction/highs/milp-thread';
import { propagateSystem } from '../../server/src/attacks/reconstruction/propagation';
import { SystemBuilder } from '../../server/src/attacks/reconstruction/bootstrap/system';
import { buildPointTable, pointCandidates } from '../../server/src/attacks/reconstruction/bootstrap/point-candidates';
import { rowCandidates, type RowCandidates } from '../../server/src/attacks/reconstruction/bootstrap/row-candidates';
import { replayDraws } from '../../server/src/attacks/reconstruction/bootstrap/draws';
import { buildLeafTable } from '../../server/src/attacks/reconstruction/leaves';
import type { FixtureEntry } from '../support/reconstruction-truth';
import type { Forest } from '../../server/src/forest/schema';
import { lintFile } from '../../server/src/linter/linter';
import { FIXTURES } from '../support/paths';
import { maximumMatching } from '../support/bipartite-matching';

const DIR = join(FIXTURES, 'scale');
interface Truth {
  features: string[];
  classes: number[];
  groups: CategoricalGroup[];
  /** Bit f: feature f; bit 14: the label. */
  rows: number[];
}
const truth: Truth = JSON.parse(readFileSync(join(DIR, 'compas_rf100.truth.json'), 'utf8'));
const LABEL_BIT = 14;

/** The brief's tolerance, and one second more for a loaded CI machine (2 cores). */
const allowedSeconds = (budgetMs: number) => (budgetMs / 1000) * 1.1 + 1 + 1;

function assertSound(result: ReconstructionResult, packedRows: readonly number[] = truth.rows): void {
  // The box estimate's rows have no index: every certified box gets a true row of its own inside it.
  if (result.method === 'box-estimate') return assertSoundBoxes(result, packedRows);
  let certified = 0;
  for (const row of result.reconstruction) {
    assert.ok(row.index !== undefined && row.index >= 0 && row.index < packedRows.length, `index ${row.index}`);
    const packed = packedRows[row.index];
    const value = (f: number) => (packed >> f) & 1;
    if (row.certified) {
      certified++;
      assert.equal(Number(row.label), (packed >> LABEL_BIT) & 1, `certified row ${row.index}: label`);
      row.values.forEach((v, f) => assert.ok(v === null || v === value(f), `certified row ${row.index}, feature ${f}`));
    }
    row.certifiedValues?.forEach((proven, f) => {
      if (proven) assert.equal(row.values[f], value(f), `row ${row.index}: certified value of feature ${f}`);
    });
  }
  assert.equal(certified, result.certifiedRows);
}

/** Each certified box (binary features: (-inf, 0.5] for 0, (0.5, inf) for 1) holds a distinct true row with its label. */
function assertSoundBoxes(result: ReconstructionResult, packedRows: readonly number[]): void {
  const certified = result.reconstruction.filter((row) => row.certified);
  const fits = (row: (typeof certified)[number], packed: number) =>
    Number(row.label) === ((packed >> LABEL_BIT) & 1) &&
    (row.intervals ?? []).every((interval, f) => !interval || (((packed >> f) & 1) > interval[0] && ((packed >> f) & 1) <= interval[1]));
  const adjacency = certified.map((row) => packedRows.flatMap((packed, r) => (fits(row, packed) ? [r] : [])));
  assert.equal(maximumMatching(adjacency, packedRows.length).size, certified.length, 'every certified box holds a true row of its own');
  assert.equal(certified.length, result.certifiedRows);
}

describe('the default bagged forest on 7,206 COMPAS rows', () => {
  let forest: Forest;
  before(async () => {
    const report = await lintFile(join(DIR, 'compas_rf100.joblib'), { keepForest: true });
    assert.ok(report.forest, report.findings.map((f) => f.message).join('; '));
    forest = report.forest;
    assert.equal(forest.trees.length, 100);
    assert.equal(forest.training.bootstrap, true);
  });

  for (const grouped of [true, false]) {
    // 1 s, not 2: the whole run takes about 2.3 s on this machine unloaded, so 2 s was not always short of it.
    it(`a 1 s budget ${grouped ? 'with' : 'without'} the one-hot groups: timeout in time, what it answers is true`, async () => {
      const budgetMs = 1_000;
      const started = Date.now();
      const result = await reconstruct(forest, { budgetMs, ...(grouped ? { groups: truth.groups } : {}) });
      const seconds = (Date.now() - started) / 1000;
      assert.ok(seconds <= allowedSeconds(budgetMs), `took ${seconds.toFixed(1)} s on a 1 s budget`);
      assert.equal(result.rows, 7206);
      if (grouped) {
        // The first rows' candidates project the formulation past its cap within the second.
        assert.equal(result.method, 'box-estimate', result.reason);
        assert.match(result.reason ?? '', /over the memory cap of/);
        assert.ok(result.certifiedRows > 0, result.reason);
      } else {
        // Without groups the table of 16,384 points can take the whole budget on a loaded machine.
        assert.match(result.reason ?? '', /time budget of 1\.0 s ran out|over the memory cap of/);
      }
      assertSound(result);
    });
  }

  it('a longer budget crosses the memory cap: said so, memory stays bounded, the answer stays sound', async () => {
    const budgetMs = 6_000;
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const started = Date.now();
    const result = await reconstruct(forest, { budgetMs, groups: truth.groups });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const seconds = (Date.now() - started) / 1000;
    assert.ok(seconds <= allowedSeconds(budgetMs), `took ${seconds.toFixed(1)} s on a 6 s budget`);
    assert.ok(['timeout', 'bounded'].includes(result.status), result.status);
    assert.equal(result.method, 'box-estimate');
    assert.match(result.reason ?? '', /over the memory cap of/);
    // Before the cap, this run grew past 4 GB; the candidates it keeps now are a few MB.
    assert.ok(peak - rssBefore < 400 * 2 ** 20, `the process grew by ${((peak - rssBefore) / 2 ** 20).toFixed(0)} MB`);
    assert.equal(result.reconstruction.length, 7206);
    // Each row answering from its own candidates, as before the box estimate, certified none.
    assert.ok(result.certifiedRows > 0);
    assertSound(result);
    assert.ok(FORMULATION_ENTRY_CAP < 166e6);
  });
});

describe('the default bagged forest on 1,000 COMPAS rows: over the solver\'s memory cap, within the system\'s', () => {
  it('bound propagation and probing answer within the budget; every certified row is true', async () => {
    const small: Truth = JSON.parse(readFileSync(join(DIR, 'compas1k_rf100.truth.json'), 'utf8'));
    const report = await lintFile(join(DIR, 'compas1k_rf100.joblib'), { keepForest: true });
    assert.ok(report.forest);
    const budgetMs = 20_000;
    const started = Date.now();
    const result = await reconstruct(report.forest, { budgetMs, groups: small.groups });
    const seconds = (Date.now() - started) / 1000;
    assert.ok(seconds <= allowedSeconds(budgetMs), `took ${seconds.toFixed(1)} s on a 20 s budget`);
    assert.equal(result.method, 'replayed-bootstrap');
    assert.equal(result.status, 'bounded', result.reason);
    assert.match(result.reason ?? '', /over the solver's memory cap of 6\.0M: rows certified by bound propagation and probing only/);
    assert.equal(result.reconstruction.length, 1000);
    // Measured when the fixture was made: 213 rows (a floor: weaker propagation fails here).
    assert.ok(result.certifiedRows >= 200, `${result.certifiedRows} rows certified`);
    assertSound(result, small.rows);
  });
});

describe('bound propagation keeps a deadline', () => {
  // A chain x0 = 1, x_k + x_(k+1) = 1: propagation fixes one column per row, in order.
  const length = 200_000;
  const build = () => {
    const builder = new SystemBuilder({ columns: length, entries: 2 * length });
    builder.addRow(1);
    for (let k = 0; k + 1 < length; k++) builder.addRow(1);
    for (let j = 0; j < length; j++) builder.addColumn(j === 0 ? [0, 1] : j === length - 1 ? [j] : [j, j + 1], j === 0 || j === length - 1 ? (j === 0 ? [1, 1] : [1]) : [1, 1]);
    return builder.build();
  };

  it('without a deadline, it reaches the fixed point', () => {
    const system = build();
    const bounds = { lower: new Int32Array(length), upper: new Int32Array(length).fill(1) };
    assert.equal(propagateSystem(system, bounds, [0]), true);
    for (let j = 0; j < length; j++) assert.equal(bounds.lower[j], bounds.upper[j], `column ${j} open`);
  });

  it('past its deadline, it stops early; what it fixed is right', () => {
    const system = build();
    const bounds = { lower: new Int32Array(length), upper: new Int32Array(length).fill(1) };
    assert.equal(propagateSystem(system, bounds, [0], undefined, Date.now() - 1), true);
    let fixed = 0;
    for (let j = 0; j < length; j++) {
      if (bounds.lower[j] !== bounds.upper[j]) continue;
      fixed++;
      assert.equal(bounds.lower[j], j % 2 === 0 ? 1 : 0, `column ${j}`);
    }
    assert.ok(fixed < length / 2, `${fixed} columns fixed after the deadline`);
  });
});

describe('row candidates from the table of points are those of the search', () => {
  const dir = join(FIXTURES, 'bootstrap');
  const manifest: FixtureEntry[] = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  /** Per merged cell: its leaves, classes and values, in a canonical order. */
  const canonical = (found: RowCandidates) =>
    found.cells.map((cell) => `${Array.from(cell.leaves).join(',')} | ${Array.from(cell.classes).join('')} | ${Array.from(cell.values).join(',')}`).sort();

  for (const entry of manifest) {
    for (const grouped of [true, false]) {
      it(`${entry.name}, ${grouped ? 'with' : 'without'} its groups: every row`, async (t) => {
        const report = await lintFile(join(dir, entry.model), { keepForest: true });
        const forest = report.forest!;
        const prepared = buildLeafTable(forest, { bootstrap: true });
        assert.ok(prepared.ok);
        const replay = replayDraws(forest, Date.now() + 60_000);
        assert.ok(replay.ok);
        const groups = grouped ? entry.groups : [];
        const points = buildPointTable(forest, prepared.table, groups, Date.now() + 60_000);
        // COMPAS's 14 features make 16,384 points (640 with its groups): the table must apply. The
        // wider binarised sets exceed its cap unless their groups shrink the space: the search answers then.
        if (entry.dataset === 'compas') assert.ok(points, 'the table of points applies to the COMPAS forest');
        if (!points) return t.skip(`${forest.features.length} features: over the table's cap of points`);
        let cells = 0;
        for (let i = 0; i < replay.draws.rows; i++) {
          const searched = await rowCandidates(prepared.table, replay.draws.perTree, i, groups, () => false);
          assert.ok(searched?.ok);
          const tabled = pointCandidates(points, prepared.table, replay.draws.perTree, i);
          assert.deepEqual(Array.from(tabled.trees), Array.from(searched.candidates.trees));
          assert.deepEqual(Array.from(tabled.draws), Array.from(searched.candidates.draws));
          assert.deepEqual(canonical(tabled), canonical(searched.candidates), `row ${i}`);
          cells += tabled.cells.length;
        }
        assert.ok(cells > replay.draws.rows, 'rows with several candidates are compared too');
      });
    }
  }
});

describe('training sets past the rows the engine keeps in memory', () => {
  it("a boosted model's first tree that counts a draw of the rows says so, not that they are the training rows", async () => {
    // Sweep 18: "1,212,500 training rows: past the 1,000,000" beside a finding of N about 1,515,625.
    const report = await lintFile(join(FIXTURES, 'scale', 'xgb1300k_subsample.json'), { keepForest: true });
    const result = await reconstruct(report.forest!, { budgetMs: 5_000 });
    assert.equal(result.status, 'skipped');
    assert.match(result.reason ?? '', /^1,040,030 rows drawn for the first tree: past the 1,000,000 the reconstruction keeps in memory/);
  });
  it('are not started: skipped at once with the reason, N kept', async () => {
    // A stump over 2,200,000 rows: twice the limit.
    const built = completeForest(forestOf([stump(30.5, [600_000, 500_000], [400_000, 700_000])], { training: { bootstrap: false, rows: 2 * MAX_RECONSTRUCTED_ROWS + 200_000 } }));
    assert.ok(built.ok);
    const started = Date.now();
    const result = await reconstruct(built.forest, { budgetMs: 30_000 });
    assert.equal(result.status, 'skipped');
    assert.equal(result.rows, 2_200_000);
    assert.match(result.reason ?? '', /2,200,000 training rows: past the 1,000,000 the reconstruction keeps in memory/);
    assert.ok(Date.now() - started < 5_000, 'not started');
    // At the limit's side of it, a forest is reconstructed as usual.
    const small = completeForest(forestOf([stump(30.5, [3, 2], [1, 4])]));
    assert.ok(small.ok);
    assert.notEqual((await reconstruct(small.forest, { budgetMs: 5_000 })).status, 'skipped');
  });
});

describe("HiGHS's presolve on cells of thousands of rows", () => {
  // Soundness sweep 15: 10 stumps of depth 2 on 20,000 rows (cells up to 7,195 rows) spent 12-15 s
  // in HiGHS's presolve (its sparsify rule, which nothing interrupts) past a 3 s budget, and
  // answered a timeout. The rule is off for such cells (highs/milp.ts): the solve takes about 1 s.
  it('stumps20k_gb (scikit-learn): the integer solve keeps a 3 s budget, and the rows are certified', async () => {
    const report = await lintFile(join(FIXTURES, 'scale', 'stumps20k_gb.joblib'), { keepForest: true });
    const started = Date.now();
    const result = await reconstruct(report.forest!, { budgetMs: 3_000 });
    const seconds = (Date.now() - started) / 1000;
    // Generous: the overrun was 9-12 s past the budget; a loaded machine may add a few.
    assert.ok(seconds < 7, `${seconds} s for a 3 s budget (${result.status}: ${result.reason?.slice(0, 200)})`);
    assert.equal(result.method, 'aggregated');
    assert.equal(result.certifiedRows, 20_000);
  });
});

describe('an integer solve HiGHS does not interrupt', () => {
  // Soundness sweep 17: 50 trees of depth 3 on 2,000 COMPAS rows ran 15-18 s at a 10 s budget.
  // HiGHS's presolve of its 561,800 entries checks no time limit (3.3 s past a 1 s one here, 5.6 s
  // with the machine loaded); the solve now runs in a thread that is terminated on time
  // (highs/milp-thread.ts). Without it this takes 4 s or more.
  it('compas2k_gb50 (scikit-learn): a 1 s budget is kept, with the rows tree 0 proves', async () => {
    const report = await lintFile(join(FIXTURES, 'scale', 'compas2k_gb50.joblib'), { keepForest: true });
    const started = Date.now();
    const result = await reconstruct(report.forest!, { budgetMs: 1_000 });
    const seconds = (Date.now() - started) / 1000;
    // The brief's tolerance (10% + 1 s) plus one second for a loaded 2-core CI machine.
    assert.ok(seconds < 3.1, `${seconds} s for a 1 s budget (${result.status}: ${result.reason?.slice(0, 200)})`);
    assert.equal(result.status, 'timeout');
    assert.equal(result.rows, 2_000);
    assert.equal(result.certifiedRows, 2_000, result.reason);
  });

  it('compas2k_gb50: a solve that grows toward the memory ceiling is stopped short of it, and the rows proven before stay', async () => {
    // Sweep 18: HiGHS's search grows for as long as it runs (this model: 460 MB at 4 s, 865 MB at
    // 10 s); a 150-tree model passed a 1 GB worker's ceiling and the job failed with nothing.
    const report = await lintFile(join(FIXTURES, 'scale', 'compas2k_gb50.joblib'), { keepForest: true });
    // A ceiling 120 MB above what the process holds now: the solve needs several hundred.
    const memoryCeilingMb = Math.ceil((process.memoryUsage.rss() / (1024 * 1024) + 120) / MEMORY_SHARE);
    const started = Date.now();
    const result = await reconstruct(report.forest!, { budgetMs: 30_000, memoryCeilingMb });
    const seconds = (Date.now() - started) / 1000;
    assert.match(result.reason ?? '', new RegExp(`the integer solve was stopped at \\d+ MB, near the memory ceiling of ${memoryCeilingMb} MB`));
    assert.ok(seconds < 15, `${seconds} s: stopped by memory, not by the 30 s budget`);
    assert.equal(result.certifiedRows, 2_000, result.reason);
  });

  it('compas2k_gb50: cancelling stops the solve at once, though its budget is 60 s', async () => {
    const report = await lintFile(join(FIXTURES, 'scale', 'compas2k_gb50.joblib'), { keepForest: true });
    const controller = new AbortController();
    let cancelledAt = 0;
    const result = await reconstruct(report.forest!, {
      budgetMs: 60_000,
      signal: controller.signal,
      onProgress: (progress) => {
        // Cancelled once the integer solve has begun (the thread's HiGHS is then in its presolve).
        if (progress.phase === 'milp' && cancelledAt === 0) {
          cancelledAt = Date.now();
          setTimeout(() => controller.abort(), 300);
        }
      },
    });
    assert.ok(cancelledAt > 0, 'the integer solve was reached');
    const seconds = (Date.now() - cancelledAt) / 1000;
    assert.ok(seconds < 2.5, `${seconds} s after the solve began, cancelled at 0.3 s (${result.status}: ${result.reason?.slice(0, 200)})`);
    assert.equal(result.status, 'timeout');
  });
});

describe("boosting-hessians keeps time for tree 0's claims on every row", () => {
  // Sweep 18: a public XGBoost model of 878,242 rows ran 5 s at a 3 s budget: after the matching,
  // every row's claim and box (about 1 us a row) came on top. The matching now stops that much
  // before the budget's end (CLAIMS_MS_PER_ROW): its last window starts before it.
  it('xgb300k_rows (xgboost): the matching of the later trees starts no window in the last 0.3 s of a 2 s budget', async () => {
    const report = await lintFile(join(FIXTURES, 'scale', 'xgb300k_rows.json'), { keepForest: true });
    let lastWindow = 0;
    const started = Date.now();
    const result = await reconstruct(report.forest!, {
      budgetMs: 2_000,
      onProgress: (progress) => {
        if (progress.phase === 'milp') lastWindow = Math.max(lastWindow, progress.elapsedMs);
      },
    });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(result.method, 'boosting-hessians');
    assert.equal(result.certifiedRows, 300_000, result.reason);
    assert.ok(lastWindow > 0, 'the later trees were matched');
    // Without the reserve the last window starts within a few ms of 2,000.
    assert.ok(lastWindow < 1_850, `last window at ${lastWindow} ms of 2,000 (${result.reason?.slice(0, 160)})`);
    assert.ok(seconds < 2 * 1.1 + 1 + 1, `${seconds} s for a 2 s budget`);
  });
});
