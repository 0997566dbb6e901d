/**
 * One running reconstruction (or what-if advisor run) shown as LSP work-done progress (server-initiated: VS Code shows it in
 * the status bar, with a cancel button). Creating the progress is a request to the client, so
 * reports that come before the reply are held, and an end before the reply still ends it.
 */
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import { LateProgress } from '../lsp/late-progress';
import type { JobProgress } from './reconstruction-job';

const PHASE_WORDS: Record<JobProgress['phase'], string> = {
  cells: 'finding the cells of feature space',
  formulation: 'building the integer program',
  propagation: 'propagating the leaf counts',
  milp: 'solving the integer program (HiGHS)',
  certify: 'certifying rows',
  search: 'searching',
  advisor: 'simulating remedies',
};

/** The message and percentage VS Code shows for a progress report of the engine. */
export function describeProgress(progress: JobProgress): { message: string; percentage?: number } {
  let message = PHASE_WORDS[progress.phase];
  if (progress.phase === 'advisor' && progress.label !== 'done') message += ` (${progress.label})`;
  if ('cells' in progress && progress.cells !== undefined) message += ` (${progress.cells.toLocaleString('en-US')} found)`;
  if (progress.done !== undefined && progress.total !== undefined && progress.total > 0) {
    message += ` ${progress.done}/${progress.total}`;
    return { message, percentage: Math.min(100, Math.floor((100 * progress.done) / progress.total)) };
  }
  return { message };
}

export class ProgressDisplay {
  private readonly progress: LateProgress;
  private held: { message: string; percentage?: number } | undefined;
  /** Percentages only rise: phases without a count keep the last one. */
  private percentage = 0;

  constructor(
    create: () => Promise<WorkDoneProgressServerReporter>,
    title: string,
    private readonly fileName: string,
    onCancel: () => void,
  ) {
    this.progress = new LateProgress(create, (reporter) => {
      reporter.token.onCancellationRequested(onCancel);
      reporter.begin(title, this.percentage, `${fileName}: ${this.held?.message ?? 'starting'}`, true);
    });
  }

  report(progress: JobProgress): void {
    const { message, percentage } = describeProgress(progress);
    if (percentage !== undefined) this.percentage = Math.max(this.percentage, percentage);
    const reporter = this.progress.reporter;
    if (!reporter) {
      this.held = { message };
      return;
    }
    reporter.report(this.percentage, `${this.fileName}: ${message}`);
  }

  end(): void {
    this.progress.end();
  }
}
