/**
 * Which globals a model pickle may name without a finding: the first of three tiers (./tiers).
 * A name not listed here is either dangerous (./dangerous-globals: the file is `unsafe-pickle`)
 * or unknown (read as usual, reported as `unknown-pickle-global`). Nothing is ever imported or
 * called either way; the list says which names are harmless *for whoever loads the file with
 * Python afterwards*.
 */

const EXACT = new Set<string>([
  // numpy array and dtype reconstruction (numpy 1.x and 2.x module names)
  'numpy.core.multiarray._reconstruct',
  'numpy._core.multiarray._reconstruct',
  'numpy.core.multiarray.scalar',
  'numpy._core.multiarray.scalar',
  'numpy.core.numeric._frombuffer',
  'numpy._core.numeric._frombuffer',
  'numpy.ndarray',
  'numpy.dtype',
  'numpy.memmap',
  'numpy.core.memmap.memmap',
  'numpy._core.memmap.memmap',
  // numpy random state that estimators may keep (random_state=RandomState(...))
  'numpy.random._pickle.__randomstate_ctor',
  'numpy.random._pickle.__bit_generator_ctor',
  'numpy.random._pickle.__generator_ctor',
  'numpy.random.__RandomState_ctor',
  'numpy.random.mtrand.RandomState',
  'numpy.random.mtrand.__RandomState_ctor',
  'numpy.random._generator.Generator',
  'numpy.random._mt19937.MT19937',
  'numpy.random._pcg64.PCG64',
  'numpy.random._pcg64.PCG64DXSM',
  'numpy.random._philox.Philox',
  'numpy.random._sfc64.SFC64',
  'numpy.random.bit_generator.SeedSequence',
  'numpy.random._bit_generator.SeedSequence',
  // joblib's array records
  'joblib.numpy_pickle.NumpyArrayWrapper',
  'joblib.numpy_pickle.NDArrayWrapper',
  'joblib.numpy_pickle.ZNDArrayWrapper',
  // object reconstruction helpers (they call cls.__new__, cls itself is checked separately)
  'copyreg._reconstructor',
  'copy_reg._reconstructor',
  'copyreg.__newobj__',
  'copyreg.__newobj_ex__',
  'copy_reg.__newobj__',
  // protocol 2 bytes: _codecs.encode(str, 'latin1')
  '_codecs.encode',
  'collections.OrderedDict',
  'collections.defaultdict',
  // functools.partial(f): scikit-learn's histogram boosting (1.4+, fitted on a DataFrame with
  // category columns) keeps FunctionTransformer(partial(check_array, dtype=..., ...)) in its
  // _preprocessor. Building a partial calls nothing; calling one later calls f with the bound
  // arguments. The VM checks that it is only built around a named global (whose own tier decides
  // its finding) and that, called while loading, it counts as calling that global
  // (checked-callables.ts); any other use of it is dangerous.
  'functools.partial',
  '_functools.partial',
  // scikit-learn's input validation function, bound in that partial: it converts and checks an array.
  'sklearn.utils.validation.check_array',
  // numpy < 1.20 pickled ufuncs as _ufunc_reconstruct('numpy.core._multiarray_umath', 'log1p'),
  // which is __import__(module) + getattr: harmless only with two literal strings naming an
  // allowed global. The VM checks exactly that and counts the named global as if the pickle had
  // named it (vm.ts, ufuncReconstruct); any other use of it is dangerous.
  'numpy.core._ufunc_reconstruct',
  'numpy._core._ufunc_reconstruct',
  // dill writes every numpy array as _create_array(f, args, state, None): f(*args) + setstate, a
  // standard REDUCE + BUILD when f is a named global. The VM checks exactly that (vm.ts); any
  // other use of it, and every other dill name, is dangerous.
  'dill._dill._create_array',
  'dill.dill._create_array',
  // dill's _load_type('bytearray'): a builtin type by name, checked the same way (vm.ts).
  'dill._dill._load_type',
  'dill.dill._load_type',
  // older dill's _get_attr(_import_module('numpy.core.multiarray'), '_reconstruct'): checked the same way.
  'dill._dill._import_module',
  'dill.dill._import_module',
  'dill._dill._get_attr',
  'dill.dill._get_attr',
  // PyTorch pickles a tensor's storage as _load_from_bytes(b), which is torch.load(b) with
  // weights_only=False: another pickle, run unchecked. The VM reads that pickle too (vm.ts,
  // torchLoadFromBytes) and counts the call as checked only when all of it was read (its globals
  // tiered as the file's own); any other use of it is dangerous.
  'torch.storage._load_from_bytes',
  // Masked arrays: a search's cv_results_ (param_* columns). _mareconstruct(subtype, baseclass,
  // baseshape, basetype) only calls ndarray.__new__; subtype and baseclass are checked globals too.
  // scikit-learn functions that estimators keep as parameter values by default (a search's
  // scorer, SelectKBest's score_func): pure computations on arrays, never called by loading.
  'sklearn.metrics._scorer._passthrough_scorer',
  // ... and where scikit-learn before 0.22 kept them (a search pickled by 0.19 names these).
  'sklearn.metrics.scorer._passthrough_scorer',
  ...['f_classif', 'f_regression', 'chi2'].map((f) => `sklearn.feature_selection.univariate_selection.${f}`),
  ...['mutual_info_classif', 'mutual_info_regression'].map((f) => `sklearn.feature_selection.mutual_info_.${f}`),
  // make_column_selector is a class (its lower-case name is scikit-learn's): a ColumnTransformer's
  // column choice by dtype or pattern, kept as plain attributes; called only when transforming.
  'sklearn.compose._column_transformer.make_column_selector',
  'sklearn.feature_selection._univariate_selection.f_classif',
  'sklearn.feature_selection._univariate_selection.f_regression',
  'sklearn.feature_selection._univariate_selection.chi2',
  'sklearn.feature_selection._mutual_info.mutual_info_classif',
  'sklearn.feature_selection._mutual_info.mutual_info_regression',
  // The metric functions a search's scorer wraps (make_scorer(f1_score)): pure computations on arrays.
  ...['accuracy_score', 'balanced_accuracy_score', 'f1_score', 'fbeta_score', 'precision_score', 'recall_score', 'log_loss', 'matthews_corrcoef', 'jaccard_score', 'hamming_loss', 'zero_one_loss', 'cohen_kappa_score'].map((f) => `sklearn.metrics._classification.${f}`),
  ...['roc_auc_score', 'average_precision_score', 'top_k_accuracy_score'].map((f) => `sklearn.metrics._ranking.${f}`),
  ...['mean_squared_error', 'mean_absolute_error', 'r2_score', 'root_mean_squared_error', 'mean_absolute_percentage_error', 'median_absolute_error', 'explained_variance_score', 'mean_squared_log_error', 'max_error'].map((f) => `sklearn.metrics._regression.${f}`),
  ...['accuracy_score', 'f1_score', 'precision_score', 'recall_score', 'log_loss'].map((f) => `sklearn.metrics.classification.${f}`),
  ...['roc_auc_score', 'average_precision_score'].map((f) => `sklearn.metrics.ranking.${f}`),
  ...['mean_squared_error', 'mean_absolute_error', 'r2_score'].map((f) => `sklearn.metrics.regression.${f}`),
  // XGBoost's scikit-learn wrappers and its Booster: their __setstate__ stores hyper-parameters and
  // loads the booster from the bytes the pickle carries, which this tool decodes itself
  // (formats/sklearn/xgboost-pickle.ts); nothing else is imported or run.
  'xgboost.sklearn.XGBModel',
  'xgboost.sklearn.XGBClassifier',
  'xgboost.sklearn.XGBRegressor',
  'xgboost.sklearn.XGBRFClassifier',
  'xgboost.sklearn.XGBRFRegressor',
  'xgboost.sklearn.XGBRanker',
  'xgboost.core.Booster',
  // XGBClassifier 1.0-1.2 keeps its labels in `_le`, XGBoost's subclass of scikit-learn's
  // LabelEncoder (allowed), whose state is its classes_ array (sweep 12: a 1.1.1 file warned).
  'xgboost.compat.XGBoostLabelEncoder',
  // pandas Index objects (a ColumnTransformer's columns given as `X.select_dtypes(...).columns`):
  // _new_Index(cls, d) builds the index from the data in d; the class is checked separately.
  'pandas.core.indexes.base._new_Index',
  'pandas.core.indexes.base.Index',
  'pandas.Index',
  'pandas.core.indexes.range.RangeIndex',
  'pandas.core.indexes.numeric.Int64Index',
  'pandas.core.indexes.numeric.Float64Index',
  // pandas DataFrames and Series saved beside a model (a sample of the data, the labels): the
  // frame and its block managers are rebuilt from arrays and index objects the pickle carries;
  // _unpickle_block and NDArrayBacked's Cython reconstructor wrap arrays in blocks, Categorical
  // and its dtype hold categories and codes. Containers only: nothing here runs other code.
  'pandas.core.frame.DataFrame',
  'pandas.core.series.Series',
  // pandas 2.x and later name them by their public path (an X_train.pkl in a public repository).
  'pandas.DataFrame',
  'pandas.Series',
  'pandas.core.internals.managers.BlockManager',
  'pandas.core.internals.managers.SingleBlockManager',
  // pandas before 0.24 kept its managers in one module (sweep 17: public DataFrames of pandas 0.2x).
  'pandas.core.internals.BlockManager',
  'pandas.core.internals.SingleBlockManager',
  'pandas.core.internals.blocks.new_block',
  'pandas._libs.internals._unpickle_block',
  'pandas._libs.arrays.__pyx_unpickle_NDArrayBacked',
  'pandas.core.arrays.categorical.Categorical',
  'pandas.core.dtypes.dtypes.CategoricalDtype',
  // Strings in pandas 3 (and pandas 2 with `string[pyarrow]`): an Arrow-backed string array, rebuilt
  // from its Arrow type, length and buffers by pyarrow's reconstructors; data, as a DataFrame's
  // blocks are (sweep 12: a DataFrame of item weights inside a fitted imputer listed all five).
  'pandas.arrays.ArrowStringArray',
  'pandas.core.arrays.string_arrow.ArrowStringArray',
  'pandas.StringDtype',
  'pandas.core.arrays.string_.StringDtype',
  'pyarrow.lib._restore_array',
  'pyarrow.lib.type_for_alias',
  'pyarrow.lib.py_buffer',
  // scikit-learn's Cython reconstructors, `newObj(obj)`: `obj.__new__(obj)` (a KD-tree kept by SMOTE).
  'sklearn.neighbors._kd_tree.newObj',
  'sklearn.neighbors._ball_tree.newObj',
  'sklearn.metrics._dist_metrics.newObj',
  // The same functions where scikit-learn 0.22-0.24 (underscored) and 0.21 and earlier kept them
  // (a 0.24 VotingClassifier with a KNN member, sweep 9).
  'sklearn.neighbors._dist_metrics.newObj',
  'sklearn.neighbors.dist_metrics.newObj',
  'sklearn.neighbors.kd_tree.newObj',
  'sklearn.neighbors.ball_tree.newObj',
  'numpy.ma.core._mareconstruct',
  'numpy.ma.core.MaskedArray',
  'numpy.ma.MaskedArray',
]);

