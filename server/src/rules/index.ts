/** Runs every model rule and applies severities; failures to read become findings here too. */
import type { Forest } from '../forest/schema';
import { isNeverFitted, type BytecodeFunctions, type ModelRead, type NoTreeModelRead, type SavedData, type UnreadModel, type UnreadableRead, type UnsafeRead } from '../formats/types';
import type { ReplayCheck } from '../attacks/bootstrap-replay';
import type { FirstTreeProbe } from '../attacks/first-tree-probe';
import { RULES, type RuleId, type Severity } from './catalog';
import type { Finding, FindingDraft, ModelRule } from './types';
import { noBootstrap } from './no-bootstrap';
import { replayableBootstrap } from './replayable-bootstrap';
import { singletonLeaf } from './singleton-leaf';
import { exactCounts } from './exact-counts';
import { reconstructionDraft, type ReconstructionThresholds } from './reconstructable-training-set';
import type { Recoverability } from '../recoverability/summary';
import { firstTreeExposesCounts } from './first-tree-exposes-counts';
import { exportedStatistics } from './exported-statistics';
import { unknownPickleGlobalDraft } from './unknown-pickle-global';
import { leafRevealsTarget } from './leaf-reveals-target';
import { noTrainingCounts } from './no-training-counts';
import { lead } from './message';
import { formatCount, plural } from '../util/wording';
import type { Categories } from './conditions';

export const MODEL_RULES: readonly ModelRule[] = [noBootstrap, replayableBootstrap, singletonLeaf, leafRevealsTarget, exactCounts, noTrainingCounts, firstTreeExposesCounts, exportedStatistics];

/** Per-rule severity overrides from settings or the command line. */
export type SeverityOverrides = Partial<Record<RuleId, Severity>>;

function finish(rule: RuleId, draft: FindingDraft, overrides: SeverityOverrides, read?: ModelRead, computed?: Exclude<Severity, 'off'>): Finding | undefined {
  const severity = overrides[rule] ?? computed ?? RULES[rule].defaultSeverity;
  if (severity === 'off') return undefined;
  const range = draft.at && read?.locate ? read.locate(draft.at) : undefined;
  return {
    rule,
    severity,
    message: draft.message,
    location: { ...draft.at, ...(range ? { range } : {}) },
    ...(draft.data ? { data: draft.data } : {}),
  };
}

export function runModelRules(forest: Forest, replay: ReplayCheck, read: ModelRead, overrides: SeverityOverrides, probe?: FirstTreeProbe, categories?: Categories): Finding[] {
  const findings: Finding[] = [];
  for (const rule of MODEL_RULES) {
    for (const draft of rule.check({ forest, replay, probe, ...(categories ? { categories } : {}) })) {
      const finding = finish(rule.id, draft, overrides, read);
      if (finding) findings.push(finding);
    }
  }
  return findings;
}

/**
 * About the file rather than any of its models: the pickle's unknown globals, once per file (the
 * linter calls it beside the model rules, and for files without a tree model too).
 */
export function unknownGlobalFindings(read: ModelRead | NoTreeModelRead, overrides: SeverityOverrides): Finding[] {
  const unknown = unknownPickleGlobalDraft(read);
  // A file without a tree model (a pickled pandas Series, a Keras wrapper) is a note, not a warning:
  // the Problems panel of a workspace with such files beside its models stays on the models.
  const finding = unknown && finish('unknown-pickle-global', unknown, overrides, undefined, read.kind === 'no-model' ? 'information' : undefined);
  return finding ? [finding] : [];
}

/**
 * `saved-data`: a DataFrame, a Series or a table-shaped array in a pickle (formats/sklearn/saved-data.ts).
 * `X_train.pkl` is the training set itself; one beside a model (a Pipeline saved with a sample of
 * its data) is rows too. Named by where it sits and its size; its values are never read.
 */
