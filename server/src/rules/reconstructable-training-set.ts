/**
 * `reconstructable-training-set`: the reconstruction's verdict as a finding. Unlike the other
 * rules it runs after the (slower) reconstruction, on its summary, not on the model alone.
 * Its severity follows how much is proven, with thresholds users can set ("proven rows": the
 * certified rows plus the regression rows certified without their label, which are proven to be in
 * the training data all the same):
 *   error        proven rows >= errorShare x N
 *   warning      proven rows >= warningRows
 *   information  otherwise, when there is a reconstruction (estimated, or partly certified)
 * A skipped or failed reconstruction is not a finding (the report and notes say why).
 */
import type { Forest } from '../forest/schema';
import { inputColumnOf } from '../forest/pipeline-input';
import { rowsText, shareText, type Recoverability } from '../recoverability/summary';
import { formatCount, percent, plural } from '../util/wording';
import { resampledRowsText } from './format';
import { lead } from './message';
import type { FindingDraft } from './types';
import type { Severity } from './catalog';
import { hasNoLabels } from '../forest/task';

export interface ReconstructionThresholds {
  /** Share of the training rows (0-1) from which a certified reconstruction is an error. */
  errorShare: number;
  /** Certified rows from which it is a warning. */
  warningRows: number;
}

export const DEFAULT_THRESHOLDS: ReconstructionThresholds = { errorShare: 0.1, warningRows: 1 };

/**
 * Median box width (share of each feature's threshold range) from which boxes count as not
 * narrowed. 0.999 until stop 34, when a public model's boxes at 99.25% (nothing narrowed but
 * the label's leaf) made an error and boxes at 100% a warning.
 */
export const UNNARROWED_WIDTH = 0.95;

const METHOD_WORDS: Record<Recoverability['method'], string> = {
  aggregated: 'no bootstrap, exact counts',
  'row-boxes': 'no bootstrap, numeric features: rows proven as boxes',
  'box-estimate': 'counts that are not shared row counts: single-class leaves certify boxes, the rest an estimate',
  'replayed-bootstrap': 'bootstrap replayed from the stored seeds',
  'bootstrap-likelihood': 'bootstrap without usable seeds: maximum-likelihood estimate',
  'dp-likelihood': 'differentially private counts: maximum-likelihood estimate',
  'bounded-search': 'bounded search over numeric features',
  'boosting-hessians': 'boosted model: the first tree\'s exact counts prove each row in its leaf\'s region with its label; the later trees, matched through their hessians when every tree saw every row, narrow the points where they match (an estimate)',
  'boosting-counts': 'boosted model whose covers count rows (squared error: every tree; K classes: the first K trees)',
  'leaf-regions': "missing values sent both ways: one tree's leaves prove their rows as boxes",
  none: 'no formulation',
};

/** The method in words, for this model: a model without classes is not told about single-class leaves, a regressor about K classes. */
function methodWords(method: Recoverability['method'], forest: Partial<Pick<Forest, 'task'>>, labelsProven: boolean): string {
  const classes = forest.task === 'classification';
  if (method === 'boosting-hessians' && !labelsProven) {
    return "boosted model: the first tree's exact counts prove each row in its leaf's region (its label not determined); the later trees, matched through their hessians when every tree saw every row, narrow the points where they match (an estimate)";
  }
  if (method === 'box-estimate' && !classes) return "counts that are not shared row counts: one tree's leaves certify their distinct rows as boxes, the rest an estimate";
  if (method === 'boosting-counts') return classes ? "boosted model with K classes: the first K trees' covers count rows of each class" : "boosted model with squared error: every tree's covers count rows";
  return METHOD_WORDS[method];
}