/**
 * numpy's ufuncs (numpy 1.24's list): pure element-wise arithmetic, harmless called or not. They
 * pickle by name from the module that defines them (numpy.core._multiarray_umath.log1p in 1.x),
 * e.g. as `FunctionTransformer(func=np.log1p)`.
 */
const NUMPY_UFUNCS = (
  'abs absolute add arccos arccosh arcsin arcsinh arctan arctan2 arctanh bitwise_and bitwise_not bitwise_or ' +
  'bitwise_xor cbrt ceil conj conjugate copysign cos cosh deg2rad degrees divide divmod equal exp exp2 expm1 ' +
  'fabs float_power floor floor_divide fmax fmin fmod frexp gcd greater greater_equal heaviside hypot invert ' +
  'isfinite isinf isnan isnat lcm ldexp left_shift less less_equal log log10 log1p log2 logaddexp logaddexp2 ' +
  'logical_and logical_not logical_or logical_xor matmul maximum minimum mod modf multiply negative nextafter ' +
  'not_equal positive power rad2deg radians reciprocal remainder right_shift rint sign signbit sin sinh spacing ' +
  'sqrt square subtract tan tanh true_divide trunc'
).split(' ');
for (const m of ['numpy', 'numpy.core._multiarray_umath', 'numpy._core._multiarray_umath', 'numpy.core.umath', 'numpy._core.umath']) {
  for (const f of NUMPY_UFUNCS) EXACT.add(`${m}.${f}`);
}

