/**
 * What tree 0 of a logistic boosted model proves about the rows the hessian methods place
 * (boosting-hessians.ts, first-tree-rows.ts). First-tree probing (../first-tree-probe.ts) reads,
 * per leaf of tree 0, its training rows and, where determined, its positives, exactly: a leaf with
 * n rows and p positives holds p distinct training rows of the positive class and n - p of the
 * other in its region, and tree 0's leaves are disjoint, so no row is claimed twice. Every row the
 * methods place starts in a tree-0 leaf with a label from those counts (the later trees only narrow
 * its box), so each claim goes to a row placed in that leaf with that label: **certified**, with
 * the leaf's region as its box (wider than the box the matching narrowed it to, which stays an
 * estimate), and its label. A leaf whose positives are not determined proves its rows' region
 * only: those rows are certified without their label.
 *
 * Nothing is certified when the file does not state the objective and base score (a dump: the
 * counts rest on assumed ones, however well they fit), and no label when lambda or alpha is
 * assumed (the positives rest on them).
 *
 * When the training data had missing values of a feature that its splits send left at some nodes
 * and right at others ('mixed'), a row missing it reaches a leaf by the default directions without
 * lying in its region: a leaf that such a row could reach (every split on the feature along its
 * path sends a missing value its way) proves nothing about that feature, which its certified box
 * leaves unbounded (missing-values.ts missingReachable; before stop 33 nothing was certified).
 * Where every split of a feature sends a missing value the same way, the end interval it goes to
 * stands for "missing" too (the reason says so, as boosting-counts).
 */
import type { Forest } from '../../forest/schema';
import { leafOf, leafOfBox } from '../../forest/structure';
import type { FirstTreeProbe } from '../first-tree-probe';
import { missingReachable } from '../missing-values';
import { intoRegion, regionIntervals } from './region-points';
import { certifiedBoxTightness } from './boxes/row-tightness';
import type { BoxTightness, ReconstructedRow } from './types';
import { formatCount, plural } from '../../util/wording';

export interface FirstTreeClaims {
  rows: ReconstructedRow[];
  certified: number;
  withoutLabel: number;
  /** How wide the certified boxes (leaf regions) are; absent when none is certified. */
  boxes?: BoxTightness;
  /** What the reason says about the certified rows, or why none is. */
  note: string;
}

/**
 * Why a probed first tree's leaves prove nothing about their regions, or undefined when they do:
 * a row missing a value its splits send both ways reaches a leaf without lying in its region, and
 * counts resting on an objective or base score the file does not state are an assumption. Shared
 * with class-draw-rows.ts.
 */
export function firstTreeUnproven(forest: Forest, probe: FirstTreeProbe): string | undefined {
  if (probe.objectiveAssumed || forest.boosting?.source === 'dump' || forest.boosting?.baseScoreStated === false) {
    return "the file does not state the objective and base score, so the first trees' counts rest on assumed ones";
  }
  return undefined;
}