/** How to stop a fitted estimator keeping training rows, by what it is (SavedData.keeper). */
const STORED_ROWS_FIX: Record<NonNullable<SavedData['keeper']>, { short: string; long: string }> = {
  resampler: { short: 'save the model without it', long: 'A resampler is needed only while fitting: save the fitted model without it (the Pipeline of the steps after it).' },
  imputer: { short: 'use an imputer that keeps none', long: 'Impute with a method that keeps no rows (SimpleImputer, IterativeImputer).' },
  model: { short: 'keep it private', long: 'A nearest-neighbour, kernel or support-vector model is made of its training rows: keep it private, or replace it with one that keeps none.' },
};

/**
 * The finding's first line, within the 80 characters the Problems panel shows: "SMOTE's neighbours
 * store 75 training rows verbatim: save the model without it." (the estimator's name gives way to a
 * shorter subject when the line would be longer).
 */
function storedRowsLead(d: SavedData, rows: number): string {
  const fix = STORED_ROWS_FIX[d.keeper ?? 'model'].short;
  const subject = d.owner ? `${d.owner}'s neighbours store` : `${article(d.estimator ?? 'estimator')} ${d.estimator} stores`;
  const line = `${subject} ${plural(rows, 'training row')} verbatim: ${fix}.`;
  return line.length <= 80 ? line : `A fitted estimator stores ${plural(rows, 'training row')} verbatim: ${fix}.`;
}

/**
 * "A" or "An" before an estimator's name, by how it is read aloud: "an SVC", "an SVR", "an
 * XGBClassifier" (initialisms of a vowel sound), "a KNeighborsClassifier".
 */
function article(name: string): string {
  const initialism = /^[A-Z]{2}/.test(name);
  const vowelSound = initialism ? /^[AEFHILMNORSX]/.test(name) : /^[AEIOU]/.test(name);
  return vowelSound ? 'An' : 'A';
}

/** "SMOTE's fitted NearestNeighbors", "a fitted KNNImputer". */
function keeperName(d: SavedData): string {
  return d.owner ? `${d.owner}'s fitted ${d.estimator}` : `a fitted ${d.estimator}`;
}

/** The finding's first line and its advice, by what the file keeps. */
function savedDataAdvice(data: readonly SavedData[], rows: number): { headline: string; advice: string } {
  // Only out-of-bag outputs: the model keeps a label or target per training row (oob_score=True).
  if (data.every((d) => d.kind === 'row-outputs')) {
    const weights = data.some((d) => d.location.endsWith('._sample_weight'));
    const predictions = data.some((d) => !d.location.endsWith('._sample_weight'));
    const oob =
      'Fitted with oob_score=True, the model keeps its predictions beside its score: whoever loads the file reads a label or target for each training row, ' +
      'in the order of the training data, no attack needed. Delete the attribute before saving (del model.oob_decision_function_, or model.oob_prediction_ ' +
      'for a regressor; oob_score_ keeps the score), or fit with oob_score=False.';
    const weighted =
      "scikit-learn 1.9 keeps the weight each training row was fitted with: with class_weight, each weight is its row's class, in the order of the training data. " +
      'Delete it before saving (del model._sample_weight).';
    return {
      headline: predictions ? 'The model stores a prediction for each training row: delete it before saving.' : 'The model stores a weight for each training row: delete it before saving.',
      advice: [predictions ? oob : '', weights ? weighted : ''].filter((x) => x).join(' '),
    };
  }
  // Only fitted estimators' rows: the file is a model, whose parts keep training rows as they are.
  if (data.every((d) => d.kind === 'fitted-rows')) {
    const keepers = new Set(data.map((d) => `${d.owner ?? ''}/${d.estimator ?? ''}`));
    const fixes = new Set(data.map((d) => STORED_ROWS_FIX[d.keeper ?? 'model'].short));
    return {
      // Named after the estimator that keeps the most rows, whose count the line states; several
      // estimators are counted (a public list of models named its KNeighborsClassifier alone, beside an SVC).
      headline:
        keepers.size > 1
          ? `${keepers.size} fitted estimators store training rows verbatim, up to ${formatCount(rows)}: ${fixes.size === 1 ? [...fixes][0].replace(/\bit\b/, 'them') : 'keep the file private'}.`
          : storedRowsLead(data.reduce((most, d) => ((d.rows ?? 0) > (most.rows ?? 0) ? d : most)), rows),
      advice:
        'Whoever loads the file reads those training rows as the estimator saw them (after the steps before it where it sits in a Pipeline: scaled, imputed), no attack needed. ' +
        [...new Set(data.map((d) => STORED_ROWS_FIX[d.keeper ?? 'model'].long))].join(' '),
    };
  }
  return {
    headline: rows > 0 ? `The file holds data (a table of ${plural(rows, 'row')}): keep data out of shared files.` : 'The file holds data, not only a model: keep data out of shared files.',
    advice:
      'Whoever reads the file reads these rows as they are, no attack needed; saved as X_train or beside a model, they are often the training data itself. ' +
      'Save the model alone, and keep data where its access is controlled.',
  };
}

