/**
 * The `recoverability` block of a file's report (CLI JSON contract, report, diagnostics): the
 * reconstruction's result without the reconstructed rows, which are personal data and only
 * leave the engine when asked for (`--emit-reconstruction`, the report's explicit reveal).
 */
import type { Forest } from '../forest/schema';
import type { BoxTightness, ReconstructionMethod, ReconstructionResult, ReconstructionStatus, RowsKind } from '../attacks/reconstruction/types';

export interface Recoverability {
  status: ReconstructionStatus;
  /** Which formulation answered (`aggregated`, `replayed-bootstrap`, ...); `none` when skipped. */
  method: ReconstructionMethod;
  /** Training rows N the model states; null when unknown. */
  rows: number | null;
  /** When `rows` is an estimate (`estimate`: about N) or a lower bound (`at-least`); absent when stated or determined. */
  rowsKind?: RowsKind;
  /** Rows proven, from the model alone, to be in the training data (with their label). */
  certifiedRows: number;
  /**
   * Rows proven to be in the training data with their feature intervals, whose label is only an
   * estimate (regression, `boosting-counts`); not in `certifiedRows`. Absent when none.
   */
  certifiedWithoutLabel?: number;
  /** Rows of the reconstruction (certified or not). */
  reconstructedRows: number;
  seconds: number;
  /** Why the status is not exact (skipped, timeout, failed, or why the answer is only bounded). */
  reason?: string;
  /**
   * Per feature name: in how many certified rows its value is determined. A feature the model
   * never splits on is determined in none: the model says nothing about it.
   */
  determinedFeatures: Record<string, number>;
  /** Where declared categorical groups came from, and declarations that were ignored. */
  groups: { declared: number; sources: string[]; problems: string[] };
  /**
   * Numeric forests whose rows are certified as boxes (`row-boxes`; the engine's `BoxTightness`
   * with feature names): how much the proven boxes reveal. Absent for every other method.
   */
  boxes?: RecoverableBoxes;
}

/**
 * How tight the certified boxes are. Widths are relative to the range the forest's thresholds
 * span on a feature (0: a single value; 1: the box does not narrow the feature at all).
 */
export interface RecoverableBoxes {
  /** The rows measured: every proven box, with its label or without (certifiedRows + certifiedWithoutLabel, or fewer). */
  rows: number;
  /** Rows whose leaf is proven in every tree (their box is one cell of the forest), of `rows`. */
  pinnedRows: number;
  /** Median over every row and numeric feature of the box's relative width. */
  medianWidth: number;
  /** Per numeric feature (the model's order): the median over rows of its relative width. */
  features: { name: string; medianWidth: number }[];
}

export function summarizeReconstruction(
  forest: Pick<Forest, 'features'>,
  result: ReconstructionResult,
  groups: Recoverability['groups'],
): Recoverability {
  const determinedFeatures: Record<string, number> = {};
  forest.features.forEach((feature) => (determinedFeatures[feature.name] = 0));
  for (const row of result.reconstruction) {
    if (!row.certified) continue;
    row.values.forEach((_value, f) => {
      const name = forest.features[f]?.name;
      if (determined(row, f) && name !== undefined) determinedFeatures[name] += 1;
    });
  }
  return {
    status: result.status,
    method: result.method,
    rows: result.rows,
    ...(result.rowsKind ? { rowsKind: result.rowsKind } : {}),
    certifiedRows: result.certifiedRows,
    ...(result.certifiedWithoutLabel ? { certifiedWithoutLabel: result.certifiedWithoutLabel } : {}),
    reconstructedRows: result.reconstructedRows,
    seconds: Math.round(result.seconds * 1000) / 1000,
    ...(result.reason ? { reason: result.reason } : {}),
    determinedFeatures,
    groups,
    ...(result.boxes ? { boxes: namedBoxes(forest, result.boxes) } : {}),
  };
}

/**
 * Whether the model constrains a row's value of feature f: on rows with intervals (numeric
 * forests) an interval is proven there, since a point may be written inside an unconstrained box
 * (`row-boxes` completes every row); elsewhere the value is not null.
 */
export function determined(row: Pick<ReconstructionResult['reconstruction'][number], 'values' | 'intervals'>, f: number): boolean {
  return row.intervals ? row.intervals[f] !== null && row.intervals[f] !== undefined : row.values[f] !== null && row.values[f] !== undefined;
}

/** The engine's tightness with feature names instead of indices (the JSON contract names features). */
export function namedBoxes(forest: Pick<Forest, 'features'>, boxes: BoxTightness): RecoverableBoxes {
  return {
    rows: boxes.rows,
    pinnedRows: boxes.pinnedRows,
    medianWidth: boxes.medianWidth,
    features: boxes.featureWidths.map(({ feature, medianWidth }) => ({ name: forest.features[feature]?.name ?? `x${feature}`, medianWidth })),
  };
}

/** N as a finding or report says it: "441", "about 441" (an estimate), "at least 300" (a lower bound). */
export function rowsText(rows: number, kind: RowsKind | undefined): string {
  const n = rows.toLocaleString('en-US');
  return kind === 'estimate' ? `about ${n}` : kind === 'at-least' ? `at least ${n}` : n;
}

/** A share of N in parentheses' words: "70%", "about 70%", "at most 70%" (of at least N). */
export function shareText(percentText: string, kind: RowsKind | undefined): string {
  // "<1%" already bounds the share: "about <1%" and "at most <1%" read as typos (sweep 10).
  if (percentText === '<1%') return kind === 'at-least' ? 'under 1%' : kind === 'estimate' ? 'about 1% or less' : percentText;
  if (percentText === '>99%') return kind === 'estimate' ? 'about 99% or more' : kind === 'at-least' ? 'at most 100%' : percentText;
  return kind === 'estimate' ? `about ${percentText}` : kind === 'at-least' ? `at most ${percentText}` : percentText;
}
