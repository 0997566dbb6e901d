/**
 * BaggingClassifier and BaggingRegressor of decision trees, read as one forest by the tree
 * decoders (./tree-classifier.ts, ./tree-regressor.ts), then adjusted for what bagging does
 * differently (scikit-learn 1.2, ensemble/_bagging.py `_parallel_build_estimators`):
 *  - tree i was fitted on `X[:, estimators_features_[i]]`, so its feature indices are remapped to
 *    the original columns;
 *  - trees take sample weights, so bagging passes each row's draw count as its weight (bootstrap)
 *    or weight 0 to the rows left out (no bootstrap): `weighted_n_node_samples` counts draws and
 *    `n_node_samples` distinct rows, as for a random forest;
 *  - the draws come from `_seeds` through `sample_without_replacement` / `randint`, not from
 *    RandomForest's `_generate_sample_indices`: the trees' own random_state is no replay seed, so
 *    no seed is kept (no replay is claimed);
 *  - N: `_n_samples` (the rows given to fit, which `estimators_samples_` draws from) and the draw
 *    size `_max_samples`, both stored by fit; without them a draw of max_samples = 1.0 (the
 *    default) has N rows. With max_samples below N and no bootstrap each tree saw its own subset,
 *    drawn without replacement.
 */
import { PyFloat, PyGlobal, PyValue, asNdArray, numeric, seqItems, stateDict } from '../pickle';
import { arrayOrThrow, corrupt, type Decoded } from './decode-helpers';
import { decodeTreeEnsemble } from './tree-ensembles';
import { formatCount } from '../../util/wording';

/** The classes this module decodes (the estimator registry, ./estimators.ts, routes them here). */
export const BAGGING = ['BaggingClassifier', 'BaggingRegressor'] as const;
/** Decodes a fitted bagging ensemble of trees; throws DecodeError. */
export function decodeBagging(est: PyValue, cls: PyGlobal): Decoded {
  const decoded = decodeTreeEnsemble(est, cls, 'bags');
  const st = stateDict(est)!;
  const trees = decoded.forest.trees.length;
  const subsets = seqItems(st.get('estimators_features_'));
  if (!subsets || subsets.length !== trees) throw corrupt(`the ${cls.name} has ${trees} trees but ${subsets?.length ?? 'no'} estimators_features_.`);
  const featureSets = subsets.map((s, i) => Array.from(arrayOrThrow(s, `estimators_features_[${i}]`).numbers()));

  const forest = decoded.forest;
  const nFeatures = forest.features.length;
  forest.trees = forest.trees.map((tree, t) => {
    const set = featureSets[t];
    const feature = tree.feature.map((f, i) => {
      if (tree.left[i] === -1) return f;
      const original = set[f];
      if (original === undefined || !(Number.isInteger(original) && original >= 0 && original < nFeatures)) {
        throw corrupt(`tree ${t} node ${i} tests column ${f} of its feature subset, which names no feature of the model.`);
      }
      return original;
    });
    return { ...tree, feature, training: {} };
  });

  const notes = decoded.notes.filter((n) => !/root counts differ/.test(n));
  const bootstrap = st.get('bootstrap') === true;
  const maxSamples = st.get('max_samples');
  const roots = forest.trees.map((tree) => tree.distinctRows?.[0]);
  // The first tree's root weight: the draws it was grown on.
  const draws = forest.trees[0].classWeights.slice(0, Math.max(1, forest.classes.length)).reduce((x, y) => x + y, 0);
  const weighted = forest.training.weighted;
  // fit stores the rows it was given and the rows each tree draws (scikit-learn 0.20 onwards).
  const statedRows = wholeCount(st.get('_n_samples'));
  const statedDraw = wholeCount(st.get('_max_samples'));
  const everyRow = statedRows !== undefined && statedDraw !== undefined ? statedDraw === statedRows : maxSamples instanceof PyFloat && maxSamples.value === 1;
  const rows = statedRows ?? (everyRow && !weighted ? draws : undefined);
  if (bootstrap) {
    const size = statedDraw ?? (maxSamples instanceof PyFloat ? (everyRow ? draws : undefined) : numeric(maxSamples));
    forest.training = { bootstrap: true, weighted, ...(rows !== undefined ? { rows } : {}), ...(size !== undefined && !weighted ? { bootstrapSize: size } : {}) };
    notes.push('bagging draws rows from its stored _seeds with its own sampler, not RandomForest\'s: the draws are not replayed here (no seed kept)');
  } else if (!everyRow) {
    // Each tree saw its own subset, drawn without replacement: read as one draw per tree, so that
    // nothing treats the trees as constraints on the same N rows.
    forest.training = { bootstrap: true, withoutReplacement: true, weighted, ...(rows !== undefined ? { rows } : {}), ...(statedDraw !== undefined ? { bootstrapSize: statedDraw } : {}) };
    notes.push(
      `max_samples=${literal(maxSamples)} without bootstrap: each tree was grown on its own subset of ${statedDraw !== undefined ? formatCount(statedDraw) : 'some'} of the ${rows !== undefined ? formatCount(rows) : 'N'} rows (${perTree(roots, 'rows')}) drawn without replacement; no root counts N`,
    );
  } else if (rows !== undefined) {
    forest.training = { ...forest.training, rows };
  }
  // _seeds regenerate every tree's sample through scikit-learn's own estimators_samples_.
  const seeds = seqItems(st.get('_seeds'))?.length ?? arrayLength(st.get('_seeds'));
  if (seeds !== undefined && seeds > 0 && (bootstrap || !everyRow)) forest.training = { ...forest.training, samplerSeeds: seeds };
  const bootstrapFeatures = st.get('bootstrap_features') === true;
  notes.push(`tree features remapped through estimators_features_ (${perTree(featureSets.map((s) => s.length), 'columns')}${bootstrapFeatures ? ', drawn with replacement' : ''})`);
  return { forest, notes };
}

/** A parameter as Python writes it: `'auto'`, `0.5`, `256` (an IsolationForest's max_samples read `undefined`). */
function literal(v: PyValue | undefined): string {
  if (typeof v === 'string') return `'${v}'`;
  if (v instanceof PyFloat) return String(v.value);
  return numeric(v)?.toString() ?? 'None';
}

/**
 * One count per tree, said once when every tree has it (`256 rows in each of the 100 trees`), else
 * listed, the first eight and how many more: a public IsolationForest's note listed 256 a hundred times.
 */
function perTree(counts: readonly (number | undefined)[], unit: string): string {
  const known = counts.filter((c): c is number => c !== undefined);
  if (known.length === counts.length && known.every((c) => c === known[0])) return `${formatCount(known[0] ?? 0)} ${unit} in each of the ${formatCount(counts.length)} trees`;
  const shown = counts.slice(0, 8).map((c) => (c === undefined ? '?' : formatCount(c)));
  return `${unit} per tree: ${shown.join(', ')}${counts.length > 8 ? ` and ${counts.length - 8} more` : ''}`;
}

/** A stored whole, positive count (an int or a whole float), else undefined. */
function wholeCount(v: PyValue | undefined): number | undefined {
  const n = v === undefined ? undefined : numeric(v);
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The element count of a stored numpy array (`_seeds`), else undefined. */
function arrayLength(v: PyValue | undefined): number | undefined {
  if (v === undefined) return undefined;
  try {
    return asNdArray(v).size;
  } catch {
    return undefined;
  }
}
