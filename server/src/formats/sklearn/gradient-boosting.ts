/**
 * GradientBoostingRegressor and GradientBoostingClassifier (scikit-learn 0.22 onwards) into the
 * forest IR. `estimators_` is a numpy object array (n_stages, K) of DecisionTreeRegressors fitted
 * to the residuals; each stage's trees were grown on every training row (subsample=1.0) or on a
 * draw without replacement (subsample < 1, the others given weight 0, which the tree builder
 * drops), so every tree's `n_node_samples` counts rows. How the leaves' values read:
 *
 *  - regressor, loss squared_error, init_ a DummyRegressor (the mean): a tree's node value is the
 *    mean residual of its rows, -G/H of XGBoost's reg:squarederror with lambda 0 (H = rows), and a
 *    stage adds learning_rate x value (sklearn's LeastSquaresError.update_terminal_regions does not
 *    change the leaves). So the model is the boosted IR of XGBoost's reg:squarederror: cover =
 *    rows, base weight = value, leaf value = learning_rate x value, base score = init_.constant_,
 *    and the boosted methods (boosting-counts) apply unchanged;
 *  - binary classifier, log-loss, init_ the class prior p0: in stage 0 every row has the same
 *    probability p0, so the Newton step sklearn writes into each leaf
 *    (BinomialDeviance._update_terminal_region: sum(y - p0) / sum(p0 (1 - p0))) is
 *    (pos - n p0) / (n p0 (1 - p0)), and an internal node's value, the mean residual, is pos / n - p0:
 *    each node's positives follow exactly. Every stage is read as a count tree and stage 0 gives
 *    both classes' rows (`countedClasses`); with subsample, stage 0 alone, a classification tree
 *    with those counts (of its draw), since the other stages grew on other draws;
 *  - multi-class classifier, log-loss, init_ the class prior: every stage's K trees are read as
 *    count trees (one column of rows), and stage 0's tree for class k, whose rows all started at
 *    the prior, gives class k's rows at every node from its multinomial Newton step
 *    (classRowsOfStageZero): the forest's `countedClasses`, from which the engine takes the rows'
 *    classes (attacks/reconstruction/counted-class-labels.ts);
 *  - anything else (other losses, a custom init estimator, sample weights, a multi-class model with
 *    subsample): the trees are read as count trees (one column of rows, no target means): rows and
 *    intervals, no labels (noted).
 * Log-loss classifiers also keep every stage's leaf values (learning_rate x the Newton step) and the
 * loss they stepped from the prior, the forest's `logLoss` (membership/newton-steps.ts fits
 * candidates to them): on the forest's own trees, or, for a binary model with subsample (read as
 * its stage 0 alone), as `logLoss.stages`.
 */
import type { ForestInput, Tree } from '../../forest/schema';
import { PyGlobal, PyValue, asNdArray, asString, classOf, isArray, numeric, stateDict } from '../pickle';
import { DecodeError, arrayOrThrow, corrupt, found, isSklearnClass, labelOf, type Decoded } from './decode-helpers';
import { exactDrawRows } from '../../forest/subsample';
import { heldOutSplit } from './validation-split';
import { featureNamesOf, forestHeader, hyperParametersOf, integerWeights, negativeInfinityNote, readTree, sklearnVersion, treeStructure, type RawTree } from './tree-arrays';
import { formatCount, formatNumber } from '../../util/wording';

/** The classes this module decodes (the estimator registry, ./estimators.ts, routes them here). */
export const GRADIENT_BOOSTING = ['GradientBoostingRegressor', 'GradientBoostingClassifier'] as const;
const STAGE_TREES = new Set(['DecisionTreeRegressor']);

const HYPER_PARAMETERS = [
  'n_estimators',
  'learning_rate',
  'loss',
  'subsample',
  'criterion',
  'max_depth',
  'min_samples_leaf',
  'min_samples_split',
  'max_features',
  'max_leaf_nodes',
  'n_iter_no_change',
  'validation_fraction',
  'random_state',
  // Trees of several fit calls when True (forest/warm-start.ts): soundness sweep 19 found a second
  // fit's rows "proven" non-members.
  'warm_start',
  'ccp_alpha',
] as const;

