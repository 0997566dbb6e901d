/**
 * What a reader returns. Readers never throw into the caller: every failure is a value here,
 * so the linter can turn it into a finding and go on with other files.
 */
import type { ForestInput } from '../forest/schema';

/** A position in a text model file (0-based, as in LSP). Binary formats have none. */
export interface SourceRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

/** Where in the model a fact lives, so a finding can point at it. */
export interface ModelPath {
  tree?: number;
  node?: number;
}

/** Why a file could not be read; each value is explained in docs/rules/unreadable-model.md. */
/** Functions cloudpickle rebuilt from bytecode without running them (pickle/vm.ts, UnpickleResult.bytecode). */
export interface BytecodeFunctions {
  /** Functions rebuilt (`_make_function` calls). */
  functions: number;
  /** The cloudpickle names the pickle used to rebuild them, `module.name`. */
  names: string[];
}

export type UnreadableReason =
  | 'empty'
  | 'truncated'
  | 'not-a-model'
  | 'unsupported-estimator'
  | 'unsupported-compression'
  | 'unsupported-format'
  | 'too-large'
  | 'corrupt'
  /** The analysis itself failed (ran out of memory or time); the server restarted it and goes on. */
  | 'analysis-failed';

export interface ModelRead {
  kind: 'model';
  /** Format id, e.g. `sklearn-joblib`, `sklearn-pickle`, `forest-json`. */
  format: string;
  forest: ForestInput;
  /** Facts about the file worth telling the user that are not findings (e.g. `compression: zlib`). */
  notes: string[];
  /** Maps a place in the model to a range in a text file; absent for binary files. */
  locate?: (path: ModelPath) => SourceRange | undefined;
  /**
   * Where the model sits in the saved object, as the Python expression that reaches it from the
   * loaded object (`model.named_steps["rf"]`); absent when the file holds the model itself.
   */
  location?: string;
  /** Further tree models in the same file (a VotingClassifier's members, CalibratedClassifierCV's folds, ...). */
  others?: EmbeddedModel[];
  /** Tree models in the file that are not read (another library's, or damaged), with why. */
  unread?: UnreadModel[];
  /**
   * Pickles only: globals neither allowlisted nor known to be dangerous (another library's class,
   * the project's own function), in order of first appearance; loading the file with Python imports
   * them. Absent or empty: none. See docs/rules/unknown-pickle-global.md.
   */
  unknownGlobals?: UnknownGlobal[];
  /**
   * Pickles only: `__main__` names (classes or functions of the script or notebook that saved the
   * file). They are dangerous to load (the loading script's own `__main__` answers them, whatever it
   * defines), so the file is `unsafe-pickle`, but nothing else is: the models are still analysed.
   */
  scriptGlobals?: string[];
  /**
   * Those of `scriptGlobals` used as functions: called while loading or given arguments (REDUCE,
   * OBJ, INST, a class given arguments), held as a value for the model to call (a
   * FunctionTransformer's `func`), or a dotted name that reaches into a module the loading script
   * imported (`__main__.os.system`). Absent or empty: loading only builds bare objects of the
   * script's own classes and sets their state (a notebook's wrapper or transformer), which runs the
   * loading script's code for those classes and nothing the file chooses.
   */
  scriptFunctions?: string[];
  /**
   * Pickles only: functions cloudpickle rebuilt from their bytecode (a notebook's lambda, as MLflow
   * saves models), with the cloudpickle names used; loading only builds them, the model runs them
   * when used. The file is `unsafe-pickle`, and the models are still analysed.
   */
  bytecodeFunctions?: BytecodeFunctions;
  /** Pickles only: data saved in the file beside (or instead of) a model (rule `saved-data`). */
  savedData?: SavedData[];
}