/** Share 0-1 as a percentage a person reads: whole numbers, one decimal below 10%. */
function widthPercent(share: number): string {
  const p = 100 * share;
  return p > 0 && p < 10 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`;
}

/**
 * How tight the certified boxes are, in words: the median width relative to each feature's
 * threshold range, the rows pinned to one leaf in every tree, and the narrowest feature.
 */
/**
 * The widths and pinned rows of the proven boxes. `proven`: the rows proven as boxes, labelled or
 * not; a box that bounds no feature is not measured for widths (a public booster's leaf over its
 * whole range: 148 of 404 rows), and is never pinned, so pinned rows are counted of them all.
 */
export function boxTightnessText(boxes: NonNullable<Recoverability['boxes']>, proven = boxes.rows, displayName: (name: string) => string = (name) => name, trees = 2): string {
  const rows = Math.max(proven, boxes.rows);
  const measured = boxes.rows < rows ? ` (over the ${formatCount(boxes.rows)} boxes that bound a feature; the other ${formatCount(rows - boxes.rows)} bound none)` : '';
  const narrowest = boxes.features.reduce<(typeof boxes.features)[number] | undefined>((best, f) => (!best || f.medianWidth < best.medianWidth ? f : best), undefined);
  // One tree: a box pinned to its leaf is that leaf's region ("in every tree" read as a forest's).
  const pinned = `${formatCount(boxes.pinnedRows)} of ${formatCount(rows)} ${boxes.pinnedRows === 1 ? 'is' : 'are'} pinned to ${trees === 1 ? "one leaf's region" : 'one leaf in every tree'}`;
  // A "narrowest" feature at 100% narrows nothing: say so rather than name one.
  const tightest =
    narrowest && boxes.features.length > 1 ? (narrowest.medianWidth < 1 ? `; narrowest on ${displayName(narrowest.name)} (median ${widthPercent(narrowest.medianWidth)})` : '; no feature narrowed on the median') : '';
  return `Median box width ${widthPercent(boxes.medianWidth)} of each feature's threshold range (100%: not narrowed)${measured}${tightest}; ${pinned}.`;
}