/** Harmless builtin types (they appear as values, e.g. `dtype=float`, or to rebuild containers). */
const BUILTIN_TYPES = [
  'object', 'set', 'frozenset', 'bytearray', 'slice', 'complex',
  'int', 'float', 'str', 'bool', 'bytes', 'list', 'dict', 'tuple', 'range', 'long', 'unicode',
];
for (const t of BUILTIN_TYPES) {
  EXACT.add(`builtins.${t}`);
  EXACT.add(`__builtin__.${t}`);
}

/**
 * Warning and exception classes: values in a fitted object (scikit-learn 0.19's `cv_results_` is a
 * DeprecationDict holding `(message, FutureWarning)` pairs), and harmless built: constructing an
 * exception runs nothing, only `raise` would. (Python 2's `exceptions` module reads as `builtins`.)
 */
const BUILTIN_EXCEPTIONS = [
  'Warning', 'UserWarning', 'DeprecationWarning', 'PendingDeprecationWarning', 'FutureWarning', 'RuntimeWarning', 'SyntaxWarning',
  'ImportWarning', 'UnicodeWarning', 'BytesWarning', 'ResourceWarning',
  'Exception', 'ValueError', 'TypeError', 'KeyError', 'IndexError', 'RuntimeError', 'ArithmeticError', 'ZeroDivisionError',
  'OverflowError', 'AttributeError', 'LookupError', 'NotImplementedError', 'AssertionError',
];
for (const t of BUILTIN_EXCEPTIONS) {
  EXACT.add(`builtins.${t}`);
  EXACT.add(`exceptions.${t}`);
}