export function certifyFirstTreeLeaves(forest: Forest, probe: FirstTreeProbe, placed: readonly ReconstructedRow[]): FirstTreeClaims {
  // Proven means from the file (firstTreeUnproven); positives that rest on an assumed lambda or
  // alpha are an assumption too (the rows rest on the hessian alone).
  const unproven = firstTreeUnproven(forest, probe);
  if (unproven) return { rows: [...placed], certified: 0, withoutLabel: 0, note: `nothing certified: ${unproven}` };
  const assumed = (['lambda', 'alpha'] as const).filter((k) => probe.parameters[k]?.source === 'assumed');
  const first = probe.trees[0];
  const tree = forest.trees[first.tree];
  const features = forest.features.length;
  const labelOf = (positive: boolean) => forest.classes[positive ? 1 : 0] ?? (positive ? 1 : 0);
  // Per leaf: its region and what is left to claim, per label (undefined positives: rows only).
  // A leaf's region and which of its features it bounds are shared by the rows it certifies (rows
  // are read, never changed, once answered: a million rows, a few hundred regions).
  const leaves = new Map(
    first.leaves.map((leaf) => {
      const region = regionIntervals(leaf.box, features, missingReachable(forest, first.tree, leaf.node));
      const bounded = region.map((b) => b !== null);
      return [leaf.node, { region, bounded, boundsAny: bounded.some((b) => b), negatives: leaf.positives === undefined ? undefined : leaf.rows - leaf.positives, positives: leaf.positives, rows: leaf.rows }];
    }),
  );
  let certified = 0;
  let withoutLabel = 0;
  // Rows without a label in a leaf whose region bounds no feature (a first tree with no split, or
  // one open to missing values everywhere) prove only that they exist: not counted as proven boxes
  // (a public booster before XGBoost 1.0 whose tree 0 is one leaf read "5,036 rows proven", an
  // error, with boxes over everything: sweep 18), as first-tree-regions.ts does.
  let unbounded = 0;
  const lowerInclusive = forest.splitRule === 'less';
  const unlabelledIn = (row: ReconstructedRow, values: ReconstructedRow['values'], leaf: { region: ReconstructedRow['intervals'] & object; bounded: boolean[]; boundsAny: boolean }): ReconstructedRow => {
    if (!leaf.boundsAny) {
      unbounded++;
      const { certifiedValues: _, ...rest } = row;
      return { ...rest, ...settledIn({ ...row, values }, leaf.region, lowerInclusive), intervals: leaf.region, certified: false };
    }
    withoutLabel++;
    return { ...row, ...settledIn({ ...row, values }, leaf.region, lowerInclusive), intervals: leaf.region, certified: false, certifiedValues: leaf.bounded };
  };
  const rows = placed.map((row): ReconstructedRow => {
    const byBox = row.intervals ? leafOfBox(tree, row.intervals) : -1;
    const node = byBox >= 0 ? byBox : leafOf(tree, row.values.map((v) => v ?? 0), forest.splitRule);
    const leaf = leaves.get(node);
    if (!leaf || leaf.rows <= 0) return row;
    leaf.rows--;
    const region = leaf.region;
    if (leaf.positives === undefined || assumed.length > 0) return unlabelledIn(row, row.values, leaf);
    // The label the leaf still has room for: the row's own first.
    const positive = row.label === labelOf(true);
    const own = positive ? 'positives' : 'negatives';
    const other = positive ? 'negatives' : 'positives';
    const take = leaf[own]! > 0 ? own : leaf[other]! > 0 ? other : undefined;
    if (!take) return row;
    leaf[take]!--;
    certified++;
    const { certifiedValues: _, ...rest } = row;
    return { ...rest, ...settledIn(row, region, lowerInclusive), label: labelOf(take === 'positives'), intervals: region, certified: true };
  });
  // Second pass: a row placed where tree 0's leaf has no room left (the later trees' matching moves
  // points) goes to a leaf that still has room, its point moved into the region (an estimate), so
  // what is certified is every leaf's stated rows, not what the clock let the matching reach: a
  // public booster certified 1,422 rows after 69 trees matched and 1,804 after 55 (sweep 8).
  const open = [...leaves.values()].filter((leaf) => leaf.rows > 0);
  for (let r = 0; r < rows.length && open.length > 0; r++) {
    const row = rows[r];
    if (row.certified || row.certifiedValues) continue;
    while (open.length > 0 && open[open.length - 1].rows <= 0) open.pop();
    const leaf = open[open.length - 1];
    if (!leaf) break;
    leaf.rows--;
    const values = intoRegion(row.values, leaf.region, lowerInclusive);
    if (leaf.positives === undefined || assumed.length > 0) {
      rows[r] = unlabelledIn(row, values, leaf);
      continue;
    }
    const positive = leaf.positives > 0 && (row.label === labelOf(true) || leaf.negatives! <= 0);
    if (positive) leaf.positives--;
    else leaf.negatives!--;
    certified++;
    const { certifiedValues: _, ...rest } = row;
    rows[r] = { ...rest, ...settledIn({ ...row, values }, leaf.region, lowerInclusive), label: labelOf(positive), intervals: leaf.region, certified: true };
  }
  const unlabelled = assumed.length > 0 ? `${assumed.join(' and ')} not stated, so the positives rest on an assumption` : 'leaves whose positives are not determined';
  const note = `${plural(certified, 'row')} certified with ${certified === 1 ? 'its' : 'their'} label as boxes, each the region of a leaf of tree 0 whose exact counts hold that many training rows of the label${withoutLabel > 0 ? `, ${formatCount(withoutLabel)} more as boxes without their label (${unlabelled})` : ''}${unbounded > 0 ? `; ${formatCount(unbounded)} rows without their label are not counted as proven: their leaf's region bounds no feature` : ''}`;
  const boxes = certified > 0 ? certifiedBoxTightness(forest, rows) : undefined;
  return { rows, certified, withoutLabel, note, ...(boxes ? { boxes } : {}) };
}

/**
 * A certified row's values and missing marks inside its leaf's region. The marks are the
 * matching's estimate; where the region bounds a feature, no row missing it reaches the leaf
 * (missingReachable), so the mark gives way to a point inside the interval. Where the region leaves
 * the feature open the mark stays, an estimate: certified-check.ts never reads one as proven.
 */
function settledIn(row: ReconstructedRow, region: readonly ([number, number] | null)[], lowerInclusive: boolean): Pick<ReconstructedRow, 'values' | 'missing'> {
  if (!row.missing?.some((m, f) => m && region[f] !== null)) return row.missing ? { values: row.values, missing: row.missing } : { values: row.values };
  const settle = row.missing.map((m, f) => m && region[f] !== null);
  const values = intoRegion(row.values.map((v, f) => (settle[f] ? null : v)), region.map((r, f) => (settle[f] ? r : null)), lowerInclusive);
  return { values, missing: row.missing.map((m, f) => m && !settle[f]) };
}