/** How far a derived count may sit from a whole number (float64 arithmetic on the stored values). */
const COUNT_TOLERANCE = 1e-6;

interface Stages {
  raws: RawTree[];
  /** Estimators as stored, row-major (stage, k). */
  trees: PyValue[];
  stages: number;
  K: number;
}

function readStages(st: ReturnType<typeof stateDict>, cls: PyGlobal): Stages {
  const v = st!.get('estimators_');
  if (v === undefined || !isArray(v)) throw new DecodeError('unsupported-estimator', `the ${cls.name} was never fitted (it has no estimators_).`);
  let arr;
  try {
    arr = asNdArray(v);
  } catch (e) {
    throw corrupt(`estimators_ is not a readable array (${(e as Error).message}).`);
  }
  const trees = arr.objects;
  if (!trees || arr.shape.length !== 2) throw corrupt(`estimators_ is not a 2-d array of trees (found shape (${arr.shape.join(', ')})).`);
  const [stages, K] = arr.shape;
  if (stages < 1 || K < 1) throw corrupt(`the ${cls.name} has no trees.`);
  trees.forEach((t, i) => {
    if (!isSklearnClass(classOf(t), STAGE_TREES)) throw corrupt(`estimators_ entry ${i} of the ${cls.name} is ${found(t)}, not a regression tree.`);
  });
  return { raws: trees.map((t, i) => readTree(t, i, 1, true)), trees, stages, K };
}

