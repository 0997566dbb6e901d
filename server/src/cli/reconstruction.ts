/**
 * The command line's reconstruction step, run after linting on each readable model, one model
 * at a time: the assessment (declared groups -> engine within the budget -> summary and finding),
 * then, when asked, the evaluation against the true training data and the CSV of the rows.
 * The rows themselves are personal data: they go to the CSV file the user named and nowhere else.
 */
import { targetInverse } from '../forest/target-transform';
import type { CandidateFile } from '../membership/candidates';
import { promises as fs } from 'node:fs';
import type { FileReport } from '../linter/linter';
import type { Forest } from '../forest/schema';
import type { ReconstructedRow, ReconstructionProgress, ReconstructionResult } from '../attacks/reconstruction/types';
import { RunContext } from '../attacks/reconstruction/context';
import { assessRecoverability } from '../recoverability/assess';
import { declaredGroupsFor, type GroupDeclaration } from '../recoverability/declared-groups';
import { summarizeReconstruction } from '../recoverability/summary';
import type { SeverityOverrides } from '../rules';
import type { ReconstructionThresholds } from '../rules/reconstructable-training-set';
import { alignTrainingData, type AlignedTrainingData, type TrainingData } from '../evaluate/training-data';
import { evaluateAgainstTruth } from '../evaluate/evaluation';
import { adviseForModel } from './advisor';
import { DEFAULT_LABEL_COLUMN, intervalFeatures, reconstructionCsv } from '../report/reconstruction-csv';
import { inputReconstructionCsv } from '../report/reconstruction-input-csv';
import { usablePipelineInput } from '../forest/pipeline-input';
import { TimelineRecorder } from '../report/timeline';
import { featureUse, type FeatureUse } from '../report/build';
import type { InputColumnRecovery, TimelinePoint } from '../report/model';
import { inputColumnRecovery } from '../report/input-columns';

export interface ReconstructionStepOptions {
  /** 0: do not reconstruct (recoverability `skipped`). */
  budgetMs: number;
  /** Groups declared with --one-hot / --at-most-one. */
  flagGroups: GroupDeclaration[];
  thresholds: ReconstructionThresholds;
  severities: SeverityOverrides;
  /** Where to write this model's reconstruction, if anywhere. */
  emitPath?: string;
  trainingData?: TrainingData;
  /** --categorical: features (names or indices) the reconstruction accuracy scores as categories. */
  categorical?: string[];
  onProgress?: (progress: ReconstructionProgress) => void;
  /** Keep what the HTML report needs (`outcome.forReport`): the result, its timeline, the features. */
  forReport?: boolean;
  /** Run the what-if advisor after the reconstruction (`--advise`), with a budget of its own (twice `budgetMs`, cli/advisor.ts). */
  advise?: boolean;
  /** Messages for stderr. */
  log: (message: string) => void;
  /** Return the engine's result (`outcome.result`), for an advisor run after this step. */
  keepResult?: boolean;
  /** --membership's candidates: with a members column, the advisor reports each remedy's membership AUC. */
  candidates?: CandidateFile;
}

export interface ReconstructionStepOutcome {
  /** Whether the training data could be lined up with this model (undefined: none given). */
  trainingDataFits?: boolean;
  /** The CSV could not be written (an I/O error: the CLI exits 2). */
  writeFailed?: boolean;
  /** With `forReport`: the engine's full result (rows included: personal data), its timeline, and the model's features. */
  forReport?: { result: ReconstructionResult; timeline: TimelinePoint[]; features: FeatureUse[]; inputColumns?: InputColumnRecovery[] };
  /** With `keepResult`: the engine's result (rows included: personal data). */
  result?: ReconstructionResult;
}

const SOURCE_FLAGS = 'command line';

