/**
 * Multi-class boosted models whose first-round class trees each grew on their own draw of the rows
 * (XGBoost's `subsample` below 1, stated or shown by their root covers: first-tree probing's
 * `classDraws`). Each class tree k still counts its own draw exactly: a leaf holds n of the rows it
 * drew and p of them are of class k (first-tree-probe.ts). The draws differ, so the trees cannot be
 * read together as one set of rows (boosting-counts.ts needs that), but rows of different classes
 * are different rows: tree k's p rows of class k per leaf, over every class, are distinct training
 * rows, each **certified** in its leaf's region with its class. Their points are placed inside that
 * region (an estimate); the rows of other classes a tree counts, and the rows no first tree drew,
 * are left out, and N is the stated subsample's estimate or unknown.
 */
import type { Forest } from '../../forest/schema';
import { formatCount, formatCountList, formatNumber, plural } from '../../util/wording';
import type { FirstTreeProbe } from '../first-tree-probe';
import { missingReachable } from '../missing-values';
import { certifiedBoxTightness } from './boxes/row-tightness';
import type { RunContext } from './context';
import { firstTreeUnproven } from './first-tree-claims';
import { intoRegion, regionIntervals } from './region-points';
import type { ReconstructedRow, ReconstructionResult } from './types';

export function reconstructClassDraws(forest: Forest, probe: FirstTreeProbe, ctx: RunContext): ReconstructionResult {
  ctx.method = 'boosting-counts';
  const draws = probe.trees.map((t) => t.rows);
  const subsample = forest.hyperParameters.subsample;
  const stated = typeof subsample === 'number' && subsample > 0 && subsample < 1 ? subsample : undefined;
  const N = stated !== undefined ? Math.round(draws.reduce((s, r) => s + r, 0) / draws.length / stated) : null;
  if (N !== null) ctx.rowsKind = 'estimate';
  const drew = `the first trees of the ${draws.length} classes each grew on their own draw of the rows (${formatCountList(draws)} rows${stated !== undefined ? `, subsample=${formatNumber(stated)}; N about ${formatCount(N!)}` : '; subsample below 1, which the file does not record, so N is unknown'})`;
  const skip = (why: string) => ctx.answer({ status: 'skipped', reason: `${drew}; ${why}`, rows: N, certifiedRows: 0 });
  if (probe.status !== 'exact') return skip(`first-tree probing did not give every leaf's rows of its class (${probe.status})`);
  // As first-tree-claims.ts: missing values sent both ways, or an objective the file does not
  // state, prove nothing; nor do positives resting on an assumed lambda or alpha.
  const unproven = firstTreeUnproven(forest, probe);
  if (unproven) return skip(unproven);
  const assumed = (['lambda', 'alpha'] as const).filter((k) => probe.parameters[k]?.source === 'assumed');
  if (assumed.length > 0) return skip(`${assumed.join(' and ')} not stated, so each leaf's rows of its class rest on an assumption`);

  const features = forest.features.length;
  const lowerInclusive = forest.splitRule === 'less';
  const reconstruction: ReconstructedRow[] = [];
  const perClass: string[] = [];
  for (const pt of probe.trees) {
    let ofClass = 0;
    for (const leaf of pt.leaves) {
      const region = regionIntervals(leaf.box, features, missingReachable(forest, pt.tree, leaf.node));
      const values = intoRegion(new Array<number | null>(features).fill(null), region, lowerInclusive);
      for (let i = 0; i < leaf.positives!; i++) {
        reconstruction.push({ values: [...values], intervals: region.map((b) => (b ? [b[0], b[1]] : null)), label: forest.classes[pt.group] ?? pt.group, certified: true });
      }
      ofClass += leaf.positives!;
    }
    perClass.push(`${formatCount(ofClass)} of class ${forest.classes[pt.group] ?? pt.group}`);
  }
  const certified = reconstruction.length;
  const boxes = certified > 0 ? certifiedBoxTightness(forest, reconstruction) : undefined;
  const reason = [
    drew,
    `each class's first tree proves its rows of that class in its leaves' regions, and rows of different classes are different rows: ${plural(certified, 'row')} certified with ${certified === 1 ? 'its' : 'their'} label as boxes (${perClass.join(', ')}), each at a point of its leaf's region (an estimate)`,
    'the rows of other classes each tree counts are not reconstructed (the draws overlap), nor the rows no first tree drew; later rounds are not used',
  ].join('; ');
  ctx.stats.treesMatched = probe.trees.length;
  return ctx.answer({ status: 'bounded', reason, rows: N, certifiedRows: certified, ...(boxes ? { boxes } : {}), reconstruction });
}