/** Decodes a fitted gradient boosting model; throws DecodeError. */
export function decodeGradientBoosting(est: PyValue, cls: PyGlobal): Decoded {
  const notes: string[] = [];
  const st = stateDict(est);
  if (!st) throw corrupt(`the ${cls.name} has no state.`);
  const { raws, trees: stored, stages, K } = readStages(st, cls);
  const featureNames = featureNamesOf(st, raws, stored[0]);
  const version = sklearnVersion(st, stored[0]);
  const hyperParameters = hyperParametersOf(st, HYPER_PARAMETERS);
  const learningRate = numeric(st.get('learning_rate'));
  const subsample = numeric(st.get('subsample')) ?? 1;
  const loss = asString(st.get('loss'));
  // Any node whose weight is not its rows: sample weights, whole ones too (weights in {1, 2, 3} read
  // as 784 rows of a 400-row GradientBoostingClassifier, certified, in a soundness sweep).
  const weighted = integerWeights(raws) || raws.some((t) => t.weighted.some((w) => w !== Math.round(w)));
  if (weighted) notes.push('sample weights make the stored counts weighted, not row counts');
  const infiniteSplits = negativeInfinityNote(raws);
  if (infiniteSplits) notes.push(infiniteSplits);

  // N: every stage's root counts every row it was grown on; with subsample < 1 only a draw.
  const roots = raws.map((t) => t.weighted[0]);
  let rows: number | undefined;
  if (subsample < 1) {
    notes.push(`subsample=${formatNumber(subsample)}: each stage was grown on a draw of about ${Math.round(subsample * 100)}% of the rows (without replacement), so no root counts N and the stages' rows differ`);
  } else if (!weighted) {
    rows = roots[0];
    if (roots.some((r) => r !== rows)) notes.push('the stages\' root counts differ although subsample is 1');
  } else if (raws.every((t) => t.nodeSamples[0] === raws[0].nodeSamples[0])) {
    // Weighted: the root's distinct rows are still every row fit was given (a zero weight aside).
    rows = raws[0].nodeSamples[0];
  }
  const nIterNoChange = st.get('n_iter_no_change');
  const heldOut = nIterNoChange !== null && nIterNoChange !== undefined ? heldOutSplit(numeric(st.get('validation_fraction')), rows) : undefined;
  if (nIterNoChange !== null && nIterNoChange !== undefined) {
    notes.push(`early stopping (n_iter_no_change=${numeric(nIterNoChange)}): a validation_fraction of the rows was held out, so N is the rows the trees were grown on, not every row given to fit${heldOut?.fitRows !== undefined ? ` (${heldOut.fitRows})` : ''}`);
  }
  if (version) notes.push(`scikit-learn ${version}`);
  notes.push(`${stages} stages x ${K} tree${K === 1 ? '' : 's'}`);

  const base = forestHeader(cls, version, featureNames, hyperParameters);
  // The boosted IR states subsample in its hyper-parameters (the boosted methods check it, as for XGBoost).
  const training = { bootstrap: false, weighted, ...(rows !== undefined ? { rows } : {}), ...(heldOut ? { heldOut } : {}) };
  const countTrees = (): Tree[] => raws.map((t) => ({ ...treeStructure(t), classWeights: Array.from(t.weighted) }));
  const asCounts = (why: string): Decoded => {
    notes.push(`${why}; the trees are read as row counts only (no labels or targets)`);
    // Count trees grown on subsamples saw different rows: read as draws (one per stage), so that
    // nothing treats them as constraints on the same N rows. The draws are without replacement,
    // int(subsample x N) rows each, which often determines N (a bootstrap's estimate of N from
    // distinct counts would read 120 of 150 iris rows as thousands).
    return { forest: { ...base, task: 'regression', classes: [], ...classifierClasses(), training: subsample < 1 ? drawnTraining(exactDrawRows(raws[0].nodeSamples[0], subsample)) : training, trees: countTrees() }, notes };
  };
  // A classifier read as counts is still a classifier: its labels, for the summary.
  const classifierClasses = () => {
    const stored = st.get('classes_');
    return cls.name === 'GradientBoostingClassifier' && isArray(stored) ? { countViewClasses: asNdArray(stored).values().map(labelOf) } : {};
  };
  // A stage's draw: its root's distinct rows (n_node_samples, whatever the sample weights), and N
  // stated when one N alone fits it.
  const drawnTraining = (fits: number[]) => ({ ...training, bootstrap: true, withoutReplacement: true, bootstrapSize: raws[0].nodeSamples[0], ...(fits.length === 1 ? { rows: fits[0] } : {}) });

  const init = st.get('init_');
  const initState = stateDict(init);
  const initName = classOf(init)?.name;
  if (cls.name === 'GradientBoostingRegressor') {
    // Weighted rows make each leaf a weighted mean and each cover a sum of weights: the distinct
    // rows (n_node_samples) are what still counts rows.
    if (weighted) return asCounts('sample weights: the leaf values are weighted means and the node weights no row counts');
    if (loss !== 'squared_error' && loss !== 'ls') return asCounts(`loss='${loss}' rewrites the leaves (medians, quantiles, Huber steps), which are no mean residuals`);
    let baseScore: number | undefined;
    if (initName === 'DummyRegressor') baseScore = numeric(arrayOrThrow(initState?.get('constant_'), 'init_.constant_').values()[0]);
    // scikit-learn before 0.21: MeanEstimator (squared error's default), its `mean` the start.
    else if (initName === 'MeanEstimator') baseScore = scalarOf(initState?.get('mean'));
    else if (asString(init) === 'zero') baseScore = 0;
    if (baseScore === undefined) return asCounts(`init_ is ${found(init)}, whose predictions are not stored as one constant`);
    if (learningRate === undefined || !(learningRate > 0)) throw corrupt('the model states no positive learning_rate.');
    const trees: Tree[] = raws.map((t) => ({
      ...treeStructure(t),
      classWeights: new Array<number>(t.nodeCount).fill(0),
      boosting: { cover: Array.from(t.weighted), baseWeight: Array.from(t.values), leafValue: Array.from(t.values, (v) => learningRate * v), group: 0 },
    }));
    notes.push('loss squared_error: read as XGBoost reg:squarederror with lambda 0 (cover = rows, leaf value = learning_rate x mean residual, base score = the training mean)');
    // The names the boosted analyses read (XGBoost's), next to scikit-learn's own.
    const boostedParameters = { eta: learningRate, lambda: 0, alpha: 0, max_delta_step: 0, subsample };
    const forest: ForestInput = {
      ...base,
      task: 'regression',
      classes: [],
      hyperParameters: { ...hyperParameters, ...boostedParameters },
      training,
      trees,
      boosting: { objective: 'reg:squarederror', baseScore: [baseScore], baseScoreStated: true, outputGroups: 1, source: 'model' },
    };
    return { forest, notes };
  }

  // Classifier.
  const classes = arrayOrThrow(st.get('classes_'), 'classes_').values().map(labelOf);
  /**
   * Every stage's trees as count trees and, when the learning rate and the margins are readable,
   * each with its leaf values (learning rate x the Newton step), with the log-loss they stepped:
   * the forest's `logLoss`, what membership/newton-steps.ts fits candidates to.
   */
  const stepped = (initialMargins: number[], gradientScale: number): Pick<ForestInput, 'trees' | 'logLoss'> => {
    if (learningRate === undefined || !(learningRate > 0) || !initialMargins.every(Number.isFinite)) return { trees: countTrees() };
    const trees = raws.map((t, i) => ({ ...treeStructure(t), classWeights: Array.from(t.weighted), boosting: { leafValue: Array.from(t.values, (v) => learningRate * v), group: i % K } }));
    return { trees, logLoss: { classes, initialMargins, learningRate, gradientScale, lambda: 0, subsample } };
  };
  if (loss !== 'log_loss' && loss !== 'deviance') return asCounts(`loss='${loss}': the leaves are not log-loss Newton steps`);
  // init='zero' starts every row at margin 0: probability 1/2 (binary) or 1/K (softmax of zeros),
  // the same Newton step from a uniform prior.
  const zeroInit = asString(init) === 'zero';
  const begin = classStart(init, initName, initState, K);
  if (typeof begin === 'string') return asCounts(begin);
  const prior = begin.probabilities;
  if (prior.length !== Math.max(2, K)) throw corrupt(`init_ holds ${prior.length} classes, the model has ${Math.max(2, K)}.`);
  const start = begin.words;
  if (K > 1) {
    // Every stage's K trees as count trees (their rows), and stage 0's tree per class for that
    // class's rows: the multinomial Newton step from the prior (see classRowsOfStageZero).
    const why = `${classes.length} classes, each of stage 0's ${K} trees scoring one`;
    if (weighted) return asCounts(`${why}; sample weights make the steps weighted sums`);
    const margins = begin.margins;
    if (subsample < 1) {
      // No class counts (each stage saw another draw), but every stage's Newton steps still score candidates.
      const counts = asCounts(`${why}; with subsample below 1 each stage saw another draw of the rows`);
      return { ...counts, forest: { ...counts.forest, ...stepped(margins, (K - 1) / K) } };
    }
    const perClass: { tree: number; rows: number[] }[] = [];
    for (let k = 0; k < K; k++) {
      const rows = classRowsOfStageZero(raws[k], prior[k], K);
      if (typeof rows === 'string') return asCounts(`${why}; class ${String(classes[k])}'s tree: ${rows}`);
      perClass.push({ tree: k, rows });
    }
    notes.push(`multinomial log-loss from ${start}: stage 0's tree for each class gives that class's rows at every node exactly (the rows' classes); every tree of the ${stages} stages is read as row counts`);
    return { forest: { ...base, task: 'regression', classes: [], training, ...stepped(margins, (K - 1) / K), countedClasses: { classes, trees: perClass } }, notes };
  }
  const p0 = prior[1];
  if (!(p0 > 0 && p0 < 1)) return asCounts(`the class prior ${p0} leaves stage 0 without a Newton step`);
  if (weighted) return asCounts('sample weights: the leaf steps are weighted sums');
  // (K = 1 here: binary log-loss, one tree per stage.)
  const t0 = raws[0];
  const positives = classRowsOfStageZero(t0, p0, 1);
  if (typeof positives === 'string') return asCounts(`stage 0: ${positives}`);
  const negatives = positives.map((pos, i) => t0.weighted[i] - pos);
  if (subsample < 1) {
    notes.push(`log-loss from ${zeroInit ? start : `prior ${p0}`}${begin.old ? ` (${begin.old})` : ''}: stage 0's node values give each node's rows of class ${String(classes[1])} exactly; the later ${stages - 1} stages, grown on other draws, are kept for membership only (their Newton steps, scaled to the draw)`);
    // Stage 0 was grown on int(subsample x N) rows drawn without replacement; every row's
    // probability was still the prior, so its counts are exact for those rows. The prior is the
    // class share of all N rows, which with the draw often determines N.
    const drawn = t0.nodeSamples[0];
    // (With init='zero' the 1/2 is no class share, so it says nothing about N.)
    const fits = exactDrawRows(drawn, subsample).filter((n) => zeroInit || Math.abs(p0 * n - Math.round(p0 * n)) <= COUNT_TOLERANCE * n);
    if (fits.length === 1) notes.push(`N = ${formatCount(fits[0])}: the only N whose draw int(${subsample} x N) is ${formatCount(drawn)}${zeroInit ? '' : ` and whose positives ${p0} x N are whole`}`);
    // No per-tree seed: the stage's draw is not a bootstrap that could be replayed.
    const weights = positives.flatMap((pos, i) => [negatives[i], pos]);
    // Every stage, on its own draw, as the log-loss stages (membership scores on their Newton steps).
    const { trees: stageTrees, logLoss } = stepped(begin.margins, 1);
    const steps = logLoss ? { logLoss: { ...logLoss, stages: stageTrees } } : {};
    return { forest: { ...base, task: 'classification', classes, training: drawnTraining(fits), trees: [{ ...treeStructure(t0), training: {}, classWeights: weights }], ...steps }, notes };
  }
  // Every stage grew on every row: all stages as count trees, stage 0 giving both classes' rows.
  notes.push(`log-loss from ${zeroInit ? start : `prior ${p0}`}${begin.old ? ` (${begin.old})` : ''}: stage 0's node values give each node's rows of class ${String(classes[1])} exactly (the rows' classes); every tree of the ${stages} stages is read as row counts`);
  return { forest: { ...base, task: 'regression', classes: [], training, ...stepped(begin.margins, 1), countedClasses: { classes, trees: [{ tree: 0, rows: negatives }, { tree: 0, rows: positives }] } }, notes };
}

