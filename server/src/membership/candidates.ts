/**
 * The candidate file of `--membership FILE.csv --label COLUMN [--members-column COLUMN]` (`--label`
 * left out for an outlier detector, whose rows have none): read and
 * lined up with a model's features exactly as `--training-data` is (evaluate/training-data.ts: by
 * name, else by position, a Pipeline's raw input through its fitted steps), after setting the truth column aside so it is never taken for a feature.
 * Problems are messages (TrainingDataError for the file, `problem` for one model), never throws
 * into the caller otherwise.
 */
import type { Forest } from '../forest/schema';
import { alignTrainingData, readTrainingData, TrainingDataError, type TrainingData } from '../evaluate/training-data';
import type { Candidate } from './types';

export interface CandidateFile {
  /** The file without the truth column. */
  data: TrainingData;
  /** Truth per row (from --members-column), when given. */
  members?: boolean[];
  membersColumn?: string;
}

const YES = /^(1(\.0*)?|true|yes|y|member)$/i;
const NO = /^(0(\.0*)?|false|no|n|non-member)$/i;

export async function readCandidates(path: string, label: string | undefined, membersColumn?: string): Promise<CandidateFile> {
  let data: TrainingData;
  try {
    data = await readTrainingData(path, label);
  } catch (error) {
    if (error instanceof TrainingDataError) throw new TrainingDataError(error.message.replace(/^--training-data:/, '--membership:'));
    throw error;
  }
  if (membersColumn === undefined) return { data };
  const column = data.header.indexOf(membersColumn);
  if (column < 0) throw new TrainingDataError(`--members-column: ${path} has no column '${membersColumn}'`);
  if (membersColumn === label) throw new TrainingDataError('--members-column and --label name the same column');
  const members: boolean[] = [];
  for (let r = 0; r < data.rows.length; r++) {
    const text = data.rows[r][column].trim();
    if (YES.test(text)) members.push(true);
    else if (NO.test(text)) members.push(false);
    else throw new TrainingDataError(`--members-column: ${path}, row ${r + 1}: '${text}' is not 1/0, true/false or yes/no`);
  }
  const keep = (row: string[]) => row.filter((_, i) => i !== column);
  return { data: { ...data, header: keep(data.header), rows: data.rows.map(keep) }, members, membersColumn };
}

export function alignCandidates(
  file: CandidateFile,
  forest: Pick<Forest, 'features' | 'featureNamesFrom' | 'pipelineInput' | 'classes' | 'countedClasses' | 'logLoss'> & Partial<Pick<Forest, 'task'>>,
): { ok: true; candidates: Candidate[]; matchedBy: 'name' | 'position'; throughPipeline?: true } | { ok: false; problem: string } {
  // A candidate of a class the model never saw is simply not a member; only a file none of whose labels is a class is refused.
  const fit = alignTrainingData(file.data, forest, { unknownLabels: 'some' });
  if (!fit.ok) return fit;
  return { ok: true, candidates: fit.aligned.rows.map((row) => ({ values: row.values.map((v) => v ?? NaN), label: row.label! })), matchedBy: fit.aligned.matchedBy, ...(fit.aligned.throughPipeline ? { throughPipeline: true as const } : {}) };
}