/** Fills `report.recoverability` (and `evaluation`), appends the finding; drops the kept IR. */
export async function reconstructReport(report: FileReport, options: ReconstructionStepOptions): Promise<ReconstructionStepOutcome> {
  const forest = report.forest;
  if (!forest) return {};
  delete report.forest; // the IR can be large; the report no longer needs it
  const extra = options.flagGroups.length ? [{ source: SOURCE_FLAGS, declarations: options.flagGroups }] : [];

  let result: ReconstructionResult;
  const recorder = options.forReport && options.budgetMs > 0 ? new TimelineRecorder() : undefined;
  const onProgress =
    recorder || options.onProgress
      ? (progress: ReconstructionProgress) => {
          recorder?.record(progress);
          options.onProgress?.(progress);
        }
      : undefined;
  if (options.budgetMs <= 0) {
    const declared = await declaredGroupsFor(report.path, forest, extra);
    result = new RunContext({ budgetMs: 0 }).answer({
      status: 'skipped',
      reason: 'not run: the time budget is 0 (--budget 0)',
      rows: report.model?.trainingRows ?? forest.training.rows ?? null,
      certifiedRows: 0,
    });
    report.recoverability = summarizeReconstruction(forest, result, { declared: declared.groups.length, sources: declared.sources, problems: declared.problems });
  } else {
    const assessment = await assessRecoverability(report.path, forest, {
      ...(report.model?.location ? { model: { location: report.model.location, estimator: report.model.estimator } } : {}),
      budgetMs: options.budgetMs,
      groups: extra,
      thresholds: options.thresholds,
      severities: options.severities,
      ...(onProgress ? { onProgress } : {}),
    });
    result = assessment.result;
    report.recoverability = assessment.recoverability;
    // A rule the sidecar disables for this file stays out, the reconstruction's as well.
    report.findings.push(...assessment.findings.filter((f) => !report.disabledRules?.includes(f.rule)));
  }

  const outcome: ReconstructionStepOutcome = {};
  if (options.forReport) {
    const inputColumns = inputColumnRecovery(forest, result);
    outcome.forReport = { result, timeline: recorder?.finish(result) ?? [], features: featureUse(forest), ...(inputColumns ? { inputColumns } : {}) };
  }
  let aligned: AlignedTrainingData | undefined;
  if (options.trainingData) {
    const fit = alignTrainingData(options.trainingData, forest);
    outcome.trainingDataFits = fit.ok;
    if (fit.ok) {
      aligned = fit.aligned;
      const declared = await declaredGroupsFor(report.path, forest, extra);
      // Matched by position, the CSV's own column names say which features scored best (the model's may be x0, f1).
      const named = aligned.matchedBy === 'position' && !aligned.throughPipeline ? { ...forest, features: forest.features.map((f, i) => ({ ...f, name: aligned!.featureColumns[i] ?? f.name })) } : forest;
      const evaluation = evaluateAgainstTruth(named, options.trainingData.path, aligned.matchedBy, result.reconstruction, aligned.rows, declared.groups, forest.classes, options.categorical ?? []);
      // Rows read as the input of the steps before the model whose proofs fail may be the values
      // the model itself saw instead (soundness sweep 15: the scaled rows of a tree saved beside
      // its scaler read "a bug of this tool", 95 of 500 held): said beside the check.
      const check = evaluation.certifiedCheck;
      const throughSteps = aligned.throughPipeline && check && check.held !== null && check.held < check.proven
        ? { ...evaluation, certifiedCheck: { ...check, throughSteps: true as const } }
        : evaluation;
      report.evaluation = aligned.throughPipeline ? { ...throughSteps, throughPipeline: true } : evaluation;
    } else {
      report.evaluation = {
        trainingData: options.trainingData.path,
        rowsCompared: 0,
        reconstructedRows: result.reconstructedRows,
        error: null,
        perfectRows: null,
        consistentRows: null,
        undeterminedValues: null,
        randomBaseline: null,
        problem: fit.problem,
      };
      options.log(`${report.path}: --training-data does not fit this model: ${fit.problem}`);
    }
  }

  if (options.advise && options.budgetMs > 0) report.advisor = await adviseOn(report.path, forest, result, aligned, options);
  // The command line runs the advisor as a job of its own (cli/step.ts): it gets the result back.
  if (options.keepResult) outcome.result = result;

  if (options.emitPath) outcome.writeFailed = !(await emit(report, forest, result, options.emitPath, aligned, options));
  return outcome;
}

/**
 * The what-if advisor on `result`, with the model's declared groups, scored against the training
 * data when it fits the model (`aligned`; else lined up here when given).
 */
export async function adviseOn(path: string, forest: Forest, result: ReconstructionResult, aligned: AlignedTrainingData | undefined, options: ReconstructionStepOptions) {
  const extra = options.flagGroups.length ? [{ source: SOURCE_FLAGS, declarations: options.flagGroups }] : [];
  const declared = await declaredGroupsFor(path, forest, extra);
  if (!aligned && options.trainingData) {
    const fit = alignTrainingData(options.trainingData, forest);
    if (fit.ok) aligned = fit.aligned;
  }
  return adviseForModel(forest, result, {
    budgetMs: options.budgetMs,
    groups: declared.groups,
    ...(aligned ? { truth: aligned.rows } : {}),
    ...(options.candidates ? { candidates: options.candidates } : {}),
    log: options.log,
    path,
  });
}

/** Writes the CSV; false when it could not be written. */
async function emit(report: FileReport, forest: Forest, result: ReconstructionResult, path: string, aligned: AlignedTrainingData | undefined, options: ReconstructionStepOptions): Promise<boolean> {
  if (result.reconstruction.length === 0) {
    options.log(`${report.path}: no reconstruction (${result.status}${result.reason ? `: ${result.reason}` : ''}); nothing written to ${path}`);
    return true;
  }
  const label = aligned ? (options.trainingData!.labelColumn ?? DEFAULT_LABEL_COLUMN) : DEFAULT_LABEL_COLUMN;
  // A TransformedTargetRegressor's trees prove func(y): written back as y where the function is
  // one this tool inverts, else under a column that says which scale it is (soundness sweep 16: a
  // log1p model's certified rows read 3.784 under "y" for a target of 43).
  const inverse = forest.targetTransform !== undefined ? targetInverse(forest) : undefined;
  const columns = {
    features: aligned?.featureColumns ?? forest.features.map((feature) => feature.name),
    label: forest.targetTransform !== undefined && !inverse ? `${label} [as transformed by ${forest.targetTransform}]` : label,
    numeric: intervalFeatures(forest),
    ...(inverse ? { labelValue: (value: ReconstructedRow['label']) => (typeof value === 'number' ? inverse(value) : value) } : {}),
  };
  // A Pipeline's model: the rows in the columns the Pipeline was fitted on, in their own units.
  const input = usablePipelineInput(forest);
  try {
    await fs.writeFile(path, input ? inputReconstructionCsv(result.reconstruction, { splitRule: forest.splitRule, pipelineInput: input }, columns.label) : reconstructionCsv(result.reconstruction, columns));
  } catch (error) {
    options.log(`${report.path}: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    return false;
  }
  const certified = result.reconstruction.filter((row) => row.certified).length;
  options.log(`${report.path}: reconstruction written to ${path} (${result.reconstruction.length} rows, ${certified} certified${input ? ", in the Pipeline's input columns" : ''})`);
  return true;
}