/** Data saved in a pickle (formats/sklearn/saved-data.ts): a DataFrame, a Series or a 2-D array. */
export interface SavedData {
  /** Where it sits, as the Python expression that reaches it from the loaded object (`model["X_train"]`). */
  location: string;
  /**
   * `fitted-rows`: training rows a fitted estimator keeps (a KNNImputer's, SMOTE's neighbours';
   * formats/sklearn/stored-rows.ts). `row-outputs`: a value per training row, in training order,
   * that a fitted ensemble keeps (the out-of-bag predictions `oob_score=True` stores).
   */
  kind: 'DataFrame' | 'Series' | 'array' | 'fitted-rows' | 'row-outputs';
  /** Rows and columns, where the pickled axes or shape give them. */
  rows?: number;
  columns?: number;
  /** `fitted-rows`, `row-outputs`: the estimator that keeps them, and what they are to it ("its support vectors"). */
  estimator?: string;
  what?: string;
  /**
   * `fitted-rows`: what keeps them: a resampler's neighbours (needed only while fitting), an imputer
   * (needed to predict, but replaceable by one that keeps no rows), or a model made of its rows.
   */
  keeper?: 'resampler' | 'imputer' | 'model';
  /** `fitted-rows` of a resampler: its class (SMOTE), whose fitted `estimator` keeps the rows. */
  owner?: string;
}

/** A global a pickle names that is neither allowed nor dangerous (formats/pickle/tiers.ts). */
export interface UnknownGlobal {
  /** `module.name`. */
  name: string;
  /** Whether loading calls it (REDUCE, NEWOBJ, INST, OBJ, ...) rather than only holding it as a value. */
  called: boolean;
}

/** A tree model found beside the primary one; the linter gives it the fast findings too. */
export interface EmbeddedModel {
  location: string;
  forest: ForestInput;
  notes: string[];
}

export interface UnreadModel {
  location: string;
  /** The class name, e.g. `LGBMClassifier`. */
  estimator: string;
  reason: string;
  /** Another library's model: its class as the pickle names it (`lightgbm.sklearn.LGBMClassifier`), not also an unknown global. */
  global?: string;
}

/** An unread model saved before it was fitted: the decoders' reason says "was never fitted". */
export function isNeverFitted(model: Pick<UnreadModel, 'reason'>): boolean {
  return /was never fitted/.test(model.reason);
}

/** A file that was read but holds no tree model this tool reads (a scaler, a vectorizer, a LightGBM model, ...). */
export interface NoTreeModelRead {
  kind: 'no-model';
  format: string;
  /** What the file holds, e.g. `a sklearn.preprocessing._data.StandardScaler`. */
  holds: string;
  /** Tree models found that are not read yet; empty when the file holds none. */
  unread: UnreadModel[];
  notes: string[];
  /** As on ModelRead: globals a loader would import that are neither allowed nor dangerous. */
  unknownGlobals?: UnknownGlobal[];
  /** As on ModelRead: `__main__` names, which make the file unsafe to load. */
  scriptGlobals?: string[];
  /** As on ModelRead: those of them used as functions. */
  scriptFunctions?: string[];
  /** As on ModelRead: functions rebuilt from bytecode, which make the file unsafe to load. */
  bytecodeFunctions?: BytecodeFunctions;
  /** As on ModelRead: data saved in the file. */
  savedData?: SavedData[];
}

export interface UnsafeRead {
  kind: 'unsafe';
  format: string;
  /** Every global the file names outside the allowlist, as `module.name`, in order of first appearance. */
  globals: string[];
}

export interface UnreadableRead {
  kind: 'unreadable';
  format: string;
  reason: UnreadableReason;
  /** One sentence for a person: what is wrong and, where it helps, what to do. */
  detail: string;
}

export type ReadResult = ModelRead | UnsafeRead | UnreadableRead | NoTreeModelRead;

/** What the caller lets a reader spend. */
export interface ReadOptions {
  /** Largest model (after decompression) a reader may produce, in bytes: the linter's file-size limit. */
  maxBytes?: number;
  /**
   * A file beside the model, by its name (old joblib's `clf.pkl_01.npy` side files): its bytes, or
   * why it cannot be read. Absent when the model has no file on disk (an editor buffer's bytes).
   */
  sideFile?: (name: string) => Uint8Array | string;
}

/** One reader per format. `sniff` looks at content (not the extension) and must be cheap. */
export interface ModelReader {
  format: string;
  sniff(bytes: Uint8Array, fileName: string): boolean;
  read(bytes: Uint8Array, fileName: string, options?: ReadOptions): ReadResult;
}