/** Tables said one by one up to this many, the largest first beyond it (50 SVCs of an AdaBoost took 5,000 characters). */
const LISTED_TABLES = 5;

function listed(data: readonly SavedData[], described: (d: SavedData) => string): string {
  if (data.length <= LISTED_TABLES) return data.map(described).join('; ');
  const largest = [...data].sort((a, b) => (b.rows ?? 0) - (a.rows ?? 0)).slice(0, LISTED_TABLES - 1);
  return `${largest.map(described).join('; ')}; and ${data.length - largest.length} more (JSON data.tables lists them all)`;
}

export function savedDataFindings(read: { savedData?: SavedData[] }, overrides: SeverityOverrides): Finding[] {
  const data = read.savedData ?? [];
  if (data.length === 0) return [];
  const size = (d: SavedData) => (d.rows !== undefined ? `${plural(d.rows, 'row')}${d.columns !== undefined ? ` x ${plural(d.columns, 'column')}` : ''}` : 'size not read');
  const what = (d: SavedData) => (d.kind === 'array' ? 'a numpy array' : d.kind === 'Series' ? 'a pandas Series' : 'a pandas DataFrame');
  const described = (d: SavedData) =>
    d.kind === 'fitted-rows'
      ? `${keeperName(d)}, which keeps ${d.what}: ${size(d)} at ${d.location}`
      : d.kind === 'row-outputs'
        ? `the ${d.estimator}'s ${d.what}, in training order: ${size(d)} at ${d.location}`
        : `${what(d)} of ${size(d)}${d.location === 'model' ? '' : ` at ${d.location}`}`;
  // The largest table (a DataFrame and its labels' Series hold the same rows: not a sum).
  const rows = Math.max(0, ...data.map((d) => d.rows ?? 0));
  const { headline, advice } = savedDataAdvice(data, rows);
  const finding = finish(
    'saved-data',
    {
      message: lead(headline, `It holds ${listed(data, described)}. ${advice}`),
      data: { tables: data.map((d) => ({ location: d.location, kind: d.kind, rows: d.rows ?? null, columns: d.columns ?? null, ...(d.estimator ? { estimator: d.estimator } : {}) })) },
    },
    overrides,
  );
  return finding ? [finding] : [];
}

export function unsafeFinding(read: UnsafeRead, overrides: SeverityOverrides): Finding[] {
  const names = read.globals.join(', ');
  const finding = finish(
    'unsafe-pickle',
    {
      message: lead(
        'Loading this pickle would run dangerous code: do not load it.',
        `This pickle names ${read.globals.length === 1 ? 'a dangerous global' : `${read.globals.length} dangerous globals`} ` +
          `(${names}); loading it with Python would import and can call ${read.globals.length === 1 ? 'it' : 'them'}. ` +
          `Nothing was run and the model was not analysed.`,
      ),
      data: { globals: read.globals },
    },
    overrides,
  );
  return finding ? [finding] : [];
}

