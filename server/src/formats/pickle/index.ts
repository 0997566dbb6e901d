/**
 * Safe pickle reading: an opcode VM that builds an inert object graph (nothing is imported or
 * called), three tiers of globals (allowed, dangerous, unknown), numpy array decoding, joblib's
 * container format (compression + raw arrays after NumpyArrayWrapper records), and the scan of
 * every pickle a file holds one after another.
 */
export * from './values';
export { isAllowedGlobal } from './allowlist';
export { dangerReason, DANGEROUS_MODULES, DANGEROUS_NAMES } from './dangerous-globals';
export { classifyGlobal } from './tiers';
export type { GlobalTier, GlobalClass } from './tiers';
export { unpickle, PickleError, DEFAULT_LIMITS, latin1Decode } from './vm';
export type { BytecodeFunctions, PickleLimits, UnpickleOptions, UnpickleResult, PickleErrorKind } from './vm';
export { unpickleStream, MAX_FURTHER_PICKLES, canStartPickle } from './stream';
export type { StreamResult } from './stream';
export { NdArray, NumpyError, arrayFromStateAndData, asDType, asNdArray, asNumpyScalar, isArray, numeric } from './numpy';
export type { DType, DTypeField } from './numpy';
export { detectCompression, decompress, zfileBody, DEFAULT_MAX_DECOMPRESSED_BYTES, DecompressError } from './compression';
export type { Compression } from './compression';