/** Where stage 0 of a log-loss classifier started every row (see classStart). */
interface ClassStart {
  /** Per class (two for a binary model): the probability every row started with. */
  probabilities: number[];
  /** The starting margins: one per class (K > 1), or the binary model's one log-odds. */
  margins: number[];
  words: string;
  /** Set for the init estimator of scikit-learn before 0.21: which one, for the note. */
  old?: string;
}

/**
 * Stage 0's start, from `init_`: scikit-learn 0.21 and later store the class prior as a
 * DummyClassifier and start every row at its log (binary: its log-odds), or at margin 0 with
 * init='zero'. Before 0.21 the defaults were their own classes (ensemble/gradient_boosting.py):
 * binary deviance `LogOddsEstimator`, whose `prior` is the starting log-odds itself; multinomial
 * deviance `PriorProbabilityEstimator`, whose `priors` (the class shares) were the starting
 * margins themselves, not their logs (0.21 changed it to log(prior)), and whose stages are not
 * readable as class counts (below). A public 0.18 model was told its prior was "not the class
 * prior" (sweep 16). K is 1 for a binary model.
 */
function classStart(init: PyValue | undefined, initName: string | undefined, initState: ReturnType<typeof stateDict>, K: number): ClassStart | string {
  const classes = Math.max(2, K);
  if (asString(init) === 'zero') {
    const uniform = new Array<number>(classes).fill(1 / classes);
    return { probabilities: uniform, margins: new Array<number>(K).fill(0), words: "init='zero' (margin 0 for every row)" };
  }
  if (initName === 'DummyClassifier') {
    const prior = Array.from(arrayOrThrow(initState?.get('class_prior_'), 'init_.class_prior_').numbers());
    const margins = K > 1 ? prior.map((p) => Math.log(clipProbability(p))) : [logOdds(prior[1])];
    return { probabilities: prior, margins, words: 'the class prior' };
  }
  if (initName === 'LogOddsEstimator' && K === 1) {
    const margin = scalarOf(initState?.get('prior'));
    if (margin === undefined) return `init_ is ${found(init)} without a readable prior`;
    const p = 1 / (1 + Math.exp(-margin));
    return { probabilities: [1 - p, p], margins: [margin], words: 'the class prior', old: 'scikit-learn before 0.21: LogOddsEstimator, the log-odds of the prior' };
  }
  if (initName === 'PriorProbabilityEstimator' && K > 1) {
    // Stage 0 of class 0 did start at softmax(priors) (a public 0.18 model's root gives its class-0
    // rows to 3 parts in 10^8), but the later classes' trees did not: before 0.21 each class's tree
    // updated the stage's margins in place before the next class's residuals were taken, so a row's
    // start for class k depends on its leaves in the stage's earlier trees, which no node records.
    return `init_ is scikit-learn's class prior before 0.21 (PriorProbabilityEstimator), whose stage 0 fitted each class's tree on margins the stage's earlier class trees had already moved: the nodes' values give no class's rows but the first's`;
  }
  return `init_ is ${found(init)}, not the class prior`;
}

