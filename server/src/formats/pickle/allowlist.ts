/**
 * Which globals a model pickle may name. Deny by default: anything not listed here makes the file
 * unsafe, whatever it is used for. Nothing is ever imported or called either way; the list says
 * which names are harmless *for whoever loads the file with Python afterwards*.
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
]);

/** Harmless builtin types (they appear as values, e.g. `dtype=float`, or to rebuild containers). */
const BUILTIN_TYPES = [
  'object', 'set', 'frozenset', 'bytearray', 'slice', 'complex',
  'int', 'float', 'str', 'bool', 'bytes', 'list', 'dict', 'tuple', 'range', 'long', 'unicode',
];
for (const t of BUILTIN_TYPES) {
  EXACT.add(`builtins.${t}`);
  EXACT.add(`__builtin__.${t}`);
}

/** numpy scalar types (e.g. `dtype=np.float64` as a hyper-parameter). */
const NUMPY_SCALARS = [
  'bool_', 'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
  'intc', 'intp', 'uintp', 'float16', 'float32', 'float64', 'longdouble', 'complex64', 'complex128',
  'str_', 'bytes_', 'object_', 'number', 'integer', 'floating', 'generic',
];
for (const t of NUMPY_SCALARS) EXACT.add(`numpy.${t}`);

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CLASS_NAME = /^[A-Z][A-Za-z0-9_]*$/;
const MODULE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * Whether `module.name` may appear in a model pickle. Dotted names (protocol 4 qualnames, which
 * Python resolves attribute by attribute) are never allowed outside the exact list.
 */
export function isAllowedGlobal(module: string, name: string): boolean {
  if (EXACT.has(`${module}.${name}`)) return true;
  if (!MODULE.test(module) || !IDENT.test(name)) return false;
  // scikit-learn classes: estimators, Tree, loss objects, Bunch, ... (not functions, not the
  // vendored third-party code under sklearn.externals, except joblib's array record)
  if (module.startsWith('sklearn.') && CLASS_NAME.test(name)) {
    if (module.startsWith('sklearn.externals.')) return module === 'sklearn.externals.joblib.numpy_pickle' && name.endsWith('ArrayWrapper');
    return true;
  }
  // numpy 2 dtype classes (numpy.dtypes.Float64DType)
  if (module === 'numpy.dtypes' && /^[A-Z][A-Za-z0-9]*DType$/.test(name)) return true;
  return false;
}
