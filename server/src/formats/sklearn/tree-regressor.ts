/**
 * RandomForestRegressor, ExtraTreesRegressor, DecisionTreeRegressor and ExtraTreeRegressor into
 * the forest IR as a regression forest: one "class" per node holding its weighted row count
 * (`weighted_n_node_samples`: draws, with bootstrap), the distinct rows (`n_node_samples`), and
 * each node's mean target (`value[:, 0, 0]`) in `targetMean`, and for squared error the target's
 * variance over the node's rows (its `impurity`) in `targetVariance`.
 *
 * A regression tree's value is the mean of its rows' targets for the criteria squared_error,
 * friedman_mse and poisson; absolute_error stores the median instead, which is not read as a mean.
 */
import type { ForestInput, Tree } from '../../forest/schema';
import { PyGlobal, PyValue, stateDict } from '../pickle';
import { corrupt, type Decoded } from './decode-helpers';
import { TREE_HYPER_PARAMETERS, outputCount, firstOutputNote, featureNamesOf, fittedTrees, forestHeader, hyperParametersOf, integerWeights, readTree, sklearnVersion, trainingFacts, treeStructure, missingDirectionsOfForest, negativeInfinityNote } from './tree-arrays';

/** The classes this module decodes (the estimator registry, ./estimators.ts, routes them here). */
export const TREE_REGRESSORS = ['RandomForestRegressor', 'ExtraTreesRegressor', 'DecisionTreeRegressor', 'ExtraTreeRegressor'] as const;
const SUB_ESTIMATORS = new Set(['DecisionTreeRegressor', 'ExtraTreeRegressor']);


/** Criteria whose node value is the (weighted) mean target of the node's rows. */
const MEAN_CRITERIA = new Set(['squared_error', 'friedman_mse', 'poisson', 'mse']);
/** Criteria whose impurity is the variance of the node's targets (poisson's is a deviance). */
const VARIANCE_CRITERIA = new Set(['squared_error', 'friedman_mse', 'mse']);

/** Decodes a fitted tree regressor or forest of them; throws DecodeError. */
export function decodeTreeRegressor(est: PyValue, cls: PyGlobal): Decoded {
  const notes: string[] = [];
  const st = stateDict(est);
  if (!st) throw corrupt(`the ${cls.name} has no state.`);
  const isForest = !SUB_ESTIMATORS.has(cls.name);
  const estimators = fittedTrees(est, st, cls, SUB_ESTIMATORS);
  const outputs = outputCount(st, cls);
  if (outputs > 1) notes.push(firstOutputNote(outputs, 'target'));
  const raws = estimators.map((e, i) => readTree(e, i, 1, true, outputs));
  const unreadDirections = missingDirectionsOfForest(raws);
  const featureNames = featureNamesOf(st, raws, estimators[0]);
  const version = sklearnVersion(st, estimators[0]);

  // Sample weights leave non-integer weighted counts; integer ones show where a node's weight is
  // not its rows without bootstrap (with bootstrap trainingFacts replays the seeds).
  const bootstrapped = isForest && st.get('bootstrap') === true;
  const weighted = raws.some((t) => t.weighted.some((w) => w !== Math.round(w))) || (!bootstrapped && integerWeights(raws));
  if (weighted) notes.push('sample weights make the stored counts weighted, not row counts');
  const hyperParameters = hyperParametersOf(st, TREE_HYPER_PARAMETERS);
  const criterion = hyperParameters.criterion;
  const means = typeof criterion !== 'string' || MEAN_CRITERIA.has(criterion);
  const medians = criterion === 'absolute_error' || criterion === 'mae';
  if (!means) notes.push(`criterion='${criterion}': node values are not mean targets${medians ? ' but medians, read as such (a leaf of one row states its target)' : ', so they are not read'}`);

  // Unset criterion: scikit-learn's default, squared_error. With several outputs the impurity is
  // the mean of their variances, not the first target's.
  const variances = outputs === 1 && (typeof criterion !== 'string' || VARIANCE_CRITERIA.has(criterion));
  const trees: Tree[] = raws.map((t) => ({
    ...treeStructure(t),
    classWeights: Array.from(t.weighted),
    ...(means ? { targetMean: Array.from(t.values) } : medians ? { targetMedian: Array.from(t.values) } : {}),
    ...(variances && t.impurity ? { targetVariance: Array.from(t.impurity) } : {}),
  }));
  const training = trainingFacts(st, raws, isForest, weighted, notes);
  if (version) notes.push(`scikit-learn ${version}`);
  if (raws[0].missingLeft) notes.push('node records carry missing_go_to_left (scikit-learn >= 1.3)');
  if (unreadDirections) notes.push(unreadDirections);
  const infiniteSplits = negativeInfinityNote(raws);
  if (infiniteSplits) notes.push(infiniteSplits);


  const forest: ForestInput = {
    ...forestHeader(cls, version, featureNames, hyperParameters),
    task: 'regression',
    ...(outputs > 1 ? { outputs } : {}),
    classes: [],
    training,
    trees,
  };
  return { forest, notes };
}
