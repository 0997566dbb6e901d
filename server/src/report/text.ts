/** Human-readable CLI output: one block per file, one line per finding, a summary at the end. */
import type { FileReport, TrainingRowsSource } from '../linter/linter';
import type { Finding } from '../rules/types';
import type { EmbeddedSummary, ModelSummary } from '../linter/model-summary';
import { countBySeverity } from './severity';
import { formatCount, percent, plural } from '../util/wording';
import { rowsText, shareText, type Recoverability } from '../recoverability/summary';
import type { Evaluation } from '../evaluate/evaluation';
import { certifiedCheckText } from './html/format';
import { advisorLines } from '../advisor/text';
import { membershipLines } from '../membership/summary';
import { hasNoLabels } from '../forest/task';

/**
 * `recoverability: exact, 100 of 100 rows certified ...`: the reconstruction in one line, then its
 * reason one clause a line (`  - ...`, the clauses the engine joins with "; "). In one parenthesis
 * the reason ran to 600-1,100 characters on public models.
 */
export function recoverabilityLine(r: Recoverability, model?: string): string {
  // A file of several models: which one was reconstructed (the first, the one storing most nodes).
  const head = model ? `recoverability of ${model}` : 'recoverability';
  const time = `${r.seconds < 10 ? r.seconds.toFixed(2) : r.seconds.toFixed(0)} s`;
  if (r.status === 'skipped' || r.status === 'failed') return `${head}: ${r.status}${r.reason ? ` (${r.reason})` : ''}`;
  const n = r.rows ?? r.reconstructedRows;
  const withoutLabel = r.certifiedWithoutLabel ?? 0;
  const unlabelled = '(feature intervals proven, label estimated)';
  // N unknown (an unrecorded draw): the rows certified, not a share of a number nobody knows.
  const outOfN = (count: number) => (r.rows === null ? plural(count, 'training row') : `${formatCount(count)} of ${rowsText(n, r.rowsKind)} training row${n === 1 && !r.rowsKind ? '' : 's'}`);
  const share = r.rows === null ? '' : ` (${shareText(percent(r.certifiedRows, n), r.rowsKind)})`;
  const unknownN = r.rows === null ? ' (of a training set of unknown size)' : '';
  // "0 of N certified, M more certified without their label" read as a contradiction: say first what is certified.
  const certified =
    (withoutLabel > 0 && r.certifiedRows === 0
      ? `${outOfN(withoutLabel)} certified without their label ${unlabelled}`
      : `${outOfN(r.certifiedRows)} certified${share}` + (withoutLabel > 0 ? `, ${formatCount(withoutLabel)} more without their label ${unlabelled}` : '')) + unknownN;
  const rest = r.reconstructedRows - r.certifiedRows - withoutLabel;
  const estimate = rest > 0 ? `, ${formatCount(rest)} more reconstructed as an estimate` : '';
  const clauses = r.reason ? reasonClauses(r.reason) : [];
  // A short reason stays on the line, in parentheses, as it always was.
  if (clauses.length <= 1) return `${head}: ${r.status}, ${certified}${estimate}; ${r.method}, ${time}${r.reason ? ` (${r.reason})` : ''}`;
  return [`${head}: ${r.status}, ${certified}${estimate}; ${r.method}, ${time}:`, ...clauses.map((clause) => `  - ${clause}`)].join('\n');
}

/** The reason's clauses: split at "; " outside parentheses (a clause's own list keeps its semicolons). */
export function reasonClauses(reason: string): string[] {
  const clauses: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < reason.length; i++) {
    const c = reason[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ';' && depth === 0 && reason[i + 1] === ' ') {
      clauses.push(reason.slice(start, i));
      start = i + 2;
    }
  }
  clauses.push(reason.slice(start));
  return clauses.map((clause) => clause.trim()).filter((clause) => clause.length > 0);
}

/** `labelled`: false for an outlier detector, whose rows have no label for the accuracy to score. */
export function evaluationLine(e: Evaluation, labelled = true): string {
  const figures: string[] = [];
  const share = (x: number) => `${(100 * x).toFixed(0)}%`;
  if (e.error !== null) figures.push(`error ${e.error.toFixed(3)}${e.undeterminedValues ? ' (empty values count as wrong)' : ''}`);
  if (e.randomBaseline !== null) figures.push(`random baseline ${e.randomBaseline.toFixed(3)}`);
  if (e.accuracy) {
    const nearest = e.accuracy.matching === 'nearest' ? ` (${e.accuracy.sampled} sampled true rows, each against its nearest reconstructed row, not one to one: an upper bound)` : '';
    figures.push(`reconstruction accuracy ${share(e.accuracy.all)}, on ${e.accuracy.top.features.join(', ')}${labelled ? ' and the label' : ''} ${share(e.accuracy.top.accuracy)}${nearest}`);
  }
  if (e.perfectRows !== null) figures.push(`perfect rows ${share(e.perfectRows)}`);
  if (e.consistentRows !== null && e.undeterminedValues) figures.push(`rows right on every determined value ${share(e.consistentRows)}`);
  if (e.rowsCompared > 0) figures.push(`${plural(e.rowsCompared, 'true row')} compared`);
  const check = e.certifiedCheck ? certifiedCheckText(e.certifiedCheck) : undefined;
  if (check) figures.push(check);
  const through = e.throughPipeline ? " (the Pipeline's input, through its fitted steps)" : '';
  return `evaluation against ${e.trainingData}${through}: ${figures.join(', ') || 'not computed'}${e.problem ? ` (${e.problem})` : ''}`;
}