export function reconstructionDraft(
  forest: Pick<Forest, 'features'> & Partial<Pick<Forest, 'task' | 'outputs' | 'pipelineInput' | 'trees' | 'training'>>,
  recoverability: Recoverability,
  thresholds: ReconstructionThresholds,
): { draft: FindingDraft; severity: Exclude<Severity, 'off'> } | undefined {
  // A Pipeline's model: a feature that is an input column, scaled, is named as the user's data names it.
  const displayName = (name: string) => {
    const f = forest.features.findIndex((feature) => feature.name === name);
    return (f >= 0 ? inputColumnOf(forest, f) : undefined) ?? name;
  };
  const { status, rows, certifiedRows, reconstructedRows, seconds, method } = recoverability;
  if (status === 'skipped' || status === 'failed') return undefined;
  if (certifiedRows === 0 && reconstructedRows === 0) return undefined;
  const n = rows ?? reconstructedRows;
  const withoutLabel = recoverability.certifiedWithoutLabel ?? 0;
  const proven = certifiedRows + withoutLabel;
  // Boxes that narrow nothing on the median (a leaf's region over one split, say) prove rows that
  // reveal their label and little else: the first-tree and count rules already say as much, so
  // such a finding is at most a warning.
  const unnarrowed = recoverability.boxes !== undefined && recoverability.boxes.medianWidth >= UNNARROWED_WIDTH;
  const severity: Exclude<Severity, 'off'> =
    proven > 0 && proven >= thresholds.errorShare * n && !unnarrowed ? 'error' : proven >= Math.max(1, thresholds.warningRows) ? 'warning' : 'information';
  // An outlier detector's rows have no label: nothing about one is claimed or estimated.
  const labelled = !hasNoLabels(forest);
  const time = `${seconds < 10 ? seconds.toFixed(2) : seconds.toFixed(0)} s`;
  const how = `${methodWords(method, forest, certifiedRows > 0)}; ${time}`;
  const determined = Object.entries(recoverability.determinedFeatures).filter(([, count]) => count > 0);
  // Certified rows can still have values the trees never test (null): say how much of each row is pinned.
  const values = Object.values(recoverability.determinedFeatures).reduce((total, count) => total + count, 0);
  const valueShare = certifiedRows > 0 && forest.features.length > 0 ? values / (certifiedRows * forest.features.length) : 0;
  const features =
    certifiedRows > 0
      ? valueShare >= 1
        ? ` Every feature value${labelled ? ' and the label' : ''} of those rows ${labelled ? 'are' : 'is'} determined.`
        : ` ${labelled ? 'Their labels and ' : ''}${percent(values, certifiedRows * forest.features.length)} of their feature values are determined` +
          ` (${determined.length === 0 ? 'no feature' : plural(determined.length, 'feature')} of ${forest.features.length} in at least one row; the rest the trees never test).`
      : '';
  const bounded = status === 'timeout' ? ', bounded by time: more may be recoverable' : '';
  // N unknown (a boosted model whose first tree grew on an unrecorded draw): no "of N", no share;
  // the detail says so (the first line stays within 80 characters).
  // An estimated N (an XGBoost subsample's draw over its rate) says "about"; a lower bound "at least".
  const ofN = rows === null ? '' : ` of ${rowsText(n, recoverability.rowsKind)}`;
  // "1 of 200 training rows", but "1 training row" where N is not known (sweep 19: "1 rows proven").
  const rowWord = (count: number) => (ofN || count !== 1 ? 'rows' : 'row');
  const isAre = (count: number) => (!ofN && count === 1 ? 'is' : 'are');
  const unknownN = rows === null ? ' (of a training set of unknown size)' : '';
  const share = (part: number) => (rows === null ? '' : ` (${shareText(percent(part, n), recoverability.rowsKind)})`);
  const noLabel =
    withoutLabel > 0 ? ` ${plural(withoutLabel, 'more row')} ${withoutLabel === 1 ? 'is' : 'are'} proven to be in the training data with their feature intervals, their labels only estimated.` : '';
  const unnarrowedText =
    unnarrowed && proven >= thresholds.errorShare * n ? ` Over all rows and features, the median box still spans ${Math.round(100 * UNNARROWED_WIDTH)}% or more of a feature's range, so this is a warning, not an error.` : '';
  let message: string;
  let summary: string;
  if (certifiedRows > 0 && recoverability.boxes) {
    // Boxes: what is proven is an interval per numeric feature, so "determined" would overclaim;
    // how narrow the intervals are is the measure of the leak. Before `exact`: rows pinned to one
    // leaf in every tree are still boxes, and their width is still what they reveal.
    summary =
      withoutLabel > 0
        ? `${formatCount(proven)}${ofN} ${rowWord(proven)} proven as boxes, ${formatCount(certifiedRows)} with labels: see the report.`
        : `${status === 'exact' ? `All ${formatCount(n)} training rows are` : `${formatCount(certifiedRows)}${ofN} training ${rowWord(certifiedRows)} ${isAre(certifiedRows)}`} proven as boxes: see the report.`;
    message =
      `${plural(certifiedRows, 'training row')}${ofN}${share(certifiedRows)}${unknownN} ${certifiedRows === 1 ? 'is' : 'are'} certified from the model alone as boxes, ` +
      `an interval per numeric feature that the row's value lies in${labelled ? ', with its label' : ''} (${how}${bounded}). ${boxTightnessText(recoverability.boxes, proven, displayName, forest.trees?.length)}${noLabel}` +
      unnarrowedText;
  } else if (status === 'exact') {
    summary = `All ${formatCount(n)} training rows are rebuilt from the model alone: see the report.`;
    message = `Every training set that fits this model contains the same ${plural(n, 'row')}: all of them are certified from the model alone (${how}).${features}`;
  } else if (certifiedRows > 0) {
    summary = `${formatCount(certifiedRows)}${ofN} training ${rowWord(certifiedRows)} ${isAre(certifiedRows)} proven from the model: see the report.`;
    message =
      `At least ${plural(certifiedRows, 'training row')}${ofN}${share(certifiedRows)}${unknownN} ${isAre(certifiedRows)} uniquely determined by this model, ` +
      `certified from the model alone (${how}${bounded}).${features}${noLabel}`;
  } else if (withoutLabel > 0) {
    summary = `${formatCount(withoutLabel)}${ofN} ${rowWord(withoutLabel)} proven, ${withoutLabel === 1 && !ofN ? 'its label' : 'labels'} estimated: see the report.`;
    message =
      `At least ${plural(withoutLabel, 'training row')}${ofN}${share(withoutLabel)}${unknownN} are proven, from the model alone, to be in the training data ` +
      `with their feature intervals (${how}${bounded}); their labels are only estimated.` +
      (recoverability.boxes ? ` ${boxTightnessText(recoverability.boxes, proven, displayName, forest.trees?.length)}${unnarrowedText}` : '');
  } else {
    summary = `A training set of ${formatCount(reconstructedRows)} rows fits this model (an estimate): see the report.`;
    message =
      `A training set of ${plural(reconstructedRows, 'row')} consistent with this model was reconstructed (${how}); ` +
      `it is an estimate: no row is proven to be in the real training data.`;
  }
  // A multi-output model's labels are its first output's (the IR holds that output's counts).
  if (labelled && forest.outputs !== undefined && forest.outputs > 1) {
    message += ` Labels are the first of the model's ${forest.outputs} outputs; the other outputs are not reconstructed.`;
  }
  message += resampledRowsText(forest);
  return {
    severity,
    draft: {
      message: lead(summary, message),
      data: {
        status,
        method,
        rows,
        certifiedRows,
        ...(withoutLabel > 0 ? { certifiedWithoutLabel: withoutLabel } : {}),
        reconstructedRows,
        seconds,
        determinedFeatures: Object.fromEntries(determined),
        ...(recoverability.boxes ? { boxes: { pinnedRows: recoverability.boxes.pinnedRows, medianWidth: recoverability.boxes.medianWidth } } : {}),
      },
    },
  };
}