/** numpy scalar types (e.g. `dtype=np.float64` as a hyper-parameter). */
const NUMPY_SCALARS = [
  'bool_', 'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
  'intc', 'intp', 'uintp', 'float16', 'float32', 'float64', 'longdouble', 'complex64', 'complex128',
  'str_', 'bytes_', 'object_', 'number', 'integer', 'floating', 'generic',
];
for (const t of NUMPY_SCALARS) EXACT.add(`numpy.${t}`);

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** CapWords, public or private (`_CalibratedClassifier`, `_BinMapper`): a class by convention. */
const CLASS_NAME = /^_?[A-Z][A-Za-z0-9_]*$/;
/** Cython's reconstructor of an extension type (`__pyx_unpickle_CyHalfBinomialLoss`). */
const CYTHON_UNPICKLE = /^__pyx_unpickle_[A-Za-z_][A-Za-z0-9_]*$/;
/** scipy.sparse's classes, in their old (scipy.sparse.csr) and new (scipy.sparse._csr) modules. */
const SPARSE_MODULE = /^scipy\.sparse\.(_?(csr|csc|coo|bsr|dia|dok|lil)|_arrays)$/;
const SPARSE_CLASS = /^(csr|csc|coo|bsr|dia|dok|lil)_(matrix|array)$/;
const MODULE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * Whether `module.name` may appear in a model pickle. Dotted names (protocol 4 qualnames, which
 * Python resolves attribute by attribute) are never allowed outside the exact list.
 */
export function isAllowedGlobal(module: string, name: string): boolean {
  if (EXACT.has(`${module}.${name}`)) return true;
  if (!MODULE.test(module) || !IDENT.test(name)) return false;
  // scikit-learn classes: estimators, Tree, loss objects, Bunch, and the private ones estimators
  // keep (_CalibratedClassifier, _SigmoidCalibration, _BinMapper, _RemainderColsList): sklearn's
  // classes store their parameters in __init__ and rebuild from __setstate__; none runs a command.
  // Not functions (sklearn.utils.check_array stays unknown), not the vendored third-party code
  // under sklearn.externals, except joblib's array record.
  if (module.startsWith('sklearn.') && CLASS_NAME.test(name)) {
    if (module.startsWith('sklearn.externals.')) return module === 'sklearn.externals.joblib.numpy_pickle' && name.endsWith('ArrayWrapper');
    return true;
  }
  // imbalanced-learn (scikit-learn-contrib): its Pipeline and its samplers (SMOTE,
  // RandomUnderSampler, ...) are scikit-learn estimators by the same conventions, parameters in
  // __init__ and fitted state set by __setstate__.
  if (module.startsWith('imblearn.') && CLASS_NAME.test(name)) return true;
  // category_encoders (scikit-learn-contrib: TargetEncoder, OrdinalEncoder, BinaryEncoder, ...):
  // transformers by the same conventions, fitted state as plain attributes (their mappings as
  // pandas objects, checked separately); sweep 13 found them in a public PyCaret bundle.
  if (module.startsWith('category_encoders.') && CLASS_NAME.test(name)) return true;
  // Cython's generated __pyx_unpickle_<Type>(type, checksum, state) for sklearn's extension types
  // (HistGradientBoosting's loss): checks the checksum, calls <Type>.__new__(type) and sets the
  // state; `type` is a global of its own, checked separately.
  if (module.startsWith('sklearn.') && !module.startsWith('sklearn.externals.') && CYTHON_UNPICKLE.test(name)) return true;
  // The same reconstructors for numpy.random's Cython types (SeedSequence in a RandomState's state).
  if (module.startsWith('numpy.random.') && CYTHON_UNPICKLE.test(name)) return true;
  // scikit-learn >= 1.6 pickles its Cython losses (GradientBoosting's _loss) under the extension
  // module's own short name, `_loss`: only CapWords classes and their Cython reconstructors.
  if (module === '_loss' && (/^Cy[A-Za-z0-9]+$/.test(name) || CYTHON_UNPICKLE.test(name))) return true;
  // scipy.sparse matrices and arrays (a TF-IDF vectorizer's idf_ diagonal): containers rebuilt by
  // copyreg._reconstructor and a state dict of arrays; they define no __setstate__ or __reduce__.
  if (SPARSE_MODULE.test(module) && SPARSE_CLASS.test(name)) return true;
  // numpy 2 dtype classes (numpy.dtypes.Float64DType)
  if (module === 'numpy.dtypes' && /^[A-Z][A-Za-z0-9]*DType$/.test(name)) return true;
  return false;
}