/** How N is known, when the file does not simply state it. */
const ROWS_FROM: Record<TrainingRowsSource, string> = { file: '', replay: 'from bootstrap replay', probe: 'from first-tree probing' };

/** N for the header, with how it is known and which rows it counts (early stopping's split, a fold model's rows). */
function trainingRowsText(model: ModelSummary): string {
  if (model.trainingRows === null) return '';
  const about = [ROWS_FROM[model.trainingRowsSource ?? 'file']];
  if (model.heldOut?.fitRows != null) about.push(`of ${model.heldOut.fitRows.toLocaleString('en-US')} given to fit: early stopping held out the rest`);
  if (model.crossValidation) {
    const given = model.crossValidation.fitRows !== null ? `: ${model.crossValidation.fitRows.toLocaleString('en-US')} rows given to fit` : '';
    about.push(`one of ${model.crossValidation.folds} cross-validation fold models, each fitted on the rows outside its fold${given}`);
  }
  const said = about.filter((x) => x);
  return `, ${model.trainingRows.toLocaleString('en-US')} training rows${said.length ? ` (${said.join('; ')})` : ''}`;
}

/** The file's further tree models, for the header: the first three by name and place. */
function otherModels(embedded: readonly EmbeddedSummary[]): string {
  if (embedded.length === 0) return '';
  const named = embedded.slice(0, 3).map((m) => `${m.estimator} at ${m.location}`).join(', ');
  return `; ${embedded.length === 1 ? 'one more tree model' : `${embedded.length} more tree models`}: ${named}${embedded.length > 3 ? ', ...' : ''}`;
}

export function writeText(files: FileReport[]): string {
  const lines: string[] = [];
  // The rule column is as wide as the longest rule id present, so messages line up.
  const ruleWidth = Math.max(0, ...files.flatMap((file) => file.findings.map((finding) => finding.rule.length)));
  for (const file of files) {
    const model = file.model;
    // A model inside a wrapper (a Pipeline, a VotingClassifier) is named with where it sits, and the
    // file's other tree models after it: the header named only the analysed member, so a
    // VotingClassifier read as "XGBClassifier".
    const about = model
      ? `${file.format}, ${model.estimator}${model.location ? ` at ${model.location}` : ''}, ${model.trees.toLocaleString('en-US')} tree${model.trees === 1 ? '' : 's'}` +
        trainingRowsText(model) +
        ((model.outputs ?? 1) > 1 ? `, ${model.outputs} outputs (the first read)` : '') +
        otherModels(file.embedded ?? [])
      : file.format;
    lines.push(`${file.path}  (${about})`);
    if (file.findings.length === 0) lines.push('  no findings');
    // Positions (JSON models: the first tree's line) in a column of their own, so that findings with
    // and without one line up. The file's very start says nothing: `save_model` writes the whole
    // model on one line, where a finding sits at the line's start (formats/xgboost LONG_LINE), and
    // a lone `1:1` before one finding read as a stray mark. SARIF and JSON keep it (annotations).
    const whereOf = (finding: Finding) => {
      const start = finding.location.range?.start;
      return start && (start.line > 0 || start.character > 0) ? `${start.line + 1}:${start.character + 1}  ` : '';
    };
    const whereWidth = Math.max(0, ...file.findings.map((finding) => whereOf(finding).length));
    for (const finding of file.findings) {
      const where = whereOf(finding).padEnd(whereWidth);
      const head = `  ${where}${finding.severity.padEnd(11)} ${finding.rule.padEnd(ruleWidth)} `;
      // the detail (the message's second line) under the first, aligned
      lines.push(`${head}${finding.message.split('\n').join(`\n${' '.repeat(head.length)}`)}`);
    }
    if (file.recoverability) {
      const which = file.embedded?.length ? (file.model?.location ?? 'model') : undefined;
      lines.push(...recoverabilityLine(file.recoverability, which).split('\n').map((line) => `  ${line}`));
      const { declared, sources, problems } = file.recoverability.groups;
      if (declared > 0) lines.push(`  declared groups: ${declared} (${sources.join(', ')})`);
      for (const problem of problems) lines.push(`  declared groups: ${problem}`);
    }
    if (file.evaluation) lines.push(`  ${evaluationLine(file.evaluation, !hasNoLabels(file.model))}`);
    if (file.advisor) lines.push(...advisorLines(file.advisor).map((line) => `  ${line}`));
    if (file.membership) lines.push(...membershipLines(file.membership).map((line) => `  ${line}`));
    lines.push('');
  }
  const counts = countBySeverity(files);
  lines.push(
    `${files.length} file${files.length === 1 ? '' : 's'}: ${counts.error} error(s), ${counts.warning} warning(s), ` +
      `${counts.information} information, ${counts.hint} hint(s)`,
  );
  return `${lines.join('\n')}\n`;
}