/** A number stored as a Python float or a numpy scalar (0-d array), else undefined. */
function scalarOf(value: PyValue | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (isArray(value)) {
    const values = asNdArray(value).numbers();
    return values.length === 1 && Number.isFinite(values[0]) ? values[0] : undefined;
  }
  const n = numeric(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * scikit-learn 1.2's start from the class prior (BinomialDeviance / MultinomialDeviance
 * get_init_raw_predictions): each probability clipped to [eps, 1 - eps], eps float32's.
 */
function clipProbability(p: number): number {
  const eps = 2 ** -23;
  return Math.min(1 - eps, Math.max(eps, p));
}

/** A binary model's starting margin: the clipped prior's log-odds. */
function logOdds(p: number): number {
  const clipped = clipProbability(p);
  return Math.log(clipped / (1 - clipped));
}

/**
 * Class k's rows at every node of stage 0's tree for class k in a K-class model
 * (MultinomialDeviance, scikit-learn 1.2 ensemble/_gb_losses.py): stage 0 starts every row at
 * log(prior), so every row's probability of class k is the prior p. A leaf holds the Newton step
 * (K - 1) / K x sum(y - p) / sum(p (1 - p)) over its n rows, (K - 1) / K x (c - n p) / (n p (1 - p))
 * with c its class-k rows; an internal node the mean residual c / n - p. The rows must come out
 * whole and within 0..n, else the reason.
 */
function classRowsOfStageZero(tree: RawTree, p: number, K: number): number[] | string {
  // Binary (BinomialDeviance, K passed as 1): the step is sum(y - p) / sum(p (1 - p)), no (K - 1) / K.
  const scale = K === 1 ? 1 : K / (K - 1);
  if (!(p > 0 && p < 1)) return `the class prior ${p} leaves stage 0 without a Newton step`;
  const rows: number[] = new Array(tree.nodeCount);
  for (let i = 0; i < tree.nodeCount; i++) {
    const n = tree.weighted[i];
    const v = tree.values[i];
    const c = tree.left[i] === -1 ? n * p + v * n * p * (1 - p) * scale : n * (v + p);
    const rounded = Math.round(c) || 0; // not -0
    if (Math.abs(c - rounded) > COUNT_TOLERANCE * Math.max(1, n) || rounded < 0 || rounded > n) {
      return `node ${i}'s value gives ${formatNumber(c)} rows of the class of ${formatCount(n)}, not a whole number (not the log-loss Newton step from the prior)`;
    }
    rows[i] = rounded;
  }
  return rows;
}