/**
 * `unsafe-pickle` for a file whose only dangerous names are `__main__` ones (the saving script's or
 * notebook's own classes) or cloudpickle's, rebuilding functions from bytecode without calling them
 * (a lambda in a FunctionTransformer, as MLflow saves models): loading it runs whatever the loading
 * script defines under those names, or the model runs the rebuilt code when used, but the models in
 * it were read like any other (nothing of the file was run either way).
 *
 * A warning, not an error, when loading only builds bare objects of the script's classes (a
 * notebook's wrapper or transformer, `read.scriptFunctions` empty): then the only code that
 * runs is the loading script's own for those classes, and the file cannot reach anything else the
 * script defines or imported. An error as soon as it calls such a name or gives it arguments.
 */
export function scriptGlobalsFinding(read: { scriptGlobals?: string[]; scriptFunctions?: string[]; bytecodeFunctions?: BytecodeFunctions }, overrides: SeverityOverrides): Finding[] {
  const main = read.scriptGlobals ?? [];
  const bytecode = read.bytecodeFunctions;
  if (main.length === 0 && !bytecode) return [];
  const functions = read.scriptFunctions ?? [];
  const classesOnly = main.length > 0 && functions.length === 0 && !bytecode;
  const sentences: string[] = [];
  if (classesOnly) {
    const one = main.length === 1;
    sentences.push(
      `This pickle rebuilds objects of ${one ? 'a class' : `${main.length} classes`} defined in the script or notebook that saved it (${main.join(', ')}). ` +
        `Python looks ${one ? 'it' : 'them'} up in the loading script's own __main__: loading fails where ${one ? 'it is' : 'they are'} not defined, and runs that script's code for ${one ? 'it' : 'them'} (__new__, __setstate__) where ${one ? 'it is' : 'they are'}. ` +
        `The file never calls ${one ? 'it' : 'any of them'} as a function or with arguments, so it reaches nothing else the loading script defines.`,
    );
  } else if (main.length > 0) {
    const one = main.length === 1;
    const calls = ` The file uses ${functions.length === main.length ? (one ? 'it' : 'them') : functions.join(', ')} as ${functions.length === 1 ? 'a function' : 'functions'}, called while loading or by the model when used.`;
    sentences.push(
      `This pickle names ${one ? 'a class or function' : `${main.length} classes or functions`} of the script or notebook that saved it ` +
        `(${main.join(', ')}). Python answers ${one ? 'it' : 'them'} from the loading script's own __main__, whatever that defines under ` +
        `${one ? 'that name' : 'those names'}: with a hostile or mistaken definition, loading runs it.${calls}`,
    );
  }
  if (bytecode) {
    const n = bytecode.functions;
    sentences.push(
      `${main.length > 0 ? 'It also carries' : 'This pickle carries'} ${plural(n, 'function')} of the script or notebook that saved it as bytecode, written by cloudpickle ` +
        `(MLflow's default for scikit-learn; a lambda or a locally defined function, such as a FunctionTransformer's) through ${bytecode.names.join(', ')}. ` +
        `Loading rebuilds ${n === 1 ? 'it' : 'them'} without calling ${n === 1 ? 'it' : 'them'}, but the model runs ${n === 1 ? 'it' : 'them'} whenever it is used, so whatever that bytecode does runs on the loading machine.`,
    );
  }
  const fix = [
    main.length > 0 ? 'define such classes in a module both scripts import' : '',
    bytecode ? 'pass a function of an installed module (np.log1p) instead of a lambda' : '',
    'or save the trees alone',
  ].filter((x) => x);
  const headline = classesOnly
    ? `Loading needs the saving script's own ${main.length === 1 ? 'class: define it' : 'classes: define them'} in a module.`
    : main.length > 0
      ? 'Loading this pickle runs code of the script that loads it: do not load it.'
      : 'This pickle carries code as bytecode: load it only from a source you trust.';
  const finding = finish(
    'unsafe-pickle',
    {
      message: lead(headline, `${sentences.join(' ')} Nothing was run; the rest of the file was read as usual (the other findings). To share the model safely, ${fix.join(', ')}.`),
      data: {
        globals: [...main, ...(bytecode?.names ?? [])],
        scriptOnly: true,
        ...(main.length > 0 ? { scriptFunctions: functions } : {}),
        ...(bytecode ? { bytecodeFunctions: bytecode.functions } : {}),
      },
    },
    overrides,
    undefined,
    classesOnly ? 'warning' : undefined,
  );
  return finding ? [finding] : [];
}

