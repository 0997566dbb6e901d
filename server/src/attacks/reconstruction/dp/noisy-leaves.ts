/**
 * A differentially private forest as the likelihood reconstruction sees it: per tree its leaves
 * with their binary path literals (as leaves.ts builds them for exact counts) and the RELEASED,
 * noisy per-class counts, which may be negative and need not add up to N. Also decides whether
 * the DRAFT-DP mechanism is the one that noised them, since the likelihood is only right for it.
 */
import type { Forest } from '../../../forest/schema';
import { buildLeafTable, type LeafTable, type TreeLeaves } from '../leaves';
import { leafEpsilon } from './noise';

export interface NoisyLeafTable {
  /**
   * The leaves with every count set to 1: the cell enumeration (cells.ts) prunes a (cell, class)
   * when some tree sends the cell only to leaves holding no row of the class, which is unsound when
   * a zero may be noise, so it is given counts that prune nothing.
   */
  structure: LeafTable;
  /** Released count of class c in leaf l of tree t: `noisy[t][l * classes + c]`. */
  noisy: Int32Array[];
  /** Budget of one released count. */
  epsLeaf: number;
  /** N when the model states it. */
  statedRows?: number;
}

export type NoisyLeafTableResult = { ok: true; table: NoisyLeafTable } | { ok: false; status: 'skipped' | 'failed'; reason: string };

export function buildNoisyLeafTable(forest: Forest): NoisyLeafTableResult {
  const privacy = forest.privacy;
  if (!privacy) return { ok: false, status: 'skipped', reason: 'the model declares no differential privacy' };
  const unsupported = unsupportedMechanism(forest);
  if (unsupported) return { ok: false, status: 'skipped', reason: unsupported };
  // The leaves and their literals as every method reads them; the counts as released.
  const built = buildLeafTable(forest, { released: true });
  if (!built.ok) return { ok: false, status: 'failed', reason: built.reason };
  const numeric = built.table.axes.binary.findIndex((binary) => binary === 0);
  if (numeric >= 0) {
    const name = forest.features[numeric]?.name ?? `x${numeric}`;
    return { ok: false, status: 'skipped', reason: `differentially private forests are reconstructed on binary features only yet; feature ${name} is split as a numeric feature` };
  }
  const noisy = built.table.trees.map((tree) => tree.counts);
  const trees: TreeLeaves[] = built.table.trees.map((tree) => ({ ...tree, counts: new Int32Array(tree.counts.length).fill(1) }));
  const statedRows = forest.training.rows;
  const structure: LeafTable = { ...built.table, rows: statedRows ?? 0, trees };
  return {
    ok: true,
    table: { structure, noisy, epsLeaf: leafEpsilon(privacy.epsilon, forest.trees.length), ...(statedRows !== undefined ? { statedRows } : {}) },
  };
}

/** Why the likelihood of this model's noise is not the one modelled here, if it is not. */
function unsupportedMechanism(forest: Forest): string | undefined {
  const privacy = forest.privacy!;
  if (forest.task !== 'classification') return 'regression forests are not reconstructed yet';
  if (privacy.split !== 'per-tree') return `the privacy budget is split ${privacy.split}; only the per-tree split (epsilon / trees per count) is modelled`;
  if (privacy.rounding !== 'truncate') return `noisy counts rounded by '${privacy.rounding}'; only truncation toward zero (int(count + noise)) is modelled`;
  if (forest.training.bootstrap) return 'differentially private forests trained with bootstrap are not reconstructed (the mechanism fills every tree with all rows)';
  if (forest.training.weighted) return 'the counts are sample-weighted, so they do not count rows';
  return undefined;
}
