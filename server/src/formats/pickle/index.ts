/**
 * Safe pickle reading: an opcode VM that builds an inert object graph (nothing is imported or
 * called), an allowlist of globals, numpy array decoding, and joblib's container format
 * (compression + raw arrays after NumpyArrayWrapper records).
 */
export * from './values';
export { isAllowedGlobal } from './allowlist';
export { unpickle, PickleError, DEFAULT_LIMITS, latin1Decode } from './vm';
export type { PickleLimits, UnpickleOptions, UnpickleResult, PickleErrorKind } from './vm';
export { NdArray, NumpyError, asDType, asNdArray, asNumpyScalar, isArray, numeric } from './numpy';
export type { DType, DTypeField } from './numpy';
export { detectCompression, decompress, DEFAULT_MAX_DECOMPRESSED_BYTES, DecompressError } from './compression';
export type { Compression } from './compression';