export function unreadableFinding(read: UnreadableRead, overrides: SeverityOverrides): Finding[] {
  const finding = finish(
    'unreadable-model',
    { message: lead(`Cannot read this model (${read.reason}): nothing was analysed.`, `Cannot read this model: ${read.detail}`), data: { reason: read.reason } },
    overrides,
  );
  return finding ? [finding] : [];
}

/**
 * A file without a tree model this tool reads: a note naming what it holds (`no-tree-model`), or
 * naming the tree models it does not read yet (`unsupported-model`). Notes, not warnings: a
 * workspace with a scaler beside its model should not fill the Problems panel.
 */
export function noModelFindings(read: NoTreeModelRead, overrides: SeverityOverrides): Finding[] {
  if (read.unread.length > 0) return unsupportedModelFindings(read.unread, overrides);
  const finding = finish(
    'no-tree-model',
    {
      message: lead('No tree model in this file: no training counts to analyse.', `It holds ${read.holds}, which stores no per-node training counts.`),
      data: { holds: read.holds },
    },
    overrides,
  );
  return finding ? [finding] : [];
}

/** One note for the tree models in a file that are not read (another library's, or damaged). */
export function unsupportedModelFindings(unread: readonly UnreadModel[], overrides: SeverityOverrides): Finding[] {
  if (unread.length === 0) return [];
  // `model` is the file's top level (the pickle's root, a model file of its own): no place to name.
  const listed = unread.slice(0, 3).map((m) => `${m.estimator}${m.location === 'model' ? '' : ` at ${m.location}`} (${m.reason})`).join('; ');
  const more = unread.length > 3 ? `; and ${unread.length - 3} more` : '';
  // A never-fitted estimator is not something this tool cannot read: it has no trees to read.
  const unfitted = unread.every(isNeverFitted);
  const summary = unfitted
    ? `${unread.length === 1 ? 'The tree model here was' : `The ${unread.length} tree models here were`} never fitted: no trees, nothing to analyse.`
    : `${unread.length === 1 ? 'A tree model here is' : `${unread.length} tree models here are`} not read by this tool yet: not analysed.`;
  const finding = finish(
    'unsupported-model',
    {
      message: lead(
        summary,
        `${unread.length === 1 ? 'A tree model in this file is' : `${unread.length} tree models in this file are`} not analysed: ${listed}${more}.`,
      ),
      data: { models: unread.map((m) => ({ ...m })) },
    },
    overrides,
  );
  return finding ? [finding] : [];
}

/**
 * The `reconstructable-training-set` finding for a finished reconstruction (none when it was
 * skipped or failed). An explicit severity override wins over the thresholds.
 */
export function reconstructionFindings(
  forest: Forest,
  recoverability: Recoverability,
  thresholds: ReconstructionThresholds,
  overrides: SeverityOverrides,
): Finding[] {
  const drafted = reconstructionDraft(forest, recoverability, thresholds);
  if (!drafted) return [];
  const finding = finish('reconstructable-training-set', drafted.draft, overrides, undefined, drafted.severity);
  return finding ? [finding] : [];
}
